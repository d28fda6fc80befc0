/**
 * Dashboard and alert rules, the same on both variants (docs/reference/api-behaviour.md, "Dashboards" and "Alerts"):
 * server-assigned ids, tile-id preservation on PUT, alert cascade, alert target checks.
 * Pure over one workspace (a managed service's stack or a self-hosted team); no HTTP.
 */
import { type ApiOf, validateApi } from '../kinds/wire.js';
import { ApiError, notFound } from './errors.js';
import { isoTimestamp, newId, type IdFormat } from './ids.js';
import type { AlertResource, DashboardResource, SeedWorkspace as Workspace, TileResource } from './model.js';
import { defaultSources, type SeedStack } from './seed.js';

interface TileWrite {
  id?: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  asRatio?: boolean;
  series: Record<string, unknown>[];
}
interface DashboardWrite {
  name: string;
  tiles?: TileWrite[];
  tags?: string[];
}
interface AlertWrite {
  name?: string;
  message?: string;
  threshold: number;
  interval: string;
  thresholdType: string;
  source: string;
  channel: { type: string; webhookId?: string };
  groupBy?: string;
  dashboardId?: string;
  tileId?: string;
  savedSearchId?: string;
}

function validated<N extends 'dashboardCreateBody' | 'dashboardUpdateBody' | 'alertWriteBody'>(
  schema: N,
  body: unknown,
): ApiOf<N> {
  const checked = validateApi(schema, body);
  if (!checked.ok) throw new ApiError('bad_request', `invalid ${schema}`, { issues: checked.issues });
  return checked.value;
}

function tileResource(tile: TileWrite, id: string): TileResource {
  return {
    id,
    name: tile.name,
    x: tile.x,
    y: tile.y,
    w: tile.w,
    h: tile.h,
    ...(tile.asRatio !== undefined && { asRatio: tile.asRatio }),
    series: tile.series,
  };
}

// ---------------------------------------------------------------- dashboards

