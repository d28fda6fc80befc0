/**
 * Dashboard and alert rules, the same on both variants (api-notes, "Dashboards" and "Alerts"):
 * server-assigned ids, tile-id preservation on PUT, alert cascade, alert target checks.
 * Pure over one workspace (a managed service's stack or a self-hosted team); no HTTP.
 */
import { validateApi } from '../schema/validate.js';
import { ApiError, notFound } from './errors.js';
import { isoTimestamp, newId } from './ids.js';
import type { AlertResource, DashboardResource, TileResource, Workspace } from './model.js';

interface TileWrite { id?: string; name: string; x: number; y: number; w: number; h: number; asRatio?: boolean; series: Record<string, unknown>[] }
interface DashboardWrite { name: string; tiles?: TileWrite[]; tags?: string[] }
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

function validated<T>(schema: 'dashboardCreateBody' | 'dashboardUpdateBody' | 'alertWriteBody', body: unknown): T {
  const checked = validateApi<T>(schema, body);
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

/** Ids sent by the client are ignored: the dashboard and every tile get new ones. */
export function createDashboard(ws: Workspace, body: unknown, nowMs: number): DashboardResource {
  const write = validated<DashboardWrite>('dashboardCreateBody', body);
  const now = isoTimestamp(nowMs);
  const dashboard: DashboardResource = {
    id: newId(ws.idFormat, nowMs),
    name: write.name,
    tiles: (write.tiles ?? []).map((tile) => tileResource(tile, newId(ws.idFormat, nowMs))),
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
  const write = validated<DashboardWrite & { tiles: TileWrite[] }>('dashboardUpdateBody', body);
  const existing = new Set(current.tiles.map((tile) => tile.id));
  const kept = new Set<string>();
  const tiles = write.tiles.map((tile) => {
    const keep = tile.id !== undefined && existing.has(tile.id) && !kept.has(tile.id);
    const tileId = keep && tile.id !== undefined ? tile.id : newId(ws.idFormat, nowMs);
    kept.add(tileId);
    return tileResource(tile, tileId);
  });
  const next: DashboardResource = { ...current, name: write.name, tiles, tags: write.tags ?? current.tags, updatedAt: isoTimestamp(nowMs) };
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

export function createAlert(ws: Workspace, body: unknown, nowMs: number): AlertResource {
  const write = validated<AlertWrite>('alertWriteBody', body);
  checkTarget(ws, write);
  const now = isoTimestamp(nowMs);
  const alert = alertResource(newId(ws.idFormat, nowMs), write, { state: 'inactive', silenced: false, team: ws.owner, createdAt: now, updatedAt: now });
  ws.alerts.set(alert.id, alert);
  return alert;
}

/** PUT replaces the configuration: members left out (name, message, groupBy) are cleared. */
export function updateAlert(ws: Workspace, id: string, body: unknown, nowMs: number): AlertResource {
  const current = getAlert(ws, id);
  const write = validated<AlertWrite>('alertWriteBody', body);
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
