/**
 * The server deletes an alert when the tile it watches goes (a dashboard PUT that drops it, or the
 * dashboard's delete). Which alerts a plan's dashboard writes take along, and the order or warning
 * that keeps each of them from being lost by surprise.
 */
import { changeKey, type Change } from '../../model/plan.js';
import { addDependsOn } from '../shared/change.js';
import type { DashboardOutcome } from '../dashboard/diff.js';
import type { LiveDashboard } from '../dashboard/model.js';
import { cascadingChangeOf, type AlertOutcome } from './diff.js';
import { ALERT, type LiveAlert } from './model.js';

export interface TileRemovals {
  /** Live tile id → key of the Dashboard change whose write deletes it. */
  tilesRemovedBy: Map<string, string>;
  /** Live dashboard id → key of its Dashboard delete. */
  dashboardsDeletedBy: Map<string, string>;
}

/** Live tiles and dashboards this plan's dashboard writes remove, with the change that removes them. */
export function tileRemovalsOf(
  dashboards: readonly DashboardOutcome[],
  deletes: readonly Change[],
  live: readonly LiveDashboard[],
): TileRemovals {
  const tilesRemovedBy = new Map<string, string>();
  const dashboardsDeletedBy = new Map<string, string>();
  for (const outcome of dashboards) for (const id of outcome.removedTiles.keys()) tilesRemovedBy.set(id, outcome.key);
  for (const change of deletes) {
    const dashboard = live.find((item) => item.id === change.id);
    dashboardsDeletedBy.set(change.id ?? '', change.name);
    for (const tile of dashboard?.tiles ?? []) tilesRemovedBy.set(tile.id, change.name);
  }
  return { tilesRemovedBy, dashboardsDeletedBy };
}

export interface CascadeInput extends TileRemovals {
  live: readonly LiveAlert[];
  alerts: readonly AlertOutcome[];
  alertDeletes: readonly Change[];
  dashboardDeletes: readonly Change[];
  /** Dashboard changes (including deletes) by manifest / inventory key. */
  dashboardChanges: ReadonlyMap<string, Change>;
}

/**
 * Orders or flags every live alert a dashboard write would take down: alerts moving off first,
 * deleted alerts before the write (so the delete does not 404), and a warning for the rest.
 */
export function orderCascades(input: CascadeInput): void {
  const alertDeleteKeys = input.alertDeletes.map((change) => changeKey(ALERT, change.name));
  for (const change of input.dashboardDeletes) addDependsOn(change, ...alertDeleteKeys);
  for (const outcome of input.alerts) {
    const cascading =
      outcome.movesOffBefore === undefined ? undefined : input.dashboardChanges.get(outcome.movesOffBefore);
    if (cascading) addDependsOn(cascading, changeKey(ALERT, outcome.change.name));
  }
  const rescued = new Set(input.alerts.filter((o) => o.rescued && o.live).map((o) => o.live?.id));
  const deleted = new Map(input.alertDeletes.map((change) => [change.id, change]));
  for (const alert of input.live) {
    const cascading = input.dashboardChanges.get(cascadingChangeOf(input, alert) ?? '');
    if (!cascading || rescued.has(alert.id)) continue;
    const deletion = deleted.get(alert.id);
    if (deletion) addDependsOn(cascading, changeKey(ALERT, deletion.name));
    else cascading.warnings.push(cascadeWarning(cascading, alert));
  }
}

function cascadeWarning(cascading: Change, alert: LiveAlert): string {
  const what = cascading.action === 'delete' ? 'this dashboard' : 'removed tiles';
  return `the server deletes alerts watching ${what}: Alert ${alert.name ?? alert.id}`;
}
