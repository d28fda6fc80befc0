/**
 * Client-side pacing of one target: a token bucket sized by the target's `rateLimit` and a cap on
 * requests in flight. Reads and writes share the budget; queued writes are served before queued
 * reads so a long read (thousands of alerts) never starves an apply.
 *
 * Each token comes back `perSeconds` after it was spent (not trickled in at an average rate), so no
 * window of `perSeconds` ever holds more than `requests` requests. A plain refill-rate bucket that
 * starts full can send almost twice the budget in one window and earn 429s from a fixed-window
 * server; this one cannot.
 */
import { setMaxListeners } from 'node:events';
import { StacksyncError } from '../errors.js';

export type Priority = 'write' | 'read';

export interface PacerOptions {
  /** Requests allowed per window. */
  requests: number;
  /** Window length in seconds. */
  perSeconds: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Milliseconds since some epoch; default `Date.now`. */
  now?: () => number;
  /** Resolves after `ms`, rejects when `signal` aborts; default a global `setTimeout`. */
  sleep?: Sleep;
  /** Told how long each granted request waited for a token or a slot (only when it waited). */
  onWait?: (waitedMs: number) => void;
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Releases the slot a request held; call exactly once, when its exchange is over. */
export type Release = () => void;

interface Waiter {
  since: number;
  grant: (release: Release) => void;
  fail: (error: Error) => void;
}

export class Pacer {
  private readonly windowMs: number;
  private readonly capacity: number;
  private readonly concurrency: number;
  private readonly now: () => number;
  private readonly sleep: Sleep;
  private readonly onWait: ((waitedMs: number) => void) | undefined;
  /** Times at which tokens were spent, oldest first; at most `capacity` of them. */
  private readonly spent: number[] = [];
  private readonly queues: Record<Priority, Waiter[]> = { write: [], read: [] };
  private inFlight = 0;
  private pausedUntil = 0;
  private waking = false;
  private closed = false;
  private readonly abort = new AbortController();

  constructor(options: PacerOptions) {
    // One signal serves every request and wait of the client; each adds a listener while pending.
    setMaxListeners(0, this.abort.signal);
    this.capacity = Math.max(1, Math.floor(options.requests));
    this.windowMs = Math.max(0, options.perSeconds * 1000);
    this.concurrency = Math.max(1, Math.floor(options.concurrency));
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
    this.onWait = options.onWait;
  }

  /** Waits for a token and a free slot. Writes go ahead of reads that are still queued. */
  acquire(priority: Priority): Promise<Release> {
    if (this.closed) return Promise.reject(closedError());
    return new Promise<Release>((grant, fail) => {
      this.queues[priority].push({ since: this.now(), grant, fail });
      this.pump();
    });
  }

  /** No request leaves before `untilMs` (a server said its window resets then). */
  pauseUntil(untilMs: number): void {
    if (untilMs <= this.pausedUntil) return;
    this.pausedUntil = untilMs;
  }

  /** Requests waiting for a token or a slot. */
  get pending(): number {
    return this.queues.write.length + this.queues.read.length;
  }

  /** Fails every waiting request and stops the wake-up timer. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    for (const waiter of [...this.queues.write, ...this.queues.read]) waiter.fail(closedError());
    this.queues.write.length = 0;
    this.queues.read.length = 0;
  }

  private pump(): void {
    while (!this.closed && this.inFlight < this.concurrency) {
      const waiter = this.queues.write[0] ?? this.queues.read[0];
      if (!waiter) return;
      const readyAt = this.nextTokenAt();
      if (readyAt > this.now()) return this.wakeAt(readyAt);
      (this.queues.write[0] === waiter ? this.queues.write : this.queues.read).shift();
      this.grant(waiter);
    }
  }

  private grant(waiter: Waiter): void {
    const now = this.now();
    this.spent.push(now);
    this.inFlight += 1;
    const waited = now - waiter.since;
    if (waited > 0) this.onWait?.(waited);
    let released = false;
    waiter.grant(() => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      this.pump();
    });
  }

  /** When the next token is free: after any pause, and once the oldest spent token is a window old. */
  private nextTokenAt(): number {
    const now = this.now();
    while (this.spent.length > 0 && (this.spent[0] ?? 0) + this.windowMs <= now) this.spent.shift();
    const tokenAt = this.spent.length < this.capacity ? now : (this.spent[0] ?? now) + this.windowMs;
    return Math.max(tokenAt, this.pausedUntil);
  }

  private wakeAt(at: number): void {
    if (this.waking) return;
    this.waking = true;
    this.sleep(Math.max(0, at - this.now()), this.abort.signal).then(
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
