/**
 * The state in Kubernetes end to end, through the built CLI against the emulator and the fake API
 * server (test/helpers/fake-kube.ts): apply, then a clean `plan --detailed-exitcode` from the
 * Secrets; `state show` names the backend, lineage and serial; an apply waits for a Lease another
 * holds and `state unlock` breaks it; a file state migrated into it plans clean; the kubeconfig is
 * found beside the config file, also through `KUBECONFIG`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { openKubernetesBackend } from '../../src/state/kubernetes.js';
import { dashboardYaml, describeRun } from '../helpers/e2e.js';
import { startFakeKube, type FakeKube } from '../helpers/fake-kube.js';
import { expectHeldLockThenUnlock } from '../helpers/shared-state.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const FAST = { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } };
const NS = 'stacksync';

/** Points a workspace's config at the Kubernetes state `name`, with a kubeconfig beside the config file. */
async function useKubernetes(workspace: Workspace, kube: FakeKube, name: string): Promise<string> {
  const path = await kube.writeKubeconfig(join(workspace.dir, 'config', 'kubeconfig'));
  const config = await readFile(workspace.configPath, 'utf8');
  await writeFile(
    workspace.configPath,
    config.replace(
      /^state: .*$/m,
      `state: { backend: kubernetes, namespace: ${NS}, name: ${name}, kubeconfig: kubeconfig }`,
    ),
  );
  return path;
}

describe('the state in Kubernetes', () => {
  let emulator: RunningEmulator;
  let kube: FakeKube;
  const workspaces: Workspace[] = [];
  const workspace = async (): Promise<Workspace> => {
    const made = await createWorkspace(emulator.url, FAST);
    workspaces.push(made);
    return made;
  };

  beforeAll(async () => {
    [emulator, kube] = await Promise.all([startTestEmulator(), startFakeKube({ namespaces: [NS] })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workspaces.map((w) => w.dispose()));
    await emulator?.close();
    await kube?.stop();
  });

  it('applies, then plans clean from the Secrets; state show names lineage and serial', async () => {
    const ws = await workspace();
    await useKubernetes(ws, kube, 'shared');
    await ws.write('manifests/a.yaml', dashboardYaml({ key: 'kube-a', target: 'local' }));
    await ws.write('manifests/b.yaml', dashboardYaml({ key: 'kube-b', target: 'local-selfhosted' }));
    const applied = await ws.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const plan = await ws.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
    expect(kube.get('secrets', NS, 'shared')?.metadata.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'stacksync',
      'stacksync.io/state': 'shared',
    });
    expect(kube.get('secrets', NS, 'shared-key')).toBeDefined();

    const shown = await ws.run(['state', 'show', '--output', 'json']);
    expect(shown.code, describeRun(shown)).toBe(0);
    const summary = JSON.parse(shown.stdout) as {
      backend: string;
      location: string;
      serial: number;
      lineage: string;
      lock: unknown;
    };
    expect(summary).toMatchObject({
      backend: 'kubernetes',
      lock: null,
      targets: { local: { resources: { Dashboard: 1 } }, 'local-selfhosted': { resources: { Dashboard: 1 } } },
    });
    expect(summary.location).toContain(`namespace ${NS}, secret shared`);
    expect(summary.serial).toBeGreaterThan(0);
    expect(summary.lineage).toMatch(/^[0-9a-f-]{36}$/);
    const text = await ws.run(['state', 'show']);
    expect(text.stdout).toContain(`lineage   ${summary.lineage}`);
    expect(text.stdout).toContain(`serial    ${summary.serial}`);
    expect(text.stdout).toMatch(/target local: 1 Dashboard/);
    expect(`${text.stdout}${text.stderr}`).not.toContain(kube.token);
  });

  it('takes a file state by migrate --to, and the copy plans clean', async () => {
    const ws = await workspace();
    await ws.write('manifests/m.yaml', dashboardYaml({ key: 'kube-migrated', target: 'local' }));
    const applied = await ws.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const fileConfig = await readFile(ws.configPath, 'utf8');
    await kube.writeKubeconfig(join(ws.dir, 'config', 'kubeconfig'));
    await ws.write(
      'config/kubernetes.yaml',
      fileConfig.replace(
        /^state: .*$/m,
        `state: { backend: kubernetes, namespace: ${NS}, name: migrated, kubeconfig: kubeconfig }`,
      ),
    );
    const migrated = await ws.run(['state', 'migrate', '--to', 'config/kubernetes.yaml']);
    expect(migrated.code, describeRun(migrated)).toBe(0);
    expect(migrated.stdout).toMatch(
      /copied 2 target\(s\) from .*state\.json to kubernetes .* secret migrated, and read them back the same/,
    );
    const plan = await ws.run(['plan', '--detailed-exitcode', '-c', 'config/kubernetes.yaml']);
    expect(plan.code, describeRun(plan)).toBe(0);
  });

  it('makes apply wait for a Lease another holds while a plan reads without it; unlock breaks it by its id', async () => {
    const ws = await workspace();
    const kubeconfig = await useKubernetes(ws, kube, 'locked');
    await ws.write('manifests/l.yaml', dashboardYaml({ key: 'kube-locked', target: 'local' }));
    const other = openKubernetesBackend({ namespace: NS, name: 'locked', kubeconfig });
    const held = await other.lock({ command: 'run', timeoutMs: 0 });
    await expectHeldLockThenUnlock({ ws, emulatorUrl: emulator.url, other, held, dashboard: 'kube-locked' });
    // Without kubeconfig: in the config, KUBECONFIG names it.
    const config = await readFile(ws.configPath, 'utf8');
    await writeFile(ws.configPath, config.replace(', kubeconfig: kubeconfig }', ' }'));
    const plan = await ws.run(['plan', '--detailed-exitcode'], { env: { KUBECONFIG: kubeconfig } });
    expect(plan.code, describeRun(plan)).toBe(0);
  });
});
