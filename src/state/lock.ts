/**
 * One writer per state file, across processes: a daemon and a one-off `apply` on the same volume
 * must never write over each other's records. The lock is a file beside the state file
 * (`state.json.lock`) that appears, atomically and only if there is none, already naming its
 * holder (pid, host, command, since), so a waiter can name the holder and tell when it died: a
 * holder on this host whose process is gone left the lock behind (SIGKILL, OOM, a power cut) and
 * it is taken over, with a warning.
 * A holder on another host cannot be checked from here, so its lock is never broken.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { StacksyncError } from '../errors.js';
import { errnoCode, nodeFs, removeDurablySync, removeQuietly, writeDurably, type StateFs } from '../support/fs.js';
import { STATE_DIR_MODE, STATE_FILE_MODE } from './store.js';

/** How long a second writer waits for the lock by default (`--lock-timeout`). */
export const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

/** What the lock file says about its holder. */
export interface LockHolder {
  pid: number;
  host: string;
  /** The stacksync command holding it, e.g. `apply` or `run`. */
  command: string;
  /** ISO time it was taken. */
  since: string;
  /** Tells this holding apart from a later one by a process with the same pid. */
  token: string;
}

export interface StateLockOptions {
  /** The command taking the lock, shown to whoever waits for it. */
  command: string;
  /** How long to wait while another process holds it; 0 gives up at once. Default 30 s. */
  timeoutMs?: number;
  /** Stops waiting (with `E_STATE_LOCKED`) when it aborts. */
  signal?: AbortSignal;
  /** Told when a lock left by a process that is gone is taken over. */
  onStale?: (holder: LockHolder) => void;
  /** Told once, when another holder makes this one wait. */
  onWait?: (holder: LockHolder) => void;
  fs?: StateFs;
  /** This host and process; default `os.hostname()` and `process.pid`. */
  host?: string;
  pid?: number;
  /** Whether a process of this host is running; default `process.kill(pid, 0)`. */
  isAlive?: (pid: number) => boolean;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * How long a holding lasts without renewal, for backends whose lock is a lease with an expiry
   * (Kubernetes, S3): the holder renews it in the background well within this time, and another
   * process may take a lease that was not renewed for this long. Backends whose lock ends with its
   * holder's session or process (file, PostgreSQL) ignore it. Default 15 s (`--lease-duration`).
   */
  leaseMs?: number;
}

/** A lease's default duration (docs/ownership.md, "Where the state lives"). */
export const DEFAULT_LEASE_MS = 15_000;

export interface StateLock {
  readonly holder: LockHolder;
  /**
   * Aborts once the holding is lost (a lease not renewed in time, a database session that ended,
   * `state unlock` from elsewhere): from then on every write is refused, and a daemon stops
   * writing and stands by (docs/ownership.md).
   */
  readonly lost: AbortSignal;
  /** Removes the lock file, unless it is no longer this holder's. */
  release(): Promise<void>;
  /** `release`, synchronously and without the ownership check: for a process exiting at once while it holds the lock. */
  releaseSync(): void;
}

/** `.stacksync/state.json` → `.stacksync/state.json.lock`. */
export function lockPathFor(statePath: string): string {
  return `${statePath}.lock`;
}

/** Tokens of the locks this process holds: a lock with this pid and another token was left by an earlier process. */
const heldHere = new Set<string>();

/** Polling for a held lock starts at this interval and backs off to the next. */
const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 500;

/**
 * Takes the lock of the state file at `statePath`, waiting up to `timeoutMs` while another live
 * process holds it; then `E_STATE_LOCKED`, naming the holder.
 */
