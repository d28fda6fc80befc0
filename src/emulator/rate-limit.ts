/**
 * `--rate-limit N`: at most N requests per credential in each one-second window. Windows are
 * aligned to the clock's seconds; the table is dropped when a window ends, so it never grows.
 *
 * `--rate-window D` (with `--rate-limit`) counts over a sliding window of D instead, as the
 * managed service's "10 requests over a 10-second window" does: a request is refused when N
 * others arrived in the D before it, wherever the clock's seconds fall. A client that paces a
 * fixed window, or to the millisecond, meets its 429 here.
 */
export type RateDecision =
  | { allowed: true; limit: number; remaining: number; resetSeconds: number }
  | { allowed: false; limit: number; remaining: 0; resetSeconds: number };

export class RateLimiter {
  private window = -1;
  private readonly counts = new Map<string, number>();
  /** Sliding mode: arrival times per key, oldest first, at most `limit` of them. */
  private readonly arrivals = new Map<string, number[]>();
  private lastSweep = 0;

  /** `windowMs` undefined: fixed windows of the clock's seconds; otherwise a sliding window of that length. */
  constructor(
    readonly limit: number,
    private readonly clock: () => number,
    readonly windowMs?: number,
  ) {}

  /** "2 requests per second", "10 requests per 10 s": for the 429's message. */
  describe(): string {
    return this.windowMs === undefined
      ? `${this.limit} requests per second`
      : `${this.limit} requests per ${this.windowMs / 1000} s`;
  }

  take(key: string): RateDecision {
    return this.windowMs === undefined ? this.takeFixed(key) : this.takeSliding(key, this.windowMs);
  }

  private takeFixed(key: string): RateDecision {
    const now = this.clock();
    const window = Math.floor(now / 1000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    // Whole seconds until the window ends, at least 1, as Retry-After wants.
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * 1000 - now) / 1000));
    const used = this.counts.get(key) ?? 0;
    if (used >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetSeconds };
    this.counts.set(key, used + 1);
    return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetSeconds };
  }

  private takeSliding(key: string, windowMs: number): RateDecision {
    const now = this.clock();
    this.sweep(now, windowMs);
    const times = this.arrivals.get(key) ?? [];
    while (times.length > 0 && (times[0] ?? 0) + windowMs <= now) times.shift();
    this.arrivals.set(key, times);
    const oldest = times[0] ?? now;
    // Whole seconds until the oldest arrival leaves the window, at least 1, as Retry-After wants.
    const resetSeconds = Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
    if (times.length >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetSeconds };
    times.push(now);
    return { allowed: true, limit: this.limit, remaining: this.limit - times.length, resetSeconds };
  }

  /** Once a window, forgets keys with no arrival left in it, so the table never grows. */
  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    for (const [key, times] of this.arrivals) if ((times.at(-1) ?? 0) + windowMs <= now) this.arrivals.delete(key);
  }
}
