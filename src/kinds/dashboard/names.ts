/**
 * A tile may name its data source by `source: <name>` (in its `config` or in each series) instead
 * of by id; the name resolves against the target's sources list.
 */
import type { DataSource } from '../../model/resources.js';
import { unknownNames } from '../kit/names.js';
import { isPlainObject } from '../kit/values.js';
import type { DesiredDashboard, DesiredTile } from './model.js';

/** Whether any tile names a source. */
export function namesSources(dashboard: DesiredDashboard): boolean {
  return dashboard.tiles.some((tile) => sourceNamesOf(tile).length > 0);
}

export function resolveSourceNames(dashboard: DesiredDashboard, sources: readonly DataSource[], target: string): DesiredDashboard | string {
  if (!namesSources(dashboard)) return dashboard;
  const ids = new Map(sources.map((source) => [source.name, source.id]));
  const unknown = [...new Set(dashboard.tiles.flatMap(sourceNamesOf))].filter((name) => !ids.has(name));
  if (unknown.length > 0) return unknownNames('data source', unknown, target, sources);
  const withId = (holder: Record<string, unknown>): Record<string, unknown> => {
    const { source, ...rest } = holder;
    return typeof source === 'string' ? { ...rest, sourceId: ids.get(source) } : holder;
  };
  const tiles = dashboard.tiles.map((tile): DesiredTile => {
    const copy = { ...tile } as DesiredTile;
    if (tile.config !== undefined) copy.config = withId(tile.config);
    if (tile.series !== undefined) copy.series = tile.series.map((series) => withId(series) as typeof series);
    return copy;
  });
  return { ...dashboard, tiles };
}

/** The `source` names a tile uses: its config's, and each series'. */
function sourceNamesOf(tile: DesiredTile): string[] {
  const holders: unknown[] = [tile.config, ...(tile.series ?? [])];
  return holders.flatMap((holder) => (isPlainObject(holder) && typeof holder['source'] === 'string' ? [holder['source']] : []));
}
