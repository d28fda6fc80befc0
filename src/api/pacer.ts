/**
 * Client-side pacing of one rate budget: a sliding-window log of the requests granted and a cap on
 * requests in flight. Every target whose requests count against the budget (targets that share a
 * base URL and a credential, see `shared-pacers.ts`) gets a lane of its own.
 *
 * Rules, in the order `pump` applies them:
 * - lanes take turns (round robin): a target with a thousand queued writes gets one request per
 *   turn like a target with one read, so neither starves the other;
 * - within a lane, retries go first, then writes, then reads ({@link PRIORITY_ORDER});
 * - no window of `perSeconds` (plus a safety margin, below) ever holds more than `requests`
 *   requests. Each token comes back a window after it was spent, not trickled in at an average
 *   rate: a refill-rate bucket that starts full can send almost twice the budget in one window.
 *
 * When a token counts as spent: the server counts a request when it arrives, and arrivals wander
 * against grants (a fresh connection is slower than a kept-alive one; an event loop busy planning
 * another target sends a granted request late): the 11th request of a "10 per 10 s" budget was
 * seen arriving 9.994 s after the first. So a token is stamped when its exchange ends (the
 * answer is in, so the server has counted it by then), and a request in flight holds its token
 * as if it had just been spent. The next request is granted no earlier than a window after that,
 * and sent later still, so it arrives a full window after, whatever the delays on the way. On top,
 * each window is kept `marginMs` longer than the server's (2 % of it, 20 ms to 1 s by default)
 * for servers that time arrivals coarsely or approximate their window.
 *
 * Why not p-queue (its `strict` mode is the same sliding window): its queue is one priority order,
 * so turns between lanes would need a queue class of our own anyway; `clear()` leaves the promises
 * of the tasks it drops pending forever, while closing one target's client must fail that
 * target's waiters only; and it reads the global clock, where this one takes an injected clock.
 */
import { setMaxListeners } from 'node:events';
import { StacksyncError } from '../errors.js';

/**
 * What a request is, in the order a lane serves its queue: a retry first (it lost its place once
 * already: behind fresh requests, a write refused with 429 would lose the next window's race as
 * well, and give up after its last attempt), then writes, so a long read never starves an apply,
 * then reads.
 */
export const PRIORITY_ORDER = ['retry', 'write', 'read'] as const;
export type Priority = (typeof PRIORITY_ORDER)[number];

/** At most `requests` requests in any window of `perSeconds` seconds. */
export interface RateBudget {
  requests: number;
  perSeconds: number;
}

export interface PacerOptions extends RateBudget {
  /** Requests in flight at once. */
  concurrency: number;
  /** Milliseconds each window is kept beyond `perSeconds`; default {@link safetyMarginMs}. */
  marginMs?: number;
  /** Milliseconds since some epoch; default `Date.now`. */
  now?: () => number;
  /** Resolves after `ms`, rejects when `signal` aborts; default a global `setTimeout`. */
  sleep?: Sleep;
  /**
   * When the exchanges of requests already spent from this budget ended (ms, the clock's), oldest
   * first: those of another process on the same credential a moment ago, which the server still
   * counts (docs/apply.md#the-budget-across-commands).
   */
  spent?: readonly number[];
}

