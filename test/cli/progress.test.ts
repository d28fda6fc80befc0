import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApplyEvent } from '../../src/apply/events.js';
import { applyPlan } from '../../src/apply/schedule.js';
import {
  createProgressReporter,
  formatChangeLine,
  formatProgressLine,
  formatSummary,
  recentRate,
  summarizeApply,
} from '../../src/cli/progress.js';
import { openStateStore } from '../../src/state/store.js';
import { change, createAlertOn, createDashboard, deleteChange } from '../apply/changes.js';
import { FakeApi, apiError } from '../apply/fake-api.js';

const BASE = { target: 'prod', kind: 'Dashboard', action: 'create', at: 0 } as const;

describe('progress formatting', () => {
  it('formats the closing summary', () => {
    const summary = {
      created: 3,
      updated: 2,
      deleted: 1,
      adopted: 0,
      failed: 1,
      skipped: 1,
      replaced: 0,
      'not applied': 0,
      waiting: 0,
    };
    expect(formatSummary(summary, 4_240)).toBe(
      'Apply: 3 created, 2 updated, 1 deleted, 0 adopted, 1 failed, 1 skipped, 0 not applied, 0 waiting in 4.2s',
    );
    expect(formatSummary(summary, 50, 'prod')).toBe(
      'Apply prod: 3 created, 2 updated, 1 deleted, 0 adopted, 1 failed, 1 skipped, 0 not applied, 0 waiting in 0.1s',
    );
  });

  it.each<[string, Parameters<typeof formatChangeLine>[0], string]>([
    [
      'a success',
      { ...BASE, key: 'Dashboard/api', type: 'change-succeeded', durationMs: 420 },
      'created Dashboard/api (0.4s)',
    ],
    [
      'a delete',
      { ...BASE, action: 'delete', key: 'Dashboard/old', type: 'change-succeeded', durationMs: 1_000 },
      'deleted Dashboard/old (1.0s)',
    ],
    [
      'a failure',
      {
        ...BASE,
        key: 'Dashboard/x',
        type: 'change-failed',
        durationMs: 5,
        code: 'E_API_VALIDATION',
        error: 'Tile not found',
      },
      'failed Dashboard/x: E_API_VALIDATION: Tile not found',
    ],
    [
      'a skip',
      {
        ...BASE,
        key: 'Alert/y',
        kind: 'Alert',
        type: 'change-skipped',
        reason: 'dependency',
        code: 'E_DEPENDENCY_FAILED',
        error: 'depends on Dashboard/x, which failed',
      },
      'skipped Alert/y: E_DEPENDENCY_FAILED: depends on Dashboard/x, which failed',
    ],
  ])('formats %s as one line', (_label, event, want) => {
    expect(formatChangeLine(event)).toBe(want);
  });

  const prod = (done: number, total: number) => ({ target: 'prod', done, total });
  it.each([
    [{ targets: [prod(12, 40)], ratePerSecond: 1.84, rateLimited: false, waitedSeconds: 0 }, 'prod: 12/40 · 1.8 ops/s'],
    [
      { targets: [prod(12, 40)], ratePerSecond: 1, rateLimited: true, waitedSeconds: 3 },
      'prod: 12/40 · 1.0 ops/s · waiting for the rate limit (3.0s so far)',
    ],
    [
      { targets: [prod(40, 40)], ratePerSecond: 0, rateLimited: false, waitedSeconds: 3 },
      'prod: 40/40 · 0.0 ops/s · rate limit waits 3.0s',
    ],
    [
      {
        targets: [prod(3, 40), { target: 'lab', done: 1, total: 2 }],
        ratePerSecond: 2,
        rateLimited: false,
        waitedSeconds: 0,
      },
      'prod: 3/40 · lab: 1/2 · 2.0 ops/s',
    ],
  ])('formats the progress line %#', (snapshot, want) => {
    expect(formatProgressLine(snapshot)).toBe(want);
  });

  it('computes a recent rate over a window', () => {
    expect(recentRate([], 10_000)).toBe(0);
    expect(recentRate([8_000, 8_500, 9_000, 9_500, 10_000], 10_000)).toBe(2.5);
    expect(recentRate([10_000], 10_000)).toBe(1);
    // Events older than the window fall out of it.
    expect(recentRate([0, 1_000, 19_000, 20_000], 20_000)).toBe(2);
  });

  it('summarises changes and results, leaving unchanged ones out', () => {
    const changes = [
      createDashboard('a'),
      createDashboard('b'),
      deleteChange('Alert', 'c', 'x'),
      change({ kind: 'Alert', name: 'd', action: 'unchanged' }),
    ];
    const results = new Map([
      ['Dashboard/a', { result: 'ok' }],
      ['Dashboard/b', { result: 'failed', code: 'E_API_VALIDATION', error: 'no' }],
      ['Alert/c', { result: 'ok' }],
      ['Alert/d', { result: 'ok' }],
    ] as const);
    expect(summarizeApply(changes, results)).toEqual({
      created: 1,
      updated: 0,
      deleted: 1,
      adopted: 0,
      failed: 1,
      skipped: 0,
      replaced: 0,
      'not applied': 0,
      waiting: 0,
    });
  });
});

