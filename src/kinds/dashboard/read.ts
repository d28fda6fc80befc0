/**
 * Reads a live dashboard: tiles in either format (the seed's `series`, a current server's
 * `config`), members the model does not name kept in `extra` so an update sends them back.
 */
import {
  asString,
  createdAtOf,
  extraOf,
  idOf,
  join,
  listOf,
  object,
  optionalBoolean,
  optionalList,
  optionalString,
  requiredNumber,
  requiredString,
  withoutNulls,
} from '../shared/read.js';
import type { LiveDashboard, LiveSeries, LiveTile } from './model.js';

/** Dashboard members the service sets itself: never sent back. */
const DASHBOARD_SERVER_MEMBERS = ['id', '_id', '__v', 'team', 'teamId', 'createdAt', 'updatedAt'];
const DASHBOARD_MODELLED = ['name', 'tags', 'tiles'];
const TILE_MODELLED = ['id', '_id', 'name', 'x', 'y', 'w', 'h', 'asRatio', 'series', 'config'];

export function toLiveDashboard(value: unknown, path: string): LiveDashboard {
  const raw = object(value, path);
  return {
    id: idOf(raw, path),
    name: requiredString(raw, 'name', path),
    tags: optionalList(raw, 'tags', path, (tag, at) => asString(tag, at)) ?? [],
    tiles: optionalList(raw, 'tiles', path, toLiveTile) ?? [],
    ...createdAtOf(raw),
    ...extraOf(raw, [...DASHBOARD_SERVER_MEMBERS, ...DASHBOARD_MODELLED]),
  };
}

/**
 * A tile in either format: the seed's `series` (each kept whole) or a current server's `config`
 * (kept whole and opaque). Geometry must be numbers: a plan that moves tiles needs them.
 */
function toLiveTile(value: unknown, path: string): LiveTile {
  const raw = object(value, path);
  const tile: LiveTile = {
    id: idOf(raw, path),
    name: optionalString(raw, 'name', path) ?? '',
    x: requiredNumber(raw, 'x', path),
    y: requiredNumber(raw, 'y', path),
    w: requiredNumber(raw, 'w', path),
    h: requiredNumber(raw, 'h', path),
    ...extraOf(raw, TILE_MODELLED),
  };
  const asRatio = optionalBoolean(raw, 'asRatio', path);
  if (asRatio !== undefined) tile.asRatio = asRatio;
  const series = optionalList(raw, 'series', path, toSeries);
  if (series !== undefined) tile.series = series;
  const config = raw['config'];
  if (config !== undefined && config !== null) tile.config = object(config, join(path, 'config'));
  return tile;
}

function toSeries(value: unknown, path: string): LiveSeries {
  const raw = object(value, path);
  const series: LiveSeries = { ...withoutNulls(raw), type: requiredString(raw, 'type', path) };
  const groupBy = raw['groupBy'];
  // Some service versions send a single group-by expression as a string.
  if (typeof groupBy === 'string') series['groupBy'] = [groupBy];
  else if (groupBy !== undefined && groupBy !== null)
    series['groupBy'] = listOf(groupBy, join(path, 'groupBy'), asString);
  return series;
}
