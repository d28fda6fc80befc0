/**
 * Alert rules of the current profile (api-notes, "The real services today"), pure over one
 * workspace: `source` is `saved_search` (the default) or `tile`; eight threshold types, the range
 * ones with `thresholdMax`; `channel` or `channels` naming webhooks of the team; responses with
 * `dashboardId`, `teamId`, `state` (new alerts `OK`) and the nullable members as null. The order
 * of the checks is the real one: the body (400), then what it names (400), then the alert (404).
 */
import {
  CURRENT_ALERT_INITIAL_STATE,
  CURRENT_ALERT_INTERVAL_MINUTES,
  CURRENT_RANGE_THRESHOLD_TYPES,
  CurrentAlertWrite,
  OBJECT_ID_PATTERN,
  type CurrentAlert,
  type CurrentAlertChannel,
  type CurrentAlertWrite as AlertWrite,
  type CurrentWebhookChannel,
} from '../../schema/api-current.js';
import type { SchemaIssue } from '../../schema/validate.js';
import { ApiError } from '../errors.js';
import { isoTimestamp, newObjectId } from '../ids.js';
import type { CurrentAlertRecord, CurrentWorkspace } from '../model.js';
import { supportsAlerts } from './tiles.js';
import { cleaned, issueAt, throwIfAny } from './validate.js';

const OBJECT_ID = new RegExp(OBJECT_ID_PATTERN);

function alertNotFound(): ApiError {
  return new ApiError('not_found', 'Alert not found', { json: true });
}

// ---------------------------------------------------------------- reading a request

function readWrite(body: unknown): AlertWrite {
  const write = cleaned<AlertWrite>(CurrentAlertWrite, body);
  throwIfAny(crossMemberIssues(write));
  return write;
}

/** The rules the real schema adds with refinements: what each source needs, the channel choice, the schedule, the range. */
function crossMemberIssues(write: AlertWrite): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const source = write.source ?? 'saved_search';
  const needed = source === 'tile' ? (['tileId', 'dashboardId'] as const) : (['savedSearchId'] as const);
  for (const member of needed) if (write[member] === undefined) issues.push(issueAt([member], 'is required'));
  const channelProblem = channelSelectionProblem(write);
  if (channelProblem) issues.push(issueAt(['channels'], channelProblem));
  const offset = write.scheduleOffsetMinutes ?? 0;
  if (write.scheduleStartAt != null && offset > 0) issues.push(issueAt(['scheduleOffsetMinutes'], 'scheduleOffsetMinutes must be 0 when scheduleStartAt is provided'));
  const minutes = CURRENT_ALERT_INTERVAL_MINUTES[write.interval];
  if (offset >= minutes) issues.push(issueAt(['scheduleOffsetMinutes'], `scheduleOffsetMinutes must be less than ${minutes} minute${minutes === 1 ? '' : 's'}`));
  if ((CURRENT_RANGE_THRESHOLD_TYPES as readonly string[]).includes(write.thresholdType)) {
    if (write.thresholdMax === undefined) issues.push(issueAt(['thresholdMax'], 'thresholdMax is required for between/not_between threshold types'));
    else if (write.thresholdMax < write.threshold) issues.push(issueAt(['thresholdMax'], 'thresholdMax must be greater than or equal to threshold'));
  }
  return issues;
}

const channelKey = (channel: CurrentWebhookChannel): string => `${channel.type}:${channel.webhookId}`;

/** One of `channel` and `channels`, or both when `channel` is the first of `channels`; no channel twice. */
function channelSelectionProblem(write: AlertWrite): string | undefined {
  if (!write.channel && !write.channels) return 'Provide either "channel" or "channels"';
  if (write.channel && write.channels && channelKey(write.channel) !== (write.channels[0] && channelKey(write.channels[0]))) {
    return 'When both "channel" and "channels" are provided, "channel" must match the first entry of "channels"';
  }
  const keys = (write.channels ?? []).map(channelKey);
  return new Set(keys).size === keys.length ? undefined : 'Duplicate notification channels are not allowed';
}

function channelsOf(write: AlertWrite): CurrentWebhookChannel[] {
  return write.channels ?? (write.channel ? [write.channel] : []);
}

/** What the alert names must be the team's: its dashboard and tile, or its saved search; its webhooks. */
function checkReferences(ws: CurrentWorkspace, write: AlertWrite): void {
  if (write.source === 'tile') checkTile(ws, write.dashboardId ?? '', write.tileId ?? '');
  else {
    if (!OBJECT_ID.test(write.savedSearchId ?? '')) throw new ApiError('bad_request', 'Invalid saved search ID');
    if (!ws.savedSearches.some((search) => search.id === write.savedSearchId)) throw new ApiError('bad_request', 'Saved search not found');
  }
  const webhookIds = channelsOf(write).map((channel) => channel.webhookId);
  if (webhookIds.some((id) => !OBJECT_ID.test(id))) throw new ApiError('bad_request', 'Invalid webhook ID');
  const known = new Set(ws.webhooks.map((webhook) => webhook.id));
  if (!webhookIds.every((id) => known.has(id))) throw new ApiError('bad_request', 'Webhook not found');
}