export interface LaneOptions {
  /** Told how long each granted request of this lane waited for a token, a slot or its turn (only when it waited). */
  onWait?: (waitedMs: number) => void;
  /**
   * Told, when the budget starts a wait for its next token (or for the end of a server's
   * `Retry-After`) while this lane has requests waiting, how long that wait will be: so a person
   * hears of a wait when it starts, not after it.
   */
  onDelay?: (delayMs: number) => void;
  /** Called once, after the lane's `close()`. */
  onClose?: () => void;
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Releases the slot a request held; call exactly once, when its exchange is over. */
export type Release = () => void;

/** What a request needs of its pacer: the view one target has of a (possibly shared) budget. */
export interface PacerLane {
  /** Waits for this lane's turn, a token and a free slot. */
  acquire(priority: Priority): Promise<Release>;
  /** No request of the whole budget leaves before `untilMs` (a server said its window resets then). */
  pauseUntil(untilMs: number): void;
  /** This lane's requests waiting. */
  readonly pending: number;
  /** Fails this lane's waiting requests and leaves the budget; other lanes go on. */
  close(): void;
}

/** The default margin of a window: 2 % of it, at least 20 ms and at most 1 s. */
export function safetyMarginMs(windowMs: number): number {
  return Math.min(1_000, Math.max(20, windowMs * 0.02));
}

interface Waiter {
  since: number;
  grant: (release: Release) => void;
  fail: (error: Error) => void;
}

interface Window {
  capacity: number;
  /** The server's window plus the margin. */
  ms: number;
}

interface LaneState {
  readonly queues: Record<Priority, Waiter[]>;
  readonly onWait: ((waitedMs: number) => void) | undefined;
  readonly onDelay: ((delayMs: number) => void) | undefined;
}

export class Pacer {
  private readonly windows: Window[] = [];
  private readonly marginMs: number | undefined;
  private concurrency: number;
  private readonly now: () => number;
  private readonly sleep: Sleep;
  /** Times at which the exchanges of spent tokens ended, oldest first; no older than the longest window. */
  private readonly spent: number[] = [];
  /** Lanes in turn order; `turn` (modulo their count) is the index of the lane asked first next time. */
  private readonly lanes: LaneState[] = [];
  private turn = 0;
  private inFlight = 0;
  private pausedUntil = 0;
  private waking = false;
  private closed = false;
  private readonly abort = new AbortController();

  constructor(options: PacerOptions) {
    // One signal serves every wait of the budget; each adds a listener while pending.
    setMaxListeners(0, this.abort.signal);
    this.marginMs = options.marginMs;
    this.concurrency = Math.max(1, Math.floor(options.concurrency));
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
    this.restrict(options);
    this.spent.push(...[...(options.spent ?? [])].sort((a, b) => a - b));
  }

  /** When the exchanges of the requests that still count in a window ended, oldest first. */
  spentStamps(): number[] {
    this.forgetOld();
    return [...this.spent];
  }

  /** The longest window held, margin included (ms). */
  get longestWindowMs(): number {
    return Math.max(...this.windows.map((window) => window.ms));
  }

  /** A new lane: one target's turn in the budget. */
  lane(options: LaneOptions = {}): PacerLane {
    const state: LaneState = {
      queues: { retry: [], write: [], read: [] },
      onWait: options.onWait,
      onDelay: options.onDelay,
    };
    this.lanes.push(state);
    let closed = false;
    return {
      acquire: (priority) => (closed ? Promise.reject(closedError()) : this.enqueue(state, priority)),
      pauseUntil: (untilMs) => this.pauseUntil(untilMs),
      get pending() {
        return waiting(state);
      },
      close: () => {
        if (closed) return;
        closed = true;
        this.leave(state);
        options.onClose?.();
      },
    };
  }

  /**
   * Honours one more budget besides those already held (a target sharing the credential with a
   * different setting): every window is kept, and the lowest concurrency wins.
   */
  restrict(budget: RateBudget & { concurrency?: number }): void {
    const perMs = Math.max(0, budget.perSeconds * 1000);
    const window: Window = {
      capacity: Math.max(1, Math.floor(budget.requests)),
      ms: perMs + (this.marginMs ?? safetyMarginMs(perMs)),
    };
    if (!this.windows.some((held) => held.capacity === window.capacity && held.ms === window.ms))
      this.windows.push(window);
    if (budget.concurrency !== undefined)
      this.concurrency = Math.min(this.concurrency, Math.max(1, Math.floor(budget.concurrency)));
  }

  /** No request leaves before `untilMs` (a server said its window resets then). */
  pauseUntil(untilMs: number): void {
    if (untilMs <= this.pausedUntil) return;
    this.pausedUntil = untilMs;
  }

  /** Requests of every lane waiting for a token, a slot or their turn. */
  get pending(): number {
    return this.lanes.reduce((sum, lane) => sum + waiting(lane), 0);
  }

  /** Lanes still open. */
  get laneCount(): number {
    return this.lanes.length;
  }

