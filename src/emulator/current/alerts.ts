/**
 * Alert rules of the current profile (docs/reference/api-behaviour.md, "The real services today"), pure over one
 * workspace: `source` is `saved_search` (the default) or `tile`; eight threshold types, the range
 * ones with `thresholdMax`; `channel` or `channels` (1–10) naming webhooks of the team, and on a
 * managed service also `email` channels and the members its integrations add (the managed
 * OpenAPI's `ClickStackAlertChannelEmail` and `…Webhook`); responses with `dashboardId`, `teamId`,
 * `state` (new alerts `OK`) and the nullable members as null. The order of the checks is the real
 * one: the body (400), then what it names (400), then the alert (404).
 */
import { Type } from 'typebox';
import { CurrentAlertWrite, type CurrentAlert, type CurrentAlertChannel, CURRENT_ALERT_INITIAL_STATE, CURRENT_ALERT_INTERVAL_MINUTES, CURRENT_MAX_ALERT_CHANNELS, CURRENT_RANGE_THRESHOLD_TYPES, CURRENT_ALERT_NULLABLE_MEMBERS, CURRENT_MANAGED_CHANNELS } from '../../kinds/alert/wire.js';
import { OBJECT_ID_PATTERN } from '../../schema/api-current.js';
import type { Variant } from '../../model/kinds.js';
import type { SchemaIssue } from '../../schema/validate.js';
import { ApiError } from '../errors.js';
import { isoTimestamp, newObjectId } from '../ids.js';
import type { CurrentAlertRecord, CurrentWorkspace } from '../model.js';
import { supportsAlerts } from './tiles.js';
import { clean, cleaned, issueAt, jsonNotFound, throwIfAny, withoutNulls, type Pointer } from './validate.js';

const OBJECT_ID = new RegExp(OBJECT_ID_PATTERN);

/** A channel as written: a webhook one on both variants, an email one (and more members) on managed. */
type ChannelWrite = { type: string; webhookId?: string } & Record<string, unknown>;
type AlertWrite = Omit<CurrentAlertWrite, 'channel' | 'channels'> & { channel?: ChannelWrite; channels?: ChannelWrite[] };

/** The managed body: channels checked one by one by their `type`, against the channels the managed OpenAPI lists. */
const ManagedAlertWrite = Type.Object({
  ...CurrentAlertWrite.properties,
  channel: Type.Optional(Type.Unknown()),
  channels: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1, maxItems: CURRENT_MAX_ALERT_CHANNELS })),
});
const MANAGED_CHANNEL_TYPES = Object.keys(CURRENT_MANAGED_CHANNELS) as (keyof typeof CURRENT_MANAGED_CHANNELS)[];

function alertNotFound(): ApiError {
  return jsonNotFound('Alert not found');
}

// ---------------------------------------------------------------- reading a request

/** The body, with nulls the OpenAPI allows dropped, read by the variant's rules; then the rules across members. */
function readWrite(body: unknown, variant: Variant, nowMs: number): AlertWrite {
  const nullsDropped = withoutNulls(body, CURRENT_ALERT_NULLABLE_MEMBERS);
  const write = variant === 'managed' ? readManagedWrite(nullsDropped) : cleaned<AlertWrite>(CurrentAlertWrite, nullsDropped);
  throwIfAny([...crossMemberIssues(write), ...scheduleStartIssues(write, nowMs)]);
  return write;
}

function readManagedWrite(body: unknown): AlertWrite {
  const { value, issues } = clean<Record<string, unknown>>(ManagedAlertWrite, body);
  if (value['channel'] !== undefined) value['channel'] = readManagedChannel(value['channel'], ['channel'], issues);
  if (Array.isArray(value['channels'])) value['channels'] = value['channels'].map((channel, index) => readManagedChannel(channel, ['channels', index], issues));
  throwIfAny(issues);
  return value as AlertWrite;
}

