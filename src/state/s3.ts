/**
 * The S3 state backend (docs/ownership.md, "Where the state lives"): the state in one object of a
 * bucket, kept one writer at a time by S3's conditional writes alone (no table, no server of ours).
 *
 * - `<key>`: the state object — lineage, serial, the fence (the token of the lock holder that may
 *   write), the snapshot and the records saved since the last compaction. Every write replaces it
 *   with `If-Match` on the ETag this process last read or wrote, so a write over anyone else's
 *   fails (412); the holder then re-reads it and finds whether it still holds the fence.
 * - `<key>.lock`: the lock, created with `If-None-Match: *` holding its holder and its expiry,
 *   renewed with `If-Match` every third of the lease; a lock past its expiry is taken over with
 *   `If-Match` on the ETag of the expired one, so of two takers only one wins.
 * - Taking the lock also writes the taker's token into the state object's fence (conditionally):
 *   from then on the ETag any earlier holder knows is stale, and the fence is not its own, so a
 *   holder whose lease ran out, or whose lock `state unlock` broke, can never write again.
 * - `<key>.key`: the HMAC key, created once with `If-None-Match: *` (the first one stored wins).
 * - `<key>.probe`: before its first write a process checks that the store refuses a second
 *   conditional create of an object that exists (412). A store that ignores the condition (some
 *   S3-compatible servers do) could not keep one writer, so stacksync refuses it
 *   (`E_STATE_UNSUPPORTED`).
 *
 * Credentials come from the SDK's default chain (environment, profile, web identity, instance
 * role), never from the config.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { StacksyncError } from '../errors.js';
import type { StateFile } from '../model/state.js';
import { RemoteStateStore, type StoreWriter } from './remote-store.js';
import type { StateBackend, StateVersion } from './backend.js';
import { parseJournal, parseStateFile, STATE_VERSION } from './format.js';
import {
  DEFAULT_LEASE_MS,
  DEFAULT_LOCK_TIMEOUT_MS,
  lockedBy,
  newHolder,
  pollLock,
  refusedWrite,
  type LockHolder,
  type StateLock,
  type StateLockOptions,
} from './lock.js';
import type { StateStore, StateStoreOptions } from './store.js';
import { applyRecord } from './record-effects.js';
import { targetOf } from './in-memory.js';

export interface S3BackendOptions {
  bucket: string;
  /** The state object's key; the lock, HMAC key and probe objects are named after it. */
  key: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, R2, …); default AWS S3 of the region. */
  endpoint?: string;
  /** Address buckets as `endpoint/bucket/key` rather than `bucket.endpoint/key`. */
  forcePathStyle?: boolean;
  /** For tests only: credentials instead of the SDK's default chain. */
  credentials?: S3ClientConfig['credentials'];
  /** For tests only: the clock leases are judged by (default `Date.now`). */
  now?: () => number;
}

/** What the state object holds. */
interface StateObject {
  format: typeof OBJECT_FORMAT;
  lineage: string;
  serial: number;
  /** The token of the lock holder that may write; null when none claimed it since `state unlock`. */
  fence: string | null;
  snapshot: StateFile;
  /** Journal lines (format.ts) saved since the snapshot was written. */
  records: string;
}

interface LockObject extends LockHolder {
  /** Epoch ms, by the holder's clock, after which another process may take the lock over. */
  expires: number;
}

/** What this process holds: its lease and the state object as it last wrote or read it. */
interface Holding {
  token: string;
  /** Epoch ms the lease ends unless renewed, by `now`. */
  expires: number;
  /** The clock the lease is judged by (the lock options' `now`). */
  now: () => number;
  lost: AbortController;
  state: { etag: string; object: StateObject; text: string };
}

const OBJECT_FORMAT = 'stacksync-state-s3/1';

export function openS3Backend(options: S3BackendOptions): StateBackend {
  return new S3Backend(options);
}

/** `s3://bucket/key`, and the endpoint when there is one (never with a user or password). */
export function describeS3Location(options: Pick<S3BackendOptions, 'bucket' | 'key' | 'endpoint'>): string {
  const where = `s3://${options.bucket}/${options.key}`;
  if (options.endpoint === undefined) return where;
  try {
    const url = new URL(options.endpoint);
    return `${where} at ${url.protocol}//${url.host}`;
  } catch {
    return `${where} at (unparsable endpoint)`;
  }
}

