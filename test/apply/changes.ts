/** Builders of plan changes for executor tests: the shapes the planner emits, nothing more. */
import type { AlertWrite } from '../../src/kinds/alert/model.js';
import type { DashboardWrite, Tile } from '../../src/kinds/dashboard/model.js';
import type { Change, ChangeKey, Operation } from '../../src/model/plan.js';

export const TARGET = 'prod';

export function change(partial: Partial<Change> & Pick<Change, 'kind' | 'name' | 'action'>): Change {
  return { target: TARGET, diff: [], operations: [], dependsOn: [], warnings: [], ...partial };
}

export function tile(name: string, id?: string): Tile {
  return {
    ...(id === undefined ? {} : { id }),
    name,
    x: 0,
    y: 0,
    w: 4,
    h: 2,
    series: [{ type: 'time', aggFn: 'count' }],
  };
}

export function dashboardBody(name: string, tiles: string[]): DashboardWrite {
  return { name, tags: [], tiles: tiles.map((each) => tile(each)) };
}

export function alertBody(name: string, ids: { dashboardId?: string; tileId?: string } = {}): AlertWrite {
  return {
    name,
    threshold: 5,
    thresholdType: 'above',
    interval: '5m',
    source: 'tile',
    channel: { type: 'webhook', webhookId: 'hook' },
    ...ids,
  };
}

export function createDashboard(key: string, tiles: string[] = ['p99'], apiName = key): Change {
  return change({
    kind: 'Dashboard',
    name: key,
    action: 'create',
    liveName: apiName,
    operations: [{ type: 'createDashboard', body: dashboardBody(apiName, tiles) }],
  });
}

/** An alert on a tile of a dashboard that the same plan writes. */
export function createAlertOn(key: string, dashboard: string, tileName: string): Change {
  const refs = { dashboard: `Dashboard/${dashboard}` as ChangeKey, tile: tileName };
  return change({
    kind: 'Alert',
    name: key,
    action: 'create',
    liveName: key,
    dependsOn: [refs.dashboard],
    operations: [{ type: 'createAlert', body: alertBody(key), refs }],
  });
}

export function deleteChange(kind: 'Dashboard' | 'Alert', key: string, id: string): Change {
  const operation: Operation = kind === 'Dashboard' ? { type: 'deleteDashboard', id } : { type: 'deleteAlert', id };
  return change({ kind, name: key, action: 'delete', id, operations: [operation] });
}
