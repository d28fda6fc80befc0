/** The daemon's console lines: "changes to apply" for Git, "drift" only for live edits; results counted as they happened. */
import { describe, expect, it } from 'vitest';
import { describeSync, manifestSource, pendingCounts } from '../../src/daemon/console.js';
import type { Change } from '../../src/model/plan.js';
import { buildPlan } from '../../src/plan/build.js';

function change(fields: Partial<Change> & Pick<Change, 'name' | 'action'>): Change {
  return {
    target: 'prod',
    kind: 'Dashboard',
    diff: [],
    operations: [],
    dependsOn: [],
    warnings: [],
    file: 'manifests/x.yaml',
    line: 1,
    ...fields,
  };
}

const fromGit = change({ name: 'edited', action: 'update', id: 'd-1' });
const drifted = change({ name: 'touched', action: 'update', id: 'd-2', drift: true });
const line = (changes: Change[], extra: Partial<Parameters<typeof describeSync>[0]> = {}): string =>
  describeSync({ target: 'prod', trigger: 'initial', plan: buildPlan(changes, []), time: '10:00:00', ...extra }).split(
    '\n',
  )[0] ?? '';

describe('describeSync', () => {
  it('a dry run found changes to apply, not drift', () => {
    expect(line([fromGit, change({ name: 'new', action: 'create' })], { notApplied: 'dry-run' })).toBe(
      '[10:00:00] prod: initial sync found 2 changes to apply (dry run: not applied):',
    );
  });

  it('drift is named only for live edits made outside stacksync', () => {
    expect(line([fromGit, drifted], { notApplied: 'report', trigger: 'resync' })).toBe(
      '[10:00:00] prod: resync sync found 1 change to apply and 1 drift (a live edit made outside stacksync) (sync.drift is report: not applied):',
    );
  });

  it('what a healing sync applied: changes from Git, and healed drift', () => {
    const results = new Map([
      ['prod/Dashboard/edited', { result: 'ok' as const }],
      ['prod/Dashboard/touched', { result: 'ok' as const }],
    ]);
    expect(line([fromGit, drifted], { results, source: 'git' })).toBe(
      '[10:00:00] prod: initial sync applied 1 change from Git and healed 1 drift (a live edit made outside stacksync):',
    );
    expect(line([drifted], { results, trigger: 'resync', source: 'git' })).toBe(
      '[10:00:00] prod: resync sync healed 1 drift (a live edit made outside stacksync):',
    );
  });

  it('says "from Git" only for a committed revision: uncommitted edits, or no git at all, are the working tree', () => {
    const results = new Map([['prod/Dashboard/edited', { result: 'ok' as const }]]);
    expect(line([fromGit], { results, source: 'working-tree' })).toBe(
      '[10:00:00] prod: initial sync applied 1 change from the working tree:',
    );
    expect(line([fromGit], { results })).toBe('[10:00:00] prod: initial sync applied 1 change from the working tree:');
    expect(manifestSource('a'.repeat(40), false)).toBe('git');
    expect(manifestSource('a'.repeat(40), undefined)).toBe('git');
    expect(manifestSource('a'.repeat(40), true)).toBe('working-tree');
    expect(manifestSource(undefined, undefined)).toBe('working-tree');
  });

  it('closes an applied plan with what happened: a failed write is counted as failed, never "0 errors"', () => {
    const created = change({ name: 'new', action: 'create' });
    const alert = change({ name: 'watch', action: 'create', kind: 'Alert' });
    const results = new Map([
      ['prod/Dashboard/edited', { result: 'ok' as const }],
      ['prod/Dashboard/new', { result: 'failed' as const, code: 'E_API_VALIDATION' as const, error: 'HTTP 400' }],
      [
        'prod/Alert/watch',
        {
          result: 'skipped' as const,
          code: 'E_DEPENDENCY_FAILED' as const,
          error: 'depends on Dashboard/new, which failed',
        },
      ],
    ]);
    const text = describeSync({
      target: 'prod',
      trigger: 'initial',
      plan: buildPlan([fromGit, created, alert, change({ name: 'same', action: 'unchanged' })], []),
      results,
      time: '10:00:00',
      source: 'git',
    });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('[10:00:00] prod: initial sync applied 1 change from Git; 1 failed; 1 skipped:');
    expect(text).toContain('      result: failed: E_API_VALIDATION: HTTP 400\n');
    expect(lines.at(-1)).toBe(
      'Result: 0 created, 1 updated, 0 deleted, 0 adopted, 1 failed, 1 skipped, 0 not applied, 0 waiting, 1 unchanged.',
    );
    expect(text).not.toMatch(/\b0 errors\b/);
    expect(text).not.toContain('Plan:');
  });

  it('counts only what was applied as applied: failures and writes held back are told apart', () => {
    const created = change({ name: 'new', action: 'create' });
    const failed = new Map([
      ['prod/Dashboard/edited', { result: 'ok' as const }],
      ['prod/Dashboard/new', { result: 'failed' as const, code: 'E_API_VALIDATION' as const, error: '400' }],
    ]);
    expect(line([fromGit, created], { results: failed, source: 'git' })).toBe(
      '[10:00:00] prod: initial sync applied 1 change from Git; 1 failed:',
    );
    const heldBack = new Map([
      [
        'prod/Dashboard/edited',
        { result: 'skipped' as const, code: 'E_MANIFEST_BLOCKED' as const, error: 'manifests have errors' },
      ],
    ]);
    expect(line([fromGit, created], { results: heldBack })).toBe(
      '[10:00:00] prod: initial sync applied nothing; 2 not applied:',
    );
  });

  it('in sync is one line; orphans alone are nothing to apply', () => {
    expect(
      describeSync({
        target: 'prod',
        trigger: 'resync',
        plan: buildPlan([change({ name: 'same', action: 'unchanged' })], []),
        time: '10:00:00',
      }),
    ).toBe('[10:00:00] prod: in sync (1 resources, resync)\n');
    expect(line([change({ name: 'old', action: 'orphan', file: undefined })], { notApplied: 'dry-run' })).toBe(
      '[10:00:00] prod: initial sync found nothing to apply; 1 orphaned (apply --prune deletes it):',
    );
    expect(line([change({ name: 'bad', action: 'error' })])).toBe(
      '[10:00:00] prod: initial sync found nothing to apply; 1 error:',
    );
  });

  it('counts only writes, split by cause', () => {
    expect(
      pendingCounts([
        fromGit,
        drifted,
        change({ name: 'old', action: 'orphan' }),
        change({ name: 'bad', action: 'error' }),
      ]),
    ).toEqual({ toApply: 1, drift: 1 });
  });
});
