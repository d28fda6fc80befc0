/**
 * The differ against the shapes real services send today (docs/reference/api-behaviour.md, "The real services today"):
 * a live resource it cannot read is an error on that resource only, and every update body is the
 * live resource as read with the manifest's members laid over it (server-side apply).
 */
import { describe, expect, it } from 'vitest';
import { planTarget } from '../../src/diff/index.js';
import type { Change, Operation } from '../../src/model/plan.js';
import { planInput } from './factories.js';

const CONFIG = {
  displayType: 'line',
  sourceId: '65f5e4a3b9e77c001a0000b1',
  select: [{ aggFn: 'avg', valueExpression: 'Duration' }],
  fillNulls: true,
};
const configTile = {
  id: 't1',
  name: 'latency',
  x: 0,
  y: 0,
  w: 6,
  h: 4,
  series: undefined,
  config: CONFIG,
  extra: { containerId: 'c1' },
};
const dashboardExtra = {
  filters: [{ id: 'f1', type: 'QUERY_EXPRESSION', name: 'svc', expression: 'ServiceName', sourceId: CONFIG.sourceId }],
  savedQuery: null,
};
const liveDashboard = { id: 'd1', name: 'API', tiles: [configTile], extra: dashboardExtra };

const unreadableAlert = { kind: 'Alert', id: 'a-bad', name: 'broken', problem: 'data[3].threshold: is not a number' };

function only(changes: Change[], name: string): Change {
  const found = changes.filter((change) => change.name === name);
  expect(found).toHaveLength(1);
  return found[0] as Change;
}

function bodyOf(change: Change): Record<string, unknown> {
  const [operation] = change.operations as (Operation & { body?: Record<string, unknown> })[];
  if (!operation?.body) throw new Error(`no body in ${change.action} ${change.name}`);
  return operation.body;
}

describe('a live resource that cannot be read', () => {
  const alerts = Array.from({ length: 999 }, (_, index) => ({
    id: `a${index}`,
    name: `alert ${index}`,
    source: 'search',
    savedSearchId: 's1',
  }));
  const manifests = alerts.map((alert, index) => ({
    kind: 'Alert',
    key: `alert-${index}`,
    name: alert.name,
    source: 'search',
    savedSearchId: 's1',
    threshold: 1000 + index,
  }));
  const inventory = { Alert: Object.fromEntries(alerts.map((alert, index) => [`alert-${index}`, { id: alert.id }])) };

  it('is one error row, with its code and id, when a manifest manages it; the other 999 are planned', () => {
    const desired = [
      ...manifests,
      { kind: 'Alert', key: 'broken', name: 'broken', source: 'search', savedSearchId: 's1' },
    ];
    const state = { inventory: { Alert: { ...inventory.Alert, broken: { id: 'a-bad' } } } };
    const changes = planTarget(planInput({ desired, live: { alerts, unreadable: [unreadableAlert] }, state }));
    const errors = changes.filter((change) => change.action === 'error');
    expect(errors).toEqual([
      expect.objectContaining({ name: 'broken', id: 'a-bad', code: 'E_API_PROTOCOL', file: 'manifests/broken.yaml' }),
    ]);
    expect(errors[0]?.error).toContain('data[3].threshold: is not a number');
    expect(changes.filter((change) => change.action === 'update')).toHaveLength(999);
  });

  it('is an error row too when a manifest would adopt it by name', () => {
    const changes = planTarget(
      planInput({
        desired: [{ kind: 'Alert', key: 'broken', name: 'broken', source: 'search', savedSearchId: 's1' }],
        live: { unreadable: [unreadableAlert] },
      }),
    );
    expect(changes).toEqual([expect.objectContaining({ action: 'error', id: 'a-bad', code: 'E_API_PROTOCOL' })]);
  });

  it('is nothing at all when no manifest manages it', () => {
    const changes = planTarget(
      planInput({ desired: manifests, live: { alerts, unreadable: [unreadableAlert] }, state: { inventory } }),
    );
    expect(changes.filter((change) => change.action !== 'update')).toEqual([]);
    expect(changes).toHaveLength(999);
  });

  it('is still live for prune: an owned one no manifest names is deleted by id, or shown as an orphan', () => {
    const state = { inventory: { Alert: { broken: { id: 'a-bad' } } } };
    const pruned = planTarget(planInput({ live: { unreadable: [unreadableAlert] }, state, options: { prune: true } }));
    expect(pruned.map((change) => [change.action, change.id])).toEqual([['delete', 'a-bad']]);
    const kept = planTarget(planInput({ live: { unreadable: [unreadableAlert] }, state }));
    expect(kept.map((change) => [change.action, change.id])).toEqual([['orphan', 'a-bad']]);
  });

  it('stops a pipe manifest naming it, with the pipe id', () => {
    const pipeId = '7a0e1f2c-0004-4b3a-9c4d-5e6f7a8b9c04';
    const changes = planTarget(
      planInput({
        desired: [{ kind: 'Pipe', key: 'billing', pipeId, name: 'x' }],
        live: { unreadable: [{ kind: 'Pipe', id: pipeId, problem: 'data[0].source: holds none of kafka' }] },
      }),
    );
    expect(changes).toEqual([expect.objectContaining({ action: 'error', id: pipeId, code: 'E_API_PROTOCOL' })]);
  });
});

