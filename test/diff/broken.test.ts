/**
 * A manifest that failed to load still names its resource (issue 25, item 8): the load problem is
 * that resource's one row, so the differ shows no orphan and plans no delete for it.
 */
import { describe, expect, it } from 'vitest';
import { planTarget } from '../../src/diff/index.js';
import { planInput } from './factories.js';

const inventory = {
  Dashboard: { ops: { id: 'd1', name: 'Ops' } },
  Alert: { stalled: { id: 'a1', name: 'Stalled' }, gone: { id: 'a2', name: 'Gone' } },
};
const live = {
  dashboards: [{ id: 'd1', name: 'Ops' }],
  alerts: [
    { id: 'a1', name: 'Stalled', savedSearchId: 's1' },
    { id: 'a2', name: 'Gone', savedSearchId: 's1' },
  ],
};

describe('resources of manifests that failed to load', () => {
  it.each([
    ['pruning', { prune: true }],
    ['not pruning', { prune: false }],
  ])('are neither orphans nor deletes (%s); what no manifest names still is', (_what, options) => {
    const changes = planTarget(
      planInput({ live, state: { inventory }, options, broken: ['Alert/stalled', 'Dashboard/ops'] }),
    );
    expect(changes.map((change) => `${change.kind}/${change.name}`)).toEqual(['Alert/gone']);
  });

  it('only of their own kind', () => {
    const changes = planTarget(planInput({ live, state: { inventory }, broken: ['Dashboard/stalled'] }));
    expect(changes.map((change) => `${change.kind}/${change.name}:${change.action}`).sort()).toEqual([
      'Alert/gone:orphan',
      'Alert/stalled:orphan',
      'Dashboard/ops:orphan',
    ]);
  });
});
