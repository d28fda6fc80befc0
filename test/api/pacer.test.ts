import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Pacer, type Release } from '../../src/api/pacer.js';

const T0 = 1_700_000_000_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Acquires and records when each grant happened, relative to T0. */
function grantTimes(pacer: Pacer, count: number, priority: 'read' | 'write' = 'read'): { times: number[]; done: Promise<void> } {
  const times: number[] = [];
  const done = Promise.all(
    Array.from({ length: count }, async () => {
      const release = await pacer.acquire(priority);
      times.push(Date.now() - T0);
      release();
    }),
  ).then(() => undefined);
  return { times, done };
}

describe('Pacer', () => {
  it('lets a full bucket through at once, then one request per returned token', async () => {
    const pacer = new Pacer({ requests: 3, perSeconds: 10, concurrency: 10 });
    const { times, done } = grantTimes(pacer, 5);
    await vi.advanceTimersByTimeAsync(0);
    expect(times).toEqual([0, 0, 0]);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(times).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(times).toEqual([0, 0, 0, 10_000, 10_000]);
  });

  it('never lets more than `requests` requests into any window', async () => {
    const pacer = new Pacer({ requests: 10, perSeconds: 10, concurrency: 2 });
    const { times, done } = grantTimes(pacer, 35);
    await vi.advanceTimersByTimeAsync(60_000);
    await done;
    expect(times).toHaveLength(35);
    for (let i = 0; i + 10 < times.length; i++) expect((times[i + 10] ?? 0) - (times[i] ?? 0)).toBeGreaterThanOrEqual(10_000);
  });

  it('caps requests in flight at the concurrency', async () => {
    const pacer = new Pacer({ requests: 100, perSeconds: 1, concurrency: 2 });
    const releases: Release[] = [];
    const all = Array.from({ length: 4 }, () => pacer.acquire('read').then((release) => releases.push(release)));
    await vi.advanceTimersByTimeAsync(0);
    expect(releases).toHaveLength(2);
    expect(pacer.pending).toBe(2);
    releases[0]?.();
    releases[0]?.(); // a second call of the same release must not free another slot
    await vi.advanceTimersByTimeAsync(0);
    expect(releases).toHaveLength(3);
    releases[1]?.();
    await Promise.all(all);
    expect(releases).toHaveLength(4);
  });

  it('serves queued writes before queued reads', async () => {
    const pacer = new Pacer({ requests: 100, perSeconds: 1, concurrency: 1 });
    const order: string[] = [];
    const first = await pacer.acquire('read');
    const queued = [
      pacer.acquire('read').then((release) => (order.push('read-1'), release())),
      pacer.acquire('read').then((release) => (order.push('read-2'), release())),
      pacer.acquire('write').then((release) => (order.push('write-1'), release())),
    ];
    first();
    await Promise.all(queued);
    expect(order).toEqual(['write-1', 'read-1', 'read-2']);
  });

  it('serves a write waiting for a token before reads that queued earlier', async () => {
    const pacer = new Pacer({ requests: 1, perSeconds: 1, concurrency: 5 });
    (await pacer.acquire('read'))();
    const order: string[] = [];
    const queued = [
      pacer.acquire('read').then((release) => (order.push('read'), release())),
      pacer.acquire('write').then((release) => (order.push('write'), release())),
    ];
    await vi.advanceTimersByTimeAsync(2_000);
    await Promise.all(queued);
    expect(order).toEqual(['write', 'read']);
  });

  it('lets nothing through before a pause ends', async () => {
    const pacer = new Pacer({ requests: 100, perSeconds: 1, concurrency: 5 });
    pacer.pauseUntil(T0 + 7_000);
    pacer.pauseUntil(T0 + 3_000); // an earlier end does not shorten the pause
    const { times, done } = grantTimes(pacer, 2, 'write');
    await vi.advanceTimersByTimeAsync(6_999);
    expect(times).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(times).toEqual([7_000, 7_000]);
  });

  it('reports how long each granted request waited', async () => {
    const waits: number[] = [];
    const pacer = new Pacer({ requests: 1, perSeconds: 2, concurrency: 5, onWait: (ms) => waits.push(ms) });
    const { done } = grantTimes(pacer, 3);
    await vi.advanceTimersByTimeAsync(10_000);
    await done;
    expect(waits).toEqual([2_000, 4_000]);
  });

  it('fails waiting requests when closed, and refuses new ones', async () => {
    const pacer = new Pacer({ requests: 1, perSeconds: 60, concurrency: 1 });
    await pacer.acquire('read');
    const waiting = pacer.acquire('write');
    pacer.close();
    await expect(waiting).rejects.toMatchObject({ code: 'E_API_UNAVAILABLE' });
    await expect(pacer.acquire('read')).rejects.toMatchObject({ code: 'E_API_UNAVAILABLE' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
