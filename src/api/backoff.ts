/**
 * How long to wait before trying again: exponential backoff with full jitter, bounded in attempts
 * and in total time, and the server's own word (`Retry-After`, `X-RateLimit-Reset`,
 * `RateLimit-Reset`) when it answers 429.
 */

/** Retry bounds. Defaults in {@link DEFAULT_RETRY_POLICY}. */
export interface RetryPolicy {
  /** Attempts in total, the first included. Default 6. */
  maxAttempts: number;
  /** Cap of the first backoff window; doubles per attempt. Default 500 ms. */
  baseDelayMs: number;
  /** Largest backoff window. Default 30 s. */
  maxDelayMs: number;
  /** No retry is started when it would end later than this after the first attempt began. Default 120 s. */
  maxElapsedMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxElapsedMs: 120_000,
});

/** Full jitter: uniform in [0, min(maxDelay, base·2^(attempt-1))). `attempt` is the one that failed, from 1. */
export function jitteredBackoff(policy: RetryPolicy, attempt: number, random: () => number): number {
  const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * window);
}

/** Header lookup that ignores case; undici gives lower-case names, arrays for repeated headers. */
export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * Milliseconds the server asked us to wait, or undefined when it did not say. When several headers
 * speak, the longest wait wins: waiting less than any of them earns another 429.
 */
export function serverWaitMs(headers: HeaderBag, nowMs: number): number | undefined {
  const waits = [
    parseRetryAfter(header(headers, 'retry-after'), nowMs),
    parseResetSeconds(header(headers, 'x-ratelimit-reset'), nowMs),
    parseResetSeconds(header(headers, 'ratelimit-reset'), nowMs),
  ].filter((wait): wait is number => wait !== undefined);
  return waits.length === 0 ? undefined : Math.max(...waits);
}

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `Retry-After`: delta seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Epoch seconds are far larger than any sane window; below that the value is seconds from now. */
const EPOCH_SECONDS_THRESHOLD = 1_000_000_000;

/** `X-RateLimit-Reset` / `RateLimit-Reset`: seconds until the window resets (some servers send epoch seconds). */
export function parseResetSeconds(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value.trim());
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  if (seconds >= EPOCH_SECONDS_THRESHOLD) return Math.max(0, Math.ceil(seconds * 1000 - nowMs));
  return Math.ceil(seconds * 1000);
}
