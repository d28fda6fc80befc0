/**
 * When each target syncs. Level-based and de-duplicated, in the spirit of controller-runtime's
 * workqueue: a work item is only a target name (the sync re-reads manifests and live state
 * itself), so any number of triggers for a target collapse into one pending sync.
 *
 * Rules:
 * - a target never syncs twice at once; a trigger during a sync marks it dirty, and exactly one
 *   more sync runs after the current one;
 * - triggers in one burst (the same tick) coalesce into one sync;
 * - targets are independent: each has its own entry, so one hanging or failing does not delay others;
 * - after each sync, the outcome decides the next one (see `nextRun`): a periodic resync
 *   `intervalMs` ± jitter later, or a retry with exponential backoff after a transient failure;
 * - a target that shares its rate budget with others resyncs on its own slot of a common cycle
 *   instead (see resync-slots.ts), so the group's resyncs come one after another, not all at once.
 */
import type { Logger } from 'pino';
import { setLongTimeout, type LongTimeout } from '../support/timers.js';
import { delayToSlot, type ResyncSlot } from './resync-slots.js';

/** Why a sync runs; informational, since every sync reconciles the whole target. */
export type Trigger = 'initial' | 'files' | 'resync' | 'reload' | 'retry';

/** How a sync ended, which decides when the target syncs next. */
export type SyncOutcome =
  /** Reconciled; next: periodic resync. */
  | { result: 'ok' }
  /** May pass on retry (API down, 5xx, throttled, timeout); next: retry with backoff. */
  | { result: 'transient'; error?: unknown }
  /** Will fail again until something changes (bad manifests, refused credentials); next: periodic resync or a change. */
  | { result: 'terminal'; error?: unknown }
  /** Sync again after a set delay (e.g. a service reported `Retry-After`). */
  | { result: 'requeue'; afterMs: number };

export interface SchedulerTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SchedulerOptions {
  targets: readonly string[];
  /**
   * Syncs one target. `signal` aborts when the scheduler stops: the sync should start no new
   * API writes and return soon. A throw counts as a transient failure.
   */
  sync: (target: string, trigger: Trigger, signal: AbortSignal) => Promise<SyncOutcome>;
  /** Periodic resync of each target, counted from the end of its last sync. */
  intervalMs: number;
  /** Spread of the resync interval, as a share of it: 0.1 means ±10 %. Default 0.1. */
  jitter?: number;
  /**
   * Targets that resync on a slot of a cycle (those sharing a rate budget; see resync-slots.ts) instead
   * of `intervalMs` ± jitter after their last sync. Cycles count from `start()`. Default none.
   */
  resyncSlots?: ReadonlyMap<string, ResyncSlot>;
  /** First retry delay after a transient failure, doubling per consecutive failure. Default 1 s. */
  backoffInitialMs?: number;
  /** Longest retry delay. Default min(intervalMs, 5 min). */
  backoffMaxMs?: number;
  /** Default the global timers (so test fake timers apply). */
  timers?: SchedulerTimers;
  /** Epoch milliseconds; default `Date.now`. */
  now?: () => number;
  /** In [0, 1); default `Math.random`. */
  random?: () => number;
  logger?: Logger;
  /**
   * Told after each sync of a target what comes next: the timed sync it scheduled (a retry after
   * a transient failure, or the periodic resync), or nothing timed (it syncs again at once, or
   * the scheduler is stopping). How the daemon words a retry: `retrying … in 2 s`.
   */
  onNext?: (target: string, outcome: SyncOutcome, next: NextSync | undefined) => void;
}

/** The timed sync the scheduler arranged after a sync. */
export interface NextSync {
  delayMs: number;
  trigger: Trigger;
}

/** A target's scheduling state, for `/status`, logs and tests. */
export interface TargetSchedule {
  /** A sync of this target is in progress. */
  running: boolean;
  /** A trigger arrived during the running sync; one more sync follows it. */
  dirty: boolean;
  /** Consecutive transient failures (0 after any other outcome). */
  failures: number;
  lastTrigger?: Trigger;
  lastOutcome?: SyncOutcome;
  lastStartedAt?: number;
  lastFinishedAt?: number;
  /** When the next timed sync (resync or retry) is due, epoch ms. */
  nextRunAt?: number;
  nextTrigger?: Trigger;
}

