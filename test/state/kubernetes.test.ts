/**
 * What the Kubernetes state backend does beyond the contract every backend passes
 * (backend-contract.test.ts): snapshots split into Secrets below 1 MiB, the Lease's fields, a
 * lease taken over once it expired (on an injected clock, never a timed assert), a holder whose
 * lease was taken or ran out that can never write, 409 on a stale write, and errors that name no
 * secret. Against the fake API server (test/helpers/fake-kube.ts), through the real client.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StacksyncError } from '../../src/errors.js';
import type { StateBackend } from '../../src/state/backend.js';
import { openKubernetesBackend, SECRET_DATA_LIMIT } from '../../src/state/kubernetes.js';
import type { LockHolder } from '../../src/state/lock.js';
import { startFakeKube, type FakeKube } from '../helpers/fake-kube.js';

const NS = 'stacksync';
let kube: FakeKube;
let scratch: string;
let kubeconfig: string;
let made = 0;
const opened: StateBackend[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'stacksync-kube-'));
  kube = await startFakeKube({ namespaces: [NS] });
  kubeconfig = await kube.writeKubeconfig(join(scratch, 'kubeconfig'));
});

afterAll(async () => {
  for (const backend of opened) await backend.close();
  await kube?.stop();
  await rm(scratch, { recursive: true, force: true });
});

function backendNamed(
  name: string,
  options: { now?: () => number; kubeconfig?: string; context?: string } = {},
): StateBackend {
  const backend = openKubernetesBackend({
    namespace: NS,
    name,
    kubeconfig: options.kubeconfig ?? kubeconfig,
    ...options,
  });
  opened.push(backend);
  return backend;
}

function fresh(): string {
  return `kube-${(made += 1)}`;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error instanceof StacksyncError ? error.code : String(error);
  }
}

async function errorOf(promise: Promise<unknown>): Promise<StacksyncError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StacksyncError);
  return error as StacksyncError;
}

/** A clock the test moves: `sleep` advances it and yields, so a waiter's polls cost no real time. */
function fakeClock(start = Date.UTC(2026, 0, 1)): {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  advance: (ms: number) => void;
} {
  let time = start;
  return {
    now: () => time,
    sleep: async (ms) => {
      time += ms;
      await new Promise((resolve) => setImmediate(resolve));
    },
    advance: (ms) => {
      time += ms;
    },
  };
}

const owned = (id: string, name = `Dash ${id}`) => ({
  type: 'owned' as const,
  kind: 'Dashboard' as const,
  key: `dash-${id}`,
  id,
  name,
});

describe('the fake API server, through the real client', () => {
  it('answers as the API server does: 404 and 409 as Status objects, conflicts on a stale resourceVersion, MicroTime only', async () => {
    const config = new k8s.KubeConfig();
    config.loadFromFile(kubeconfig);
    const core = config.makeApiClient(k8s.CoreV1Api);
    const coordination = config.makeApiClient(k8s.CoordinationV1Api);
    const status = async (promise: Promise<unknown>) => {
      const error = (await promise.then(
        () => undefined,
        (caught: unknown) => caught,
      )) as k8s.ApiException<string>;
      expect(error).toBeInstanceOf(k8s.ApiException);
      return { code: error.code, body: JSON.parse(error.body) as { kind: string; reason: string } };
    };
    expect(await status(core.readNamespacedSecret({ name: 'nothing', namespace: NS }))).toMatchObject({
      code: 404,
      body: { kind: 'Status', reason: 'NotFound' },
    });
    const body: k8s.V1Secret = {
      metadata: { name: 'fake-check', labels: { a: '1' } },
      data: { x: Buffer.from('one').toString('base64') },
    };
    const created = await core.createNamespacedSecret({ namespace: NS, body });
    expect(await status(core.createNamespacedSecret({ namespace: NS, body }))).toMatchObject({
      code: 409,
      body: { reason: 'AlreadyExists' },
    });
    const first = created.metadata?.resourceVersion ?? '';
    const replaced = await core.replaceNamespacedSecret({
      name: 'fake-check',
      namespace: NS,
      body: { ...body, metadata: { ...body.metadata, resourceVersion: first } },
    });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(first));
    expect(
      await status(
        core.replaceNamespacedSecret({
          name: 'fake-check',
          namespace: NS,
          body: { ...body, metadata: { ...body.metadata, resourceVersion: first } },
        }),
      ),
    ).toMatchObject({ code: 409, body: { reason: 'Conflict' } });
    expect(
      (await core.listNamespacedSecret({ namespace: NS, labelSelector: 'a=1' })).items.map(
        (item) => item.metadata?.name,
      ),
    ).toEqual(['fake-check']);
    expect((await core.listNamespacedSecret({ namespace: NS, labelSelector: 'a=2' })).items).toEqual([]);
    await core.deleteNamespacedSecret({ name: 'fake-check', namespace: NS });
    expect(await status(core.readNamespacedSecret({ name: 'fake-check', namespace: NS }))).toMatchObject({ code: 404 });
    // A plain Date is sent with milliseconds, which a MicroTime field refuses; V1MicroTime has six digits.
    const lease = (time: Date): k8s.V1Lease => ({
      metadata: { name: 'fake-lease' },
      spec: { holderIdentity: 'x', leaseDurationSeconds: 5, renewTime: time },
    });
    expect(await status(coordination.createNamespacedLease({ namespace: NS, body: lease(new Date()) }))).toMatchObject({
      code: 400,
    });
    await coordination.createNamespacedLease({ namespace: NS, body: lease(new k8s.V1MicroTime()) });
    expect((kube.get('leases', NS, 'fake-lease')?.['spec'] as { renewTime: string }).renewTime).toMatch(/\.\d{6}Z$/);
    expect(await status(core.readNamespacedSecret({ name: 'x', namespace: 'elsewhere' }))).toMatchObject({ code: 404 });
  });
});

