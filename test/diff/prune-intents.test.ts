/** Prune of resources a crashed create left behind: named by an intent, never inventoried. */
import { describe, expect, it } from 'vitest';
import { planTarget } from '../../src/diff/index.js';
import { planInput } from './factories.js';

const tile = { id: 't1', name: 'p99', x: 0, y: 0, w: 6, h: 4, series: [{ type: 'time', aggFn: 'avg' }] };
const intent = { kind: 'Dashboard', key: 'gone', name: 'Gone', at: '2026-11-21T00:00:00.000Z' };
const orphan = { id: 'd-orphan', name: 'Gone', tiles: [tile] };

const deletesOf = (input: Parameters<typeof planInput>[0]) =>
  planTarget(planInput(input))
    .filter((change) => change.action === 'delete')
    .map((change) => `${change.kind}/${change.name}:${change.id}`);

describe('prune of intent-named orphans', () => {
  it('deletes the live resource a pending intent names when its manifest is gone', () => {
    expect(deletesOf({ live: { dashboards: [orphan] }, state: { intents: [intent] }, options: { prune: true } })).toEqual(['Dashboard/gone:d-orphan']);
  });

  it('deletes nothing without prune, or while the target is blocked', () => {
    expect(deletesOf({ live: { dashboards: [orphan] }, state: { intents: [intent] } })).toEqual([]);
    expect(deletesOf({ live: { dashboards: [orphan] }, state: { intents: [intent] }, options: { prune: true, blocked: true } })).toEqual([]);
  });

  it('deletes nothing when two unowned live resources carry the name', () => {
    const twin = { ...orphan, id: 'd-twin' };
    expect(deletesOf({ live: { dashboards: [orphan, twin] }, state: { intents: [intent] }, options: { prune: true } })).toEqual([]);
  });

  it('never deletes a same-named resource the inventory owns under another key', () => {
    const state = { intents: [intent], inventory: { Dashboard: { other: { id: 'd-orphan', name: 'Gone' } } } };
    expect(deletesOf({ desired: [], live: { dashboards: [orphan] }, state, options: { prune: true } })).toEqual(['Dashboard/other:d-orphan']);
  });

  it('takes the resource back instead when the manifest still names it', () => {
    const desired = [{ kind: 'Dashboard', key: 'gone', name: 'Gone', tiles: [{ name: 'p99', x: 0, y: 0, w: 6, h: 4, series: [{ type: 'time', aggFn: 'avg' }] }] }];
    const changes = planTarget(planInput({ desired, live: { dashboards: [orphan] }, state: { intents: [intent] }, options: { prune: true } }));
    expect(changes.map((change) => [change.action, change.reclaimed])).toEqual([['unchanged', true]]);
  });
});
