import { inspect } from 'node:util';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Pacer, safetyMarginMs, type PacerLane, type Priority, type Release } from '../../src/api/pacer.js';
import { SharedPacers, type BudgetClient } from '../../src/api/shared-pacers.js';

const T0 = 1_700_000_000_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Acquires and records when each grant happened, relative to T0. */
function grantTimes(
  lane: PacerLane,
  count: number,
  priority: 'read' | 'write' = 'read',
): { times: number[]; done: Promise<void> } {
  const times: number[] = [];
  const done = Promise.all(
    Array.from({ length: count }, async () => {
      const release = await lane.acquire(priority);
      times.push(Date.now() - T0);
      release();
    }),
  ).then(() => undefined);
  return { times, done };
}

/** Queues `count` requests on a lane; each records `label` in `order` when granted and releases at once. */
function queue(
  lane: PacerLane,
  label: string,
  count: number,
  order: string[],
  priority: Priority = 'read',
): Promise<void> {
  return Promise.all(
    Array.from({ length: count }, () =>
      lane.acquire(priority).then((release) => {
        order.push(label);
        release();
      }),
    ),
  ).then(() => undefined);
}

describe('Pacer: one lane', () => {
  it('lets a full window through at once, then one request per returned token', async () => {
    const lane = new Pacer({ requests: 3, perSeconds: 10, concurrency: 10, marginMs: 0 }).lane();
    const { times, done } = grantTimes(lane, 5);
    await vi.advanceTimersByTimeAsync(0);
    expect(times).toEqual([0, 0, 0]);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(times).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(times).toEqual([0, 0, 0, 10_000, 10_000]);
  });

  it('never lets more than `requests` requests into any window', async () => {
    const lane = new Pacer({ requests: 10, perSeconds: 10, concurrency: 2, marginMs: 0 }).lane();
    const { times, done } = grantTimes(lane, 35);
    await vi.advanceTimersByTimeAsync(60_000);
    await done;
    expect(times).toHaveLength(35);
    for (let i = 0; i + 10 < times.length; i++)
      expect((times[i + 10] ?? 0) - (times[i] ?? 0)).toBeGreaterThanOrEqual(10_000);
  });

  it('keeps each window a safety margin longer than the budget says, 2 % by default', async () => {
    expect([safetyMarginMs(10_000), safetyMarginMs(1_000), safetyMarginMs(60_000), safetyMarginMs(600_000)]).toEqual([
      200, 20, 1_000, 1_000,
    ]);
    const lane = new Pacer({ requests: 10, perSeconds: 10, concurrency: 10 }).lane();
    const { times, done } = grantTimes(lane, 11);
    await vi.advanceTimersByTimeAsync(10_199);
    expect(times).toHaveLength(10);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    // The 11th request leaves 10.2 s after the first: a server whose clock sees it up to 200 ms early still counts it in a new window.
    expect(times.at(-1)).toBe(10_200);
  });

  it('counts a token from the end of its exchange, so a request sent late cannot arrive early', async () => {
    const lane = new Pacer({ requests: 2, perSeconds: 1, concurrency: 5, marginMs: 0 }).lane();
    const slow = await lane.acquire('write');
    (await lane.acquire('write'))();
    const { times, done } = grantTimes(lane, 3);
    // The slow request holds a token while in flight; the other token cycles once a second.
    await vi.advanceTimersByTimeAsync(2_500);
    expect(times).toEqual([1_000, 2_000]);
    // The slow request ends at 2.5 s: its token comes back at 3.5 s, not a window after its grant.
    slow();
    await vi.advanceTimersByTimeAsync(500);
    expect(times).toEqual([1_000, 2_000, 3_000]);
    await done;
    const after = grantTimes(lane, 1);
    await vi.advanceTimersByTimeAsync(499);
    expect(after.times).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await after.done;
    expect(after.times).toEqual([3_500]);
  });

  it('caps requests in flight at the concurrency', async () => {
    const lane = new Pacer({ requests: 100, perSeconds: 1, concurrency: 2 }).lane();
    const releases: Release[] = [];
    const all = Array.from({ length: 4 }, () => lane.acquire('read').then((release) => releases.push(release)));
    await vi.advanceTimersByTimeAsync(0);
    expect(releases).toHaveLength(2);
    expect(lane.pending).toBe(2);
    releases[0]?.();
    releases[0]?.(); // a second call of the same release must not free another slot
    await vi.advanceTimersByTimeAsync(0);
    expect(releases).toHaveLength(3);
    releases[1]?.();
    await Promise.all(all);
    expect(releases).toHaveLength(4);
  });

  it('serves queued writes before queued reads', async () => {
    const lane = new Pacer({ requests: 100, perSeconds: 1, concurrency: 1 }).lane();
    const order: string[] = [];
    const first = await lane.acquire('read');
    const queued = [
      queue(lane, 'read-1', 1, order),
      queue(lane, 'read-2', 1, order),
      queue(lane, 'write-1', 1, order, 'write'),
    ];
    first();
    await Promise.all(queued);
    expect(order).toEqual(['write-1', 'read-1', 'read-2']);
  });

  it('serves a retry before the writes and reads that queued earlier, so a request refused once does not lose the next race too', async () => {
    const lane = new Pacer({ requests: 100, perSeconds: 1, concurrency: 1 }).lane();
    const order: string[] = [];
    const first = await lane.acquire('write');
    const queued = [
      queue(lane, 'read', 1, order),
      queue(lane, 'write', 2, order, 'write'),
      queue(lane, 'retry', 1, order, 'retry'),
    ];
    first();
    await Promise.all(queued);
    expect(order).toEqual(['retry', 'write', 'write', 'read']);
  });

  it('serves a write waiting for a token before reads that queued earlier', async () => {
    const lane = new Pacer({ requests: 1, perSeconds: 1, concurrency: 5 }).lane();
    (await lane.acquire('read'))();
    const order: string[] = [];
    const queued = [queue(lane, 'read', 1, order), queue(lane, 'write', 1, order, 'write')];
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(queued);
    expect(order).toEqual(['write', 'read']);
  });

  it('lets nothing through before a pause ends', async () => {
    const lane = new Pacer({ requests: 100, perSeconds: 1, concurrency: 5 }).lane();
    lane.pauseUntil(T0 + 7_000);
    lane.pauseUntil(T0 + 3_000); // an earlier end does not shorten the pause
    const { times, done } = grantTimes(lane, 2, 'write');
    await vi.advanceTimersByTimeAsync(6_999);
    expect(times).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(times).toEqual([7_000, 7_000]);
  });

  it('reports how long each granted request waited', async () => {
    const waits: number[] = [];
    const lane = new Pacer({ requests: 1, perSeconds: 2, concurrency: 5, marginMs: 0 }).lane({
      onWait: (ms) => waits.push(ms),
    });
    const { done } = grantTimes(lane, 3);
    await vi.advanceTimersByTimeAsync(10_000);
    await done;
    expect(waits).toEqual([2_000, 4_000]);
  });

  it('fails waiting requests when closed, and refuses new ones', async () => {
    const pacer = new Pacer({ requests: 1, perSeconds: 60, concurrency: 1 });
    const lane = pacer.lane();
    await lane.acquire('read');
    const waiting = lane.acquire('write');
    pacer.close();
    await expect(waiting).rejects.toMatchObject({ code: 'E_API_UNAVAILABLE' });
    await expect(lane.acquire('read')).rejects.toMatchObject({ code: 'E_API_UNAVAILABLE' });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('Pacer: lanes sharing one budget', () => {
  it('takes turns between lanes, so a lane with a thousand writes queued does not starve a single read', async () => {
    const pacer = new Pacer({ requests: 2, perSeconds: 1, concurrency: 1, marginMs: 0 });
    const busy = pacer.lane();
    const quiet = pacer.lane();
    const order: string[] = [];
    const flood = queue(busy, 'write', 1_000, order, 'write');
    await vi.advanceTimersByTimeAsync(1_000);
    const before = order.length;
    const read = queue(quiet, 'read', 1, order);
    await vi.advanceTimersByTimeAsync(1_000);
    await read;
    // Its turn comes with the next token: at most one more write of the busy lane goes first.
    expect(order.indexOf('read') - before).toBeLessThanOrEqual(1);
    pacer.close();
    await flood.catch(() => undefined);
  });

  it('grants one request per lane per turn, whatever each lane has queued', async () => {
    const pacer = new Pacer({ requests: 3, perSeconds: 1, concurrency: 1, marginMs: 0 });
    const order: string[] = [];
    const all = [
      queue(pacer.lane(), 'a', 6, order, 'write'),
      queue(pacer.lane(), 'b', 2, order),
      queue(pacer.lane(), 'c', 4, order),
    ];
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(all);
    expect(order.join('')).toBe('abcabcacacaa');
  });

  it('counts every lane against the one budget', async () => {
    const pacer = new Pacer({ requests: 4, perSeconds: 10, concurrency: 8, marginMs: 0 });
    const times: number[] = [];
    const lanes = [pacer.lane(), pacer.lane(), pacer.lane()];
    const runs = lanes.map((lane) => grantTimes(lane, 4));
    await vi.advanceTimersByTimeAsync(30_000);
    await Promise.all(runs.map((run) => run.done));
    times.push(...runs.flatMap((run) => run.times));
    times.sort((a, b) => a - b);
    expect(times).toEqual([0, 0, 0, 0, 10_000, 10_000, 10_000, 10_000, 20_000, 20_000, 20_000, 20_000]);
  });

  it('pauses every lane when one lane is told to wait', async () => {
    const pacer = new Pacer({ requests: 100, perSeconds: 1, concurrency: 5 });
    const [a, b] = [pacer.lane(), pacer.lane()];
    a.pauseUntil(T0 + 5_000);
    const { times, done } = grantTimes(b, 1);
    await vi.advanceTimersByTimeAsync(5_000);
    await done;
    expect(times).toEqual([5_000]);
  });

  it('closing one lane fails only its own waiters; the others go on', async () => {
    const pacer = new Pacer({ requests: 1, perSeconds: 1, concurrency: 1, marginMs: 0 });
    const [a, b] = [pacer.lane(), pacer.lane()];
    (await a.acquire('read'))();
    const waitingA = a.acquire('read');
    const { times, done } = grantTimes(b, 2);
    a.close();
    await expect(waitingA).rejects.toMatchObject({ code: 'E_API_UNAVAILABLE' });
    await expect(a.acquire('read')).rejects.toMatchObject({ code: 'E_API_UNAVAILABLE' });
    await vi.advanceTimersByTimeAsync(2_000);
    await done;
    expect(times).toEqual([1_000, 2_000]);
    expect(pacer.laneCount).toBe(1);
  });

  it('honours every budget it is given, and the lowest concurrency', async () => {
    const pacer = new Pacer({ requests: 4, perSeconds: 1, concurrency: 4, marginMs: 0 });
    pacer.restrict({ requests: 6, perSeconds: 10, concurrency: 2 });
    const lane = pacer.lane();
    const releases: Release[] = [];
    for (let i = 0; i < 3; i++) void lane.acquire('read').then((release) => releases.push(release));
    await vi.advanceTimersByTimeAsync(0);
    expect(releases).toHaveLength(2);
    for (const release of releases.splice(0)) release();
    await vi.advanceTimersByTimeAsync(0);
    for (const release of releases.splice(0)) release();
    // 3 granted so far; the 4-per-second window would let 1 more through now, the 6-per-10-s one lets 3 more.
    const { times, done } = grantTimes(lane, 5);
    await vi.advanceTimersByTimeAsync(10_000);
    await done;
    expect(times).toEqual([0, 1_000, 1_000, 10_000, 10_000]);
  });
});

describe('SharedPacers', () => {
  const limit = { requests: 1, perSeconds: 1, concurrency: 1 };
  const member = (overrides: Partial<BudgetClient> = {}): BudgetClient => ({
    target: 't',
    origin: 'https://api.test',
    authorization: 'Basic c2VjcmV0',
    rateLimit: limit,
    ...overrides,
  });

  /** How many of the lanes get a grant at once (each lane asks for one request). */
  async function grantedAtOnce(lanes: PacerLane[]): Promise<number> {
    let granted = 0;
    for (const lane of lanes)
      void lane.acquire('read').then(
        () => (granted += 1),
        () => undefined,
      );
    await vi.advanceTimersByTimeAsync(0);
    return granted;
  }

  it('gives targets on one origin and credential one budget, and separate budgets otherwise', async () => {
    const pacers = new SharedPacers();
    const shared = [pacers.join(member({ target: 'a' })), pacers.join(member({ target: 'b' }))];
    expect(await grantedAtOnce(shared)).toBe(1);
    const separate = [
      pacers.join(member({ authorization: 'Bearer other' })),
      pacers.join(member({ origin: 'https://other.test' })),
    ];
    expect(await grantedAtOnce(separate)).toBe(2);
    expect(pacers.size).toBe(3);
    for (const lane of [...shared, ...separate]) lane.close();
    expect(pacers.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps the budget open while a lane is left, and starts afresh after the last one closes', async () => {
    const pacers = new SharedPacers();
    const a = pacers.join(member({ target: 'a' }));
    const b = pacers.join(member({ target: 'b' }));
    a.close();
    expect(pacers.size).toBe(1);
    expect(await grantedAtOnce([b])).toBe(1);
    b.close();
    expect(pacers.size).toBe(0);
  });

  it('honours both budgets and warns, naming the targets, when targets on one credential disagree', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }),
    );
    const pacers = new SharedPacers({ logger });
    const a = pacers.join(member({ target: 'a', rateLimit: { requests: 5, perSeconds: 1, concurrency: 5 } }));
    const b = pacers.join(member({ target: 'b', rateLimit: { requests: 2, perSeconds: 1, concurrency: 5 } }));
    expect(await grantedAtOnce([a, b, a, b])).toBe(2);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ targets: ['a', 'b'], origin: 'https://api.test' });
    expect(lines[0]).not.toContain('c2VjcmV0');
  });

  it('holds the credential only as a hash', () => {
    const pacers = new SharedPacers();
    pacers.join(member({ authorization: 'Basic a2V5OnMzY3JldC12YWx1ZQ==' }));
    expect(inspect(pacers, { depth: 10, showHidden: true })).not.toMatch(/a2V5OnMzY3JldC12YWx1ZQ|s3cret-value/);
  });
});