export async function acquireStateLock(statePath: string, options: StateLockOptions): Promise<StateLock> {
  const fs = options.fs ?? nodeFs;
  const path = lockPathFor(statePath);
  const me = newHolder(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  await fs.mkdir(dirname(path), { recursive: true, mode: STATE_DIR_MODE });
  return pollLock<StateLock>(
    options,
    async () => {
      if (await tryCreate(fs, path, me)) return { taken: heldLock(fs, path, me) };
      const holder = await readHolder(fs, path);
      if (holder === 'gone') return { retry: true };
      if (holder !== 'unreadable' && isStale(holder, me, options.isAlive ?? isProcessAlive)) {
        if (await breakStale(fs, path, holder)) options.onStale?.(holder);
        return { retry: true };
      }
      return { holder };
    },
    (holder, why) => lockedError(statePath, holder ?? 'unreadable', timeoutMs, why),
  );
}

/** The holder a new lock names: this process, the command, the time, and a token of its own. */
export function newHolder(options: Pick<StateLockOptions, 'command' | 'host' | 'pid' | 'now'>): LockHolder {
  return {
    pid: options.pid ?? process.pid,
    host: options.host ?? hostname(),
    command: options.command,
    since: new Date((options.now ?? Date.now)()).toISOString(),
    token: randomBytes(8).toString('hex'),
  };
}

/** What one try at a lock found: it is taken, or held (by a holder that may not be readable), or worth trying again at once. */
export type LockTry<T> = { taken: T } | { retry: true } | { holder: LockHolder | 'unreadable' | undefined };

/**
 * Tries `attempt` until it takes the lock, polling with backoff while another holds it (telling
 * `onWait` once per holder), up to the options' timeout or abort; then the error `locked` makes.
 * Every backend's lock waits this way.
 */
export async function pollLock<T>(
  options: StateLockOptions,
  attempt: () => Promise<LockTry<T>>,
  locked: (holder: LockHolder | 'unreadable' | undefined, why?: string) => StacksyncError,
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const deadline = now() + (options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
  let pollMs = FIRST_POLL_MS;
  let waitedFor: string | undefined;
  for (;;) {
    const found = await attempt();
    if ('taken' in found) return found.taken;
    if ('retry' in found) continue;
    const { holder } = found;
    if (options.signal?.aborted) throw locked(holder, 'stopped waiting for it');
    if (now() >= deadline) throw locked(holder);
    if (holder !== undefined && holder !== 'unreadable' && waitedFor !== holder.token) {
      waitedFor = holder.token;
      options.onWait?.(holder);
    }
    await sleep(Math.max(1, Math.min(pollMs, deadline - now())));
    pollMs = Math.min(pollMs * 2, MAX_POLL_MS);
  }
}

/** Errors of `link` on a file system without hard links; there the lock file is created in place. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * The lock file, created only if there is none; false when someone else has it. It appears with
 * its holder already written: the holder goes to a private temp file first, which is then linked
 * to the lock's name (a link, like O_EXCL, fails if the name exists). Created empty and filled
 * after, a process killed in between would leave a lock nobody can read or break.
 */
async function tryCreate(fs: StateFs, path: string, me: LockHolder): Promise<boolean> {
  const temp = join(dirname(path), `.${basename(path)}.${me.pid}.${me.token}.tmp`);
  try {
    await writeDurably(fs, temp, `${JSON.stringify(me)}\n`, 'wx', STATE_FILE_MODE);
    try {
      await fs.link(temp, path);
      return true;
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') return false;
      if (NO_HARD_LINKS.has(errnoCode(error) ?? '')) return await createInPlace(fs, path, me);
      throw error;
    }
  } catch (error) {
    throw lockWriteError(path, error);
  } finally {
    await removeQuietly(fs, temp);
  }
}

/** `tryCreate` where hard links are not supported: O_EXCL, then the holder. */
async function createInPlace(fs: StateFs, path: string, me: LockHolder): Promise<boolean> {
  try {
    await writeDurably(fs, path, `${JSON.stringify(me)}\n`, 'wx', STATE_FILE_MODE);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  }
}

function lockWriteError(path: string, error: unknown): StacksyncError {
  if (error instanceof StacksyncError) return error;
  return new StacksyncError(
    'E_STATE_WRITE',
    `state lock ${path} could not be created (${errnoCode(error) ?? String(error)})`,
    { subject: path, cause: error },
  );
}

/** Who holds the lock of the state file at `statePath` now, if anyone can be read there (`state show`, `state unlock`). */
export async function currentHolder(statePath: string, fs: StateFs = nodeFs): Promise<LockHolder | undefined> {
  const holder = await readHolder(fs, lockPathFor(statePath));
  return holder === 'gone' || holder === 'unreadable' ? undefined : holder;
}

/** Who holds the lock; `gone` when it was released meanwhile; `unreadable` when it is not ours (or, without hard links, while it is being written). */
async function readHolder(fs: StateFs, path: string): Promise<LockHolder | 'gone' | 'unreadable'> {
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 'gone';
    return 'unreadable';
  }
  return parseHolder(text) ?? 'unreadable';
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const data = JSON.parse(text) as Partial<LockHolder>;
    const { pid, host, command, since, token } = data;
    if (
      !Number.isInteger(pid) ||
      typeof host !== 'string' ||
      typeof command !== 'string' ||
      typeof since !== 'string' ||
      typeof token !== 'string'
    )
      return undefined;
    return { pid: pid as number, host, command, since, token };
  } catch {
    return undefined;
  }
}