function checkTile(ws: CurrentWorkspace, dashboardId: string, tileId: string): void {
  if (!OBJECT_ID.test(dashboardId)) throw new ApiError('bad_request', 'Invalid dashboard ID');
  const dashboard = ws.dashboards.get(dashboardId);
  if (!dashboard) throw new ApiError('bad_request', 'Dashboard not found');
  const tile = dashboard.tiles.find((candidate) => candidate.id === tileId);
  if (!tile) throw new ApiError('bad_request', 'Tile not found');
  if ('configType' in tile.config && !supportsAlerts(tile.config)) {
    throw new ApiError('bad_request', 'Alerts on Raw SQL tiles are only supported for Line, Stacked Bar, or Number display types');
  }
}

// ---------------------------------------------------------------- the stored alert

type ServerSet = Pick<CurrentAlertRecord, 'state' | 'teamId' | 'createdAt' | 'updatedAt'>;

/**
 * The alert as stored from a write, in the response's member order. Members the write leaves out
 * are null (name, message, note, numConsecutiveWindows) or absent; on PUT the caller keeps the
 * previous schedule and range when they are not sent, as the real update does.
 */
function recordOf(id: string, write: AlertWrite, server: ServerSet, previous?: CurrentAlertRecord): CurrentAlertRecord {
  const source = write.source ?? 'saved_search';
  const channels = channelsOf(write);
  const startSent = write.scheduleStartAt !== undefined;
  // A start time replaces the offset; clearing the start time without an offset resets it too.
  const offset = startSent && (write.scheduleStartAt !== null || write.scheduleOffsetMinutes === undefined) ? 0 : (write.scheduleOffsetMinutes ?? previous?.scheduleOffsetMinutes);
  const thresholdMax = write.thresholdMax ?? previous?.thresholdMax;
  const scheduleStartAt = startSent ? write.scheduleStartAt : previous?.scheduleStartAt;
  return {
    id,
    name: write.name ?? null,
    message: write.message ?? null,
    note: write.note ?? null,
    threshold: write.threshold,
    ...(thresholdMax !== undefined && { thresholdMax }),
    interval: write.interval,
    ...(offset !== undefined && { scheduleOffsetMinutes: offset }),
    ...(scheduleStartAt !== undefined && { scheduleStartAt: scheduleStartAt === null ? null : new Date(scheduleStartAt).toISOString() }),
    numConsecutiveWindows: write.numConsecutiveWindows ?? null,
    thresholdType: write.thresholdType,
    source,
    state: server.state,
    channel: channels[0] ?? { type: null },
    channels,
    teamId: server.teamId,
    ...(source === 'tile' && { tileId: write.tileId, dashboardId: write.dashboardId }),
    ...(source === 'saved_search' && { savedSearchId: write.savedSearchId }),
    ...(source === 'saved_search' && write.groupBy != null && { groupBy: write.groupBy }),
    ...(previous?.silenced && { silenced: previous.silenced }),
    ...(previous?.executionErrors && { executionErrors: previous.executionErrors }),
    createdAt: server.createdAt,
    updatedAt: server.updatedAt,
  };
}

/** The channels an alert resolves to: its list, else its single channel when it has a type. */
function resolvedChannels(alert: CurrentAlertRecord): Record<string, unknown>[] {
  if (alert.channels?.length) return alert.channels;
  if (alert.channel && alert.channel['type'] != null) return [alert.channel];
  return [];
}

/** The response: `channel` (the first) and `channels` only when a channel resolves, in place. */
export function externalAlert(alert: CurrentAlertRecord): CurrentAlert {
  const channels = resolvedChannels(alert) as CurrentAlertChannel[];
  const response: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(alert)) {
    if (key === 'channels') continue;
    if (key !== 'channel') response[key] = value;
    else if (channels.length) Object.assign(response, { channel: channels[0], channels });
  }
  if (!('channel' in alert) && channels.length) Object.assign(response, { channel: channels[0], channels });
  return response as CurrentAlert;
}

// ---------------------------------------------------------------- operations

/** In creation order. */
export function listAlerts(ws: CurrentWorkspace): CurrentAlert[] {
  return [...ws.alerts.values()].map(externalAlert);
}

function requireAlert(ws: CurrentWorkspace, id: string): CurrentAlertRecord {
  const alert = ws.alerts.get(id);
  if (!alert) throw alertNotFound();
  return alert;
}

export function getAlert(ws: CurrentWorkspace, id: string): CurrentAlert {
  return externalAlert(requireAlert(ws, id));
}

export function createAlert(ws: CurrentWorkspace, body: unknown, nowMs: number): CurrentAlert {
  const write = readWrite(body);
  checkReferences(ws, write);
  const now = isoTimestamp(nowMs);
  const alert = recordOf(newObjectId(nowMs), write, { state: CURRENT_ALERT_INITIAL_STATE, teamId: ws.owner, createdAt: now, updatedAt: now });
  ws.alerts.set(alert.id, alert);
  return externalAlert(alert);
}

/** PUT replaces the configuration; state, silencing and creation time stay. */
export function updateAlert(ws: CurrentWorkspace, id: string, body: unknown, nowMs: number): CurrentAlert {
  const write = readWrite(body);
  checkReferences(ws, write);
  const current = requireAlert(ws, id);
  const alert = recordOf(id, write, { state: current.state, teamId: current.teamId, createdAt: current.createdAt, updatedAt: isoTimestamp(nowMs) }, current);
  ws.alerts.set(id, alert);
  return externalAlert(alert);
}

export function deleteAlert(ws: CurrentWorkspace, id: string): void {
  if (!ws.alerts.delete(id)) throw alertNotFound();
}
