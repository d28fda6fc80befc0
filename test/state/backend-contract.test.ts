/**
 * One contract for every state backend (src/state/backend.ts): the file backend in a temporary
 * directory, the PostgreSQL backend against a real server this file starts (Debian's
 * `postgresql`, which .ci/run installs), the Kubernetes backend against the fake API server
 * (test/helpers/fake-kube.ts) through the real client, and against a real cluster when
 * STACKSYNC_TEST_KUBECONFIG names a kubeconfig (its namespace: STACKSYNC_TEST_KUBE_NAMESPACE,
 * default `default`), and the S3 backend through the real AWS SDK against a fake S3 on loopback
 * that enforces conditional writes (test/helpers/fake-s3.ts). Each row of BACKENDS makes a
 * fresh, empty state; every test runs on each.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StateBackend } from '../../src/state/backend.js';
import { openFileBackend } from '../../src/state/file-backend.js';
import { openPostgresBackend } from '../../src/state/postgres.js';
import { StacksyncError } from '../../src/errors.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { openS3Backend } from '../../src/state/s3.js';
import { startFakeS3, type FakeS3 } from '../helpers/fake-s3.js';
import { openKubernetesBackend } from '../../src/state/kubernetes.js';
import { startFakeKube, type FakeKube } from '../helpers/fake-kube.js';
import * as k8s from '@kubernetes/client-node';
import pg from 'pg';

/** Dummy credentials: the fake checks no signature, and the SDK's chain is never asked. */
const FAKE_S3_CREDENTIALS = { accessKeyId: 'AKIAFAKEFAKEFAKE', secretAccessKey: 'fake-secret-not-used' };

let postgres: RunningPostgres;
let s3: FakeS3;

let kube: FakeKube;
let kubeconfig: string;
let scratch: string;
const realKubeconfig = process.env['STACKSYNC_TEST_KUBECONFIG'];
const realNamespace = process.env['STACKSYNC_TEST_KUBE_NAMESPACE'] ?? 'default';
/** Names of this run's states in a real cluster, so that runs never share one. */
const runId = Math.random().toString(36).slice(2, 8);
let made = 0;
const opened: StateBackend[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'stacksync-backend-'));
  postgres = await startPostgres();
  s3 = await startFakeS3({ buckets: ['contract'] });
  kube = await startFakeKube({ namespaces: ['stacksync'] });
  kubeconfig = await kube.writeKubeconfig(join(scratch, 'kubeconfig'));
}, 60_000);

afterAll(async () => {
  for (const backend of opened) await backend.close();
  await postgres?.stop();
  await s3?.close();
  await kube?.stop();
  if (realKubeconfig) await removeRealStates(realKubeconfig, realNamespace, `stacksync-test-${runId}-`);
  await rm(scratch, { recursive: true, force: true });
});

interface BackendRow {
  name: string;
  /** A fresh, empty state; `again()` opens the same state as a second process would. */
  make(): Promise<{ backend: StateBackend; again(): StateBackend }>;
}

function track(backend: StateBackend): StateBackend {
  opened.push(backend);
  return backend;
}

const BACKENDS: BackendRow[] = [
  {
    name: 'file',
    async make() {
      const path = join(scratch, `state-${(made += 1)}`, 'state.json');
      return { backend: track(openFileBackend(path)), again: () => track(openFileBackend(path)) };
    },
  },
  {
    name: 'postgres',
    async make() {
      const name = `state-${(made += 1)}`;
      return {
        backend: track(openPostgresBackend({ url: postgres.url, name })),
        again: () => track(openPostgresBackend({ url: postgres.url, name })),
      };
    },
  },
  {
    name: 's3',
    async make() {
      const key = `states/state-${(made += 1)}.json`;
      const open = () =>
        track(
          openS3Backend({
            bucket: 'contract',
            key,
            region: 'eu-west-1',
            endpoint: s3.endpoint,
            forcePathStyle: true,
            credentials: FAKE_S3_CREDENTIALS,
          }),
        );
      return { backend: open(), again: open };
    },
  },
  {
    name: 'kubernetes',
    async make() {
      const name = `state-${(made += 1)}`;
      const open = () => track(openKubernetesBackend({ namespace: 'stacksync', name, kubeconfig }));
      return { backend: open(), again: open };
    },
  },
  ...(realKubeconfig
    ? [
        {
          name: 'kubernetes (real cluster)',
          async make() {
            const name = `stacksync-test-${runId}-${(made += 1)}`;
            const open = () =>
              track(openKubernetesBackend({ namespace: realNamespace, name, kubeconfig: realKubeconfig }));
            return { backend: open(), again: open };
          },
        },
      ]
    : []),
];