/** A holder on this host whose process is gone, or that has this process's pid without being held here (a recycled pid, as in a restarted container). */
function isStale(holder: LockHolder, me: LockHolder, isAlive: (pid: number) => boolean): boolean {
  if (holder.host !== me.host) return false;
  if (holder.pid === me.pid) return !heldHere.has(holder.token);
  return !isAlive(holder.pid);
}

/**
 * Removes a stale lock, unless another process took it over first: the file is moved aside and
 * checked to be the stale holder's before it is deleted; a fresh lock moved by mistake is put back.
 */
async function breakStale(fs: StateFs, path: string, stale: LockHolder): Promise<boolean> {
  const aside = `${path}.stale-${randomBytes(4).toString('hex')}`;
  try {
    await fs.rename(path, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
  const moved = await readHolder(fs, aside);
  if (moved !== 'gone' && moved !== 'unreadable' && moved.token !== stale.token) {
    await fs.link(aside, path).catch(() => undefined);
    await fs.unlink(aside).catch(() => undefined);
    return false;
  }
  await fs.unlink(aside).catch(() => undefined);
  return true;
}

function heldLock(fs: StateFs, path: string, me: LockHolder): StateLock {
  heldHere.add(me.token);
  let released = false;
  return {
    holder: me,
    // A lock file is lost only with its process, or to `state unlock`, which a later save notices.
    lost: new AbortController().signal,
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(me.token);
      const holder = await readHolder(fs, path);
      if (holder === 'gone' || holder === 'unreadable' || holder.token !== me.token) return;
      await fs.unlink(path).catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw error;
      });
    },
    releaseSync() {
      if (released) return;
      released = true;
      heldHere.delete(me.token);
      removeDurablySync(path);
    },
  };
}

/** `E_STATE_LOCKED` of a write refused to a process that does not hold a fenced backend's lock (any longer). */
export function refusedWrite(location: string, what: string, why: string): StacksyncError {
  return new StacksyncError('E_STATE_LOCKED', `state ${location}: refused to ${what}: ${why}`, { subject: location });
}

/**
 * `E_STATE_LOCKED` of a backend's lock (PostgreSQL, S3): who holds it, with its lock id for
 * `state unlock`, or `unknown` when no holder can be read; how long it waited; what to do.
 */
export function lockedBy(
  location: string,
  holder: LockHolder | string,
  timeoutMs: number,
  why: string | undefined,
  remedy: string,
): StacksyncError {
  const who =
    typeof holder === 'string'
      ? holder
      : `\`stacksync ${holder.command}\` (pid ${holder.pid} on host ${holder.host}, since ${holder.since}, lock id ${holder.token})`;
  const waited = why ?? `waited ${formatSeconds(timeoutMs)} (--lock-timeout)`;
  return new StacksyncError(
    'E_STATE_LOCKED',
    `state ${location} is locked by ${who}; ${waited}. Try again when it is done; ${remedy}`,
    {
      subject: location,
      ...(typeof holder === 'string'
        ? {}
        : { details: { pid: holder.pid, host: holder.host, command: holder.command, since: holder.since } }),
    },
  );
}

function lockedError(
  statePath: string,
  holder: LockHolder | 'unreadable',
  timeoutMs: number,
  why?: string,
): StacksyncError {
  const path = lockPathFor(statePath);
  const who =
    holder === 'unreadable'
      ? `a lock file stacksync cannot read (${path})`
      : `\`stacksync ${holder.command}\` (pid ${holder.pid} on host ${holder.host}, since ${holder.since})`;
  const waited = why ?? `waited ${formatSeconds(timeoutMs)} (--lock-timeout)`;
  return new StacksyncError(
    'E_STATE_LOCKED',
    `state file ${statePath} is locked by ${who}; ${waited}. Try again when it is done; if that ` +
      `process is gone and ran on another host, which stacksync cannot check, remove ${path} by hand`,
    {
      subject: statePath,
      ...(holder === 'unreadable'
        ? {}
        : { details: { pid: holder.pid, host: holder.host, command: holder.command, since: holder.since } }),
    },
  );
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return errnoCode(error) === 'EPERM';
  }
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
