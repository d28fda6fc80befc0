/**
 * `--rate-limit N`: at most N requests per credential in each one-second window. Windows are
 * aligned to the clock's seconds; the table is dropped when a window ends, so it never grows.
 */
export type RateDecision =
  | { allowed: true; limit: number; remaining: number; resetSeconds: number }
  | { allowed: false; limit: number; remaining: 0; resetSeconds: number };

export class RateLimiter {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    readonly limit: number,
    private readonly clock: () => number,
  ) {}

  take(key: string): RateDecision {
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
}