export interface Scheduler {
  /** Starts the initial sync of every target. Triggers before `start` are ignored. */
  start(): void;
  /** Asks for a sync of the given targets (all when omitted). Unknown target names throw. */
  trigger(reason: Trigger, targets?: readonly string[]): void;
  /** Stops taking work: cancels timers, aborts the syncs' signal, waits for syncs in flight. */
  stop(): Promise<void>;
  /** Resolves when no sync of the given targets (all when omitted) is running or about to start. */
  idle(targets?: readonly string[]): Promise<void>;
  state(target: string): TargetSchedule | undefined;
}

export const DEFAULT_JITTER = 0.1;
export const DEFAULT_BACKOFF_INITIAL_MS = 1_000;
export const BACKOFF_CAP_MS = 5 * 60_000;

/** When several triggers coalesce, the sync reports the highest-ranked one. */
const TRIGGER_RANK: Record<Trigger, number> = { resync: 0, retry: 1, files: 2, reload: 3, initial: 4 };

interface TargetEntry extends TargetSchedule {
  readonly name: string;
  /** A dispatch is queued for the end of this tick. */
  queued: boolean;
  /** The strongest trigger waiting to run. */
  pending?: Trigger;
  timer?: unknown;
  inFlight: Promise<void>;
}

/** Global timers, armed in steps for waits past 24.8 days (see `support/timers.ts`). */
const GLOBAL_TIMERS: SchedulerTimers = {
  setTimeout: (callback, ms) => setLongTimeout(callback, ms),
  clearTimeout: (handle) => (handle as LongTimeout).clear(),
};

export function createScheduler(options: SchedulerOptions): Scheduler {
  const timers = options.timers ?? GLOBAL_TIMERS;
  const now = options.now ?? Date.now;
  const nextRun = nextRunPolicy(options);
  let epoch = now();
  const entries = new Map<string, TargetEntry>(options.targets.map((name) => [name, newEntry(name)]));
  const aborter = new AbortController();
  let started = false;
  let stopping: Promise<void> | undefined;

  const entriesOf = (names: readonly string[] | undefined): TargetEntry[] =>
    (names ?? [...entries.keys()]).map((name) => {
      const entry = entries.get(name);
      if (entry === undefined) throw new Error(`unknown target ${name}`);
      return entry;
    });

  function enqueue(entry: TargetEntry, reason: Trigger): void {
    entry.pending = stronger(entry.pending, reason);
    if (entry.running) {
      entry.dirty = true;
      return;
    }
    if (entry.queued) return;
    entry.queued = true;
    // End of the tick, so a burst of triggers in one tick becomes one sync.
    queueMicrotask(() => dispatch(entry));
  }

  function dispatch(entry: TargetEntry): void {
    entry.queued = false;
    if (stopping !== undefined || entry.running) return;
    const trigger = entry.pending ?? 'resync';
    entry.pending = undefined;
    cancelTimer(entry);
    entry.running = true;
    entry.lastTrigger = trigger;
    entry.lastStartedAt = now();
    entry.inFlight = runSync(entry.name, trigger).then((outcome) => finish(entry, outcome));
  }

  async function runSync(target: string, trigger: Trigger): Promise<SyncOutcome> {
    try {
      return await options.sync(target, trigger, aborter.signal);
    } catch (error) {
      options.logger?.error({ err: error, target, trigger }, 'sync threw; retrying with backoff');
      return { result: 'transient', error };
    }
  }

  function finish(entry: TargetEntry, outcome: SyncOutcome): void {
    entry.running = false;
    entry.lastOutcome = outcome;
    entry.lastFinishedAt = now();
    entry.failures = outcome.result === 'transient' ? entry.failures + 1 : 0;
    if (stopping !== undefined || entry.dirty) {
      tell(entry.name, outcome, undefined);
      if (stopping !== undefined) return;
      entry.dirty = false;
      enqueue(entry, entry.pending ?? 'resync');
      return;
    }
    const next = nextRun(entry.name, outcome, entry.failures, epoch, now());
    tell(entry.name, outcome, next);
    schedule(entry, next.delayMs, next.trigger);
  }

  function tell(target: string, outcome: SyncOutcome, next: NextSync | undefined): void {
    try {
      options.onNext?.(target, outcome, next);
    } catch (error) {
      options.logger?.error({ err: error, target }, 'reporting a sync failed');
    }
  }

  function schedule(entry: TargetEntry, delayMs: number, trigger: Trigger): void {
    cancelTimer(entry);
    entry.nextRunAt = now() + delayMs;
    entry.nextTrigger = trigger;
    entry.timer = timers.setTimeout(() => {
      entry.timer = undefined;
      enqueue(entry, trigger);
    }, delayMs);
  }

  function cancelTimer(entry: TargetEntry): void {
    if (entry.timer !== undefined) timers.clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.nextRunAt = undefined;
    entry.nextTrigger = undefined;
  }

  return {
    start() {
      if (started) return;
      started = true;
      epoch = now();
      for (const entry of entries.values()) enqueue(entry, 'initial');
    },
    trigger(reason, targets) {
      const chosen = entriesOf(targets);
      if (!started || stopping !== undefined) return;
      for (const entry of chosen) enqueue(entry, reason);
    },
    stop() {
      stopping ??= (async () => {
        aborter.abort();
        for (const entry of entries.values()) cancelTimer(entry);
        await Promise.all([...entries.values()].map((entry) => entry.inFlight));
      })();
      return stopping;
    },
    async idle(targets) {
      const chosen = entriesOf(targets);
      while (chosen.some((entry) => entry.running || entry.queued)) {
        await Promise.all(chosen.map((entry) => entry.inFlight));
        await new Promise<void>((resolve) => queueMicrotask(resolve));
      }
    },
    state(target) {
      const entry = entries.get(target);
      return entry === undefined ? undefined : publicState(entry);
    },
  };
}