function readManagedChannel(channel: unknown, at: Pointer, issues: SchemaIssue[]): unknown {
  const type = typeof channel === 'object' && channel !== null ? (channel as { type?: unknown }).type : undefined;
  const schema = CURRENT_MANAGED_CHANNELS[type as keyof typeof CURRENT_MANAGED_CHANNELS];
  if (!schema) {
    issues.push(issueAt([...at, 'type'], `must be one of ${MANAGED_CHANNEL_TYPES.join(', ')}`));
    return channel;
  }
  const checked = clean(schema, channel, at);
  issues.push(...checked.issues);
  return checked.value;
}

/** The rules the real schema adds with refinements: what each source needs, the channel choice, the schedule, the range. */
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** `scheduleStartAtSchema`: a start at most a year ahead and at most ten years back. */
function scheduleStartIssues(write: AlertWrite, nowMs: number): SchemaIssue[] {
  if (write.scheduleStartAt == null) return [];
  const at = new Date(write.scheduleStartAt).getTime();
  if (at > nowMs + YEAR_MS) return [issueAt(['scheduleStartAt'], 'scheduleStartAt must be within 1 year from now')];
  if (at < nowMs - 10 * YEAR_MS) return [issueAt(['scheduleStartAt'], 'scheduleStartAt must be within 10 years in the past')];
  return [];
}

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

/** A channel's identity is its whole content (`alertChannelKey` hashes the object), so two email channels differ by their recipients. */
function channelKey(channel: unknown): string {
  if (Array.isArray(channel)) return `[${channel.map(channelKey).join(',')}]`;
  if (typeof channel !== 'object' || channel === null) return JSON.stringify(channel);
  const entries = Object.entries(channel).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${channelKey(member)}`).join(',')}}`;
}

/** One of `channel` and `channels`, or both when `channel` is the first of `channels`; no channel twice. */
function channelSelectionProblem(write: AlertWrite): string | undefined {
  if (!write.channel && !write.channels) return 'Provide either "channel" or "channels"';
  if (write.channel && write.channels && channelKey(write.channel) !== (write.channels[0] && channelKey(write.channels[0]))) {
    return 'When both "channel" and "channels" are provided, "channel" must match the first entry of "channels"';
  }
  const keys = (write.channels ?? []).map(channelKey);
  return new Set(keys).size === keys.length ? undefined : 'Duplicate notification channels are not allowed';
}

function channelsOf(write: AlertWrite): ChannelWrite[] {
  return write.channels ?? (write.channel ? [write.channel] : []);
}

/** What the alert names must be the team's: its dashboard and tile, or its saved search; its webhooks. */
function checkReferences(ws: CurrentWorkspace, write: AlertWrite): void {
  if (write.source === 'tile') checkTile(ws, write.dashboardId ?? '', write.tileId ?? '');
  else {
    if (!OBJECT_ID.test(write.savedSearchId ?? '')) throw new ApiError('bad_request', 'Invalid saved search ID');
    if (!ws.savedSearches.some((search) => search.id === write.savedSearchId)) throw new ApiError('bad_request', 'Saved search not found');
  }
  const webhookIds = channelsOf(write).flatMap((channel) => (channel.type === 'webhook' ? [channel.webhookId ?? ''] : []));
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
  const write = readWrite(body, ws.variant, nowMs);
  checkReferences(ws, write);
  const now = isoTimestamp(nowMs);
  const alert = recordOf(newObjectId(nowMs), write, { state: CURRENT_ALERT_INITIAL_STATE, teamId: ws.owner, createdAt: now, updatedAt: now });
  ws.alerts.set(alert.id, alert);
  return externalAlert(alert);
}

/** PUT replaces the configuration; state, silencing and creation time stay. */
export function updateAlert(ws: CurrentWorkspace, id: string, body: unknown, nowMs: number): CurrentAlert {
  const write = readWrite(body, ws.variant, nowMs);
  checkReferences(ws, write);
  const current = requireAlert(ws, id);
  const alert = recordOf(id, write, { state: current.state, teamId: current.teamId, createdAt: current.createdAt, updatedAt: isoTimestamp(nowMs) }, current);
  ws.alerts.set(id, alert);
  return externalAlert(alert);
}

export function deleteAlert(ws: CurrentWorkspace, id: string): void {
  if (!ws.alerts.delete(id)) throw alertNotFound();
}
