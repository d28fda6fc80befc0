/**
 * The estimate of an apply (apply/estimate.ts): requests per change, per target and per budget,
 * and the time they take at each budget, targets on one credential taking turns.
 */
import { describe, expect, it } from 'vitest';
import { estimateApply, remainingSeconds, writesOf, type BudgetMember } from '../../src/apply/estimate.js';
import { pacedMs, paceWindows } from '../../src/api/pace-model.js';
import type { Change } from '../../src/model/plan.js';
import { change, createAlertOn, createDashboard, deleteChange, dashboardBody } from './changes.js';

const MANAGED = { requests: 10, perSeconds: 10, concurrency: 2 };
const SELF_HOSTED = { requests: 100, perSeconds: 60, concurrency: 4 };

function on(target: string, each: Change): Change {
  return { ...each, target };
}

function creates(target: string, count: number): Change[] {
  return Array.from({ length: count }, (_, index) => on(target, createDashboard(`d-${index}`)));
}

function member(name: string, rateLimit = MANAGED): BudgetMember {
  return { name, rateLimit };
}

/** Seconds the pacer takes for `count` requests at `rateLimit`, to a tenth. */
function paced(count: number, rateLimit = MANAGED, latencyMs = 100): number {
  return (
    Math.round(
      pacedMs(count, { windows: paceWindows([rateLimit]), concurrency: rateLimit.concurrency, latencyMs }) / 100,
    ) / 10
  );
}

describe('writesOf', () => {
  const pipeMappings = change({
    kind: 'Pipe',
    name: 'cdc',
    action: 'update',
    id: 'p-1',
    operations: [
      { type: 'updatePipe', id: 'p-1', patch: {}, step: 'remove-mappings' },
      { type: 'updatePipe', id: 'p-1', patch: {}, step: 'add-mappings' },
    ],
  });
  const rows: [string, Change, number][] = [
    ['a dashboard create: one POST', createDashboard('api'), 1],
    [
      'a dashboard update: one PUT with all its tiles',
      change({
        kind: 'Dashboard',
        name: 'web',
        action: 'update',
        id: 'd-1',
        operations: [{ type: 'updateDashboard', id: 'd-1', body: dashboardBody('web', ['a', 'b']) }],
      }),
      1,
    ],
    ['an alert on a dashboard the same apply creates: one POST', createAlertOn('p99-high', 'api', 'p99'), 1],
    ['a delete: one DELETE', deleteChange('Alert', 'gone', 'a-1'), 1],
    ['a pipe whose table mappings change: a PATCH to remove, one to add', pipeMappings, 2],
    [
      'an adopt without --adopt: left alone',
      change({ kind: 'Dashboard', name: 'theirs', action: 'adopt', id: 'd-9' }),
      0,
    ],
    ['an orphan: left alone', change({ kind: 'Dashboard', name: 'old', action: 'orphan', id: 'd-5' }), 0],
    ['a suspended resource: never written', { ...createDashboard('held'), action: 'suspended' }, 0],
    ['an error: nothing sent', change({ kind: 'Alert', name: 'broken', action: 'error', error: 'no such tile' }), 0],
  ];
  it.each(rows)('%s', (_name, each, writes) => {
    expect(writesOf(each)).toBe(writes);
  });
});

