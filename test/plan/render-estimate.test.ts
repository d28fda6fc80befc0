/** The apply's estimate in every plan output: text, markdown, JSON (and github, which is the text). */
import { describe, expect, it } from 'vitest';
import { estimateApply } from '../../src/apply/estimate.js';
import {
  approximately,
  buildPlan,
  renderPlanGithub,
  renderPlanJson,
  renderPlanMarkdown,
  renderPlanText,
} from '../../src/plan/index.js';
import type { Plan } from '../../src/model/plan.js';
import { samplePlan } from './sample.js';

const MANAGED = { requests: 10, perSeconds: 10, concurrency: 2 };

/** The sample plan (all on target prod), with the estimate the CLI would add. */
function withEstimate(
  plan: Plan,
  budgets = [[{ name: 'prod', rateLimit: MANAGED }]],
  reads: Record<string, number> = { prod: 3 },
): Plan {
  return { ...plan, estimate: estimateApply({ changes: plan.changes, budgets, reads, latencyMs: 100 }) };
}

/** A plan of `count` dashboard creates on each target. */
function creates(targets: Record<string, number>): Plan {
  const template = samplePlan().changes.find((change) => change.action === 'create' && change.kind === 'Dashboard');
  if (!template) throw new Error('the sample has a dashboard create');
  const changes = Object.entries(targets).flatMap(([target, count]) =>
    Array.from({ length: count }, (_, index) => ({
      ...template,
      target,
      name: `d-${index}`,
      operations: [{ type: 'createDashboard' as const, body: { name: `d-${index}`, tiles: [] } }],
    })),
  );
  return buildPlan(changes, []);
}

describe('approximately', () => {
  it.each([
    [0.4, '< 1 s'],
    [40.4, '≈ 40 s'],
    [89, '≈ 89 s'],
    [3_110, '≈ 52 min'],
    [3_900, '≈ 65 min'],
    [5_400, '≈ 1 h 30 min'],
  ])('%s s reads %s', (seconds, text) => {
    expect(approximately(seconds)).toBe(text);
  });
});

describe('the estimate in plan outputs', () => {
  it('text: one line under the summary for a plan that writes to one target', () => {
    const plan = withEstimate(creates({ prod: 3_000 }));
    const text = renderPlanText(plan);
    const lines = text.trimEnd().split('\n');
    expect(lines.at(-2)).toMatch(/^Plan: 3000 to create/);
    expect(lines.at(-1)).toBe(
      'Apply: 3,003 requests (3,000 writes, 3 reads), ≈ 52 min at 10 requests / 10 s, 2 at a time.',
    );
    expect(renderPlanGithub(plan)).toContain(lines.at(-1));
  });

  it('text: a line per target that writes, naming the targets a budget is shared with', () => {
    const budgets = [
      [
        { name: 'prod', rateLimit: MANAGED },
        { name: 'stage', rateLimit: MANAGED },
      ],
    ];
    const plan = withEstimate(creates({ prod: 40, stage: 8 }), budgets, { prod: 3, stage: 3 });
    const lines = renderPlanText(plan).trimEnd().split('\n').slice(-3);
    expect(lines).toEqual([
      'Apply: 54 requests, ≈ 52 s:',
      '  prod: 40 writes, 3 reads, ≈ 52 s at 10 requests / 10 s, 2 at a time, a budget shared with stage',
      '  stage: 8 writes, 3 reads, ≈ 21 s at 10 requests / 10 s, 2 at a time, a budget shared with prod',
    ]);
  });

  it('text and JSON: the wait that requests already spent impose, said plainly (an apply right after a plan)', () => {
    const plan = creates({ prod: 7 });
    const spent = {
      ...plan,
      estimate: estimateApply({
        changes: plan.changes,
        budgets: [[{ name: 'prod', rateLimit: MANAGED }]],
        reads: { prod: 3 },
        latencyMs: 100,
        spentAgoMs: { prod: [1_000, 1_000, 1_000] },
      }),
    };
    expect(renderPlanText(spent).trimEnd().split('\n').at(-1)).toBe(
      'Apply: 10 requests (7 writes, 3 reads), ≈ 9 s at 10 requests / 10 s, 2 at a time; ≈ 9 s of it a wait: 3 requests of the last 10 s still count against the budget.',
    );
    expect(JSON.parse(renderPlanJson(spent)).estimate.targets[0]).toMatchObject({
      spent: 3,
      waitSeconds: expect.any(Number),
    });
    // Nothing spent, nothing said.
    expect(renderPlanText(withEstimate(plan))).not.toContain('of it a wait');
  });

  it('text: nothing about the apply when it would write nothing', () => {
    const plan = withEstimate(creates({}));
    expect(renderPlanText(plan)).not.toContain('Apply:');
  });

  it('markdown: the sentence under the summary, a list item per target when several write', () => {
    const one = renderPlanMarkdown(withEstimate(creates({ prod: 30 })));
    expect(one.split('\n').slice(3, 6)).toEqual([
      '**Plan: 30 to create, 0 to update, 0 to delete, 0 to adopt, 0 unchanged, 0 errors.**',
      '',
      'Apply: 33 requests (30 writes, 3 reads), ≈ 31 s at 10 requests / 10 s, 2 at a time.',
    ]);
    const budgets = [
      [{ name: 'prod', rateLimit: MANAGED }],
      [{ name: 'lab', rateLimit: { requests: 100, perSeconds: 60, concurrency: 4 } }],
    ];
    const two = renderPlanMarkdown(withEstimate(creates({ prod: 30, lab: 5 }), budgets, { prod: 3, lab: 2 }));
    expect(two).toContain(
      'Apply: 40 requests, ≈ 31 s:\n- prod: 30 writes, 3 reads, ≈ 31 s at 10 requests / 10 s, 2 at a time\n- lab: 5 writes, 2 reads, &lt; 1 s at 100 requests / 60 s, 4 at a time\n',
    );
  });

  it('json: requests, writes, reads and seconds, in all and per target with its budget', () => {
    const budgets = [
      [
        { name: 'prod', rateLimit: MANAGED },
        { name: 'stage', rateLimit: MANAGED },
      ],
    ];
    const json = JSON.parse(
      renderPlanJson(withEstimate(creates({ prod: 40, stage: 8 }), budgets, { prod: 3, stage: 3 })),
    );
    // 54 requests: 5 windows of 10.2 s and a round trip, then 4 requests two at a time; stage is done after 22.
    const STAGE = 20.7; // 2 × 10.3 + 0.1
    expect(Object.keys(json)).toEqual(['version', 'summary', 'changes', 'errors', 'estimate']);
    expect(json.estimate).toEqual({
      requests: 54,
      writes: 48,
      reads: 6,
      seconds: 51.7,
      targets: [
        {
          target: 'prod',
          requests: 43,
          writes: 40,
          reads: 3,
          seconds: 51.7,
          rateLimit: MANAGED,
          sharedWith: ['stage'],
        },
        {
          target: 'stage',
          requests: 11,
          writes: 8,
          reads: 3,
          seconds: STAGE,
          rateLimit: MANAGED,
          sharedWith: ['prod'],
        },
      ],
    });
  });

  it('json: the estimate even when nothing is written (the reads an apply makes)', () => {
    const json = JSON.parse(renderPlanJson(withEstimate(creates({}))));
    expect(json.estimate).toEqual({
      requests: 3,
      writes: 0,
      reads: 3,
      seconds: 0.2,
      targets: [{ target: 'prod', requests: 3, writes: 0, reads: 3, seconds: 0.2, rateLimit: MANAGED }],
    });
  });
});
