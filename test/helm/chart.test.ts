/**
 * The Helm chart, checked without a cluster: rendered by test/helm/render.ts (always) and by a
 * real helm binary when one is on PATH or named by STACKSYNC_TEST_HELM (`helm lint`, and
 * `helm template` must give the same objects as our renderer). The rendered objects are checked
 * for what an operator relies on: probes, security context, env and config wiring, git-sync; the
 * kubernetes state backend's name within its rules for any release name (and `stacksync validate`
 * on the rendered config, so `npm run build` first), and its Role enforced by the fake API server
 * (test/helpers/fake-kube.ts) while the backend runs.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { parseConfigText } from '../../src/config/load.js';
import { STATE_BACKEND_KINDS, type StateBackend } from '../../src/state/backend.js';
import { openKubernetesBackend } from '../../src/state/kubernetes.js';
import { startFakeKube, type RbacRule } from '../helpers/fake-kube.js';
import { renderChart, TemplateError } from './render.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHART = join(ROOT, 'helm', 'stacksync');
const RELEASE = { name: 'rel', namespace: 'platform' };

// Rendered Kubernetes objects, only read in assertions: loose typing keeps the checks legible.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

function valuesFile(path: string): Obj {
  return parse(readFileSync(join(ROOT, path), 'utf8')) as Obj;
}

function toObjects(files: Iterable<string>): Obj[] {
  return [...files].flatMap((text) =>
    parseAllDocuments(text).flatMap((doc) => {
      if (doc.errors.length > 0)
        throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message ?? ''}\n${text}`);
      const value = doc.toJS() as Obj | null;
      return value ? [value] : [];
    }),
  );
}

function render(values: Obj, release: { name: string; namespace: string } = RELEASE) {
  const chart = renderChart(CHART, [values], release);
  const objects = toObjects(chart.files.values());
  const find = (kind: string): Obj | undefined => objects.find((object) => object.kind === kind);
  const get = (kind: string): Obj => {
    const object = find(kind);
    if (!object) throw new Error(`no ${kind} rendered; kinds: ${objects.map((o) => o.kind).join(', ')}`);
    return object;
  };
  return { objects, notes: chart.notes, find, get, kinds: objects.map((object) => object.kind as string).sort() };
}

function podOf(workload: Obj): Obj {
  return workload.spec.template.spec as Obj;
}

function container(pod: Obj, name: string): Obj {
  const found = [...(pod.containers as Obj[]), ...((pod.initContainers as Obj[] | undefined) ?? [])].find(
    (item) => item.name === name,
  );
  if (!found) throw new Error(`no container ${name}`);
  return found;
}

function arg(item: Obj, flag: string): string | undefined {
  const prefix = `--${flag}=`;
  return (item.args as string[]).find((each) => each.startsWith(prefix))?.slice(prefix.length);
}

function fromEnvNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(fromEnvNames);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  if (typeof record['fromEnv'] === 'string') return [record['fromEnv']];
  return Object.values(record).flatMap(fromEnvNames);
}

const DEPLOYMENT_CASES: [string, string][] = [
  ['minimal values', 'test/helm/values-minimal.yaml'],
  ['full values', 'test/helm/values-full.yaml'],
  ['the git-sync example', 'examples/helm/git-sync-values.yaml'],
];

describe.each(DEPLOYMENT_CASES)('deployment mode, %s', (_label, file) => {
  const input = valuesFile(file);
  const rendered = render(input);
  const deployment = rendered.get('Deployment');
  const pod = podOf(deployment);
  const stacksync = container(pod, 'stacksync');
  const gitSync = container(pod, 'git-sync');
  const merged: Obj = { port: 9464, ...input, gitSync: { link: 'current', ...(input.gitSync as Obj) } };

  const backend = ((input.state as Obj | undefined)?.backend as string | undefined) ?? 'kubernetes';

  it('renders parseable objects of the expected kinds; one replica on a state file, else replicas that elect a leader', () => {
    expect(rendered.kinds).toEqual(expect.arrayContaining(['ConfigMap', 'Deployment', 'Service', 'ServiceAccount']));
    expect(rendered.kinds).not.toContain('Job');
    if (backend === 'file') {
      expect(deployment.spec.replicas).toBe(1);
      expect(deployment.spec.strategy.type).toBe('Recreate');
      expect(stacksync.args).not.toContain('--leader-elect');
    } else {
      expect(deployment.spec.replicas).toBe((input.replicaCount as number | undefined) ?? 2);
      expect(deployment.spec.strategy.type).toBe('RollingUpdate');
      expect(stacksync.args).toContain('--leader-elect');
      expect(arg(stacksync, 'lease-duration')).toBe('15s');
    }
  });

  it('probes /healthz (liveness) and /readyz (readiness) on the port stacksync listens on', () => {
    expect(stacksync.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(stacksync.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    const port = (stacksync.ports as Obj[]).find((item) => item.name === 'metrics');
    expect(port?.containerPort).toBe(merged.port);
    expect(arg(stacksync, 'listen')).toBe(`0.0.0.0:${String(merged.port)}`);
    const service = rendered.get('Service');
    expect(service.spec.ports[0].targetPort).toBe('metrics');
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
  });

  it('runs every container non-root, read-only, without capabilities, under seccomp RuntimeDefault', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    // Only the kubernetes state backend talks to the API.
    expect(pod.automountServiceAccountToken).toBe(backend === 'kubernetes');
    for (const item of [...(pod.containers as Obj[]), ...((pod.initContainers as Obj[] | undefined) ?? [])]) {
      expect(item.securityContext, item.name as string).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(item.securityContext.runAsUser ?? pod.securityContext.runAsUser, item.name as string).toBeGreaterThan(0);
      expect(item.resources?.limits?.memory, item.name as string).toBeDefined();
    }
  });

  it('mounts only volumes that exist, with a state file on /var/lib/stacksync and the config read-only', () => {
    const volumes = new Set((pod.volumes as Obj[]).map((volume) => volume.name as string));
    for (const item of [...(pod.containers as Obj[]), ...((pod.initContainers as Obj[] | undefined) ?? [])]) {
      for (const mount of item.volumeMounts as Obj[])
        expect(volumes.has(mount.name as string), `${item.name as string}: ${mount.name as string}`).toBe(true);
    }
    const mounts = Object.fromEntries((stacksync.volumeMounts as Obj[]).map((mount) => [mount.mountPath, mount]));
    if (backend === 'file') expect(mounts['/var/lib/stacksync']?.name).toBe('state');
    else expect(volumes.has('state')).toBe(false);
    expect(mounts['/etc/stacksync']).toMatchObject({ name: 'config', readOnly: true });
    expect(mounts['/git']).toMatchObject({ name: 'git', readOnly: true });
  });

  it('renders a config the stacksync config loader accepts, with the state on the volume', () => {
    const configMap = rendered.get('ConfigMap');
    expect(arg(stacksync, 'config')).toBe('/etc/stacksync/stacksync.yaml');
    const volume = (pod.volumes as Obj[]).find((item) => item.name === 'config');
    expect(volume?.configMap.name).toBe(configMap.metadata.name);
    const text = configMap.data['stacksync.yaml'] as string;
    if (backend === 'kubernetes') {
      // In the release's namespace, named after the release.
      expect((parse(text) as Obj).state).toEqual({
        backend: 'kubernetes',
        namespace: RELEASE.namespace,
        name: `${String(deployment.metadata.name)}-state`,
      });
      // The loader checks it once this build has the kubernetes backend.
      if (!(STATE_BACKEND_KINDS as readonly string[]).includes('kubernetes')) return;
    }
    const outcome = parseConfigText(text, {
      file: '/etc/stacksync/stacksync.yaml',
      path: '/etc/stacksync/stacksync.yaml',
    });
    if (!outcome.ok) throw new Error(outcome.problems.map((problem) => problem.message).join('\n'));
    if (backend === 'file')
      expect(outcome.config.state).toEqual({ backend: 'file', path: '/var/lib/stacksync/state.json' });
    else expect(outcome.config.state.backend).toBe(backend);
    expect(outcome.config.targets.map((target) => target.name)).toEqual(
      (input.config.targets as Obj[]).map((target) => target.name),
    );
  });

  it('gives stacksync every env var the config refers to, from a Secret, and no value in the pod', () => {
    const config = rendered.get('ConfigMap').data['stacksync.yaml'] as string;
    const wanted = fromEnvNames(parse(config));
    expect(wanted.length).toBeGreaterThan(0);
    const secretName = (stacksync.envFrom as Obj[] | undefined)?.[0]?.secretRef?.name as string | undefined;
    expect(secretName).toBeDefined();
    const credentials = (input.credentials ?? {}) as Obj;
    if (credentials.existingSecret) {
      expect(secretName).toBe(credentials.existingSecret);
      expect(rendered.find('Secret')).toBeUndefined();
    } else {
      const secret = rendered.get('Secret');
      expect(secret.metadata.name).toBe(secretName);
      expect(Object.keys(secret.stringData as Obj)).toEqual(expect.arrayContaining(wanted));
      const podText = JSON.stringify(deployment);
      for (const value of Object.values(credentials.env as Obj)) expect(podText).not.toContain(value as string);
    }
  });

  it('wires git-sync: shared checkout, manifests path, reload webhook, credentials from a Secret', () => {
    expect(arg(gitSync, 'repo')).toBe(merged.gitSync.repo);
    expect(arg(gitSync, 'root')).toBe('/git');
    expect(arg(gitSync, 'link')).toBe(merged.gitSync.link);
    expect(arg(gitSync, 'webhook-url')).toBe(`http://localhost:${String(merged.port)}/-/reload`);
    // stacksync answers the reload with 202, not git-sync's default 200.
    expect(arg(gitSync, 'webhook-success-status')).toBe('202');
    expect(arg(stacksync, 'manifests')?.startsWith(`/git/${String(merged.gitSync.link)}`)).toBe(true);
    const init = (pod.initContainers as Obj[] | undefined)?.find((item) => item.name === 'git-sync-init');
    expect(init?.args).toContain('--one-time');
    const auth = (merged.gitSync.auth ?? { type: 'none' }) as Obj;
    const text = JSON.stringify(gitSync);
    if (auth.type === 'https') {
      expect(gitSync.env).toEqual(
        expect.arrayContaining([
          { name: 'GITSYNC_PASSWORD', valueFrom: { secretKeyRef: { name: auth.existingSecret, key: 'password' } } },
        ]),
      );
    }
    if (auth.type === 'ssh') {
      expect(arg(gitSync, 'ssh-key-file')).toBe('/etc/git-secret/ssh');
      expect((pod.volumes as Obj[]).find((item) => item.name === 'git-secret')?.secret.secretName).toBe(
        auth.existingSecret,
      );
    }
    expect(text).not.toMatch(/password=|token=/i);
  });

  it('keeps a state file on a claim when persistence is on, and warns in NOTES when it is not', () => {
    if (backend !== 'file') {
      expect(rendered.find('PersistentVolumeClaim')).toBeUndefined();
      expect(rendered.notes).not.toContain('WARNING');
      return;
    }
    const state = (pod.volumes as Obj[]).find((item) => item.name === 'state');
    const persistence = {
      ...(valuesFile('helm/stacksync/values.yaml').state.persistence as Obj),
      ...((input.state as Obj | undefined)?.persistence as Obj | undefined),
    };
    if (persistence.enabled) {
      expect(state?.persistentVolumeClaim?.claimName).toBeDefined();
      if (!persistence.existingClaim)
        expect(rendered.get('PersistentVolumeClaim').metadata.name).toBe(state?.persistentVolumeClaim.claimName);
      expect(rendered.notes).not.toContain('WARNING');
    } else {
      expect(state?.emptyDir).toEqual({});
      expect(rendered.notes).toContain('WARNING: the state file is on an emptyDir');
    }
  });
});

describe('chart options', () => {
  it('full values: ServiceMonitor on the metrics port, overrides applied', () => {
    const rendered = render(valuesFile('test/helm/values-full.yaml'));
    const monitor = rendered.get('ServiceMonitor');
    expect(monitor.spec.endpoints).toEqual([
      { port: 'metrics', path: '/metrics', interval: '15s', scrapeTimeout: '5s' },
    ]);
    expect(monitor.metadata.labels.release).toBe('kube-prometheus-stack');
    const stacksync = container(podOf(rendered.get('Deployment')), 'stacksync');
    expect(stacksync.image).toBe('registry.example.com/platform/stacksync:0.1.0');
    expect(stacksync.args).toEqual(
      expect.arrayContaining(['--dry-run', '--log-level=debug', '--manifests=/git/head/clusters/prod/stacksync']),
    );
    expect(rendered.get('ServiceAccount').metadata.name).toBe('stacksync-sa');
  });

  it('job mode: one `apply` as a post-install/upgrade hook, git-sync cloning once, no Service', () => {
    const rendered = render(valuesFile('test/helm/values-job.yaml'));
    expect(rendered.kinds).not.toContain('Deployment');
    expect(rendered.kinds).not.toContain('Service');
    const job = rendered.get('Job');
    expect(job.metadata.annotations['helm.sh/hook']).toBe('post-install,post-upgrade');
    const pod = podOf(job);
    expect(pod.restartPolicy).toBe('Never');
    const stacksync = container(pod, 'stacksync');
    expect(stacksync.args[0]).toBe('apply');
    expect(stacksync.args).toContain('--prune');
    expect(stacksync.livenessProbe).toBeUndefined();
    expect(container(pod, 'git-sync-init').args).toContain('--one-time');
    expect(pod.volumes.find((volume: Obj) => volume.name === 'state').persistentVolumeClaim.claimName).toBe(
      'stacksync-state',
    );
    expect(rendered.find('PersistentVolumeClaim')).toBeUndefined();
  });

  it.each(['deployment', 'job'])(
    '%s mode keeps the state in Secrets and a Lease by default: RBAC for them in its namespace, no volume',
    (mode) => {
      const rendered = render({ ...valuesFile('test/helm/values-minimal.yaml'), mode });
      expect(rendered.find('PersistentVolumeClaim')).toBeUndefined();
      const workload = rendered.get(mode === 'job' ? 'Job' : 'Deployment');
      expect((podOf(workload).volumes as Obj[]).map((volume) => volume.name)).not.toContain('state');
      const role = rendered.get('Role');
      expect(role.metadata.namespace ?? RELEASE.namespace).toBe(RELEASE.namespace);
      const verbs = ['get', 'list', 'create', 'update', 'delete'];
      expect(role.rules).toEqual([
        { apiGroups: [''], resources: ['secrets'], verbs },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs },
      ]);
      const binding = rendered.get('RoleBinding');
      expect(binding.roleRef).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: role.metadata.name,
      });
      expect(binding.subjects).toEqual([
        { kind: 'ServiceAccount', name: podOf(workload).serviceAccountName, namespace: RELEASE.namespace },
      ]);
      expect(rendered.get('ServiceAccount').automountServiceAccountToken).toBe(true);
      expect(rendered.notes).toContain('Secrets named after rel-stacksync-state in namespace platform');
      // Without RBAC from the chart (the cluster's own), no Role.
      expect(
        render({ ...valuesFile('test/helm/values-minimal.yaml'), mode, rbac: { create: false } }).find('Role'),
      ).toBeUndefined();
    },
  );

  it('grants the kubernetes state backend all it calls: a fake API server enforcing the rendered Role serves a whole run', async () => {
    const rendered = render(valuesFile('test/helm/values-minimal.yaml'));
    const rules = rendered.get('Role').rules as RbacRule[];
    const { namespace, name } = (parse(rendered.get('ConfigMap').data['stacksync.yaml'] as string) as Obj).state as {
      namespace: string;
      name: string;
    };
    const kube = await startFakeKube({ namespaces: [namespace], rules });
    const dir = await mkdtemp(join(tmpdir(), 'stacksync-chart-'));
    const opened: StateBackend[] = [];
    const open = async (): Promise<StateBackend> => {
      const backend = openKubernetesBackend({
        namespace,
        name,
        kubeconfig: await kube.writeKubeconfig(join(dir, 'kubeconfig'), { namespace }),
      });
      opened.push(backend);
      return backend;
    };
    try {
      const leader = await open();
      expect(await leader.hmacKey(randomBytes(32))).toHaveLength(32);
      const lock = await leader.lock({ command: 'run --leader-elect', timeoutMs: 0 });
      const store = await leader.open();
      // Random names do not compress: a snapshot in part Secrets, then compacted small, which deletes them.
      for (let index = 0; index < 12_000; index += 1)
        store.add('prod', {
          type: 'owned',
          kind: 'Dashboard',
          key: `dash-${index}`,
          id: String(index),
          name: randomBytes(120).toString('hex'),
        });
      await store.save();
      for (let index = 0; index < 12_000; index += 1)
        store.add('prod', { type: 'forgotten', kind: 'Dashboard', key: `dash-${index}` });
      await store.compact();
      await lock.release();
      // Another holder, broken by `state unlock` from a third process, as the docs describe.
      const other = await (await open()).lock({ command: 'apply', timeoutMs: 0 });
      expect((await (await open()).unlock(other.holder.token))?.token).toBe(other.holder.token);
      other.releaseSync();
      // Every verb a Secret needs was asked for (so none of the Role's is there for nothing), and none was refused.
      expect([...kube.verbs].filter((verb) => verb.endsWith(' secrets')).sort()).toEqual(
        ['create', 'delete', 'get', 'list', 'update'].map((verb) => `${verb} secrets`),
      );
      for (const used of kube.verbs) {
        const [verb = '', resource = ''] = used.split(' ');
        expect(
          rules.some((rule) => rule.resources.includes(resource) && rule.verbs.includes(verb)),
          used,
        ).toBe(true);
      }
    } finally {
      for (const backend of opened) await backend.close();
      await kube.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('the fake API server refuses what a Role does not grant, so the test above can fail', async () => {
    const rules = (render(valuesFile('test/helm/values-minimal.yaml')).get('Role').rules as RbacRule[]).map((rule) => ({
      ...rule,
      verbs: rule.verbs.filter((verb) => verb !== 'update'),
    }));
    const kube = await startFakeKube({ namespaces: ['platform'], rules });
    const dir = await mkdtemp(join(tmpdir(), 'stacksync-chart-'));
    const backend = openKubernetesBackend({
      namespace: 'platform',
      name: 'no-update',
      kubeconfig: await kube.writeKubeconfig(join(dir, 'kubeconfig')),
    });
    try {
      const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
      const store = await backend.open();
      store.add('prod', { type: 'owned', kind: 'Dashboard', key: 'dash-a', id: 'a', name: 'A' });
      await store.save();
      store.add('prod', { type: 'owned', kind: 'Dashboard', key: 'dash-b', id: 'b', name: 'B' });
      await expect(store.save()).rejects.toThrow(
        /forbidden \(403\): the account needs get, list, create, update and delete on secrets and leases/,
      );
      lock.releaseSync();
    } finally {
      await backend.close();
      await kube.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['a short release', 'rel'],
    ['a release name of 53 characters, the most helm allows', 'platform-observability-pipelines-production-eu-west-1'],
    ['a release named after the chart', 'stacksync-platform-observability-pipelines-production'],
  ])(
    "names the state after %s within the backend's rules: a DNS label of at most 40 characters `stacksync validate -c` accepts",
    async (_label, release) => {
      const rendered = render(valuesFile('test/helm/values-minimal.yaml'), { name: release, namespace: 'platform' });
      const text = rendered.get('ConfigMap').data['stacksync.yaml'] as string;
      const { name } = (parse(text) as Obj).state as { name: string };
      expect(name.length).toBeLessThanOrEqual(40);
      expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?-state$/);
      expect(name.startsWith(String(rendered.get('Deployment').metadata.name).slice(0, 20))).toBe(true);
      const outcome = parseConfigText(text, {
        file: '/etc/stacksync/stacksync.yaml',
        path: '/etc/stacksync/stacksync.yaml',
      });
      if (!outcome.ok) throw new Error(outcome.problems.map((problem) => problem.message).join('\n'));
      expect(outcome.config.state).toEqual({ backend: 'kubernetes', namespace: 'platform', name });
      expect(rendered.notes).toContain(`Secrets named after ${name} in namespace platform`);
      // The built CLI, as an operator checks the ConfigMap's config (validate opens no state).
      const dir = await mkdtemp(join(tmpdir(), 'stacksync-chart-'));
      try {
        await mkdir(join(dir, 'manifests'));
        await writeFile(join(dir, 'stacksync.yaml'), text);
        const validated = await exec(
          process.execPath,
          [join(ROOT, 'dist', 'cli.js'), 'validate', '-c', join(dir, 'stacksync.yaml'), '-m', join(dir, 'manifests')],
          { env: { ...process.env, NO_COLOR: '1' } },
        ).catch((error: { stdout?: string; stderr?: string }) => ({
          stdout: error.stdout ?? '',
          stderr: `failed: ${error.stderr ?? String(error)}`,
        }));
        expect(validated.stderr).not.toMatch(/failed|E_CONFIG/);
        expect(validated.stdout).toContain('validate ok: 0 errors, 0 warnings');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );

  it('a readiness probe on /readyz lets a RollingUpdate of the elected replicas go one at a time', () => {
    const deployment = render(valuesFile('test/helm/values-minimal.yaml')).get('Deployment');
    expect(deployment.spec.strategy.type).toBe('RollingUpdate');
    expect(container(podOf(deployment), 'stacksync').readinessProbe.httpGet.path).toBe('/readyz');
  });

  it.each([
    [
      'postgres',
      { backend: 'postgres' },
      { backend: 'postgres', url: { fromEnv: 'STACKSYNC_STATE_URL' }, name: 'default' },
    ],
    [
      's3',
      { backend: 's3', s3: { bucket: 'team-state', region: 'eu-west-1' } },
      { backend: 's3', bucket: 'team-state', key: 'stacksync/state.json', region: 'eu-west-1' },
    ],
  ])(
    'with backend %s: its config, replicas that elect a leader, no volume, no RBAC, no token',
    (_name, state, want) => {
      const rendered = render({ ...valuesFile('test/helm/values-minimal.yaml'), state });
      expect((parse(rendered.get('ConfigMap').data['stacksync.yaml'] as string) as Obj).state).toEqual(want);
      const deployment = rendered.get('Deployment');
      expect(deployment.spec.replicas).toBe(2);
      expect(container(podOf(deployment), 'stacksync').args).toContain('--leader-elect');
      expect(rendered.find('PersistentVolumeClaim')).toBeUndefined();
      expect(rendered.find('Role')).toBeUndefined();
      expect(podOf(deployment).automountServiceAccountToken).toBe(false);
    },
  );

  it('backend s3 needs a bucket', () => {
    expect(() => render({ ...valuesFile('test/helm/values-minimal.yaml'), state: { backend: 's3' } })).toThrow(
      /state\.s3\.bucket is required/,
    );
  });

  it.each(['deployment', 'job'])(
    '%s mode with backend file keeps the state on a PersistentVolumeClaim, kept on uninstall',
    (mode) => {
      const rendered = render({ ...valuesFile('test/helm/values-minimal.yaml'), mode, state: { backend: 'file' } });
      const claim = rendered.get('PersistentVolumeClaim');
      const workload = rendered.get(mode === 'job' ? 'Job' : 'Deployment');
      const state = (podOf(workload).volumes as Obj[]).find((volume) => volume.name === 'state');
      expect(state?.persistentVolumeClaim?.claimName).toBe(claim.metadata.name);
      expect(state?.emptyDir).toBeUndefined();
      expect(claim.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
      expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
      expect(rendered.notes).not.toContain('WARNING');
    },
  );

  it('NOTES say where the state is, what losing it costs, and how to recover with adopt', () => {
    for (const mode of ['deployment', 'job']) {
      const { notes } = render({ ...valuesFile('test/helm/values-minimal.yaml'), mode, state: { backend: 'file' } });
      expect(notes).toContain('PersistentVolumeClaim rel-stacksync-state');
      expect(notes).toMatch(/adopt/);
      expect(notes).toContain('apply --adopt');
      expect(notes).toMatch(/credentials? (are|is) sent again|re-sen[dt]/);
    }
    const elected = render(valuesFile('test/helm/values-minimal.yaml')).notes;
    expect(elected).toContain('apply --adopt');
    expect(elected).toContain('--replicas=0');
    const trial = render({
      ...valuesFile('test/helm/values-minimal.yaml'),
      state: { backend: 'file', persistence: { enabled: false } },
    });
    expect(trial.find('PersistentVolumeClaim')).toBeUndefined();
    expect(trial.notes).toContain('WARNING: the state file is on an emptyDir');
  });

  it('the defaults alone refuse to render, naming what is missing', () => {
    expect(() => render({})).toThrow(/config\.targets is empty/);
    const targets = valuesFile('test/helm/values-minimal.yaml').config as Obj;
    expect(() => render({ config: targets })).toThrow(/gitSync\.repo is required/);
    expect(() => render({ config: targets })).toThrow(TemplateError);
  });

  it('values.yaml documents every top-level key it has', () => {
    const text = readFileSync(join(CHART, 'values.yaml'), 'utf8');
    const lines = text.split('\n');
    for (const key of Object.keys(parse(text) as Obj)) {
      const at = lines.findIndex((line) => line.startsWith(`${key}:`));
      const before = lines.slice(Math.max(0, at - 3), at).join('\n');
      expect(before, key).toMatch(/#/);
    }
  });
});

/** A helm binary: STACKSYNC_TEST_HELM, else `helm` on PATH; undefined when there is none. */
function findHelm(): string | undefined {
  const candidates = [
    process.env['STACKSYNC_TEST_HELM'],
    ...(process.env['PATH'] ?? '').split(delimiter).map((dir) => join(dir, 'helm')),
  ];
  return candidates.find((path): path is string => {
    if (!path) return false;
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const helm = findHelm();
const VALUES_FILES = [
  'test/helm/values-minimal.yaml',
  'test/helm/values-full.yaml',
  'test/helm/values-job.yaml',
  'examples/helm/git-sync-values.yaml',
];

describe.skipIf(!helm)(`with a helm binary (${helm ?? 'none on PATH; set STACKSYNC_TEST_HELM to use one'})`, () => {
  it.each(VALUES_FILES)('helm lint passes with %s', async (file) => {
    const { stdout } = await exec(helm as string, ['lint', CHART, '--strict', '-f', join(ROOT, file)]);
    expect(stdout).toContain('0 chart(s) failed');
  });

  it('helm template refuses a misspelt value through values.schema.json', async () => {
    const args = [
      'template',
      RELEASE.name,
      CHART,
      '-f',
      join(ROOT, 'test/helm/values-minimal.yaml'),
      '--set',
      'config.sync.prun=true',
    ];
    await expect(exec(helm as string, args)).rejects.toMatchObject({
      stderr: expect.stringMatching(/prun/) as unknown,
    });
  });

  it.each(VALUES_FILES)('helm template gives the same objects as test/helm/render.ts for %s', async (file) => {
    const { stdout } = await exec(helm as string, [
      'template',
      RELEASE.name,
      CHART,
      '--namespace',
      RELEASE.namespace,
      '-f',
      join(ROOT, file),
    ]);
    const key = (object: Obj): string => `${object.kind as string}/${object.metadata.name as string}`;
    const byKey = (objects: Obj[]) => Object.fromEntries(objects.map((object) => [key(object), object]));
    expect(byKey(render(valuesFile(file)).objects)).toEqual(byKey(toObjects([stdout])));
  });
});
