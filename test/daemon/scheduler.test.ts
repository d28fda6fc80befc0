import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SchedulerOptions, SyncOutcome, Trigger } from '../../src/daemon/scheduler.js';
import { createScheduler, jittered, retryDelay } from '../../src/daemon/scheduler.js';

interface Call {
  target: string;
  trigger: Trigger;
  signal: AbortSignal;
  startedAt: number;
  done: boolean;
  finish(outcome?: SyncOutcome): void;
  fail(error: Error): void;
}

const OK: SyncOutcome = { result: 'ok' };
const INTERVAL = 60_000;

/** A scheduler whose syncs stay open until the test finishes them. */
function harness(overrides: Partial<SchedulerOptions> = {}, targets: string[] = ['a', 'b']) {
  const calls: Call[] = [];
  const sync = (target: string, trigger: Trigger, signal: AbortSignal): Promise<SyncOutcome> =>
    new Promise((resolve, reject) => {
      const call: Call = {
        target,
        trigger,
        signal,
        startedAt: Date.now(),
        done: false,
        finish: (outcome = OK) => {
          call.done = true;
          resolve(outcome);
        },
        fail: (error) => {
          call.done = true;
          reject(error);
        },
      };
      calls.push(call);
    });
  const scheduler = createScheduler({ targets, sync, intervalMs: INTERVAL, random: () => 0.5, ...overrides });
  const of = (target: string) => calls.filter((call) => call.target === target);
  const last = (target: string): Call => {
    const call = of(target).at(-1);
    if (call === undefined) throw new Error(`no sync of ${target}`);
    return call;
  };
  const open = (target: string) => of(target).filter((call) => !call.done);
  return { calls, scheduler, of, last, open };
}