describe.skipIf(realKubeconfig !== undefined)('state backend: kubernetes (real cluster)', () => {
  it.skip('runs only when STACKSYNC_TEST_KUBECONFIG names a kubeconfig (namespace: STACKSYNC_TEST_KUBE_NAMESPACE, default `default`)', () =>
    undefined);
});

const owned = (id: string) => ({
  type: 'owned' as const,
  kind: 'Dashboard' as const,
  key: `dash-${id}`,
  id,
  name: `Dash ${id}`,
});

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error instanceof StacksyncError ? error.code : String(error);
  }
}

describe.each(BACKENDS)('state backend: $name', (row) => {
  it('starts empty, with no holder and no key', async () => {
    const { backend } = await row.make();
    const store = await backend.open({ readOnly: true });
    expect(store.snapshot().targets).toEqual({});
    expect(await backend.holder()).toBeUndefined();
    expect(await backend.hmacKey()).toBeUndefined();
  });

  it('keeps what a holder saved, for the next process, also when it never compacted (a crash)', async () => {
    const { backend, again } = await row.make();
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const store = await backend.open();
    store.add('prod', owned('a1'));
    await store.save();
    store.add('prod', owned('a2'));
    await store.save();
    // No compact, no release: the process is gone.
    const other = again();
    const seen = await other.open({ readOnly: true });
    expect(Object.keys(seen.get('prod').inventory.Dashboard).sort()).toEqual(['dash-a1', 'dash-a2']);
    await store.close();
    await lock.release();
  });

  it('keeps every acknowledged record of many concurrent saves, each resource’s in order, when the holder then crashes', async () => {
    const { backend, again } = await row.make();
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const store = await backend.open();
    const acknowledged: string[] = [];
    // As the executor does: an intent saved before the create, the result saved after it.
    const create = async (i: number): Promise<void> => {
      store.add('prod', {
        type: 'intent',
        kind: 'Dashboard',
        key: `dash-g${i}`,
        name: `Dash g${i}`,
        at: new Date(0).toISOString(),
      });
      await store.save();
      await new Promise((resolve) => setImmediate(resolve));
      store.add('prod', owned(`g${i}`), { type: 'spec', kind: 'Dashboard', key: `dash-g${i}`, spec: `digest-${i}` });
      await store.save();
      acknowledged.push(`dash-g${i}`);
    };
    const creates = Array.from({ length: 60 }, (_, i) => create(i));
    // A compaction asked for among them waits for the saves in flight and loses none after it.
    const compacted = new Promise((resolve) => setImmediate(resolve)).then(() => store.compact());
    await Promise.all([...creates, compacted]);
    store.add('prod', owned('late'));
    await store.save();
    // No close, no release: the process is gone.
    const seen = (await again().open({ readOnly: true })).get('prod');
    expect(Object.keys(seen.inventory.Dashboard).sort()).toEqual([...acknowledged, 'dash-late'].sort());
    for (let i = 0; i < 60; i += 1) expect(seen.inventory.Dashboard[`dash-g${i}`]?.spec).toBe(`digest-${i}`);
    expect(seen.intents).toEqual([]);
    await store.close();
    await lock.release();
  });

  it('compacts, and reads the same after', async () => {
    const { backend, again } = await row.make();
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const store = await backend.open();
    store.add('prod', owned('b1'));
    await store.save();
    await store.close();
    await lock.release();
    const seen = await again().open({ readOnly: true });
    expect(seen.get('prod').inventory.Dashboard['dash-b1']?.id).toBe('b1');
  });

  it('counts writes in its serial where it keeps one', async () => {
    const { backend } = await row.make();
    const before = await backend.version();
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const store = await backend.open();
    store.add('prod', owned('c1'));
    await store.save();
    await lock.release();
    const after = await backend.version();
    if (after.serial === undefined) {
      expect(before.serial).toBeUndefined();
    } else {
      // A state never written before (a new file) has no serial: its first write gives it one.
      expect(after.serial).toBeGreaterThan(before.serial ?? 0);
      expect(after.lineage).toMatch(/^[0-9a-f-]{36}$/);
      if (before.lineage !== undefined) expect(after.lineage).toBe(before.lineage);
    }
  });

  it('lets one holder at a time have the lock, naming it to whoever waits', async () => {
    const { backend, again } = await row.make();
    const first = await backend.lock({ command: 'run', timeoutMs: 0 });
    const second = again();
    const waited: string[] = [];
    const refused = await codeOf(
      second.lock({ command: 'apply', timeoutMs: 120, onWait: (holder) => waited.push(holder.command) }),
    );
    expect(refused).toBe('E_STATE_LOCKED');
    expect(waited).toEqual(['run']);
    expect((await second.holder())?.token).toBe(first.holder.token);
    await first.release();
    expect(await second.holder()).toBeUndefined();
    const taken = await second.lock({ command: 'apply', timeoutMs: 0 });
    expect((await backend.holder())?.command).toBe('apply');
    await taken.release();
  });

  it('breaks a lock by its id only, naming its holder', async () => {
    const { backend, again } = await row.make();
    const held = await backend.lock({ command: 'run', timeoutMs: 0 });
    const operator = again();
    expect(await operator.unlock('not-the-id')).toBeUndefined();
    expect((await operator.unlock(held.holder.token))?.command).toBe('run');
    const taken = await operator.lock({ command: 'apply', timeoutMs: 2_000 });
    await taken.release();
    held.releaseSync();
  });

  it('refuses every write of a holder that lost its lock, where it fences', async () => {
    const { backend, again } = await row.make();
    if (!backend.fenced) return;
    const stale = await backend.lock({ command: 'run', timeoutMs: 0 });
    const staleStore = await backend.open();
    const operator = again();
    await operator.unlock(stale.holder.token);
    const next = await operator.lock({ command: 'apply', timeoutMs: 2_000 });
    const nextStore = await operator.open();
    nextStore.add('prod', owned('d-new'));
    await nextStore.save();
    staleStore.add('prod', {
      type: 'intent',
      kind: 'Dashboard',
      key: 'dash-late',
      name: 'Late',
      at: new Date(0).toISOString(),
    });
    expect(await codeOf(staleStore.save())).toBe('E_STATE_LOCKED');
    await next.release();
    const seen = await again().open({ readOnly: true });
    expect(seen.get('prod').intents).toEqual([]);
    expect(Object.keys(seen.get('prod').inventory.Dashboard)).toEqual(['dash-d-new']);
  });

  it('refuses to write without the lock, where it fences', async () => {
    const { backend } = await row.make();
    if (!backend.fenced) return;
    const store = await backend.open();
    store.add('prod', owned('e1'));
    expect(await codeOf(store.save())).toBe('E_STATE_LOCKED');
  });

  it('never writes through a read-only store', async () => {
    const { backend } = await row.make();
    const store = await backend.open({ readOnly: true });
    expect(() => store.add('prod', owned('f1'))).toThrow(StacksyncError);
  });

  it('keeps the first HMAC key it was given', async () => {
    const { backend, again } = await row.make();
    const first = Buffer.alloc(32, 1);
    const second = Buffer.alloc(32, 2);
    expect(await backend.hmacKey(first)).toEqual(first);
    expect(await again().hmacKey(second)).toEqual(first);
    expect(await again().hmacKey()).toEqual(first);
  });
});