type NextRun = (target: string, outcome: SyncOutcome, failures: number, epochMs: number, nowMs: number) => NextSync;

/** The retry policy in one place: what an outcome means for the next sync of the target. */
function nextRunPolicy(options: SchedulerOptions): NextRun {
  const random = options.random ?? Math.random;
  const jitter = options.jitter ?? DEFAULT_JITTER;
  const initial = options.backoffInitialMs ?? DEFAULT_BACKOFF_INITIAL_MS;
  const cap = options.backoffMaxMs ?? Math.min(options.intervalMs, BACKOFF_CAP_MS);
  const resync = (target: string, epochMs: number, nowMs: number): { delayMs: number; trigger: Trigger } => {
    const slot = options.resyncSlots?.get(target);
    return {
      delayMs: slot ? delayToSlot(slot, epochMs, nowMs) : jittered(options.intervalMs, jitter, random()),
      trigger: 'resync',
    };
  };
  return (target, outcome, failures, epochMs, nowMs) => {
    switch (outcome.result) {
      case 'ok':
      case 'terminal':
        return resync(target, epochMs, nowMs);
      case 'transient':
        return { delayMs: retryDelay(initial, cap, failures), trigger: 'retry' };
      case 'requeue':
        return { delayMs: Math.max(0, outcome.afterMs), trigger: 'resync' };
    }
  };
}

/** `intervalMs` spread by ±`jitter` share; `sample` in [0, 1). */
export function jittered(intervalMs: number, jitter: number, sample: number): number {
  return Math.round(intervalMs * (1 + jitter * (2 * sample - 1)));
}

/** How long a retry waits: `initialMs` doubled per failure after the first, capped at `maxMs`, without jitter. */
export function retryDelay(initialMs: number, maxMs: number, failures: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, failures - 1));
}

function stronger(current: Trigger | undefined, next: Trigger): Trigger {
  return current === undefined || TRIGGER_RANK[next] > TRIGGER_RANK[current] ? next : current;
}

function newEntry(name: string): TargetEntry {
  return { name, running: false, dirty: false, failures: 0, queued: false, inFlight: Promise.resolve() };
}

function publicState(entry: TargetEntry): TargetSchedule {
  const { name: _name, queued: _queued, pending: _pending, timer: _timer, inFlight: _inFlight, ...state } = entry;
  return { ...state };
}