class S3Backend implements StateBackend {
  readonly kind = 's3';
  readonly fenced = true;
  readonly location: string;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #key: string;
  readonly #now: () => number;
  #holding: Holding | undefined;
  #checked: Promise<void> | undefined;
  #renewal: NodeJS.Timeout | undefined;

  constructor(options: S3BackendOptions) {
    this.location = describeS3Location(options);
    this.#bucket = options.bucket;
    this.#key = options.key;
    this.#now = options.now ?? Date.now;
    // The SDK warns on every start under Node 20 that releases after January 2027 will need Node
    // 22; the version package.json pins works on Node 20 (our floor), and the warning would end
    // up in every command's output.
    process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
    this.#client = new S3Client({
      region: options.region,
      ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle === true,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // Checksums only where S3 requires them: the objects are small, and S3-compatible stores
      // differ in which checksum headers they know.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  get holding(): Holding | undefined {
    return this.#holding;
  }

  async open(options: Pick<StateStoreOptions, 'readOnly' | 'compactOnOpen'> = {}): Promise<StateStore> {
    const readOnly = options.readOnly === true;
    if (!readOnly) await this.checkConditionalWrites();
    const store = new RemoteStateStore(this.#storeWriter(), readOnly);
    await store.reload();
    return store;
  }

  /** How its store saves (the records ride in the state object until a compaction) and compacts. */
  #storeWriter(): StoreWriter {
    return {
      location: this.location,
      holdsLock: () => this.#holding !== undefined,
      read: () => this.read(),
      append: (batch) =>
        this.write('save records', (object) => ({
          ...object,
          records: object.records + batch.map((line) => line.text).join(''),
        })),
      replace: (snapshot) => {
        const file = JSON.parse(snapshot) as StateFile;
        return this.write('compact', (object) => ({ ...object, snapshot: file, records: '' }));
      },
    };
  }

  /** Snapshot and records as stored. */
  async read(): Promise<{ file: StateFile; lastSeq: number; version: StateVersion }> {
    const found = await this.#readState();
    if (!found)
      return { file: { version: STATE_VERSION, targets: {} }, lastSeq: 0, version: { lineage: undefined, serial: 0 } };
    const { object } = found;
    const file = parseStateFile(this.location, JSON.stringify(object.snapshot));
    const journal = parseJournal(this.location, object.records);
    for (const entry of journal.entries) applyRecord(targetOf(file, entry.target), entry.record);
    const lastSeq = journal.entries[journal.entries.length - 1]?.seq ?? 0;
    return { file, lastSeq, version: { lineage: object.lineage, serial: object.serial } };
  }

  /**
   * Replaces the state object with `change` of it, on the ETag this holder knows: refused
   * (`E_STATE_LOCKED`) to a process that does not hold the lock, whose lease ran out, or whose
   * fence another holder took.
   */
  async write(what: string, change: (object: StateObject) => StateObject): Promise<void> {
    const holding = this.#holding;
    if (holding === undefined) throw refusedWrite(this.location, what, 'it does not hold the state lock');
    if (holding.now() >= holding.expires) {
      this.#lose(holding, 'its lease ran out before it could renew it');
      throw refusedWrite(this.location, what, 'its lease on the state lock ran out before it could renew it');
    }
    const next: StateObject = { ...change(holding.state.object), serial: holding.state.object.serial + 1 };
    const text = `${JSON.stringify(next)}\n`;
    try {
      const etag = await this.#put(this.#key, text, { IfMatch: holding.state.etag });
      holding.state = { etag, object: next, text };
    } catch (error) {
      if (!isConditionFailure(error)) throw this.#error(error, 'write');
      // Someone else wrote the object since: whoever claimed the fence, it is no longer this holder's
      // to write, unless what is stored is exactly what this write sent (a retried request).
      const stored = await this.#readState();
      if (stored?.text === text) {
        holding.state = stored;
        return;
      }
      this.#lose(holding, 'another holder took the state lock');
      throw refusedWrite(
        this.location,
        what,
        'another holder took the state lock since (its lease ran out, or `stacksync state unlock` broke it)',
      );
    }
  }