describe('dashboard updates keep what the manifest does not manage', () => {
  const state = { inventory: { Dashboard: { api: { id: 'd1' } } } };
  const current = { profile: 'current' as const };

  describe("a table's drill-down (onClick) changed to another type or target mode is sent whole, without the live one's members", () => {
    const SOURCE_ID = CONFIG.sourceId;
    const liveLinkOut = {
      type: 'search',
      target: { mode: 'id', id: SOURCE_ID },
      whereTemplate: 'ServiceName = {{svc}}',
      whereLanguage: 'sql',
    };
    const tableTile = {
      ...configTile,
      config: { displayType: 'table', sourceId: SOURCE_ID, select: [{ aggFn: 'count' }], onClick: liveLinkOut },
    };
    const live = { dashboards: [{ ...liveDashboard, tiles: [tableTile] }] };
    const sentOnClick = (onClick: Record<string, unknown>): unknown => {
      const desired = [
        {
          kind: 'Dashboard',
          key: 'api',
          name: 'API',
          tiles: [{ name: 'latency', x: 0, y: 0, w: 6, h: 4, series: undefined, config: { onClick } }],
        },
      ];
      const change = only(planTarget(planInput({ target: current, desired, live, state })), 'api');
      const [sent] = bodyOf(change)['tiles'] as Record<string, unknown>[];
      return (sent?.['config'] as Record<string, unknown>)['onClick'];
    };

    it.each([
      [
        "another type: only the manifest's link-out",
        { type: 'external', urlTemplate: 'https://runbooks.example/{{svc}}' },
        { type: 'external', urlTemplate: 'https://runbooks.example/{{svc}}' },
      ],
      [
        "the same type, another target mode: the live where stays, the target is the manifest's",
        { type: 'search', target: { mode: 'template', template: 'logs-{{env}}' } },
        { ...liveLinkOut, target: { mode: 'template', template: 'logs-{{env}}' } },
      ],
      [
        'the same type and mode: unmanaged members stay',
        { type: 'search', target: { mode: 'id', id: 'a'.repeat(24) } },
        { ...liveLinkOut, target: { mode: 'id', id: 'a'.repeat(24) } },
      ],
    ])('%s', (_case, onClick, expected) => {
      expect(sentOnClick(onClick)).toEqual(expected);
    });
  });

  it('a tile given only a name and a position keeps its config and unknown members; the dashboard keeps its filters', () => {
    const desired = [
      {
        kind: 'Dashboard',
        key: 'api',
        name: 'API',
        tiles: [{ name: 'latency', x: 6, y: 0, w: 6, h: 4, series: undefined }],
      },
    ];
    const change = only(
      planTarget(planInput({ target: current, desired, live: { dashboards: [liveDashboard] }, state })),
      'api',
    );
    expect(change.action).toBe('update');
    expect(change.diff).toEqual([{ path: 'tiles[latency].x', before: 0, after: 6 }]);
    expect(bodyOf(change)).toEqual({
      ...dashboardExtra,
      name: 'API',
      tiles: [{ id: 't1', name: 'latency', x: 6, y: 0, w: 6, h: 4, config: CONFIG, containerId: 'c1' }],
    });
  });

  it('compares only the config members a manifest sets, and lays them over the live config', () => {
    const tile = (config: Record<string, unknown>) => ({
      name: 'latency',
      x: 0,
      y: 0,
      w: 6,
      h: 4,
      series: undefined,
      config,
    });
    const same = planTarget(
      planInput({
        target: current,
        desired: [
          {
            kind: 'Dashboard',
            key: 'api',
            name: 'API',
            tiles: [tile({ displayType: 'line', select: [{ aggFn: 'avg' }] })],
          },
        ],
        live: { dashboards: [liveDashboard] },
        state,
      }),
    );
    expect(same.map((change) => change.action)).toEqual(['unchanged']);
    const changed = only(
      planTarget(
        planInput({
          target: current,
          desired: [{ kind: 'Dashboard', key: 'api', name: 'API', tiles: [tile({ select: [{ aggFn: 'max' }] })] }],
          live: { dashboards: [liveDashboard] },
          state,
        }),
      ),
      'api',
    );
    expect(changed.diff).toEqual([{ path: 'tiles[latency].config.select[0].aggFn', before: 'avg', after: 'max' }]);
    const [sent] = bodyOf(changed)['tiles'] as Record<string, unknown>[];
    expect(sent?.['config']).toEqual({ ...CONFIG, select: [{ aggFn: 'max', valueExpression: 'Duration' }] });
  });

  it('a tile the manifest writes as series is compared and sent as the config it maps onto, on a current target', () => {
    const series = [
      { type: 'time', sourceId: CONFIG.sourceId, aggFn: 'avg', field: 'Duration', where: '', groupBy: [] },
    ];
    const desired = [
      { kind: 'Dashboard', key: 'api', name: 'API', tiles: [{ name: 'latency', x: 0, y: 0, w: 6, h: 4, series }] },
    ];
    const same = planTarget(planInput({ target: current, desired, live: { dashboards: [liveDashboard] }, state }));
    expect(same.map((change) => [change.action, change.diff])).toEqual([['unchanged', []]]);
    const moved = desired.map((dashboard) => ({
      ...dashboard,
      tiles: dashboard.tiles.map((tile) => ({ ...tile, w: 12 })),
    }));
    const change = only(
      planTarget(planInput({ target: current, desired: moved, live: { dashboards: [liveDashboard] }, state })),
      'api',
    );
    const [sent] = bodyOf(change)['tiles'] as Record<string, unknown>[];
    expect(sent).toEqual({
      id: 't1',
      name: 'latency',
      x: 0,
      y: 0,
      w: 12,
      h: 4,
      config: { ...CONFIG, select: [{ aggFn: 'avg', valueExpression: 'Duration', where: '' }] },
      containerId: 'c1',
    });
  });

  it("a tile the manifest writes as series is sent as series to a seed-profile target, without the live config or a current server's source", () => {
    const series = [{ type: 'time', sourceId: CONFIG.sourceId, aggFn: 'avg', where: '', groupBy: [] }];
    const desired = [
      { kind: 'Dashboard', key: 'api', name: 'API', tiles: [{ name: 'latency', x: 0, y: 0, w: 6, h: 4, series }] },
    ];
    const change = only(
      planTarget(planInput({ desired, live: { dashboards: [{ ...liveDashboard, extra: {} }] }, state })),
      'api',
    );
    const [sent] = bodyOf(change)['tiles'] as Record<string, unknown>[];
    expect(sent).toEqual({
      id: 't1',
      name: 'latency',
      x: 0,
      y: 0,
      w: 6,
      h: 4,
      series: [{ type: 'time', aggFn: 'avg', where: '', groupBy: [] }],
      containerId: 'c1',
    });
  });
});
