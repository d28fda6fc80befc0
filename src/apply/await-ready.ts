/**
 * Waiting for resources that become ready asynchronously after a write (a pipe provisions after
 * its create or start, pauses after its stop). Every change waiting in one apply shares one poll: a
 * single list call of the kind per poll, whatever the number of resources waiting, paced by the
 * target's budget like any read (so it goes after the writes still queued). Each waiter is judged
 * by its kind's `settle` rule against what the list says; waits hold no place among the changes
 * an apply runs at once, so a thousand pipes provisioning do not stop the next creates.
 */
import { StacksyncError } from '../errors.js';
import type { Api } from '../api/port.js';
import type { Kind } from '../model/kinds.js';
import type { LiveBase } from '../model/resources.js';
import { descriptorOf } from '../kinds/index.js';

/** How an apply waits. */
export interface WaitOptions {
  /** Longest one resource is waited for (`apply --wait`), ms. 0: nothing is waited for but what a later operation of the change needs. */
  timeoutMs: number;
  /**
   * Wait after the last operation of a change too (apply). False: only where another operation of
   * the change needs it (the daemon, which never blocks a sync on provisioning: it reports it).
   */
  followLast: boolean;
  /** The first poll comes this long after a wait starts; each next one twice as long after, up to `maxIntervalMs`. Default 250 ms. */
  intervalMs?: number;
  /** Default 5 s. */
  maxIntervalMs?: number;
}

/**
 * The goal of a wait for a resource to exist at all (`Operation.awaitPresence`): met once its
 * kind's list shows it; until then its absence is waited out, not taken for a resource gone.
 */
export const PRESENT_GOAL = 'present';

/** How long a wait that a later operation needs may take when `--wait` is 0: it cannot be skipped. */
export const NEEDED_WAIT_MS = 10 * 60 * 1000;

/** Where the resources being waited for stand, after a poll: by state, for progress output. */
export interface WaitProgress {
  kind: Kind;
  waiting: number;
  states: Record<string, number>;
}

interface Waiter {
  kind: Kind;
  id: string;
  goal: string;
  subject: string;
  deadline: number;
  startedAt: number;
  state?: string;
  resolve: (live: LiveBase) => void;
  reject: (error: unknown) => void;
}

export interface ReadyWatchDeps {
  api: Api;
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
  options: WaitOptions;
  onProgress?: (progress: WaitProgress) => void;
  /** Reported for each poll, so progress and metrics see the call. */
  onPoll?: <T>(kind: Kind, list: () => Promise<T>) => Promise<T>;
}

export class ReadyWatch {
  readonly #deps: ReadyWatchDeps;
  readonly #waiters: Waiter[] = [];
  #polling = false;

  constructor(deps: ReadyWatchDeps) {
    this.#deps = deps;
  }

  /**
   * Resolves with the live resource once it is ready at `goal`; rejects with `E_RESOURCE_FAILED`
   * when it will not, `E_WAIT_TIMEOUT` when it did not within the time given, `E_API_NOT_FOUND`
   * when it is gone.
   */
  wait(kind: Kind, id: string, goal: string, subject: string, timeoutMs: number): Promise<LiveBase> {
    return new Promise((resolve, reject) => {
      const now = this.#deps.clock();
      this.#waiters.push({ kind, id, goal, subject, deadline: now + timeoutMs, startedAt: now, resolve, reject });
      if (!this.#polling) void this.#poll();
    });
  }

  async #poll(): Promise<void> {
    this.#polling = true;
    let interval = this.#deps.options.intervalMs ?? 250;
    const max = this.#deps.options.maxIntervalMs ?? 5_000;
    try {
      while (this.#waiters.length > 0) {
        await this.#deps.sleep(interval);
        interval = Math.min(interval * 2, max);
        for (const kind of new Set(this.#waiters.map((waiter) => waiter.kind))) await this.#pollKind(kind);
      }
    } finally {
      this.#polling = false;
    }
  }

  /** One list of `kind`, and every waiter of it judged by it. */
  async #pollKind(kind: Kind): Promise<void> {
    let live: readonly LiveBase[];
    try {
      const list = (): Promise<LiveBase[]> => this.#deps.api.list(kind);
      live = await (this.#deps.onPoll ? this.#deps.onPoll(kind, list) : list());
    } catch (error) {
      // The client retried already; a list that keeps failing ends the waits it could not serve in time.
      this.#expire(
        kind,
        (waiter) =>
          new StacksyncError(
            'E_WAIT_TIMEOUT',
            `could not be followed while it settles: ${error instanceof Error ? error.message : String(error)}`,
            { subject: waiter.subject, cause: error },
          ),
      );
      return;
    }
    const byId = new Map(live.map((item) => [item.id, item]));
    const settle = descriptorOf(kind).settle;
    const now = this.#deps.clock();
    for (const waiter of this.#waiters.filter((each) => each.kind === kind)) {
      const current = byId.get(waiter.id);
      if (!current && waiter.goal === PRESENT_GOAL) {
        waiter.state = 'not there yet';
        if (now >= waiter.deadline) this.#drop(waiter).reject(timedOut(waiter, now));
        continue;
      }
      if (!current) {
        this.#drop(waiter).reject(
          new StacksyncError(
            'E_API_NOT_FOUND',
            `${kind} ${waiter.id} is gone while stacksync waited for it to settle`,
            { subject: waiter.subject },
          ),
        );
        continue;
      }
      const check =
        settle && waiter.goal !== PRESENT_GOAL ? settle.check(waiter.goal, current) : { settled: true as const };
      if ('failed' in check)
        this.#drop(waiter).reject(new StacksyncError('E_RESOURCE_FAILED', check.failed, { subject: waiter.subject }));
      else if (check.settled) this.#drop(waiter).resolve(current);
      else {
        if (check.state !== undefined) waiter.state = check.state;
        if (now >= waiter.deadline) this.#drop(waiter).reject(timedOut(waiter, now));
      }
    }
    this.#report(kind);
  }

  #expire(kind: Kind, error: (waiter: Waiter) => StacksyncError): void {
    const now = this.#deps.clock();
    for (const waiter of this.#waiters.filter((each) => each.kind === kind && now >= each.deadline))
      this.#drop(waiter).reject(error(waiter));
  }

  #drop(waiter: Waiter): Waiter {
    const index = this.#waiters.indexOf(waiter);
    if (index >= 0) this.#waiters.splice(index, 1);
    return waiter;
  }

  #report(kind: Kind): void {
    const waiting = this.#waiters.filter((waiter) => waiter.kind === kind);
    const states: Record<string, number> = {};
    for (const waiter of waiting) states[waiter.state ?? 'unknown'] = (states[waiter.state ?? 'unknown'] ?? 0) + 1;
    try {
      this.#deps.onProgress?.({ kind, waiting: waiting.length, states });
    } catch {
      // Progress output must not break an apply.
    }
  }
}

function timedOut(waiter: Waiter, now: number): StacksyncError {
  const seconds = Math.round((now - waiter.startedAt) / 1000);
  const state = waiter.state === undefined ? '' : ` (still ${waiter.state})`;
  return new StacksyncError(
    'E_WAIT_TIMEOUT',
    `did not settle within ${seconds}s${state}; it may still settle on its own (the next run sees where it is; apply --wait gives it longer)`,
    { subject: waiter.subject },
  );
}
