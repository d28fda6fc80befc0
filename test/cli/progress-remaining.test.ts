/** Apply's progress says how long is left, from the plan's estimate and the writes done so far. */
import { describe, expect, it } from 'vitest';
import type { ApplyEvent } from '../../src/apply/events.js';
import { estimateApply } from '../../src/apply/estimate.js';
import {
  createProgressLog,
  createProgressReporter,
  formatProgressLine,
  formatRemainingLine,
  REMAINING_NOTE_EVERY_MS,
  REMAINING_RECOMPUTE_MS,
} from '../../src/cli/progress.js';
import { createLogger } from '../../src/support/logger.js';
import { createDashboard } from '../apply/changes.js';

const MANAGED = { requests: 10, perSeconds: 10, concurrency: 2 };
const BASE = { target: 'prod', kind: 'Dashboard', action: 'create' } as const;

/** The estimate of `count` dashboard creates on prod at the managed default. */
function estimate(count: number) {
  const changes = Array.from({ length: count }, (_, index) => createDashboard(`d-${index}`));
  return estimateApply({
    changes,
    budgets: [[{ name: 'prod', rateLimit: MANAGED }]],
    reads: { prod: 3 },
    latencyMs: 100,
  });
}

/** The events of one finished create, at `at`. */
function created(index: number, at: number): ApplyEvent[] {
  const key = `Dashboard/d-${index}` as const;
  return [
    { ...BASE, key, at, type: 'operation-succeeded', call: 'createDashboard', durationMs: 100 },
    { ...BASE, key, at, type: 'change-succeeded', durationMs: 100 },
  ];
}

function capture(tty: boolean) {
  let out = '';
  let now = 0;
  const reporter = createProgressReporter({
    stream: { write: (chunk: string) => (out += chunk), isTTY: tty },
    clock: () => now,
  });
  return { text: () => out, reporter, setNow: (ms: number) => (now = ms) };
}

describe('remaining time', () => {
  it('ends the progress line with the time left', () => {
    expect(
      formatProgressLine({
        targets: [{ target: 'prod', done: 12, total: 40 }],
        ratePerSecond: 1,
        rateLimited: false,
        waitedSeconds: 0,
        remainingSeconds: 2_900,
      }),
    ).toBe('prod: 12/40 · 1.0 ops/s · ≈ 48 min left');
    expect(formatRemainingLine(1_200, 3_000, 1_900)).toBe('progress: 1,200 of 3,000 writes, ≈ 32 min left');
  });

  it('on a TTY, counts down as writes are done (worked out again twice a second at most)', () => {
    const { text, reporter, setNow } = capture(true);
    reporter.onEstimate(estimate(300));
    reporter.onEvent({ type: 'apply-started', target: 'prod', at: 0, total: 300 });
    expect(text().split('\r\u001b[2K').at(-1)).toMatch(/ · ≈ 5 min left$/);
    for (let index = 0; index < 199; index++) for (const event of created(index, 0)) reporter.onEvent(event);
    expect(text().split('\r\u001b[2K').at(-1)).toMatch(/ · ≈ 5 min left$/);
    setNow(REMAINING_RECOMPUTE_MS);
    for (const event of created(199, REMAINING_RECOMPUTE_MS)) reporter.onEvent(event);
    expect(text().split('\r\u001b[2K').at(-1)).toMatch(/^prod: 200\/300 · .* · ≈ 2 min left$/);
  });

  it('without a TTY, says now and then how long is left, never on every change', () => {
    const { text, reporter, setNow } = capture(false);
    reporter.onEstimate(estimate(300));
    reporter.onEvent({ type: 'apply-started', target: 'prod', at: 0, total: 300 });
    for (let index = 0; index < 100; index++) {
      setNow(index * 1_000);
      for (const event of created(index, index * 1_000)) reporter.onEvent(event);
    }
    const notes = text()
      .split('\n')
      .filter((line) => line.startsWith('progress: '));
    // 100 s of changes: a note after the first minute, not before.
    expect(notes).toEqual([expect.stringMatching(/^progress: 61 of 300 writes, ≈ \d+ min left$/)]);
    expect(REMAINING_NOTE_EVERY_MS).toBe(60_000);
  });

  it('with JSON logs, says it as a record now and then, with the figures as fields', () => {
    const chunks: string[] = [];
    let now = 0;
    const logger = createLogger({ destination: { write: (chunk: string) => void chunks.push(chunk) }, isTty: false });
    const reporter = createProgressLog(logger, () => now);
    reporter.onEstimate(estimate(300));
    reporter.onEvent({ type: 'apply-started', target: 'prod', at: 0, total: 300 });
    for (let index = 0; index < 100; index++) {
      now = index * 1_000;
      for (const event of created(index, now)) reporter.onEvent(event);
    }
    const records = chunks
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const notes = records.filter(
      (record) => typeof record['msg'] === 'string' && record['msg'].startsWith('progress: '),
    );
    expect(notes).toEqual([
      expect.objectContaining({
        writesDone: 61,
        writes: 300,
        remainingSeconds: expect.any(Number),
        msg: expect.stringMatching(/^progress: 61 of 300 writes, ≈ \d+ min left$/),
      }),
    ]);
    // Every other record is a change, one per create.
    expect(records.filter((record) => record['action'] === 'create')).toHaveLength(100);
  });

  it('says nothing of the time left without an estimate', () => {
    const { text, reporter } = capture(true);
    reporter.onEvent({ type: 'apply-started', target: 'prod', at: 0, total: 1 });
    for (const event of created(0, 0)) reporter.onEvent(event);
    expect(text()).not.toContain('left');
  });
});
