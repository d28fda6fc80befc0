/**
 * The pace model (what plans say an apply takes) against the pacer it models: the same requests
 * through a real Pacer on a fake clock, each taking the same time, end when the model says.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Pacer } from '../../src/api/pacer.js';
import { pacedMs, paceWindows } from '../../src/api/pace-model.js';

const T0 = 1_700_000_000_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Runs `count` requests through a pacer of these budgets; resolves with when the last one ended. */
async function measured(
  budgets: { requests: number; perSeconds: number; concurrency: number }[],
  count: number,
  latencyMs: number,
  spentAgoMs: number[] = [],
): Promise<number> {
  const [first, ...more] = budgets as [(typeof budgets)[number], ...typeof budgets];
  const pacer = new Pacer({ ...first, spent: spentAgoMs.map((ago) => T0 - ago) });
  for (const budget of more) pacer.restrict(budget);
  const lane = pacer.lane();
  let last = 0;
  const all = Promise.all(
    Array.from({ length: count }, async () => {
      const release = await lane.acquire('write');
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      last = Math.max(last, Date.now() - T0);
      release();
    }),
  );
  await vi.runAllTimersAsync();
  await all;
  pacer.close();
  return last;
}

const CASES = [
  {
    name: 'the managed default, 35 requests',
    budgets: [{ requests: 10, perSeconds: 10, concurrency: 2 }],
    count: 35,
    latencyMs: 120,
  },
  {
    name: 'the self-hosted default, 250 requests',
    budgets: [{ requests: 100, perSeconds: 60, concurrency: 4 }],
    count: 250,
    latencyMs: 40,
  },
  {
    name: 'a window exactly full',
    budgets: [{ requests: 10, perSeconds: 1, concurrency: 4 }],
    count: 10,
    latencyMs: 5,
  },
  {
    name: 'one request past a full window',
    budgets: [{ requests: 10, perSeconds: 1, concurrency: 4 }],
    count: 11,
    latencyMs: 5,
  },
  {
    name: 'concurrency the limit, not the budget',
    budgets: [{ requests: 1000, perSeconds: 1, concurrency: 3 }],
    count: 100,
    latencyMs: 30,
  },
  {
    name: 'slow requests in a tight window',
    budgets: [{ requests: 5, perSeconds: 1, concurrency: 2 }],
    count: 23,
    latencyMs: 700,
  },
  {
    name: 'two budgets honoured together (targets on one key that configure different ones)',
    budgets: [
      { requests: 10, perSeconds: 10, concurrency: 4 },
      { requests: 3, perSeconds: 1, concurrency: 2 },
    ],
    count: 40,
    latencyMs: 50,
  },
];

describe('pacedMs', () => {
  it.each(CASES)('matches the pacer: $name', async ({ budgets, count, latencyMs }) => {
    const model = {
      windows: paceWindows(budgets),
      concurrency: Math.min(...budgets.map((budget) => budget.concurrency)),
      latencyMs,
    };
    expect(pacedMs(count, model)).toBe(await measured(budgets, count, latencyMs));
  });

  // What an earlier command (or the plan's reads) spent holds tokens until a window after it ended.
  it.each([
    { name: 'a plan’s 3 reads a second ago, then 10 writes', spent: [1_000, 1_000, 1_000], count: 10 },
    { name: 'a full window spent 4 s ago', spent: Array.from({ length: 10 }, () => 4_000), count: 3 },
    { name: 'requests older than the window: no wait', spent: [20_000, 15_000, 11_000], count: 10 },
  ])('matches a pacer that starts from what was spent: $name', async ({ spent, count }) => {
    const budgets = [{ requests: 10, perSeconds: 10, concurrency: 2 }];
    const model = { windows: paceWindows(budgets), concurrency: 2, latencyMs: 60 };
    expect(pacedMs(count, model, spent)).toBe(await measured(budgets, count, 60, spent));
    if (spent[0]! < 10_000) expect(pacedMs(count, model, spent)).toBeGreaterThan(pacedMs(count, model) + 5_000);
    else expect(pacedMs(count, model, spent)).toBe(pacedMs(count, model));
  });

  it('takes no time for no requests, and one request its own time', () => {
    const model = { windows: paceWindows([{ requests: 10, perSeconds: 10 }]), concurrency: 2, latencyMs: 80 };
    expect(pacedMs(0, model)).toBe(0);
    expect(pacedMs(1, model)).toBe(80);
  });

  it('at 10 requests per 10 s, 3,000 requests take about 52 minutes (the margin and a round trip per window)', () => {
    const model = { windows: paceWindows([{ requests: 10, perSeconds: 10 }]), concurrency: 2, latencyMs: 100 };
    // 299 windows of 10.2 s (2 % margin) and 0.1 s, then the last 10 requests in 5 rounds of 0.1 s.
    expect(pacedMs(3_000, model)).toBeCloseTo(299 * 10_300 + 500, 6);
  });
});