describe('estimateApply', () => {
  it('counts the reads and writes of one target and times them at its budget', () => {
    const estimate = estimateApply({
      changes: creates('prod', 3_000),
      budgets: [[member('prod')]],
      reads: { prod: 3 },
      latencyMs: 100,
    });
    expect(estimate).toMatchObject({ requests: 3_003, writes: 3_000, reads: 3 });
    expect(estimate.targets).toEqual([
      {
        target: 'prod',
        reads: 3,
        writes: 3_000,
        requests: 3_003,
        seconds: paced(3_003),
        spent: 0,
        waitSeconds: 0,
        rateLimit: MANAGED,
        sharedWith: [],
      },
    ]);
    expect(estimate.seconds).toBe(paced(3_003));
    expect(estimate.seconds / 60).toBeGreaterThan(50);
    expect(estimate.seconds / 60).toBeLessThan(53);
  });

  it('counts what the budget already spent: a plan’s reads a second ago make an apply right after it wait', () => {
    const input = { changes: creates('prod', 7), budgets: [[member('prod')]], reads: { prod: 3 }, latencyMs: 100 };
    expect(estimateApply(input).targets[0]).toMatchObject({ seconds: paced(10), waitSeconds: 0 });
    // The plan's 3 reads ended a second ago: the apply's 3 reads and 4 writes fill the window, 3 writes wait for the plan's to leave it.
    const afterPlan = estimateApply({ ...input, spentAgoMs: { prod: [1_000, 1_000, 1_000] } }).targets[0]!;
    expect(afterPlan).toMatchObject({ spent: 3 });
    expect(afterPlan.seconds).toBeGreaterThan(9);
    expect(afterPlan.seconds).toBeLessThan(10);
    expect(afterPlan.waitSeconds).toBeCloseTo(afterPlan.seconds - paced(10), 5);
    // apply's own estimate: its reads are done, among the spent (now 6), and only the writes are ahead: the same end.
    const ownReadsDone = estimateApply({
      ...input,
      readsDone: true,
      spentAgoMs: { prod: [1_000, 1_000, 1_000, 100, 100, 100] },
    }).targets[0]!;
    expect(ownReadsDone).toMatchObject({ spent: 6, requests: 10 });
    expect(Math.abs(ownReadsDone.seconds - afterPlan.seconds)).toBeLessThan(0.5);
  });

  it('adds up the requests of targets on one credential: they share the budget, taking turns', () => {
    const changes = [...creates('heavy', 40), ...creates('light', 8)];
    const estimate = estimateApply({
      changes,
      budgets: [[member('heavy'), member('light')]],
      reads: { heavy: 3, light: 3 },
      latencyMs: 100,
    });
    expect(estimate.budgets).toHaveLength(1);
    expect(estimate.budgets[0]).toMatchObject({ targets: ['heavy', 'light'], requests: 54, seconds: paced(54) });
    const [heavy, light] = estimate.targets;
    expect(heavy).toMatchObject({ requests: 43, sharedWith: ['light'], seconds: paced(54) });
    // By its 11th request, the heavy target has sent 11 as well: 22 in all.
    expect(light).toMatchObject({ requests: 11, sharedWith: ['heavy'], seconds: paced(22) });
    expect(estimate.seconds).toBe(paced(54));
  });

  it('times budgets apart side by side: the apply takes as long as the slowest', () => {
    const changes = [...creates('managed', 25), ...creates('selfhosted', 150)];
    const estimate = estimateApply({
      changes,
      budgets: [[member('managed')], [member('selfhosted', SELF_HOSTED)]],
      reads: { managed: 3, selfhosted: 2 },
      latencyMs: 100,
    });
    expect(estimate.targets.map((target) => target.seconds)).toEqual([paced(28), paced(152, SELF_HOSTED)]);
    expect(estimate.seconds).toBe(Math.max(paced(28), paced(152, SELF_HOSTED)));
  });

  it('paces a budget whose targets configure different limits at the strictest, with the lowest concurrency', () => {
    const fast = { requests: 100, perSeconds: 1, concurrency: 8 };
    const estimate = estimateApply({
      changes: creates('a', 30),
      budgets: [[member('a', fast), member('b', MANAGED)]],
      reads: {},
      latencyMs: 100,
    });
    expect(estimate.budgets[0]?.rateLimit).toEqual({ requests: 10, perSeconds: 10, concurrency: 2 });
    expect(estimate.seconds).toBe(paced(30));
  });

  it('counts no writes for a target whose writes are held back (manifest errors)', () => {
    const estimate = estimateApply({
      changes: creates('broken', 5),
      budgets: [[member('broken')]],
      reads: { broken: 3 },
      heldBack: new Set(['broken']),
      latencyMs: 100,
    });
    expect(estimate).toMatchObject({ writes: 0, reads: 3, requests: 3 });
  });
});

describe('remainingSeconds', () => {
  it('is the time of the writes left, and none once all are done', () => {
    const estimate = estimateApply({
      changes: creates('prod', 100),
      budgets: [[member('prod')]],
      reads: { prod: 3 },
      latencyMs: 100,
    });
    expect(remainingSeconds(estimate, new Map())).toBe(paced(100));
    expect(remainingSeconds(estimate, new Map([['prod', 60]]))).toBe(paced(40));
    expect(remainingSeconds(estimate, new Map([['prod', 100]]))).toBe(0);
  });
});
