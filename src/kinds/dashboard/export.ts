/**
 * A live dashboard as a manifest. Tiles are keyed by name, so a dashboard whose tile names cannot
 * be keys is not exported (and the alerts on it neither): that is what `names` tells them.
 */
import { SPEC_SCHEMAS } from '../../schema/manifest.js';
import type { KindExport } from '../descriptor.js';
import { pickBySchema } from '../kit/pick.js';
import { DASHBOARD, type LiveDashboard } from './model.js';

/** What alerts need of an exportable dashboard: its key and its tiles' names by id. */
export interface DashboardNames {
  key: string;
  tiles: Map<string, string>;
}

export const dashboardExport: KindExport<LiveDashboard> = {
  keyPrefix: 'dashboard',
  names: dashboardNames,
  write: (dashboard, key) => {
    const names = dashboardNames(dashboard, key);
    if (typeof names === 'string') return { skip: names };
    const candidate = { name: dashboard.name, tags: dashboard.tags, tiles: dashboard.tiles };
    return { spec: pickBySchema(candidate, SPEC_SCHEMAS[DASHBOARD]) as Record<string, unknown> };
  },
};

function dashboardNames(dashboard: LiveDashboard, key: string): DashboardNames | string {
  const seen = new Set<string>();
  for (const tile of dashboard.tiles) {
    if (tile.name === '') return `tile ${tile.id} has no name; tiles are managed by name, so name it in the console first`;
    if (seen.has(tile.name)) return `two tiles are named "${tile.name}"; tiles are managed by name, so rename one in the console first`;
    seen.add(tile.name);
  }
  return { key, tiles: new Map(dashboard.tiles.map((tile) => [tile.id, tile.name])) };
}
