/**
 * What the S3 state backend adds to the contract every backend passes
 * (test/state/backend-contract.test.ts): leases that run out and are taken over, a holder whose
 * lease was taken that can never write again, conditional writes that race, and the refusal of a
 * store that ignores conditions. Driven through the real AWS SDK against the fake S3 on loopback
 * (test/helpers/fake-s3.ts); clocks are injected, so nothing here waits on wall time to decide.
 * With STACKSYNC_TEST_S3_BUCKET set (and AWS credentials in the SDK's chain) the same lifecycle
 * also runs against that real bucket.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StacksyncError } from '../../src/errors.js';
import type { StateBackend } from '../../src/state/backend.js';
import type { LockHolder } from '../../src/state/lock.js';
import { openS3Backend, type S3BackendOptions } from '../../src/state/s3.js';
import { startFakeS3, type FakeS3 } from '../helpers/fake-s3.js';

const CREDENTIALS = { accessKeyId: 'AKIAFAKEFAKEFAKE', secretAccessKey: 'hunter2-not-a-real-secret' };
const owned = (id: string) => ({
  type: 'owned' as const,
  kind: 'Dashboard' as const,
  key: `dash-${id}`,
  id,
  name: `Dash ${id}`,
});

let s3: FakeS3;
let made = 0;
const opened: StateBackend[] = [];

beforeAll(async () => {
  s3 = await startFakeS3({ buckets: ['state'] });
});
afterAll(async () => {
  for (const backend of opened) await backend.close();
  await s3?.close();
});

function backendAt(key: string, extra: Partial<S3BackendOptions> = {}): StateBackend {
  const backend = openS3Backend({
    bucket: 'state',
    key,
    region: 'eu-west-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: CREDENTIALS,
    ...extra,
  });
  opened.push(backend);
  return backend;
}

const freshKey = (): string => `s3-test/state-${(made += 1)}.json`;

async function failure(promise: Promise<unknown>): Promise<StacksyncError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof StacksyncError)) throw new Error(`expected a StacksyncError, got ${String(error)}`);
  return error;
}

/** Waits until `check` holds, looking every few milliseconds (an event the test cannot subscribe to). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

function lostSignal(signal: AbortSignal): Promise<unknown> {
  return signal.aborted
    ? Promise.resolve(signal.reason)
    : new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

describe('the S3 state backend', () => {
  it('keeps the state in one object, the lock and the HMAC key beside it, with a lineage and serial', async () => {
    const key = freshKey();
    const backend = backendAt(key);
    const lock = await backend.lock({ command: 'apply', timeoutMs: 0 });
    const lockObject = JSON.parse(s3.text('state', `${key}.lock`) ?? '{}') as LockHolder & { expires: number };
    expect(lockObject).toMatchObject({ command: 'apply', token: lock.holder.token, pid: process.pid });
    expect(lockObject.expires).toBeGreaterThan(Date.now());
    const store = await backend.open();
    store.add('prod', owned('o1'));
    await store.save();
    await store.close();
    await lock.release();
    expect(s3.text('state', `${key}.lock`)).toBeUndefined();
    const stored = JSON.parse(s3.text('state', key) ?? '{}') as {
      lineage: string;
      serial: number;
      snapshot: { targets: Record<string, unknown> };
      records: string;
    };
    expect(stored.lineage).toMatch(/^[0-9a-f-]{36}$/);
    expect(stored.serial).toBe(2);
    expect(stored.records).toBe('');
    expect(Object.keys(stored.snapshot.targets)).toEqual(['prod']);
    await backend.hmacKey(Buffer.alloc(32, 7));
    expect(s3.text('state', `${key}.key`)?.trim()).toBe('07'.repeat(32));
  });

  it('takes over a lease that ran out, and the old holder can never write again', async () => {
    const key = freshKey();
    const first = backendAt(key);
    const stale = await first.lock({ command: 'run', timeoutMs: 0, leaseMs: 60_000 });
    const staleStore = await first.open();
    staleStore.add('prod', owned('before'));
    await staleStore.save();

    // A second process whose clock is past the first one's expiry: the lease ran out.
    const later = (): number => Date.now() + 120_000;
    const second = backendAt(key);
    const stales: LockHolder[] = [];
    const next = await second.lock({
      command: 'apply',
      timeoutMs: 0,
      now: later,
      onStale: (holder) => stales.push(holder),
    });
    expect(stales.map((holder) => holder.token)).toEqual([stale.holder.token]);
    const nextStore = await second.open();
    expect(Object.keys(nextStore.get('prod').inventory.Dashboard)).toEqual(['dash-before']);
    nextStore.add('prod', owned('after'));
    await nextStore.save();

    // Every write of the first holder is refused now: records, create intents, compaction.
    staleStore.add('prod', {
      type: 'intent',
      kind: 'Dashboard',
      key: 'dash-late',
      name: 'Late',
      at: new Date(0).toISOString(),
    });
    expect((await failure(staleStore.save())).code).toBe('E_STATE_LOCKED');
    expect((await failure(staleStore.compact())).code).toBe('E_STATE_LOCKED');
    expect(stale.lost.aborted).toBe(true);
    // Its release leaves the new holder's lock alone.
    await stale.release();
    expect((await second.holder())?.token).toBe(next.holder.token);

    await nextStore.close();
    await next.release();
    const seen = await backendAt(key).open({ readOnly: true });
    expect(Object.keys(seen.get('prod').inventory.Dashboard).sort()).toEqual(['dash-after', 'dash-before']);
    expect(seen.get('prod').intents).toEqual([]);
  });

  it('tells a holder its lease is lost when a renewal is refused', async () => {
    const key = freshKey();
    // Renewed every 100 ms (a third of the lease): the first renewal after the takeover is refused.
    const held = await backendAt(key).lock({ command: 'run', timeoutMs: 0, leaseMs: 300 });
    const taker = await backendAt(key).lock({ command: 'apply', timeoutMs: 0, now: () => Date.now() + 600_000 });
    const reason = await lostSignal(held.lost);
    expect(String(reason)).toMatch(/another holder took the state lock/);
    await taker.release();
  });

  it('tells a holder its lease is lost once `state unlock` broke it', async () => {
    const key = freshKey();
    const held = await backendAt(key).lock({ command: 'run', timeoutMs: 0, leaseMs: 300 });
    expect((await backendAt(key).unlock(held.holder.token))?.command).toBe('run');
    expect(String(await lostSignal(held.lost))).toMatch(/`stacksync state unlock` broke it/);
    expect(s3.text('state', `${key}.lock`)).toBeUndefined();
  });

  it('stops writing once its own clock is past the lease it holds', async () => {
    const key = freshKey();
    let clock = Date.now();
    const backend = backendAt(key);
    const held = await backend.lock({ command: 'run', timeoutMs: 0, leaseMs: 60_000, now: () => clock });
    const store = await backend.open();
    store.add('prod', owned('in-time'));
    await store.save();
    clock += 61_000;
    store.add('prod', owned('too-late'));
    expect((await failure(store.save())).code).toBe('E_STATE_LOCKED');
    expect(held.lost.aborted).toBe(true);
    held.releaseSync();
  });

  it('keeps a live lease: another process waits and is told who holds it', async () => {
    const key = freshKey();
    const held = await backendAt(key).lock({ command: 'run', timeoutMs: 0, leaseMs: 60_000 });
    const waited: string[] = [];
    const refused = await failure(
      backendAt(key).lock({ command: 'apply', timeoutMs: 100, onWait: (holder) => waited.push(holder.token) }),
    );
    expect(refused.code).toBe('E_STATE_LOCKED');
    expect(refused.message).toContain(`lock id ${held.holder.token}`);
    expect(waited).toEqual([held.holder.token]);
    await held.release();
  });

  it('gives the lock to exactly one of several processes taking it at once', async () => {
    const key = freshKey();
    const backends = Array.from({ length: 6 }, () => backendAt(key));
    const tries = await Promise.allSettled(backends.map((backend) => backend.lock({ command: 'apply', timeoutMs: 0 })));
    const won = tries.filter((result) => result.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const result of tries)
      if (result.status === 'rejected') expect((result.reason as StacksyncError).code).toBe('E_STATE_LOCKED');
    await (won[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
  });

  it('takes a 409 (a conditional write to the key already in flight) as someone else writing, and tries again', async () => {
    const key = freshKey();
    const other = {
      pid: 1,
      host: 'elsewhere',
      command: 'run',
      since: new Date().toISOString(),
      token: 'other-holder',
      expires: Date.now() + 600_000,
    };
    const body = Buffer.from(JSON.stringify(other));
    // Another process's create of the lock, its body still on the way.
    const inFlight = request(`${s3.endpoint}/state/${key}.lock`, {
      method: 'PUT',
      headers: { 'If-None-Match': '*', 'Content-Length': body.length },
    });
    const answered = new Promise<number>((resolve) =>
      inFlight.on('response', (response) => resolve(response.statusCode ?? 0)),
    );
    inFlight.write(body.subarray(0, 5));
    await until(() => s3.busy(`state/${key}.lock`));
    const locking = backendAt(key).lock({ command: 'apply', timeoutMs: 0 });
    await until(() => s3.log.some((line) => line.startsWith(`PUT /state/${key}.lock If-None-Match → 409`)));
    inFlight.end(body.subarray(5));
    expect(await answered).toBe(200);
    const refused = await failure(locking);
    expect(refused.code).toBe('E_STATE_LOCKED');
    expect(refused.message).toContain('lock id other-holder');
  });

  it('keeps the one HMAC key stored first when several processes create one at once', async () => {
    const key = freshKey();
    const keys = await Promise.all(
      Array.from({ length: 6 }, (_, index) => backendAt(key).hmacKey(Buffer.alloc(32, index + 1))),
    );
    const stored = await backendAt(key).hmacKey();
    for (const got of keys) expect(got).toEqual(stored);
  });

  it('refuses a store that ignores conditional writes, before its first write', async () => {
    const key = freshKey();
    s3.ignoreConditions = true;
    try {
      const backend = backendAt(key);
      const locking = await failure(backend.lock({ command: 'apply', timeoutMs: 0 }));
      expect(locking.code).toBe('E_STATE_UNSUPPORTED');
      expect(locking.message).toMatch(/accepted a second conditional create \(If-None-Match: \*\)/);
      expect(locking.message).not.toContain(CREDENTIALS.secretAccessKey);
      expect((await failure(backendAt(key).open())).code).toBe('E_STATE_UNSUPPORTED');
      expect((await failure(backendAt(key).hmacKey(Buffer.alloc(32, 1)))).code).toBe('E_STATE_UNSUPPORTED');
      // Reading needs no condition: plan still works.
      expect((await backendAt(key).open({ readOnly: true })).snapshot().targets).toEqual({});
      expect(s3.text('state', `${key}.lock`)).toBeUndefined();
      expect(s3.text('state', key)).toBeUndefined();
    } finally {
      s3.ignoreConditions = false;
    }
    // The same store once it enforces them: the check passes.
    const lock = await backendAt(key).lock({ command: 'apply', timeoutMs: 0 });
    await lock.release();
  });

  it('names the bucket, never the credentials, when the bucket is missing', async () => {
    const backend = openS3Backend({
      bucket: 'no-such-bucket',
      key: 'x.json',
      region: 'eu-west-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: CREDENTIALS,
    });
    opened.push(backend);
    const error = await failure(backend.lock({ command: 'apply', timeoutMs: 0 }));
    expect(error.code).toBe('E_STATE_WRITE');
    expect(error.message).toContain('s3://no-such-bucket/x.json');
    expect(error.message).toContain('NoSuchBucket');
    expect(error.message).not.toContain(CREDENTIALS.secretAccessKey);
    expect(backend.location).toBe(`s3://no-such-bucket/x.json at ${s3.endpoint}`);
    // Not "no state yet": a plan on a misspelt bucket would show everything stacksync owns as new.
    expect((await failure(backend.open({ readOnly: true }))).code).toBe('E_STATE_CORRUPT');
    expect((await failure(backend.hmacKey())).code).toBe('E_STATE_CORRUPT');
  });

  it('reports a state object that is not one as corrupt, and never writes over it', async () => {
    const key = freshKey();
    const lock = await backendAt(key).lock({ command: 'apply', timeoutMs: 0 });
    await lock.release();
    s3.buckets.get('state')?.set(key, { body: Buffer.from('{"not":"a state"}'), etag: '"x"', modified: new Date() });
    expect((await failure(backendAt(key).open({ readOnly: true }))).code).toBe('E_STATE_CORRUPT');
    expect((await failure(backendAt(key).lock({ command: 'apply', timeoutMs: 0 }))).code).toBe('E_STATE_CORRUPT');
    expect(s3.text('state', key)).toBe('{"not":"a state"}');
  });
});

const realBucket = process.env['STACKSYNC_TEST_S3_BUCKET'];
if (!realBucket)
  console.info(
    'skipping the real-bucket S3 test: set STACKSYNC_TEST_S3_BUCKET (and AWS credentials, AWS_REGION) to run it',
  );

describe.skipIf(!realBucket)('the S3 state backend on a real bucket (STACKSYNC_TEST_S3_BUCKET)', () => {
  const region = process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'us-east-1';
  const key = `stacksync-test/${randomBytes(6).toString('hex')}/state.json`;

  afterAll(async () => {
    const client = new S3Client({ region });
    for (const name of [key, `${key}.lock`, `${key}.key`, `${key}.probe`])
      await client.send(new DeleteObjectCommand({ Bucket: realBucket, Key: name })).catch(() => undefined);
    client.destroy();
  });

  it('locks, saves, fences a broken holder, and reads back', async () => {
    const first = openS3Backend({ bucket: realBucket as string, key, region });
    const second = openS3Backend({ bucket: realBucket as string, key, region });
    opened.push(first, second);
    const held = await first.lock({ command: 'run', timeoutMs: 0 });
    const store = await first.open();
    store.add('prod', owned('real-1'));
    await store.save();
    expect((await failure(second.lock({ command: 'apply', timeoutMs: 0 }))).code).toBe('E_STATE_LOCKED');
    expect((await second.unlock(held.holder.token))?.command).toBe('run');
    const next = await second.lock({ command: 'apply', timeoutMs: 5_000 });
    store.add('prod', owned('real-late'));
    expect((await failure(store.save())).code).toBe('E_STATE_LOCKED');
    await next.release();
    const seen = await second.open({ readOnly: true });
    expect(Object.keys(seen.get('prod').inventory.Dashboard)).toEqual(['dash-real-1']);
    expect(await first.hmacKey(Buffer.alloc(32, 3))).toEqual(Buffer.alloc(32, 3));
  }, 60_000);
});
