/** Sources and webhooks named in manifests, resolved from the target's lists. */
import { describe, expect, it } from 'vitest';
import { namesUsed, planTarget, resolveNames } from '../../src/diff/index.js';
import { desired, planInput, TARGET } from './factories.js';

const sources = [{ id: '65f5e4a3b9e77c001a0000b1', name: 'Logs', kind: 'log' }, { id: '65f5e4a3b9e77c001a0000b2', name: 'Traces', kind: 'trace' }];
const webhooks = [{ id: '65f5e4a3b9e77c001a0000c1', name: 'ops', service: 'slack' }];

const board = desired({
  kind: 'Dashboard', key: 'api', name: 'API',
  tiles: [
    { name: 'latency', series: undefined, config: { displayType: 'line', source: 'Traces', select: [{ aggFn: 'avg' }] } },
    { name: 'errors', series: [{ type: 'time', source: 'Logs', aggFn: 'count', where: '' }] },
    { name: 'plain', series: [{ type: 'time', sourceId: 'x', aggFn: 'count', where: '' }] },
  ],
});
const alert = desired({ kind: 'Alert', key: 'slow', name: 'slow', source: 'saved_search', savedSearchId: 's1', channel: { type: 'webhook', webhook: 'ops' } });
const plain = desired({ kind: 'Alert', key: 'plain', name: 'plain', source: 'saved_search', savedSearchId: 's1' });

describe('names of sources and webhooks', () => {
  it('tells which lists a target needs, so none is read when no manifest uses a name', () => {
    expect(namesUsed([board, alert])).toEqual({ sources: true, webhooks: true });
    expect(namesUsed([plain, desired({ kind: 'Dashboard', key: 'd', name: 'D', tiles: [{ name: 't' }] })])).toEqual({ sources: false, webhooks: false });
  });

  it('replaces each name by its id, in configs, series and channels', () => {
    const { resources, unresolved } = resolveNames(TARGET, [board, alert, plain], { sources, webhooks });
    expect(unresolved.size).toBe(0);
    const [dashboard, resolvedAlert, untouched] = resources;
    expect(dashboard?.kind === 'Dashboard' && dashboard.tiles.map((tile) => tile.config ?? tile.series)).toEqual([
      { displayType: 'line', sourceId: '65f5e4a3b9e77c001a0000b2', select: [{ aggFn: 'avg' }] },
      [{ type: 'time', sourceId: '65f5e4a3b9e77c001a0000b1', aggFn: 'count', where: '' }],
      [{ type: 'time', sourceId: 'x', aggFn: 'count', where: '' }],
    ]);
    expect(resolvedAlert?.kind === 'Alert' && resolvedAlert.channel).toEqual({ type: 'webhook', webhookId: '65f5e4a3b9e77c001a0000c1' });
    expect(untouched).toBe(plain);
  });

  it('makes an unknown name an error row at the manifest\'s file and line; the rest is planned and nothing is pruned', () => {
    const { resources, unresolved } = resolveNames(TARGET, [board, alert, plain], { sources: sources.slice(1), webhooks: [] });
    expect([...unresolved.keys()]).toEqual(['Dashboard/api', 'Alert/slow']);
    expect(unresolved.get('Dashboard/api')).toBe('data source "Logs" is not a data source of target prod (it has "Traces")');
    const state = { inventory: { Dashboard: { api: { id: 'd1' } } } };
    const input = planInput({ live: { dashboards: [{ id: 'd1', name: 'API' }] }, state, options: { prune: true } });
    const changes = planTarget({ ...input, desired: resources, unresolved });
    expect(changes.map((change) => [change.kind, change.name, change.action, change.code, change.file, change.line])).toEqual([
      ['Dashboard', 'api', 'error', 'E_REF_UNRESOLVED', 'manifests/api.yaml', 1],
      ['Alert', 'plain', 'create', undefined, 'manifests/plain.yaml', 1],
      ['Alert', 'slow', 'error', 'E_REF_UNRESOLVED', 'manifests/slow.yaml', 1],
    ]);
  });
});
