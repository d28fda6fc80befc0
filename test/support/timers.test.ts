import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, setLongTimeout } from '../../src/support/timers.js';

const DAY = 86_400_000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('setLongTimeout', () => {
  it('waits 30 days, past what setTimeout can hold', async () => {
    const fired = vi.fn();
    setLongTimeout(fired, 30 * DAY);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(30 * DAY - MAX_TIMER_MS - 1);
    expect(fired).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('fires short waits as setTimeout does, and a negative one at once', async () => {
    const fired = vi.fn();
    setLongTimeout(fired, 1000);
    setLongTimeout(fired, -5);
    await vi.advanceTimersByTimeAsync(0);
    expect(fired).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fired).toHaveBeenCalledTimes(2);
  });

  it('can be cleared in any of its steps', async () => {
    const fired = vi.fn();
    const timer = setLongTimeout(fired, 60 * DAY);
    await vi.advanceTimersByTimeAsync(40 * DAY);
    timer.clear();
    await vi.advanceTimersByTimeAsync(40 * DAY);
    expect(fired).not.toHaveBeenCalled();
  });

  it('refuses NaN instead of firing at once', () => {
    expect(() => setLongTimeout(() => undefined, Number.NaN)).toThrow(RangeError);
  });
});
