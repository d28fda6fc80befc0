import { describe, expect, it } from 'vitest';
import { jitteredBackoff, DEFAULT_RETRY_POLICY, serverWaitMs } from '../../src/api/backoff.js';

const NOW = Date.parse('2026-03-15T10:20:30.000Z');

describe('serverWaitMs', () => {
  it.each([
    { name: 'Retry-After seconds', headers: { 'retry-after': '3' }, want: 3_000 },
    { name: 'Retry-After fractional', headers: { 'retry-after': '0.25' }, want: 250 },
    { name: 'Retry-After HTTP date', headers: { 'retry-after': 'Sun, 15 Mar 2026 10:20:42 GMT' }, want: 12_000 },
    { name: 'Retry-After date in the past', headers: { 'retry-after': 'Sun, 15 Mar 2026 10:00:00 GMT' }, want: 0 },
    { name: 'X-RateLimit-Reset seconds', headers: { 'x-ratelimit-reset': '7' }, want: 7_000 },
    { name: 'X-RateLimit-Reset epoch seconds', headers: { 'x-ratelimit-reset': String(NOW / 1000 + 9) }, want: 9_000 },
    { name: 'RateLimit-Reset seconds', headers: { 'ratelimit-reset': '2' }, want: 2_000 },
    {
      name: 'the longest of several',
      headers: { 'retry-after': '2', 'x-ratelimit-reset': '5', 'ratelimit-reset': '4' },
      want: 5_000,
    },
    { name: 'repeated header', headers: { 'retry-after': ['4', '9'] }, want: 4_000 },
    { name: 'none', headers: {}, want: undefined },
    {
      name: 'garbage',
      headers: { 'retry-after': 'soon', 'x-ratelimit-reset': '-3', 'ratelimit-reset': '' },
      want: undefined,
    },
  ])('$name', ({ headers, want }) => {
    expect(serverWaitMs(headers, NOW)).toBe(want);
  });
});

describe('jitteredBackoff', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('doubles the jitter window per attempt up to the cap', () => {
    const almostOne = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((attempt) => jitteredBackoff(policy, attempt, almostOne))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
  });

  it('draws uniformly from the whole window (full jitter)', () => {
    expect(jitteredBackoff(policy, 3, () => 0)).toBe(0);
    expect(jitteredBackoff(policy, 3, () => 0.5)).toBe(200);
  });
});