const tick = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('createScheduler', () => {
  it('syncs every target once on start, with trigger initial', async () => {
    const { scheduler, calls } = harness();
    scheduler.start();
    scheduler.start();
    await tick();
    expect(calls.map((call) => [call.target, call.trigger])).toEqual([
      ['a', 'initial'],
      ['b', 'initial'],
    ]);
  });

  it('ignores triggers before start and refuses unknown targets', async () => {
    const { scheduler, calls } = harness();
    scheduler.trigger('files');
    await tick();
    expect(calls).toHaveLength(0);
    expect(() => scheduler.trigger('files', ['nope'])).toThrow(/unknown target nope/);
  });

  it('never runs two syncs of a target at once; triggers meanwhile give exactly one more sync', async () => {
    const { scheduler, of, last, open } = harness();
    scheduler.start();
    await tick();
    for (let i = 0; i < 10; i += 1) {
      scheduler.trigger('files');
      await tick();
    }
    expect(of('a')).toHaveLength(1);
    expect(scheduler.state('a')).toMatchObject({ running: true, dirty: true });
    last('a').finish();
    await tick();
    expect(of('a').map((call) => call.trigger)).toEqual(['initial', 'files']);
    expect(open('a')).toHaveLength(1);
    expect(scheduler.state('a')).toMatchObject({ running: true, dirty: false });
    last('a').finish();
    await tick();
    expect(of('a')).toHaveLength(2);
    expect(scheduler.state('a')?.running).toBe(false);
  });

  it('coalesces a burst of triggers into one sync', async () => {
    const { scheduler, of, last } = harness();
    scheduler.start();
    await tick();
    last('a').finish();
    last('b').finish();
    await tick();
    for (let i = 0; i < 500; i += 1) scheduler.trigger(i % 2 === 0 ? 'files' : 'reload', ['a']);
    await tick();
    expect(of('a').map((call) => call.trigger)).toEqual(['initial', 'reload']);
    expect(of('b')).toHaveLength(1);
  });

  it('keeps one target in flight at most, and always syncs after the last trigger (random interleavings)', async () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const { scheduler, open, of } = harness();
    scheduler.start();
    const lastTriggerStep: Record<string, number> = { a: 0, b: 0 };
    const startStep = new Map<Call, number>();
    const settle = async (step: number) => {
      await tick();
      for (const name of ['a', 'b']) {
        expect(open(name).length).toBeLessThanOrEqual(1);
        for (const call of of(name)) if (!startStep.has(call)) startStep.set(call, step);
      }
    };
    for (let step = 1; step <= 400; step += 1) {
      const target = random() < 0.5 ? 'a' : 'b';
      if (random() < 0.6) {
        scheduler.trigger('files', [target]);
        lastTriggerStep[target] = step;
      } else {
        open(target)[0]?.finish();
      }
      await settle(step);
    }
    while (open('a').length + open('b').length > 0) {
      for (const call of [...open('a'), ...open('b')]) call.finish();
      await settle(401);
    }
    for (const name of ['a', 'b']) {
      expect(of(name).length).toBeGreaterThan(10);
      expect(startStep.get(of(name).at(-1)!)).toBeGreaterThan(lastTriggerStep[name]! - 1);
    }
  });

  it('syncs only the targets named', async () => {
    const { scheduler, of, last } = harness();
    scheduler.start();
    await tick();
    last('a').finish();
    last('b').finish();
    await tick();
    scheduler.trigger('reload', ['b']);
    await tick();
    expect([of('a').length, of('b').length]).toEqual([1, 2]);
  });

  it('lets the other targets run while one hangs', async () => {
    const { scheduler, of, last } = harness();
    scheduler.start();
    await tick();
    last('b').finish();
    await scheduler.idle(['b']);
    scheduler.trigger('files');
    await tick();
    last('b').finish();
    await scheduler.idle(['b']);
    expect(of('b').map((call) => call.trigger)).toEqual(['initial', 'files']);
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(of('b').map((call) => call.trigger)).toEqual(['initial', 'files', 'resync']);
    expect(of('a')).toHaveLength(1);
    expect(scheduler.state('a')).toMatchObject({ running: true, dirty: true });
  });

  it.each([
    [0, 54_000],
    [0.5, 60_000],
    [0.75, 63_000],
  ])('resyncs %s → %i ms after the end of the last sync', async (sample, delay) => {
    const { scheduler, of, last } = harness({ random: () => sample }, ['a']);
    scheduler.start();
    await tick();
    await vi.advanceTimersByTimeAsync(5_000);
    last('a').finish();
    await tick();
    expect(scheduler.state('a')?.nextRunAt).toBe(Date.now() + delay);
    await vi.advanceTimersByTimeAsync(delay - 1);
    expect(of('a')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(last('a').trigger).toBe('resync');
    expect(of('a')).toHaveLength(2);
  });

  it('restarts the resync clock after a triggered sync', async () => {
    const { scheduler, of, last } = harness({}, ['a']);
    scheduler.start();
    await tick();
    last('a').finish();
    await vi.advanceTimersByTimeAsync(40_000);
    scheduler.trigger('files');
    await tick();
    last('a').finish();
    await vi.advanceTimersByTimeAsync(INTERVAL - 1);
    expect(of('a').map((call) => call.trigger)).toEqual(['initial', 'files']);
    await vi.advanceTimersByTimeAsync(1);
    expect(of('a').map((call) => call.trigger)).toEqual(['initial', 'files', 'resync']);
  });

  it('resyncs targets that share a budget one after another, each on its own slot of the cycle', async () => {
    const T0 = Date.now();
    const resyncSlots = new Map([
      ['a', { intervalMs: INTERVAL, offsetMs: 0 }],
      ['b', { intervalMs: INTERVAL, offsetMs: 20_000 }],
      ['c', { intervalMs: INTERVAL, offsetMs: 40_000 }],
    ]);
    const { scheduler, calls, of, open } = harness({ resyncSlots }, ['a', 'b', 'c', 'alone']);
    scheduler.start();
    await tick();
    // The initial syncs end together, 5 s in; each resync then takes 1 s.
    await vi.advanceTimersByTimeAsync(5_000);
    for (const call of calls) call.finish();
    for (let elapsed = 5_000; elapsed < 3 * INTERVAL; elapsed += 1_000) {
      await vi.advanceTimersByTimeAsync(1_000);
      for (const name of ['a', 'b', 'c', 'alone'])
        for (const call of open(name)) if (Date.now() - call.startedAt >= 1_000) call.finish();
    }
    const resyncs = (target: string) =>
      of(target)
        .filter((call) => call.trigger === 'resync')
        .map((call) => call.startedAt - T0);
    // Slots at least half an interval after the initial sync ended: b and c in the first cycle, a in the second.
    expect(resyncs('b')).toEqual([80_000, 140_000]);
    expect(resyncs('c')).toEqual([40_000, 100_000, 160_000]);
    expect(resyncs('a')).toEqual([60_000, 120_000, 180_000]);
    // A target alone on its budget keeps interval ± jitter from the end of its last sync (random 0.5: no jitter).
    expect(resyncs('alone')).toEqual([65_000, 126_000]);
  });

  it('retries a transient failure with doubling backoff capped at the interval, and resets on success', async () => {
    const { scheduler, of, last } = harness({ intervalMs: 10_000 }, ['a']);
    scheduler.start();
    await tick();
    const delays: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const before = of('a').length;
      last('a').finish({ result: 'transient', error: new Error('503') });
      await tick();
      const finishedAt = Date.now();
      while (of('a').length === before) await vi.advanceTimersByTimeAsync(250);
      delays.push(last('a').startedAt - finishedAt);
      expect(last('a').trigger).toBe('retry');
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
    expect(scheduler.state('a')?.failures).toBe(6);
    last('a').finish();
    await tick();
    expect(scheduler.state('a')).toMatchObject({ failures: 0, nextTrigger: 'resync', nextRunAt: Date.now() + 10_000 });
  });

  it('treats a thrown sync as transient and logs it', async () => {
    const lines: string[] = [];
    const { createLogger } = await import('../../src/support/logger.js');
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) }, isTty: false });
    const { scheduler, of, last } = harness({ logger }, ['a']);
    scheduler.start();
    await tick();
    last('a').fail(new Error('boom'));
    await tick();
    expect(scheduler.state('a')?.lastOutcome).toMatchObject({ result: 'transient' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(of('a').map((call) => call.trigger)).toEqual(['initial', 'retry']);
    expect(lines.join('')).toContain('boom');
  });

  it('waits for the next resync (no retry) after a terminal failure', async () => {
    const { scheduler, of, last } = harness({}, ['a']);
    scheduler.start();
    await tick();
    last('a').finish({ result: 'terminal', error: new Error('E_MANIFEST_INVALID') });
    await vi.advanceTimersByTimeAsync(INTERVAL - 1);
    expect(of('a')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(last('a').trigger).toBe('resync');
    expect(scheduler.state('a')?.failures).toBe(0);
  });

  it('requeues after the delay an outcome asks for', async () => {
    const { scheduler, of, last } = harness({}, ['a']);
    scheduler.start();
    await tick();
    last('a').finish({ result: 'requeue', afterMs: 7_000 });
    await vi.advanceTimersByTimeAsync(6_999);
    expect(of('a')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(of('a')).toHaveLength(2);
  });

  it('stops: aborts the signal, waits for syncs in flight, then runs nothing more', async () => {
    const { scheduler, calls, last } = harness();
    scheduler.start();
    await tick();
    last('b').finish();
    await tick();
    scheduler.trigger('files', ['a']);
    let stopped = false;
    const stopping = scheduler.stop().then(() => void (stopped = true));
    expect(last('a').signal.aborted).toBe(true);
    await tick();
    expect(stopped).toBe(false);
    last('a').finish();
    await stopping;
    expect(stopped).toBe(true);
    scheduler.trigger('reload');
    await vi.advanceTimersByTimeAsync(10 * INTERVAL);
    expect(calls).toHaveLength(2);
    expect(scheduler.stop()).toBe(scheduler.stop());
  });

  it('idle resolves once nothing runs or is about to', async () => {
    const { scheduler, last } = harness({}, ['a']);
    scheduler.start();
    let idle = false;
    const waiting = scheduler.idle().then(() => void (idle = true));
    await tick();
    expect(idle).toBe(false);
    last('a').finish();
    await waiting;
    expect(idle).toBe(true);
  });
});

describe('jittered', () => {
  it.each([
    [60_000, 0.1, 0, 54_000],
    [60_000, 0.1, 0.5, 60_000],
    [60_000, 0.1, 0.75, 63_000],
    [60_000, 0, 0.9, 60_000],
  ])('(%i, %d, %d) = %i', (interval, jitter, sample, want) => {
    expect(jittered(interval, jitter, sample)).toBe(want);
  });
});

describe('retryDelay', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [5, 16_000],
    [9, 256_000],
    [10, 300_000],
    [2000, 300_000],
  ])('after %i failures waits %i ms', (failures, want) => {
    expect(retryDelay(1000, 300_000, failures)).toBe(want);
  });
});

describe('long intervals', () => {
  it('waits out a 30-day resync interval instead of firing at once (timer overflow past 24.8 days)', async () => {
    const DAY = 86_400_000;
    const { scheduler, of, last } = harness({ intervalMs: 30 * DAY, jitter: 0 }, ['a']);
    scheduler.start();
    await tick();
    last('a').finish();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(of('a')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(29 * DAY);
    expect(of('a')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(DAY);
    expect(of('a')).toHaveLength(2);
    expect(last('a').trigger).toBe('resync');
    last('a').finish();
    await scheduler.stop();
  });
});
