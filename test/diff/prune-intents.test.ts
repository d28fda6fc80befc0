/**
 * A create intent never makes a resource deletable (issue 25, item 1): it says only that a create
 * may have happened. Prune deletes what the inventory records, and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { planTarget } from '../../src/diff/index.js';
import { planInput } from './factories.js';

const tile = { id: 't1', name: 'p99', x: 0, y: 0, w: 6, h: 4, series: [{ type: 'time', aggFn: 'avg' }] };
const intent = { kind: 'Dashboard', key: 'gone', name: 'Gone', at: '2026-03-15T10:20:30.000Z' };
/** Made a moment after the intent: what a create killed after it was sent leaves. */
const landed = { id: 'd-landed', name: 'Gone', tiles: [tile], createdAt: '2026-03-15T10:20:30.300Z' };
/** Made an hour later, by hand, by a colleague who liked the name. */
const colleagues = { ...landed, id: 'd-colleague', createdAt: '2026-03-15T11:20:30.000Z' };

const changesOf = (input: Parameters<typeof planInput>[0]) =>
  planTarget(planInput(input)).map((change) => `${change.kind}/${change.name}:${change.action}:${change.id ?? ''}`);

describe('a pending intent whose manifest is gone', () => {
  it.each([
    ['the create it recorded', landed],
    ["a colleague's resource of that name", colleagues],
  ])('neither deletes nor lists %s, with or without prune', (_what, live) => {
    for (const options of [{ prune: true }, { prune: false }, { prune: true, blocked: true }]) {
      expect(changesOf({ live: { dashboards: [live] }, state: { intents: [intent] }, options })).toEqual([]);
    }
  });

  it('leaves a same-named resource the inventory owns under another key to the inventory', () => {
    const state = { intents: [intent], inventory: { Dashboard: { other: { id: 'd-landed', name: 'Gone' } } } };
    expect(changesOf({ live: { dashboards: [landed] }, state, options: { prune: true } })).toEqual([
      'Dashboard/other:delete:d-landed',
    ]);
  });
});

describe('a pending intent whose manifest still wants the resource', () => {
  const desired = [
    {
      kind: 'Dashboard',
      key: 'gone',
      name: 'Gone',
      tiles: [{ name: 'p99', x: 0, y: 0, w: 6, h: 4, series: [{ type: 'time', aggFn: 'avg' }] }],
    },
  ];

  it('takes back the create it recorded', () => {
    const changes = planTarget(
      planInput({ desired, live: { dashboards: [landed] }, state: { intents: [intent] }, options: { prune: true } }),
    );
    expect(changes.map((change) => [change.action, change.reclaimed])).toEqual([['unchanged', true]]);
  });

  it("shows a colleague's resource of that name as adopt: a person decides, nothing is taken or deleted", () => {
    const changes = planTarget(
      planInput({
        desired,
        live: { dashboards: [colleagues] },
        state: { intents: [intent] },
        options: { prune: true },
      }),
    );
    expect(changes.map((change) => [change.action, change.id, change.reclaimed, change.operations])).toEqual([
      ['adopt', 'd-colleague', undefined, []],
    ]);
  });
});