/** Sorted by name descending, as the self-hosted list answers (stable for equal names). */
export function listDashboards(ws: Workspace): DashboardResource[] {
  return [...ws.dashboards.values()].sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

export function getDashboard(ws: Workspace, id: string): DashboardResource {
  const dashboard = ws.dashboards.get(id);
  if (!dashboard) throw notFound(`dashboard ${id} not found`);
  return dashboard;
}

/** Ids sent by the client are ignored: the dashboard and every tile get new ones (a seed keeps the ones it gives). */
export function createDashboard(ws: Workspace, body: unknown, nowMs: number, seededId?: string): DashboardResource {
  const write: DashboardWrite = validated('dashboardCreateBody', body);
  const now = isoTimestamp(nowMs);
  const tileId = (tile: TileWrite): string => (seededId !== undefined && tile.id ? tile.id : newId(ws.idFormat, nowMs));
  const dashboard: DashboardResource = {
    id: seededId ?? newId(ws.idFormat, nowMs),
    name: write.name,
    tiles: (write.tiles ?? []).map((tile) => tileResource(tile, tileId(tile))),
    tags: write.tags ?? [],
    team: ws.owner,
    createdAt: now,
    updatedAt: now,
  };
  ws.dashboards.set(dashboard.id, dashboard);
  return dashboard;
}

/**
 * Replaces name and tiles (tags only when given). A tile keeps its id only when the request
 * carries an id already on this dashboard; alerts watching tiles that are gone are deleted.
 */
export function updateDashboard(ws: Workspace, id: string, body: unknown, nowMs: number): DashboardResource {
  const current = getDashboard(ws, id);
  const write: DashboardWrite & { tiles: TileWrite[] } = validated('dashboardUpdateBody', body);
  const existing = new Set(current.tiles.map((tile) => tile.id));
  const kept = new Set<string>();
  const tiles = write.tiles.map((tile) => {
    const keep = tile.id !== undefined && existing.has(tile.id) && !kept.has(tile.id);
    const tileId = keep && tile.id !== undefined ? tile.id : newId(ws.idFormat, nowMs);
    kept.add(tileId);
    return tileResource(tile, tileId);
  });
  const next: DashboardResource = {
    ...current,
    name: write.name,
    tiles,
    tags: write.tags ?? current.tags,
    updatedAt: isoTimestamp(nowMs),
  };
  ws.dashboards.set(id, next);
  deleteAlertsWhere(ws, (alert) => alert.dashboard === id && alert.tileId !== undefined && !kept.has(alert.tileId));
  return next;
}

/** Deletes the dashboard and every alert watching it; unknown ids are not an error. */
export function deleteDashboard(ws: Workspace, id: string): void {
  ws.dashboards.delete(id);
  deleteAlertsWhere(ws, (alert) => alert.dashboard === id);
}

function deleteAlertsWhere(ws: Workspace, doomed: (alert: AlertResource) => boolean): void {
  for (const [alertId, alert] of ws.alerts) if (doomed(alert)) ws.alerts.delete(alertId);
}

// ---------------------------------------------------------------- alerts

/** In creation order. */
export function listAlerts(ws: Workspace): AlertResource[] {
  return [...ws.alerts.values()];
}

export function getAlert(ws: Workspace, id: string): AlertResource {
  const alert = ws.alerts.get(id);
  if (!alert) throw notFound(`alert ${id} not found`);
  return alert;
}

export function createAlert(ws: Workspace, body: unknown, nowMs: number, seededId?: string): AlertResource {
  const write: AlertWrite = validated('alertWriteBody', body);
  checkTarget(ws, write);
  const now = isoTimestamp(nowMs);
  const alert = alertResource(seededId ?? newId(ws.idFormat, nowMs), write, {
    state: 'inactive',
    silenced: false,
    team: ws.owner,
    createdAt: now,
    updatedAt: now,
  });
  ws.alerts.set(alert.id, alert);
  return alert;
}

/** PUT replaces the configuration: members left out (name, message, groupBy) are cleared. */
export function updateAlert(ws: Workspace, id: string, body: unknown, nowMs: number): AlertResource {
  const current = getAlert(ws, id);
  const write: AlertWrite = validated('alertWriteBody', body);
  checkTarget(ws, write);
  const alert = alertResource(id, write, { ...current, updatedAt: isoTimestamp(nowMs) });
  ws.alerts.set(id, alert);
  return alert;
}

export function deleteAlert(ws: Workspace, id: string): void {
  getAlert(ws, id);
  ws.alerts.delete(id);
}

/** A tile alert must watch a tile that exists on a dashboard of the same workspace. */
function checkTarget(ws: Workspace, write: AlertWrite): void {
  if (write.source !== 'tile') return;
  const dashboard = write.dashboardId === undefined ? undefined : ws.dashboards.get(write.dashboardId);
  if (!dashboard) throw new ApiError('bad_request', 'Dashboard not found');
  if (!dashboard.tiles.some((tile) => tile.id === write.tileId)) throw new ApiError('bad_request', 'Tile not found');
}

type ServerSet = Pick<AlertResource, 'state' | 'silenced' | 'team' | 'createdAt' | 'updatedAt'>;

/** The response shape: `dashboard` (not `dashboardId`) and `savedSearch`, members in a stable order. */
function alertResource(id: string, write: AlertWrite, server: ServerSet): AlertResource {
  const byTile = write.source === 'tile';
  return {
    id,
    ...(write.name !== undefined && { name: write.name }),
    ...(write.message !== undefined && { message: write.message }),
    threshold: write.threshold,
    interval: write.interval,
    thresholdType: write.thresholdType,
    source: write.source,
    channel: write.channel,
    ...(write.groupBy !== undefined && { groupBy: write.groupBy }),
    state: server.state,
    team: server.team,
    ...(byTile && write.tileId !== undefined && { tileId: write.tileId }),
    ...(byTile && write.dashboardId !== undefined && { dashboard: write.dashboardId }),
    ...(!byTile && write.savedSearchId !== undefined && { savedSearch: write.savedSearchId }),
    silenced: server.silenced,
    createdAt: server.createdAt,
    updatedAt: server.updatedAt,
  };
}

// ---------------------------------------------------------------- seeding

/**
 * A workspace as seeded: sources (a service without them gets one of each kind), then dashboards
 * and alerts in the request format plus an optional `id` (tile ids are kept too), created in
 * order under the same rules as a POST.
 */
export function seedWorkspace(owner: string, idFormat: IdFormat, seeded: SeedStack, nowMs: number): Workspace {
  const sources = idFormat === 'uuid' ? (seeded.sources ?? defaultSources()) : [];
  const ws: Workspace = {
    profile: 'seed',
    owner,
    idFormat,
    sources: sources.map((source) => ({ id: source.id ?? newId('uuid', nowMs), name: source.name, kind: source.kind })),
    dashboards: new Map(),
    alerts: new Map(),
  };
  (seeded.dashboards ?? []).forEach((entry, index) => {
    atIndex('dashboards', index, () =>
      createDashboard(ws, withoutId(entry), nowMs, seededIdOf(entry, idFormat, nowMs)),
    );
  });
  (seeded.alerts ?? []).forEach((entry, index) => {
    atIndex('alerts', index, () => createAlert(ws, withoutId(entry), nowMs, seededIdOf(entry, idFormat, nowMs)));
  });
  return ws;
}

function withoutId(entry: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = entry;
  return rest;
}

function seededIdOf(entry: Record<string, unknown>, idFormat: IdFormat, nowMs: number): string {
  const id = entry['id'];
  if (id === undefined) return newId(idFormat, nowMs);
  if (typeof id === 'string' && id.length > 0) return id;
  throw new ApiError('bad_request', 'id must be a non-empty string', {
    issues: [{ path: 'id', pointer: ['id'], message: 'must be a non-empty string' }],
  });
}

/** Runs a seeding step; its failure names the entry (`dashboards[2].tiles[0].x: …`). */
export function atIndex<T>(member: string, index: number, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const issues = error.issues?.length ? error.issues : [{ path: '', pointer: [], message: error.message }];
    throw new ApiError('bad_request', error.message, {
      issues: issues.map((issue) => ({
        ...issue,
        path: issue.path ? `${member}[${index}].${issue.path}` : `${member}[${index}]`,
        pointer: [member, index, ...issue.pointer],
      })),
    });
  }
}
