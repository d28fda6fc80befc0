/** Live twins of managed resources: which live resources are conflicts, and in what order. */
import { describe, expect, it } from 'vitest';
import { planTwins } from '../../src/diff/live-twins.js';
import type { Change } from '../../src/model/plan.js';
import type { TargetState } from '../../src/model/state.js';
import { emptyTargetState } from '../../src/state/empty.js';

function change(
  name: string,
  id: string | undefined,
  action: Change['action'] = 'unchanged',
  liveName?: string,
): Change {
  return {
    target: 't',
    kind: 'Dashboard',
    name,
    action,
    ...(id ? { id } : {}),
    ...(liveName ? { liveName } : {}),
    diff: [],
    operations: [],
    dependsOn: [],
    warnings: [],
    file: 'm.yaml',
    line: 1,
  };
}

function state(inventory: Record<string, { id: string; name?: string }>): TargetState {
  const base = emptyTargetState();
  return { ...base, inventory: { ...base.inventory, Dashboard: inventory } };
}

/** The twin ids found, each as `owner:twin`. */
function twinsOf(
  changes: Change[],
  live: { id: string; name?: string }[],
  inventory: Record<string, { id: string; name?: string }>,
): string[] {
  return planTwins({ target: 't', kind: 'Dashboard', changes, live, state: state(inventory) }).map(
    (twin) => `${twin.name.split(' ')[0]}:${twin.id}`,
  );
}

const CASES: [
  string,
  Change[],
  { id: string; name?: string }[],
  Record<string, { id: string; name?: string }>,
  string[],
][] = [
  ['none when every live resource is owned', [change('a', 'd1')], [{ id: 'd1', name: 'A' }], { a: { id: 'd1' } }, []],
  [
    'a second live resource with the owned name',
    [change('a', 'd1')],
    [
      { id: 'd1', name: 'A' },
      { id: 'd2', name: 'A' },
    ],
    { a: { id: 'd1' } },
    ['a:d2'],
  ],
  [
    'a twin of the name the plan renames from',
    [change('a', 'd1', 'update', 'Old')],
    [
      { id: 'd1', name: 'A' },
      { id: 'd2', name: 'Old' },
    ],
    { a: { id: 'd1' } },
    ['a:d2'],
  ],
  [
    'twins under both names, in the order the API listed them',
    [change('a', 'd1', 'update', 'Old')],
    [
      { id: 'd3', name: 'A' },
      { id: 'd1', name: 'A' },
      { id: 'd2', name: 'Old' },
      { id: 'd4', name: 'A' },
    ],
    { a: { id: 'd1' } },
    ['a:d3', 'a:d2', 'a:d4'],
  ],
  [
    'not one the inventory holds under another key',
    [change('a', 'd1')],
    [
      { id: 'd1', name: 'A' },
      { id: 'd2', name: 'A' },
    ],
    { a: { id: 'd1' }, b: { id: 'd2' } },
    [],
  ],
  [
    'not one this plan claims (adopted or reclaimed)',
    [change('a', 'd1'), change('b', 'd2', 'adopt')],
    [
      { id: 'd1', name: 'A' },
      { id: 'd2', name: 'A' },
    ],
    { a: { id: 'd1' } },
    [],
  ],
  [
    'none for a resource not in the inventory',
    [change('a', 'd1')],
    [
      { id: 'd1', name: 'A' },
      { id: 'd2', name: 'A' },
    ],
    {},
    [],
  ],
  [
    'none for deletes and orphans',
    [change('a', 'd1', 'delete'), change('b', 'd3', 'orphan')],
    [
      { id: 'd1', name: 'A' },
      { id: 'd2', name: 'A' },
      { id: 'd3', name: 'B' },
      { id: 'd4', name: 'B' },
    ],
    { a: { id: 'd1' }, b: { id: 'd3' } },
    [],
  ],
  [
    'none for a nameless live resource',
    [change('a', 'd1')],
    [{ id: 'd1', name: 'A' }, { id: 'd2' }],
    { a: { id: 'd1' } },
    [],
  ],
  [
    'one per owner that shares the name',
    [change('a', 'd1'), change('b', 'd2')],
    [
      { id: 'd1', name: 'X' },
      { id: 'd2', name: 'X' },
      { id: 'd3', name: 'X' },
    ],
    { a: { id: 'd1' }, b: { id: 'd2' } },
    ['a:d3', 'b:d3'],
  ],
];

describe('planTwins', () => {
  it.each(CASES)('%s', (_name, changes, live, inventory, expected) => {
    expect(twinsOf(changes, live, inventory)).toEqual(expected);
  });

  it('makes each twin a conflict at its owner manifest', () => {
    const [twin] = planTwins({
      target: 't',
      kind: 'Dashboard',
      changes: [change('a', 'd1')],
      live: [
        { id: 'd1', name: 'A' },
        { id: 'd2', name: 'A' },
      ],
      state: state({ a: { id: 'd1' } }),
    });
    expect(twin).toMatchObject({
      action: 'error',
      code: 'E_CONFLICT',
      id: 'd2',
      liveName: 'A',
      file: 'm.yaml',
      line: 1,
    });
  });
});