  async lock(options: StateLockOptions): Promise<StateLock> {
    await this.checkConditionalWrites();
    const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const now = options.now ?? this.#now;
    const me = newHolder(options);
    const lockKey = `${this.#key}.lock`;
    const body = (expires: number): string => `${JSON.stringify({ ...me, expires } satisfies LockObject)}\n`;
    try {
      const taken = await pollLock<{ etag: string; expires: number }>(
        options,
        async () => {
          const expires = now() + leaseMs;
          try {
            return { taken: { etag: await this.#put(lockKey, body(expires), { IfNoneMatch: '*' }), expires } };
          } catch (error) {
            if (!isConditionFailure(error)) throw this.#error(error, 'lock');
          }
          const current = await this.#readLock();
          if (current === undefined) return { retry: true };
          // Our own create, answered 412 when the SDK sent it again after a lost answer.
          if (current !== 'unreadable' && current.lock.token === me.token)
            return { taken: { etag: current.etag, expires: current.lock.expires } };
          if (current === 'unreadable' || now() < current.lock.expires)
            return { holder: current === 'unreadable' ? 'unreadable' : holderOf(current.lock) };
          // Expired: take it over, unless another process did first (its ETag changed).
          try {
            const etag = await this.#put(lockKey, body(expires), { IfMatch: current.etag });
            options.onStale?.(holderOf(current.lock));
            return { taken: { etag, expires } };
          } catch (error) {
            if (!isConditionFailure(error)) throw this.#error(error, 'lock');
            return { retry: true };
          }
        },
        (holder, why) => this.#locked(holder === 'unreadable' ? undefined : holder, timeoutMs, why),
      );
      return await this.#hold(me, taken, leaseMs, now, body);
    } catch (error) {
      throw error instanceof StacksyncError ? error : this.#error(error, 'lock');
    }
  }

  /** The lock is ours: claim the state object's fence, then keep the lease renewed. */
  async #hold(
    me: LockHolder,
    taken: { etag: string; expires: number },
    leaseMs: number,
    now: () => number,
    body: (expires: number) => string,
  ): Promise<StateLock> {
    const lockKey = `${this.#key}.lock`;
    let lockEtag = taken.etag;
    let state: Holding['state'];
    try {
      state = await this.#claim(me.token);
    } catch (error) {
      await this.#deleteQuietly(lockKey, lockEtag);
      throw error;
    }
    const holding: Holding = { token: me.token, expires: taken.expires, now, lost: new AbortController(), state };
    this.#holding = holding;
    let released = false;
    let renewing: Promise<void> = Promise.resolve();
    const everyMs = Math.max(1, Math.floor(leaseMs / 3));
    const renew = async (): Promise<void> => {
      if (released || holding.lost.signal.aborted) return;
      const expires = now() + leaseMs;
      try {
        lockEtag = await this.#put(lockKey, body(expires), { IfMatch: lockEtag });
        holding.expires = expires;
      } catch (error) {
        // 412: another holder took it over; 404: `state unlock` deleted it.
        if (isConditionFailure(error) || isNotFound(error))
          this.#lose(holding, 'another holder took the state lock, or `stacksync state unlock` broke it');
        // Any other failure (the network): try again at the next tick, unless the lease would be
        // over by then: a holder stops before anyone else may take its lock over.
        else if (now() + everyMs >= holding.expires)
          this.#lose(holding, 'its lease ran out: the lock could not be renewed in time');
      }
      if (!released && !holding.lost.signal.aborted) schedule();
    };
    const schedule = (): void => {
      this.#renewal = setTimeout(() => void (renewing = renew()), everyMs);
      // A process that forgets to release must still be able to exit; its lease then runs out.
      this.#renewal.unref();
    };
    schedule();
    const stop = (): void => {
      released = true;
      clearTimeout(this.#renewal);
      if (this.#holding === holding) this.#holding = undefined;
    };
    return {
      holder: me,
      lost: holding.lost.signal,
      release: async () => {
        if (released) return;
        stop();
        // A renewal in flight would change the ETag the delete is conditional on.
        await renewing;
        if (!holding.lost.signal.aborted) await this.#deleteQuietly(lockKey, lockEtag);
      },
      // Exiting at once: no request can be made synchronously, so the lease runs out on its own.
      releaseSync: stop,
    };
  }

  /** Writes this holder's token into the state object's fence, making the object when there is none. */
  async #claim(token: string): Promise<Holding['state']> {
    for (let attempt = 1; ; attempt += 1) {
      const stored = await this.#readState();
      const object: StateObject = stored
        ? { ...stored.object, fence: token }
        : {
            format: OBJECT_FORMAT,
            lineage: randomUUID(),
            serial: 0,
            fence: token,
            snapshot: { version: STATE_VERSION, targets: {} },
            records: '',
          };
      const text = `${JSON.stringify(object)}\n`;
      try {
        const etag = await this.#put(this.#key, text, stored ? { IfMatch: stored.etag } : { IfNoneMatch: '*' });
        return { etag, object, text };
      } catch (error) {
        // Another process wrote it between the read and the write: only a stale holder can, and
        // only until this claim lands; read again.
        if (!isConditionFailure(error) || attempt >= 5) throw this.#error(error, 'lock');
      }
    }
  }

  #lose(holding: Holding, why: string): void {
    if (this.#holding === holding) this.#holding = undefined;
    clearTimeout(this.#renewal);
    if (!holding.lost.signal.aborted) holding.lost.abort(new Error(why));
  }

  async holder(): Promise<LockHolder | undefined> {
    const current = await this.#readLock();
    if (current === undefined || current === 'unreadable') return undefined;
    return this.#now() < current.lock.expires ? holderOf(current.lock) : undefined;
  }

  async unlock(token: string): Promise<LockHolder | undefined> {
    const current = await this.#readLock();
    if (current === undefined || current === 'unreadable' || current.lock.token !== token) return undefined;
    try {
      await this.#client.send(
        new DeleteObjectCommand({ Bucket: this.#bucket, Key: `${this.#key}.lock`, IfMatch: current.etag }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      if (!isNotFound(error)) throw this.#error(error, 'unlock');
    }
    // Fence the broken holder: its ETag goes stale and the fence is no longer its own.
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const stored = await this.#readState();
      if (!stored || stored.object.fence !== token) break;
      try {
        await this.#put(this.#key, `${JSON.stringify({ ...stored.object, fence: null })}\n`, { IfMatch: stored.etag });
        break;
      } catch (error) {
        if (!isConditionFailure(error)) throw this.#error(error, 'unlock');
      }
    }
    return holderOf(current.lock);
  }

  async hmacKey(create?: Buffer): Promise<Buffer | undefined> {
    const keyKey = `${this.#key}.key`;
    const read = async (): Promise<Buffer | undefined> => {
      const found = await this.#get(keyKey);
      if (found === undefined) return undefined;
      const hex = found.text.trim();
      if (!/^(?:[0-9a-f]{2})+$/.test(hex))
        throw new StacksyncError(
          'E_STATE_CORRUPT',
          `state ${this.location}: its HMAC key object ${keyKey} is not hex`,
          { subject: this.location },
        );
      return Buffer.from(hex, 'hex');
    };
    const existing = await read();
    if (existing || !create) return existing;
    await this.checkConditionalWrites();
    try {
      await this.#put(keyKey, `${create.toString('hex')}\n`, { IfNoneMatch: '*' });
      return create;
    } catch (error) {
      // Another process stored one first: that one is the key.
      if (!isConditionFailure(error)) throw this.#error(error, 'write');
      return read();
    }
  }

  async version(): Promise<StateVersion> {
    return (await this.read()).version;
  }

  async close(): Promise<void> {
    clearTimeout(this.#renewal);
    this.#client.destroy();
  }

  /**
   * Once per process, before its first write: a second `If-None-Match: *` create of an object that
   * exists must fail. A store that accepts it ignores conditional writes, and every lock and fence
   * here rests on them.
   */
  checkConditionalWrites(): Promise<void> {
    this.#checked ??= (async () => {
      const probe = `${this.#key}.probe`;
      const text = 'stacksync checks that this store refuses a second conditional create\n';
      await this.#put(probe, text, {}).catch((error: unknown) => {
        throw this.#error(error, 'write');
      });
      try {
        await this.#put(probe, text, { IfNoneMatch: '*' });
      } catch (error) {
        if (isConditionFailure(error)) return;
        throw this.#error(error, 'write');
      }
      throw new StacksyncError(
        'E_STATE_UNSUPPORTED',
        `state ${this.location}: the store accepted a second conditional create (If-None-Match: *) of an ` +
          `object that exists, so it ignores conditional writes and cannot keep one writer at a time; ` +
          `stacksync will not keep its state there (use AWS S3 or a store that answers 412, or another ` +
          `backend)`,
        { subject: this.location },
      );
    })();
    this.#checked.catch(() => (this.#checked = undefined));
    return this.#checked;
  }

  async #readState(): Promise<Holding['state'] | undefined> {
    const found = await this.#get(this.#key);
    if (found === undefined) return undefined;
    let object: StateObject;
    try {
      object = JSON.parse(found.text) as StateObject;
    } catch (error) {
      throw this.#corrupt(`is not valid JSON (${(error as Error).message})`, error);
    }
    if (typeof object !== 'object' || object === null || object.format !== OBJECT_FORMAT)
      throw this.#corrupt(`is not a stacksync state object (${OBJECT_FORMAT})`);
    if (
      typeof object.lineage !== 'string' ||
      !Number.isInteger(object.serial) ||
      typeof object.records !== 'string' ||
      (object.fence !== null && typeof object.fence !== 'string')
    ) {
      throw this.#corrupt('lacks its lineage, serial, fence or records');
    }
    return { etag: found.etag, object, text: found.text };
  }

