/**
 * Dashboard rules of the current profile (api-notes, "The real services today"), pure over one
 * workspace: `tiles` required, tiles in either format and answered as `config`, every source a
 * tile or filter names must be a source of the team (and a raw SQL tile's connection one of
 * theirs), tile ids kept on PUT only when they are the dashboard's, alerts of tiles that are gone
 * or can no longer be alerted on deleted with them.
 */
import {
  CurrentDashboardWrite,
  type CurrentDashboard,
  type CurrentDashboardFilter,
  type CurrentDashboardWrite as DashboardWrite,
  type CurrentSavedFilterValue,
  type CurrentTile,
  type CurrentTileConfig,
  type CurrentTileWrite,
} from '../../schema/api-current.js';
import type { SchemaIssue } from '../../schema/validate.js';
import { ApiError, notFound } from '../errors.js';
import { newObjectId } from '../ids.js';
import type { CurrentWorkspace } from '../model.js';
import { readTileConfig, supportsAlerts, tileSourceIds } from './tiles.js';
import { cleaned, issueAt, throwIfAny } from './validate.js';

/** A dashboard body, checked: the write and the response form of each of its tiles' configs. */
interface CheckedWrite {
  write: DashboardWrite;
  configs: CurrentTileConfig[];
}

function readWrite(body: unknown): CheckedWrite {
  const write = cleaned<DashboardWrite>(CurrentDashboardWrite, body);
  const issues: SchemaIssue[] = [];
  const configs = write.tiles.map((tile, index) => readTileConfig(tile, ['tiles', index], issues));
  issues.push(...duplicateTileIds(write.tiles));
  if (write.savedQuery != null && write.savedQueryLanguage === null) {
    issues.push(issueAt(['savedQueryLanguage'], 'savedQueryLanguage cannot be null when savedQuery is provided'));
  }
  throwIfAny(issues);
  return { write, configs: configs as CurrentTileConfig[] };
}

function duplicateTileIds(tiles: readonly CurrentTileWrite[]): SchemaIssue[] {
  const seen = new Set<string>();
  return tiles.flatMap((tile, index) => {
    if (!tile.id) return [];
    const repeated = seen.has(tile.id);
    seen.add(tile.id);
    return repeated ? [issueAt(['tiles', index, 'id'], `Duplicate tile ID: ${tile.id}. Omit the ID to generate a unique one.`)] : [];
  });
}

/** What the tiles and filters name must exist in the workspace; the first kind of problem found is the 400. */
function checkReferences(ws: CurrentWorkspace, { write, configs }: CheckedWrite): void {
  const sources = new Map(ws.sources.map((source) => [source.id, source]));
  const connections = new Set(ws.sources.map((source) => source.connection));
  const named = new Set([...write.tiles.flatMap((tile, index) => tileSourceIds(tile, configs[index] as CurrentTileConfig)), ...(write.filters ?? []).map((filter) => filter.sourceId)]);
  const sql = configs.flatMap((config) => ('configType' in config ? [config] : []));
  const problems: [string, string[]][] = [
    ['Could not find the following source IDs', [...named].filter((id) => !sources.has(id))],
    ['Could not find the following connection IDs', [...new Set(sql.map((config) => config.connectionId))].filter((id) => !connections.has(id))],
    ['The following source IDs do not match the specified connections', sql.flatMap((config) => (config.sourceId && sources.get(config.sourceId)?.connection !== config.connectionId && sources.has(config.sourceId) ? [config.sourceId] : []))],
  ];
  for (const [message, ids] of problems) if (ids.length) throw new ApiError('bad_request', `${message}: ${ids.join(', ')}`);
}

function tileOf(tile: CurrentTileWrite, config: CurrentTileConfig, id: string): CurrentTile {
  return {
    id,
    x: tile.x,
    y: tile.y,
    w: tile.w,
    h: tile.h,
    name: tile.name,
    config,
    ...(tile.containerId !== undefined && { containerId: tile.containerId }),
    ...(tile.tabId !== undefined && { tabId: tile.tabId }),
  };
}

/** Filters as stored: an id first (kept when it is one of the dashboard's), `sourceId` last, unused mode members dropped. */
function filtersOf(filters: readonly CurrentDashboardFilter[], existing: ReadonlySet<string>, nowMs: number): CurrentDashboardFilter[] {
  return filters.map((filter) => {
    const { id, sourceId, variableName, appliesToSourceIds, ...rest } = filter;
    return {
      id: id !== undefined && existing.has(id) ? id : newObjectId(nowMs),
      ...rest,
      ...(appliesToSourceIds !== undefined && filter.isBroadcastEnabled !== false && { appliesToSourceIds }),
      ...(variableName !== undefined && filter.isVariableEnabled === true && { variableName }),
      sourceId,
    };
  });
}

