/**
 * `run --leader-elect`: two or more daemons on one state, one writer (docs/daemon.md, "Two
 * replicas, one writer"). The state lock is the lease: the daemon that holds it is the leader
 * and reconciles; the others stand by, answer the probes, `/metrics` and `/status` (naming the
 * leader), and keep trying to take it every fifth of the lease duration. A leader holds the lock
 * for as long as it runs; when the backend says the holding is lost (`StateLock.lost`: a database
 * session that ended, a lease not renewed in time), it stops writing at once (the term's signal
 * aborts every sync in flight before its next API write, and the backend fences the state's
 * writes), stands by and competes again. Written against the state port only, so any backend
 * elects: file (one host), PostgreSQL, Kubernetes, S3.
 */
import type { Logger } from 'pino';
import { StacksyncError } from '../errors.js';
import type { StateBackend } from '../state/backend.js';
import type { LockHolder, StateLock } from '../state/lock.js';

export type Role = 'leader' | 'standby';

/**
 * The command an elected daemon's lock names: it holds the state for as long as it leads, so an
 * `apply` that waits for it says so (cli/context.ts).
 */
export const LEADER_COMMAND = 'run --leader-elect';

export interface LeaderElectionOptions {
  backend: Pick<StateBackend, 'lock' | 'holder' | 'location'>;
  /** How long a holding lasts without renewal (lease backends); standbys poll at a fifth of it. */
  leaseMs: number;
  logger: Logger;
  /** Told on every change of role, after the role has changed. */
  onChange?: (role: Role) => void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface LeaderElection {
  role(): Role;
  /** Who holds the lease: this daemon while it leads, the other one (when known) while it stands by. */
  leader(): LockHolder | undefined;
  /** Aborts when this daemon's leadership ends; an aborted signal while it stands by. */
  term(): AbortSignal;
  /**
   * The lease as the state guard borrows it (`state/guard.ts`): the held lock, whose `release`
   * keeps it (the election lets it go, on stop), or `E_STATE_LOCKED` while standing by.
   */
  borrow(): Promise<StateLock>;
  /** Starts competing for the lease. */
  start(): void;
  /** Stops competing and lets the lease go, after the daemon has stopped writing. */
  stop(): Promise<void>;
}

/** Standbys try to take the lease this often, as a share of its duration. */
const POLL_SHARE = 5;

export function createLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const { backend, logger } = options;
  const pollMs = Math.max(100, Math.floor(options.leaseMs / POLL_SHARE));
  const sleep = options.sleep ?? abortableSleep;
  const stopping = new AbortController();
  const standingBy = AbortSignal.abort(new Error('standing by'));
  let held: StateLock | undefined;
  let other: LockHolder | undefined;
  let role: Role = 'standby';
  let competing: Promise<void> | undefined;

  const become = (next: Role, why: string): void => {
    if (next === role) return;
    role = next;
    if (next === 'leader')
      logger.info(
        { role: next, holder: held?.holder && describe(held.holder) },
        `leader: this daemon holds the state lease (${backend.location}) and reconciles`,
      );
    else
      logger.warn(
        { role: next, why },
        `standby: ${why}; no more writes from this daemon, competing for the lease again`,
      );
    options.onChange?.(next);
  };

  const compete = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      let lock: StateLock;
      try {
        lock = await backend.lock({
          command: LEADER_COMMAND,
          timeoutMs: 0,
          leaseMs: options.leaseMs,
          onStale: (gone) =>
            logger.warn({ holder: describe(gone) }, 'took over the state lease of a stacksync process that is gone'),
        });
      } catch (error) {
        if (!(error instanceof StacksyncError && error.code === 'E_STATE_LOCKED'))
          logger.warn({ err: error }, 'could not compete for the state lease; trying again');
        other = await backend.holder().catch(() => other);
        await sleep(pollMs, stopping.signal);
        continue;
      }
      if (stopping.signal.aborted) {
        await lock.release().catch(() => undefined);
        return;
      }
      held = lock;
      other = undefined;
      become('leader', 'elected');
      await untilAborted([lock.lost, stopping.signal]);
      if (!lock.lost.aborted) return;
      held = undefined;
      await lock.release().catch(() => undefined);
      become('standby', `lost the state lease (${reasonOf(lock.lost)})`);
    }
  };

  return {
    role: () => role,
    leader: () => held?.holder ?? other,
    term: () => held?.lost ?? standingBy,
    borrow: async () => {
      const lock = held;
      if (!lock || lock.lost.aborted) {
        const holder = other
          ? ` by \`stacksync ${other.command}\` (pid ${other.pid} on host ${other.host}, since ${other.since})`
          : '';
        throw new StacksyncError('E_STATE_LOCKED', `this daemon stands by: the state lease is held${holder}`, {
          subject: backend.location,
        });
      }
      // Kept between syncs: the leader lets it go only when it stops.
      return { holder: lock.holder, lost: lock.lost, release: async () => undefined, releaseSync: () => undefined };
    },
    start: () => {
      competing ??= compete().catch((error: unknown) => logger.error({ err: error }, 'the leader election stopped'));
    },
    stop: async () => {
      stopping.abort();
      await competing;
      const lock = held;
      held = undefined;
      if (lock) await lock.release();
    },
  };
}

function describe(holder: LockHolder): string {
  return `stacksync ${holder.command}, pid ${holder.pid} on ${holder.host}, since ${holder.since}`;
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : String(reason ?? 'lost');
}

function untilAborted(signals: AbortSignal[]): Promise<void> {
  const any = AbortSignal.any(signals);
  if (any.aborted) return Promise.resolve();
  return new Promise((resolve) => any.addEventListener('abort', () => resolve(), { once: true }));
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