describe('progress reporter', () => {
  const run: ApplyEvent[] = [
    { type: 'apply-started', target: 'prod', at: 0, total: 2 },
    { ...BASE, key: 'Dashboard/a', type: 'change-started' },
    { ...BASE, key: 'Dashboard/a', type: 'operation-started', call: 'createDashboard' },
    { ...BASE, key: 'Dashboard/a', type: 'operation-succeeded', call: 'createDashboard', durationMs: 300, at: 300 },
    { ...BASE, key: 'Dashboard/a', type: 'change-succeeded', durationMs: 300, at: 300 },
    {
      ...BASE,
      key: 'Alert/b',
      kind: 'Alert',
      type: 'change-skipped',
      reason: 'dependency',
      code: 'E_DEPENDENCY_FAILED',
      error: 'depends on Dashboard/z, which failed',
      at: 300,
    },
    {
      type: 'apply-finished',
      target: 'prod',
      at: 400,
      durationMs: 400,
      summary: {
        created: 1,
        updated: 0,
        deleted: 0,
        adopted: 0,
        failed: 0,
        skipped: 1,
        replaced: 0,
        'not applied': 0,
        waiting: 0,
      },
    },
  ];

  function capture(tty: boolean): {
    text: () => string;
    reporter: ReturnType<typeof createProgressReporter>;
    setNow: (ms: number) => void;
  } {
    let out = '';
    let now = 0;
    const reporter = createProgressReporter({
      stream: { write: (chunk: string) => (out += chunk), isTTY: tty },
      clock: () => now,
    });
    return { text: () => out, reporter, setNow: (ms) => (now = ms) };
  }

  it('prints one quiet line per finished change and the summary when not a TTY', () => {
    const { text, reporter } = capture(false);
    for (const event of run) reporter.onEvent(event);
    expect(text()).toBe(
      [
        'created Dashboard/a (0.3s)',
        'skipped Alert/b: E_DEPENDENCY_FAILED: depends on Dashboard/z, which failed',
        'Apply: 1 created, 0 updated, 0 deleted, 0 adopted, 0 failed, 1 skipped, 0 not applied, 0 waiting in 0.4s',
        '',
      ].join('\n'),
    );
  });

  it('redraws one line in place on a TTY, keeps problems on screen, and ends with the summary', () => {
    const { text, reporter, setNow } = capture(true);
    setNow(1_000);
    for (const event of run.slice(0, 5)) reporter.onEvent(event);
    reporter.onRateLimitWait({ waitedSeconds: 1.5 });
    expect(text().split('\r\u001b[2K').at(-1)).toBe('prod: 1/2 · 1.0 ops/s · waiting for the rate limit (1.5s so far)');
    expect(text()).not.toContain('\n');
    for (const event of run.slice(5)) reporter.onEvent(event);
    // The progress line is cleared before a line is printed over it, then drawn again below.
    expect(text()).toContain(
      '\r\u001b[2Kskipped Alert/b: E_DEPENDENCY_FAILED: depends on Dashboard/z, which failed\n\r\u001b[2Kprod: 2/2',
    );
    expect(
      text().endsWith(
        '\r\u001b[2KApply: 1 created, 0 updated, 0 deleted, 0 adopted, 0 failed, 1 skipped, 0 not applied, 0 waiting in 0.4s\n',
      ),
    ).toBe(true);
    expect(text().match(/\n/g)).toHaveLength(2);
  });

  it('says when a wait for the rate budget starts and how long it is, once per wait, not for mere pacing', () => {
    const { text, reporter, setNow } = capture(false);
    reporter.onEvent(run[0]!);
    reporter.onRateLimitDelay({ waitSeconds: 0.4, target: 'prod' });
    setNow(100);
    reporter.onRateLimitDelay({ waitSeconds: 9.8, target: 'prod' });
    setNow(200);
    // Another target on the same budget hears of the same wait.
    reporter.onRateLimitDelay({ waitSeconds: 9.7, target: 'lab' });
    setNow(10_000);
    reporter.onRateLimitDelay({ waitSeconds: 2, target: 'prod' });
    expect(text()).toBe('waiting 9.8s for the rate budget of prod\nwaiting 2.0s for the rate budget of prod\n');
  });

  it('counts a wait for the rate budget down on the progress line of a TTY', () => {
    const { text, reporter, setNow } = capture(true);
    reporter.onEvent(run[0]!);
    reporter.onRateLimitDelay({ waitSeconds: 9.8, target: 'prod' });
    expect(text().split('\r\u001b[2K').at(-1)).toBe('prod: 0/2 · 0.0 ops/s · waiting for the rate budget: 9.8s left');
    setNow(4_000);
    reporter.onEvent(run[3]!);
    expect(text().split('\r\u001b[2K').at(-1)).toMatch(/ · waiting for the rate budget: 5\.8s left$/);
    expect(text()).not.toContain('\n');
  });

  it('keeps each target its own count when two targets apply at once', () => {
    const { text, reporter } = capture(true);
    const lab = { ...BASE, target: 'lab' } as const;
    reporter.onEvent({ type: 'apply-started', target: 'prod', at: 0, total: 3 });
    reporter.onEvent({ ...BASE, key: 'Dashboard/a', type: 'change-succeeded', durationMs: 1 });
    reporter.onEvent({ type: 'apply-started', target: 'lab', at: 0, total: 1 });
    reporter.onEvent({ ...BASE, key: 'Dashboard/b', type: 'change-succeeded', durationMs: 1 });
    reporter.onEvent({ ...lab, key: 'Dashboard/c', type: 'change-succeeded', durationMs: 1 });
    reporter.onEvent({
      type: 'apply-finished',
      target: 'lab',
      at: 0,
      durationMs: 1,
      summary: {
        created: 1,
        updated: 0,
        deleted: 0,
        adopted: 0,
        failed: 0,
        skipped: 0,
        replaced: 0,
        'not applied': 0,
        waiting: 0,
      },
    });
    reporter.onEvent({ ...BASE, key: 'Dashboard/d', type: 'change-succeeded', durationMs: 1 });
    const lines = text()
      .split(/\r\u001b\[2K|\n/)
      .filter((line) => /^\w+: \d+\/\d+/.test(line));
    // Never a count past its total, nor one target's count under another's name.
    for (const line of lines)
      for (const [, done, total] of line.matchAll(/(\d+)\/(\d+)/g))
        expect(Number(done), line).toBeLessThanOrEqual(Number(total));
    expect(lines.at(-1)).toMatch(/^prod: 3\/3 · lab: 1\/1 · /);
  });

  it('stops saying it is waiting once the rate-limit wait is old', () => {
    const { text, reporter, setNow } = capture(true);
    reporter.onEvent(run[0]!);
    reporter.onRateLimitWait({ waitedSeconds: 2 });
    setNow(5_000);
    reporter.onEvent(run[4]!);
    expect(text().split('\r\u001b[2K').at(-1)).toBe('prod: 1/2 · 0.0 ops/s · rate limit waits 2.0s');
  });
});

describe('progress reporter fed by applyPlan', () => {
  it('prints a line per change and the summary of a real run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stacksync-progress-'));
    try {
      const api = new FakeApi();
      api.fail('createDashboard', apiError('E_API_VALIDATION', 400, 'Body validation failed: tiles'), {
        match: (call) => call.name === 'bad',
      });
      let out = '';
      let now = 0;
      const reporter = createProgressReporter({
        stream: { write: (chunk: string) => (out += chunk) },
        clock: () => now,
      });
      await applyPlan([createDashboard('good'), createDashboard('bad'), createAlertOn('watch', 'bad', 'p99')], {
        api,
        store: await openStateStore(join(dir, 'state.json')),
        target: 'prod',
        lateCreateWindowMs: 120_000,
        requestSlots: 1,
        adopt: false,
        onEvent: reporter.onEvent,
        clock: () => (now += 100),
      });
      expect(out.split('\n')).toEqual([
        expect.stringMatching(/^created Dashboard\/good \(\d+\.\ds\)$/),
        'failed Dashboard/bad: E_API_VALIDATION: Body validation failed: tiles',
        'skipped Alert/watch: E_DEPENDENCY_FAILED: depends on Dashboard/bad, which failed',
        expect.stringMatching(
          /^Apply: 1 created, 0 updated, 0 deleted, 0 adopted, 1 failed, 1 skipped, 0 not applied, 0 waiting in \d+\.\ds$/,
        ),
        '',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
