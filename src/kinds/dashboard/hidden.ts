/**
 * Tiles a GET does not return. A current server leaves PromQL tiles out of every answer (hyperdx
 * `v2/utils/dashboards.ts`: "PromQL tiles have no external schema representation yet"), and says
 * nothing of them: no member, no count. A PUT replaces the whole tile list, so a PUT built from
 * that GET deletes them. What can tell: an alert that watches a tile of the dashboard the GET did
 * not return (certain), or a source or connection that serves PromQL in the target (a PromQL tile
 * needs one; then any dashboard may hold such tiles, and nothing can prove one does not).
 */
import type { LiveBase } from '../../model/resources.js';
import type { LiveDashboard } from './model.js';

/** What the live state holds that tells of hidden tiles. */
export interface HiddenTileEvidence {
  /** Live alerts of the target (their dashboard and tile). */
  alerts: readonly (LiveBase & { dashboardId?: string; tileId?: string })[];
  /** Names of the sources and connections that serve PromQL. */
  promql: readonly string[];
}

/** Why `live` may hold tiles its GET did not return; undefined when nothing tells so. */
export function hiddenTilesOf(live: LiveDashboard, evidence: HiddenTileEvidence): string | undefined {
  const shown = new Set(live.tiles.map((tile) => tile.id));
  const watching = evidence.alerts.find(
    (alert) => alert.dashboardId === live.id && alert.tileId !== undefined && !shown.has(alert.tileId),
  );
  if (watching)
    return `alert "${watching.name ?? watching.id}" watches tile ${watching.tileId ?? ''} of it, which the server's answer leaves out (a PromQL tile)`;
  if (evidence.promql.length > 0)
    return (
      `the target serves PromQL (${evidence.promql.join(', ')}), and the server's answers leave PromQL ` +
      `tiles out, so this dashboard may hold tiles stacksync cannot see`
    );
  return undefined;
}

/** The message of a dashboard that is not updated because of them. */
export function hiddenTilesError(why: string): string {
  return (
    `not updated: ${why}; an update replaces the whole tile list and would delete them. If this ` +
    `manifest's tiles are the whole dashboard, say so with \`ownsAllTiles: true\`; otherwise change ` +
    `the dashboard in the console`
  );
}
