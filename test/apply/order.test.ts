import { describe, expect, it } from 'vitest';
import { kindRank } from '../../src/kinds/index.js';
import { buildExecutionGraph, orderOperations } from '../../src/apply/order.js';
import type { Change, Operation } from '../../src/model/plan.js';
import { change, createAlertOn, createDashboard, deleteChange } from './changes.js';

function keysInOrder(changes: Change[]): string[] {
  return buildExecutionGraph(changes).nodes.map((node) => node.key);
}

describe('execution graph', () => {
  it.each([
    [
      'alert deletes, then dashboard writes, then dashboard deletes, then alert writes',
      [
        createAlertOn('a', 'd', 't'),
        deleteChange('Dashboard', 'old', 'x'),
        createDashboard('d'),
        deleteChange('Alert', 'gone', 'y'),
      ],
      ['Alert/gone', 'Dashboard/d', 'Dashboard/old', 'Alert/a'],
    ],
    [
      'plan order among equal ranks',
      [createDashboard('b'), createDashboard('a'), createDashboard('c')],
      ['Dashboard/b', 'Dashboard/a', 'Dashboard/c'],
    ],
    [
      'a required change first even within a rank',
      [change({ ...createDashboard('b'), dependsOn: ['Dashboard/a'] }), createDashboard('a')],
      ['Dashboard/a', 'Dashboard/b'],
    ],
  ])('orders %s', (_label, changes, want) => {
    expect(keysInOrder(changes)).toEqual(want);
  });

  it('requires the dashboards named by alert refs even when dependsOn leaves them out, ignoring keys outside the plan', () => {
    const alert = change({ ...createAlertOn('a', 'd', 't'), dependsOn: ['Dashboard/not-in-plan'] });
    const graph = buildExecutionGraph([alert, createDashboard('d')]);
    expect(graph.nodes.find((node) => node.key === 'Alert/a')?.requires).toEqual(['Dashboard/d']);
  });

  it('raises the rank of a change that requires a higher-ranked one, so it cannot deadlock on the rank barrier', () => {
    // An alert delete (the first delete rank) that the planner made wait for an alert write (the last write rank).
    const del = change({ ...deleteChange('Alert', 'old', 'x'), dependsOn: ['Alert/new'] });
    const graph = buildExecutionGraph([del, createAlertOn('new', 'd', 't'), createDashboard('d')]);
    const alertWrites = kindRank('Alert', false);
    expect(graph.nodes.map((node) => [node.key, node.rank])).toEqual([
      ['Dashboard/d', kindRank('Dashboard', false)],
      ['Alert/new', alertWrites],
      ['Alert/old', alertWrites],
    ]);
    expect(graph.cycles).toEqual([]);
  });

  it('reports only the changes in a cycle as cyclic, not those that merely require them', () => {
    const a = change({ ...createDashboard('a'), dependsOn: ['Dashboard/b'] });
    const b = change({ ...createDashboard('b'), dependsOn: ['Dashboard/a'] });
    const graph = buildExecutionGraph([a, b, createAlertOn('on-a', 'a', 't'), createDashboard('free')]);
    expect(graph.cycles).toEqual(['Dashboard/a', 'Dashboard/b']);
    expect(graph.nodes.map((node) => node.key)).toEqual(['Dashboard/free', 'Dashboard/a', 'Dashboard/b', 'Alert/on-a']);
  });

  it('refuses a plan with two changes for one key', () => {
    expect(() => buildExecutionGraph([createDashboard('a'), createDashboard('a')])).toThrow(
      expect.objectContaining({ code: 'E_INTERNAL' }),
    );
  });

  it('runs a mapping removal before an addition and keeps other operations in place', () => {
    const op = (step: 'remove-mappings' | 'add-mappings' | undefined, name: string): Operation => ({
      type: 'updatePipe',
      id: 'p',
      patch: { name },
      ...(step ? { step } : {}),
    });
    const ordered = orderOperations([
      op('add-mappings', 'add'),
      op(undefined, 'plain'),
      op('remove-mappings', 'remove'),
    ]);
    expect(ordered.map((each) => ('patch' in each ? each.patch['name'] : ''))).toEqual(['remove', 'plain', 'add']);
  });
});
