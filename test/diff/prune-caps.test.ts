import { describe, expect, it } from 'vitest';
import { checkPruneCaps, planTarget } from '../../src/diff/index.js';
import type { Change } from '../../src/model/plan.js';
import { managedCount } from '../../src/state/inventory.js';
import { planInput } from './factories.js';

function changes(deletes: number, others = 0): Change[] {
  const make = (action: Change['action'], i: number): Change => ({
    target: 'prod',
    kind: 'Dashboard',
    name: `${action}-${i}`,
    action,
    diff: [],
    operations: [],
    dependsOn: [],
    warnings: [],
  });
  return [
    ...Array.from({ length: deletes }, (_, i) => make('delete', i)),
    ...Array.from({ length: others }, (_, i) => make('update', i)),
  ];
}

describe('checkPruneCaps', () => {
  const caps = { managedCount: 40, maxDeletes: 10, maxDeletePercent: 25, force: false };
  it.each([
    ['no deletes', changes(0, 50), caps, true, undefined],
    ['updates do not count as deletes', changes(2, 30), caps, true, undefined],
    ['exactly maxDeletes', changes(10), caps, true, undefined],
    ['one over maxDeletes', changes(11), caps, false, '11 deletes exceed maxDeletes (10)'],
    ['exactly maxDeletePercent (1 of 4 = 25%)', changes(1), { ...caps, managedCount: 4 }, true, undefined],
    [
      'over maxDeletePercent (2 of 4)',
      changes(2),
      { ...caps, managedCount: 4 },
      false,
      '2 of 4 managed resources (50%) exceed maxDeletePercent (25%)',
    ],
    ['a fractional share is shown rounded', changes(2), { ...caps, managedCount: 7 }, false, '(28.6%)'],
    ['nothing managed counts as 100%', changes(1), { ...caps, managedCount: 0 }, false, 'exceed maxDeletePercent'],
    ['--force lifts both caps', changes(30), { ...caps, managedCount: 30, force: true }, true, undefined],
  ])('%s', (_name, list, given, ok, message) => {
    const result = checkPruneCaps(list, given);
    expect(result.ok).toBe(ok);
    if (!result.ok) {
      expect(result.message).toContain(message);
      expect(result.message).toContain('--force');
    }
  });

  it('refuses a prune planned from the inventory that deletes too large a share', () => {
    const input = planInput({
      options: { prune: true },
      desired: [{ kind: 'Dashboard', key: 'kept', name: 'Kept' }],
      live: {
        dashboards: [
          { id: 'd1', name: 'Kept' },
          { id: 'd2', name: 'A' },
          { id: 'd3', name: 'B' },
        ],
      },
      state: { inventory: { Dashboard: { kept: { id: 'd1' }, a: { id: 'd2' }, b: { id: 'd3' } } } },
    });
    const planned = planTarget(input);
    expect(planned.filter((c) => c.action === 'delete').map((c) => c.name)).toEqual(['a', 'b']);
    const base = { managedCount: managedCount(input.state), maxDeletes: 10, maxDeletePercent: 25 };
    expect(checkPruneCaps(planned, { ...base, force: false })).toEqual({
      ok: false,
      message:
        'prune refused: 2 of 3 managed resources (66.7%) exceed maxDeletePercent (25%); rerun with --force to delete them anyway',
    });
    expect(checkPruneCaps(planned, { ...base, force: true })).toEqual({ ok: true });
  });
});