describe('the PostgreSQL backend', () => {
  it('never shows the password of its URL', async () => {
    const backend = track(
      openPostgresBackend({ url: `postgres://stacksync:hunter2-secret@127.0.0.1:${postgres.port}/nowhere`, name: 'x' }),
    );
    expect(backend.location).not.toContain('hunter2-secret');
    const error = await backend.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StacksyncError);
    expect(String((error as Error).message)).not.toContain('hunter2-secret');
  });

  it('replays the records stored in order when a batch between them never committed (saves in flight at once)', async () => {
    const name = `state-${(made += 1)}`;
    const backend = track(openPostgresBackend({ url: postgres.url, name }));
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const store = await backend.open();
    for (const id of ['h1', 'h2', 'h3']) {
      store.add('prod', owned(id));
      await store.save();
    }
    // What a crash leaves when the batch of h2 was in flight while h3's committed.
    await sql(`DELETE FROM stacksync_state_records WHERE name = $1 AND record LIKE '%"dash-h2"%'`, [name]);
    const seen = await track(openPostgresBackend({ url: postgres.url, name })).open({ readOnly: true });
    expect(Object.keys(seen.get('prod').inventory.Dashboard).sort()).toEqual(['dash-h1', 'dash-h3']);
    lock.releaseSync();
  });

  it('drops at a compaction only the records its snapshot holds', async () => {
    const name = `state-${(made += 1)}`;
    const backend = track(openPostgresBackend({ url: postgres.url, name }));
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const store = await backend.open();
    store.add('prod', owned('i1'));
    await store.save();
    // A record numbered past what this store has made, as a batch committing after the snapshot was taken would be.
    const later = `${JSON.stringify({ seq: 1000, target: 'prod', ...owned('i-later') })}\n`;
    await sql('INSERT INTO stacksync_state_records (name, seq, record) VALUES ($1, 1000, $2)', [name, later]);
    await store.compact();
    const rows = await sql('SELECT seq FROM stacksync_state_records WHERE name = $1', [name]);
    expect(rows.map((r) => Number(r['seq']))).toEqual([1000]);
    const seen = await track(openPostgresBackend({ url: postgres.url, name })).open({ readOnly: true });
    expect(Object.keys(seen.get('prod').inventory.Dashboard).sort()).toEqual(['dash-i-later', 'dash-i1']);
    lock.releaseSync();
  });

  it('hands the lock to a waiter as soon as a holder is killed (its session drops)', async () => {
    const name = `state-${(made += 1)}`;
    const holder = track(openPostgresBackend({ url: postgres.url, name }));
    const held = await holder.lock({ command: 'run', timeoutMs: 0 });
    const waiter = track(openPostgresBackend({ url: postgres.url, name }));
    const taking = waiter.lock({ command: 'run', timeoutMs: 10_000 });
    // What kill -9 does to the connection: the server sees it close.
    held.releaseSync();
    const taken = await taking;
    expect(taken.holder.command).toBe('run');
    await taken.release();
  });
});

/** Runs one statement on the test server, beside the backend (what another writer or a crash leaves). */
async function sql(text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** Deletes the Secrets and Leases this run made in a real cluster. */
async function removeRealStates(kubeconfigPath: string, namespace: string, prefix: string): Promise<void> {
  const config = new k8s.KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const core = config.makeApiClient(k8s.CoreV1Api);
  const coordination = config.makeApiClient(k8s.CoordinationV1Api);
  const labelSelector = 'app.kubernetes.io/managed-by=stacksync';
  for (const secret of (await core.listNamespacedSecret({ namespace, labelSelector })).items) {
    const name = secret.metadata?.name ?? '';
    if (name.startsWith(prefix)) await core.deleteNamespacedSecret({ name, namespace }).catch(() => undefined);
  }
  for (const lease of (await coordination.listNamespacedLease({ namespace, labelSelector })).items) {
    const name = lease.metadata?.name ?? '';
    if (name.startsWith(prefix)) await coordination.deleteNamespacedLease({ name, namespace }).catch(() => undefined);
  }
}