describe('the Kubernetes state backend', () => {
  it('splits a snapshot larger than one Secret may be into parts below 1 MiB, and reads it back whole', async () => {
    const name = fresh();
    const backend = backendNamed(name);
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const store = await backend.open();
    // Random names do not compress: about 3 MB of state, more than 1 MiB once gzipped.
    for (let index = 0; index < 12_000; index += 1)
      store.add('prod', owned(`r${index}`, randomBytes(120).toString('hex')));
    await store.save();
    const parts = kube
      .list('secrets', NS)
      .filter(
        (secret) =>
          secret.metadata.labels?.['stacksync.io/role'] === 'part' &&
          secret.metadata.labels['stacksync.io/state'] === name,
      );
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const secret of [...parts, kube.get('secrets', NS, name)]) {
      const bytes = Object.values((secret?.['data'] ?? {}) as Record<string, string>).reduce(
        (sum, value) => sum + Buffer.from(value, 'base64').length,
        0,
      );
      expect(bytes).toBeLessThan(SECRET_DATA_LIMIT);
    }
    const seen = await backendNamed(name).open({ readOnly: true });
    expect(Object.keys(seen.get('prod').inventory.Dashboard)).toHaveLength(12_000);
    expect(seen.get('prod').inventory.Dashboard['dash-r11999']?.id).toBe('r11999');

    // A compaction to a small state leaves no part behind.
    for (let index = 0; index < 12_000; index += 1)
      store.add('prod', { type: 'forgotten', kind: 'Dashboard', key: `dash-r${index}` });
    await store.compact();
    expect(
      kube
        .list('secrets', NS)
        .filter((secret) => secret.metadata.labels?.['stacksync.io/state'] === name)
        .map((secret) => secret.metadata.name),
    ).toEqual([name]);
    expect(Object.keys((await backendNamed(name).open({ readOnly: true })).get('prod').inventory.Dashboard)).toEqual(
      [],
    );
    await lock.release();
  }, 60_000);

  it('keeps its lock in a Lease with the fields the API has, and the holder in an annotation', async () => {
    const name = fresh();
    const clock = fakeClock();
    const lock = await backendNamed(name, { now: clock.now }).lock({
      command: 'run',
      timeoutMs: 0,
      leaseMs: 15_000,
      now: clock.now,
    });
    const lease = kube.get('leases', NS, `${name}-lock`);
    const spec = lease?.['spec'] as Record<string, unknown>;
    expect(spec).toMatchObject({
      holderIdentity: lock.holder.token,
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:00.000000Z',
    });
    expect(JSON.parse(lease?.metadata.annotations?.['stacksync.io/holder'] ?? '{}')).toEqual(lock.holder);
    await lock.release();
    expect(
      (kube.get('leases', NS, `${name}-lock`)?.['spec'] as Record<string, unknown>)['holderIdentity'],
    ).toBeUndefined();
  });

  it("takes over a lease its holder stopped renewing, after its duration on the waiter's own clock; the old holder can never write again", async () => {
    const name = fresh();
    const holder = backendNamed(name);
    // Renewals every 20 s of real time: none happens during the test, as if the holder were gone.
    const old = await holder.lock({ command: 'run', timeoutMs: 0, leaseMs: 60_000 });
    const oldStore = await holder.open();
    oldStore.add('prod', owned('before'));
    await oldStore.save();

    const clock = fakeClock();
    const waited: LockHolder[] = [];
    const taker = backendNamed(name, { now: clock.now });
    const taken = await taker.lock({
      command: 'apply',
      timeoutMs: 120_000,
      leaseMs: 60_000,
      now: clock.now,
      sleep: clock.sleep,
      onWait: (who) => waited.push(who),
    });
    expect(waited.map((who) => who.token)).toEqual([old.holder.token]);
    // Not before the lease's 60 s had passed on the waiter's clock since it first saw it.
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBeGreaterThanOrEqual(60_000);
    const spec = kube.get('leases', NS, `${name}-lock`)?.['spec'] as Record<string, unknown>;
    expect(spec).toMatchObject({ holderIdentity: taken.holder.token, leaseTransitions: 1 });

    // Refused by the Lease alone: nobody wrote the state since the old holder read it.
    oldStore.add('prod', {
      type: 'intent',
      kind: 'Dashboard',
      key: 'dash-late',
      name: 'Late',
      at: new Date(0).toISOString(),
    });
    expect(await codeOf(oldStore.save())).toBe('E_STATE_LOCKED');
    const newStore = await taker.open();
    newStore.add('prod', owned('after'));
    await newStore.save();
    expect(await codeOf(oldStore.save())).toBe('E_STATE_LOCKED');
    expect(await codeOf(oldStore.compact())).toBe('E_STATE_LOCKED');
    expect(old.lost.aborted).toBe(true);
    const seen = await backendNamed(name).open({ readOnly: true });
    expect(Object.keys(seen.get('prod').inventory.Dashboard).sort()).toEqual(['dash-after', 'dash-before']);
    expect(seen.get('prod').intents).toEqual([]);
    await taken.release();
  });

  it('takes over an unrenewed lease when tried once per poll, as a standby daemon tries, counting from its first sight of it', async () => {
    const name = fresh();
    const holder = backendNamed(name);
    // Renewals every 20 s of real time: none happens during the test, as if the holder had been killed.
    const old = await holder.lock({ command: 'run --leader-elect', timeoutMs: 0, leaseMs: 60_000 });
    const clock = fakeClock();
    const standby = backendNamed(name, { now: clock.now });
    const tryOnce = () =>
      standby.lock({ command: 'run --leader-elect', timeoutMs: 0, leaseMs: 60_000, now: clock.now });
    const tries: (string | undefined)[] = [];
    for (let elapsed = 0; elapsed < 60_000; elapsed += 12_000) {
      tries.push(await codeOf(tryOnce()));
      clock.advance(12_000);
    }
    expect(tries).toEqual(Array(5).fill('E_STATE_LOCKED'));
    // 60 s since this process first saw the Lease unchanged: expired.
    const taken = await tryOnce();
    expect((kube.get('leases', NS, `${name}-lock`)?.['spec'] as Record<string, unknown>)['holderIdentity']).toBe(
      taken.holder.token,
    );
    await taken.release();
    old.releaseSync();
  });

  it('waits while the lease keeps changing (its holder renews), and gives up naming it', async () => {
    const name = fresh();
    const holder = backendNamed(name);
    const held = await holder.lock({ command: 'run', timeoutMs: 0, leaseMs: 60_000 });
    const clock = fakeClock();
    const waiter = backendNamed(name, { now: clock.now });
    let polls = 0;
    const error = await errorOf(
      waiter.lock({
        command: 'apply',
        timeoutMs: 20_000,
        now: clock.now,
        // Each poll, the holder renews (what its background renewal does in real time).
        sleep: async (ms) => {
          polls += 1;
          await clock.sleep(ms);
          await renewAsIs(name);
        },
      }),
    );
    expect(polls).toBeGreaterThan(3);
    expect(error.code).toBe('E_STATE_LOCKED');
    expect(error.message).toContain(`lock id ${held.holder.token}`);
    await held.release();
  });

  it('stops writing once its own lease ran out unrenewed, before another may take it', async () => {
    const name = fresh();
    const clock = fakeClock();
    const backend = backendNamed(name, { now: clock.now });
    const lock = await backend.lock({ command: 'run', timeoutMs: 0, leaseMs: 15_000, now: clock.now });
    const store = await backend.open();
    store.add('prod', owned('in-time'));
    await store.save();
    // Two thirds of the lease without a renewal: a third is left before a waiter may take it.
    clock.advance(10_000);
    store.add('prod', owned('too-late'));
    expect(await codeOf(store.save())).toBe('E_STATE_LOCKED');
    expect(lock.lost.aborted).toBe(true);
    const seen = await backendNamed(name).open({ readOnly: true });
    expect(Object.keys(seen.get('prod').inventory.Dashboard)).toEqual(['dash-in-time']);
  });

  it('renews its lease in the background, and counts it lost when a renewal finds another holder', async () => {
    const name = fresh();
    const backend = backendNamed(name);
    const lock = await backend.lock({ command: 'run', timeoutMs: 0, leaseMs: 3_000 });
    const renewTime = () => (kube.get('leases', NS, `${name}-lock`)?.['spec'] as { renewTime?: string }).renewTime;
    const first = renewTime();
    await until(() => renewTime() !== first);
    // Broken from elsewhere: the next renewal sees another identity and gives up.
    await backendNamed(name).unlock(lock.holder.token);
    await until(() => lock.lost.aborted);
    expect(String(lock.lost.reason)).toMatch(/another holder/);
  }, 20_000);

  it('keeps its lease through a renewal the API refused once: it tries again well before the deadline', async () => {
    const name = fresh();
    const backend = backendNamed(name);
    // Renewals every 2 s; lost after 4 s without one. The first renewal's write fails.
    kube.failNext(new RegExp(`^PUT .*/leases/${name}-lock$`), 500, 1);
    const lock = await backend.lock({ command: 'run', timeoutMs: 0, leaseMs: 6_000 });
    const renewTime = () => (kube.get('leases', NS, `${name}-lock`)?.['spec'] as { renewTime?: string }).renewTime;
    const first = renewTime();
    await until(() => renewTime() !== first || lock.lost.aborted);
    expect(lock.lost.aborted).toBe(false);
    expect(
      kube.requests.filter(
        (request) => request === `PUT /apis/coordination.k8s.io/v1/namespaces/${NS}/leases/${name}-lock`,
      ).length,
    ).toBeGreaterThanOrEqual(2);
    await lock.release();
  }, 20_000);

  it('refuses a write made on a stale read: the API answers 409 to its resourceVersion', async () => {
    const name = fresh();
    const backend = backendNamed(name);
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const first = await backend.open();
    first.add('prod', owned('one'));
    await first.save();
    const second = await backend.open();
    first.add('prod', owned('two'));
    await first.save();
    const conflicts = kube.requests.length;
    second.add('prod', owned('stale'));
    const error = await errorOf(second.save());
    expect(error.code).toBe('E_STATE_LOCKED');
    expect(error.message).toMatch(/409 Conflict/);
    expect(kube.requests.slice(conflicts)).toContain(`PUT /api/v1/namespaces/${NS}/secrets/${name}`);
    const seen = await backendNamed(name).open({ readOnly: true });
    expect(Object.keys(seen.get('prod').inventory.Dashboard).sort()).toEqual(['dash-one', 'dash-two']);
    await lock.release();
  });

  it('counts its serial and keeps one lineage across writes', async () => {
    const name = fresh();
    const backend = backendNamed(name);
    expect(await backend.version()).toEqual({ lineage: undefined, serial: 0 });
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const store = await backend.open();
    store.add('prod', owned('s1'));
    await store.save();
    const once = await backend.version();
    store.add('prod', owned('s2'));
    await store.save();
    await store.close();
    const after = await backend.version();
    expect(after.lineage).toBe(once.lineage);
    expect(after.serial).toBe((once.serial ?? 0) + 2);
    await lock.release();
  });

  it('says in words what the API refused, naming no token', async () => {
    const name = fresh();
    const wrong = join(scratch, 'wrong-token');
    await writeFile(wrong, (await readFile(kubeconfig, 'utf8')).replace(kube.token, 'not-the-token-s3cr3t'));
    const unauthorised = await errorOf(backendNamed(name, { kubeconfig: wrong }).open());
    expect(unauthorised.message).toMatch(/refused the credentials \(401\)/);
    expect(unauthorised.message).not.toContain('s3cr3t');

    kube.failNext(new RegExp(`/secrets/${name}$`), 403);
    const forbidden = await errorOf(backendNamed(name).open());
    expect(forbidden.message).toMatch(/forbidden \(403\).*secrets and leases in namespace stacksync/);
    expect(forbidden.message).not.toContain(kube.token);

    const lock = await backendNamed(name).lock({ command: 'apply', timeoutMs: 0 });
    const missing = openKubernetesBackend({ namespace: 'nowhere', name, kubeconfig });
    opened.push(missing);
    expect((await errorOf(missing.hmacKey(Buffer.alloc(32)))).message).toMatch(/does namespace nowhere exist/);
    await lock.release();
  });

  it('finds its kubeconfig through the KUBECONFIG it is given, merging the files it lists', async () => {
    const extra = join(scratch, 'extra-kubeconfig');
    await writeFile(
      extra,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: elsewhere',
        'clusters:',
        '- name: elsewhere',
        '  cluster:',
        '    server: https://192.0.2.1',
        'contexts:',
        '- name: elsewhere',
        '  context:',
        '    cluster: elsewhere',
        '    user: nobody',
        'users:',
        '- name: nobody',
        '  user: {}',
        '',
      ].join('\n'),
    );
    const backend = openKubernetesBackend({
      namespace: NS,
      name: fresh(),
      env: { KUBECONFIG: [kubeconfig, extra].join(':') },
    });
    opened.push(backend);
    // The first file's context wins, as with kubectl: the fake answers.
    expect(await backend.version()).toEqual({ lineage: undefined, serial: 0 });
    expect(backend.location).toContain(kube.url);
  });

  it('refuses a kubeconfig it cannot use, naming the file but never its contents', async () => {
    const unknown = await errorOf(Promise.resolve().then(() => backendNamed(fresh(), { context: 'nope' })));
    expect(unknown).toMatchObject({ code: 'E_CONFIG_INVALID' });
    expect(unknown.message).toMatch(/has no context nope/);
    const noCluster = await errorOf(Promise.resolve().then(() => backendNamed(fresh(), { context: 'other' })));
    expect(noCluster.message).toMatch(/names no cluster/);
    const broken = join(scratch, 'broken');
    await writeFile(broken, `clusters: [ { token: ${kube.token}\n`);
    const unreadable = await errorOf(Promise.resolve().then(() => backendNamed(fresh(), { kubeconfig: broken })));
    expect(unreadable.code).toBe('E_CONFIG_INVALID');
    expect(unreadable.message).toContain(broken);
    expect(unreadable.message).not.toContain(kube.token);
    const absent = await errorOf(
      Promise.resolve().then(() => backendNamed(fresh(), { kubeconfig: join(scratch, 'absent') })),
    );
    expect(absent.message).toMatch(/ENOENT/);
  });
});

/** Replaces the lease as it is, which gives it a new resourceVersion: a renewal, as a waiter sees it. */
async function renewAsIs(name: string): Promise<void> {
  const config = new k8s.KubeConfig();
  config.loadFromFile(kubeconfig);
  const coordination = config.makeApiClient(k8s.CoordinationV1Api);
  const lease = await coordination.readNamespacedLease({ name: `${name}-lock`, namespace: NS });
  await coordination.replaceNamespacedLease({
    name: `${name}-lock`,
    namespace: NS,
    body: { ...lease, spec: { ...lease.spec, renewTime: new k8s.V1MicroTime() } },
  });
}

/** Polls until `done`, for what a background timer does; the test's own timeout bounds it. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 50));
}