  /** Fails every waiting request of every lane and stops the wake-up timer. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    for (const lane of [...this.lanes]) this.leave(lane);
  }

  private enqueue(lane: LaneState, priority: Priority): Promise<Release> {
    if (this.closed) return Promise.reject(closedError());
    return new Promise<Release>((grant, fail) => {
      lane.queues[priority].push({ since: this.now(), grant, fail });
      this.pump();
    });
  }

  private leave(lane: LaneState): void {
    for (const priority of PRIORITY_ORDER) {
      for (const waiter of lane.queues[priority]) waiter.fail(closedError());
      lane.queues[priority].length = 0;
    }
    const index = this.lanes.indexOf(lane);
    if (index < 0) return;
    this.lanes.splice(index, 1);
    if (index < this.turn) this.turn -= 1;
  }

  private pump(): void {
    while (!this.closed && this.inFlight < this.concurrency) {
      const index = this.nextLane();
      if (index === undefined) return;
      const readyAt = this.nextTokenAt();
      // Infinity: every token is held by a request in flight; its release pumps again.
      if (readyAt === Infinity) return;
      if (readyAt > this.now()) {
        this.wakeAt(readyAt);
        return;
      }
      const lane = this.lanes[index] as LaneState;
      const waiter = firstWaiting(lane) as Waiter;
      this.turn = index + 1;
      this.grant(lane, waiter);
    }
  }

  /** The first lane with a waiter, starting at the one whose turn it is. */
  private nextLane(): number | undefined {
    for (let step = 0; step < this.lanes.length; step++) {
      const index = (this.turn + step) % this.lanes.length;
      const lane = this.lanes[index];
      if (lane && waiting(lane) > 0) return index;
    }
    return undefined;
  }

  private grant(lane: LaneState, waiter: Waiter): void {
    const now = this.now();
    this.inFlight += 1;
    const waited = now - waiter.since;
    if (waited > 0) lane.onWait?.(waited);
    let released = false;
    waiter.grant(() => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      this.spent.push(this.now());
      this.pump();
    });
  }

  /**
   * When the next token is free: after any pause, and once, for every window held, the token
   * `capacity` places back is a window old, counting those of requests in flight as spent now.
   * Infinity while requests in flight hold a whole window's tokens.
   */
  private nextTokenAt(): number {
    const now = this.forgetOld();
    let at = Math.max(now, this.pausedUntil);
    for (const window of this.windows) {
      const free = window.capacity - this.inFlight;
      if (free <= 0) return Infinity;
      const bounding = this.spent[this.spent.length - free];
      if (bounding !== undefined) at = Math.max(at, bounding + window.ms);
    }
    return at;
  }

  /** Drops the stamps no window needs any more (older than the longest, or past the largest capacity); returns now. */
  private forgetOld(): number {
    const now = this.now();
    const longest = this.longestWindowMs;
    const most = Math.max(...this.windows.map((window) => window.capacity));
    while (this.spent.length > 0 && ((this.spent[0] ?? 0) + longest <= now || this.spent.length > most))
      this.spent.shift();
    return now;
  }

  private wakeAt(at: number): void {
    if (this.waking) return;
    this.waking = true;
    const delayMs = Math.max(0, at - this.now());
    for (const lane of this.lanes) if (waiting(lane) > 0) lane.onDelay?.(delayMs);
    this.sleep(delayMs, this.abort.signal).then(
      () => {
        this.waking = false;
        this.pump();
      },
      () => {
        this.waking = false;
      },
    );
  }
}

/** Requests of a lane waiting, of every priority. */
function waiting(lane: LaneState): number {
  return PRIORITY_ORDER.reduce((sum, priority) => sum + lane.queues[priority].length, 0);
}

/** Takes the lane's next waiter, the first of its highest priority. */
function firstWaiting(lane: LaneState): Waiter | undefined {
  for (const priority of PRIORITY_ORDER) if (lane.queues[priority].length > 0) return lane.queues[priority].shift();
  return undefined;
}

function closedError(): StacksyncError {
  return new StacksyncError('E_API_UNAVAILABLE', 'the API client was closed before the request was sent');
}

/** `setTimeout` as a promise that an AbortSignal cancels; global so fake timers control it. */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort(): void {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
