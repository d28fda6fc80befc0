/**
 * A live dashboard as a manifest. Tiles are keyed by name, so a dashboard whose tile names cannot
 * be keys is not exported (and the alerts on it neither): that is what `names` tells them. Sources
 * are written by name where export names them (by id otherwise); the members of current servers
 * (filters, containers, the saved query) are written as they are, filters without their ids.
 */
import type { ExportContext, KindExport } from '../descriptor.js';
import { pickBySchema } from '../shared/pick.js';
import { namedReference } from '../shared/flat-export.js';
import { isRecord, recordOr } from '../../support/json.js';
import { SOURCE } from '../source/model.js';
import { DASHBOARD_CURRENT_MEMBERS, type LiveDashboard, type LiveTile } from './model.js';
import { dashboardSpecSchema } from './schema.js';

/** What alerts need of an exportable dashboard: its key and its tiles' names by id. */
export interface DashboardNames {
  key: string;
  tiles: Map<string, string>;
}

/** Whether what export made of a live object is a dashboard's names. */
export function isDashboardNames(value: unknown): value is DashboardNames {
  return isRecord(value) && typeof value['key'] === 'string' && value['tiles'] instanceof Map;
}

export const dashboardExport: KindExport<LiveDashboard> = {
  keyPrefix: 'dashboard',
  namedIds: sourceIdsOf,
  names: dashboardNames,
  write: (dashboard, key, ctx) => {
    const names = dashboardNames(dashboard, key);
    if (typeof names === 'string') return { skip: names };
    const current = Object.fromEntries(DASHBOARD_CURRENT_MEMBERS.map((member) => [member, dashboard.extra?.[member]]));
    const filters = Array.isArray(current['filters'])
      ? current['filters'].filter(isRecord).map(({ id: _id, ...filter }) => sourceByName(ctx, filter, 'sourceId'))
      : undefined;
    const candidate = {
      name: dashboard.name,
      tags: dashboard.tags,
      tiles: dashboard.tiles.map((tile) => exportedTile(tile, ctx)),
      ...current,
      filters,
    };
    return { spec: recordOr(pickBySchema(candidate, dashboardSpecSchema)) ?? {} };
  },
};

/** A tile with every member it was read with; its chart's source by name. */
function exportedTile(tile: LiveTile, ctx: ExportContext): Record<string, unknown> {
  const { extra, config, ...modelled } = tile;
  return { ...extra, ...modelled, ...(config ? { config: sourceByName(ctx, config, 'sourceId') } : {}) };
}

function sourceByName(ctx: ExportContext, holder: Record<string, unknown>, member: string): Record<string, unknown> {
  return namedReference(ctx, holder, SOURCE, member, { name: 'source', id: member });
}

/** A live dashboard's filters (of newer servers), none where it has none. */
function filtersOf(dashboard: LiveDashboard): unknown[] {
  const filters = dashboard.extra?.['filters'];
  return Array.isArray(filters) ? filters : [];
}

/** The ids of the sources a live dashboard reads: its tiles' and its filters'. */
export function sourceIdsOf(dashboard: LiveDashboard): string[] {
  const holders: unknown[] = [
    ...dashboard.tiles.flatMap((tile) => [tile.config, ...(tile.series ?? [])]),
    ...filtersOf(dashboard),
  ];
  return [
    ...new Set(
      holders.flatMap((holder) =>
        isRecord(holder) && typeof holder['sourceId'] === 'string' ? [holder['sourceId']] : [],
      ),
    ),
  ];
}

function dashboardNames(dashboard: LiveDashboard, key: string): DashboardNames | string {
  const seen = new Set<string>();
  for (const tile of dashboard.tiles) {
    if (tile.name === '')
      return `tile ${tile.id} has no name; tiles are managed by name, so name it in the console first`;
    if (seen.has(tile.name))
      return `two tiles are named "${tile.name}"; tiles are managed by name, so rename one in the console first`;
    seen.add(tile.name);
  }
  return { key, tiles: new Map(dashboard.tiles.map((tile) => [tile.id, tile.name])) };
}