function savedFilterValuesOf(values: readonly CurrentSavedFilterValue[]): CurrentSavedFilterValue[] {
  return values.map((value) => ({ type: 'sql', condition: value.condition }));
}

/** The saved query's language: as given, else `lucene` for a query, null when the query is cleared. */
function savedQueryLanguageOf(write: DashboardWrite): string | null | undefined {
  if (write.savedQueryLanguage !== undefined) return write.savedQueryLanguage;
  if (write.savedQuery === null) return null;
  return write.savedQuery ? 'lucene' : undefined;
}

const unique = (tags: readonly string[]): string[] => [...new Set(tags)];

// ---------------------------------------------------------------- operations

/** Sorted by name descending, as the list answers (stable for equal names). */
export function listDashboards(ws: CurrentWorkspace): CurrentDashboard[] {
  return [...ws.dashboards.values()].sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

export function getDashboard(ws: CurrentWorkspace, id: string): CurrentDashboard {
  const dashboard = ws.dashboards.get(id);
  if (!dashboard) throw notFound(`dashboard ${id} not found`);
  return dashboard;
}

/** Ids sent by the client are ignored: the dashboard and every tile get new ones (a seed keeps the ones it gives). */
export function createDashboard(ws: CurrentWorkspace, body: unknown, nowMs: number, seededId?: string): CurrentDashboard {
  const checked = readWrite(body);
  checkReferences(ws, checked);
  const { write, configs } = checked;
  const tileId = (tile: CurrentTileWrite): string => (seededId !== undefined && tile.id ? tile.id : newObjectId(nowMs));
  const dashboard: CurrentDashboard = {
    id: seededId ?? newObjectId(nowMs),
    name: write.name,
    tiles: write.tiles.map((tile, index) => tileOf(tile, configs[index] as CurrentTileConfig, tileId(tile))),
    tags: unique(write.tags ?? []),
    filters: filtersOf(write.filters ?? [], new Set(), nowMs),
    savedQuery: write.savedQuery ?? null,
    savedQueryLanguage: savedQueryLanguageOf(write) ?? null,
    savedFilterValues: savedFilterValuesOf(write.savedFilterValues ?? []),
    ...(write.containers?.length && { containers: write.containers }),
  };
  ws.dashboards.set(dashboard.id, dashboard);
  return dashboard;
}

/**
 * Replaces name and tiles; tags, filters, the saved query and containers only when sent. A tile
 * keeps its id only when the request carries an id already on this dashboard; alerts watching
 * tiles that are gone, or whose chart can no longer be alerted on, are deleted.
 */
export function updateDashboard(ws: CurrentWorkspace, id: string, body: unknown, nowMs: number): CurrentDashboard {
  const checked = readWrite(body);
  const current = getDashboard(ws, id);
  checkReferences(ws, checked);
  const { write, configs } = checked;
  const existing = new Set(current.tiles.map((tile) => tile.id));
  const tiles = write.tiles.map((tile, index) => tileOf(tile, configs[index] as CurrentTileConfig, tile.id !== undefined && existing.has(tile.id) ? tile.id : newObjectId(nowMs)));
  const language = savedQueryLanguageOf(write);
  const next: CurrentDashboard = {
    ...current,
    name: write.name,
    tiles,
    tags: write.tags === undefined ? current.tags : unique(write.tags),
    ...(write.filters !== undefined && { filters: filtersOf(write.filters, new Set(current.filters.flatMap((filter) => (filter.id ? [filter.id] : []))), nowMs) }),
    ...(write.savedQuery !== undefined && { savedQuery: write.savedQuery }),
    ...(language !== undefined && { savedQueryLanguage: language }),
    ...(write.savedFilterValues !== undefined && { savedFilterValues: savedFilterValuesOf(write.savedFilterValues) }),
  };
  if (write.containers !== undefined) {
    delete next.containers;
    if (write.containers.length) next.containers = write.containers;
  }
  ws.dashboards.set(id, next);
  const alertable = new Set(tiles.filter((tile) => supportsAlerts(tile.config)).map((tile) => tile.id));
  deleteAlertsWhere(ws, (alert) => alert.source === 'tile' && alert.dashboardId === id && !alertable.has(alert.tileId ?? ''));
  return next;
}

/** Deletes the dashboard and every tile alert watching it; unknown ids are not an error. */
export function deleteDashboard(ws: CurrentWorkspace, id: string): void {
  if (!ws.dashboards.delete(id)) return;
  deleteAlertsWhere(ws, (alert) => alert.source === 'tile' && alert.dashboardId === id);
}

function deleteAlertsWhere(ws: CurrentWorkspace, doomed: (alert: { source?: string | undefined; dashboardId?: string | undefined; tileId?: string | undefined }) => boolean): void {
  for (const [alertId, alert] of ws.alerts) if (doomed(alert)) ws.alerts.delete(alertId);
}