  async #readLock(): Promise<{ etag: string; lock: LockObject } | 'unreadable' | undefined> {
    const found = await this.#get(`${this.#key}.lock`);
    if (found === undefined) return undefined;
    try {
      const lock = JSON.parse(found.text) as Partial<LockObject>;
      const { pid, host, command, since, token, expires } = lock;
      if (
        !Number.isInteger(pid) ||
        typeof host !== 'string' ||
        typeof command !== 'string' ||
        typeof since !== 'string' ||
        typeof token !== 'string' ||
        typeof expires !== 'number'
      )
        return 'unreadable';
      return { etag: found.etag, lock: lock as LockObject };
    } catch {
      return 'unreadable';
    }
  }

  async #get(key: string): Promise<{ etag: string; text: string } | undefined> {
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      const text = (await answer.Body?.transformToString('utf8')) ?? '';
      return { etag: answer.ETag ?? '', text };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw this.#error(error, 'read');
    }
  }

  /** Puts an object with the given condition; its new ETag. Condition failures are left to the caller. */
  async #put(key: string, text: string, condition: { IfMatch?: string; IfNoneMatch?: string }): Promise<string> {
    const answer = await this.#client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        Body: text,
        ContentType: 'application/json',
        ...condition,
      }),
    );
    return answer.ETag ?? '';
  }

  async #deleteQuietly(key: string, etag: string): Promise<void> {
    await this.#client
      .send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key, IfMatch: etag }))
      .catch(() => undefined);
  }

  #error(error: unknown, what: string): StacksyncError {
    if (error instanceof StacksyncError) return error;
    // The SDK's messages name the error and the request, never the credentials.
    const code = what === 'read' ? 'E_STATE_CORRUPT' : 'E_STATE_WRITE';
    const name = (error as { name?: string }).name ?? 'Error';
    return new StacksyncError(
      code,
      `state ${this.location}: could not ${what} the bucket (${name}: ${(error as Error).message})`,
      { subject: this.location, cause: error },
    );
  }

  #corrupt(what: string, cause?: unknown): StacksyncError {
    return new StacksyncError(
      'E_STATE_CORRUPT',
      `state ${this.location}: the state object ${what}; fix or move it away by hand (stacksync never resets it)`,
      { subject: this.location, cause },
    );
  }

  #locked(holder: LockHolder | undefined, timeoutMs: number, why?: string): StacksyncError {
    return lockedBy(
      this.location,
      holder ?? 'a lock object stacksync cannot read',
      timeoutMs,
      why,
      'a lock whose holder is gone is taken over once its lease runs out, and `stacksync state unlock <lock id>` breaks it at once',
    );
  }
}

function holderOf(lock: LockObject): LockHolder {
  return { pid: lock.pid, host: lock.host, command: lock.command, since: lock.since, token: lock.token };
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/** 412: the condition did not hold; 409: a concurrent conditional write to the same key won. */
function isConditionFailure(error: unknown): boolean {
  const status = statusOf(error);
  return status === 412 || status === 409;
}

/**
 * No such object: only S3's NoSuchKey. A missing bucket is a 404 too, but taken for "no state yet"
 * it would plan everything as new; and S3 answers 403 for a missing object to a role that may not
 * list the bucket, which stays an error (docs/ci.md says which permissions the jobs need).
 */
function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404 && (error as { name?: string }).name === 'NoSuchKey';
}
