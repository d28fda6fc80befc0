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
import {
  CURRENT_ALERT_INITIAL_STATE,
  CURRENT_ALERT_INTERVAL_MINUTES,
  CURRENT_ALERT_INTERVALS,
  CURRENT_ALERT_SOURCES,
  CURRENT_ALERT_STATES,
  CURRENT_MAX_ALERT_CHANNELS,
  CURRENT_RANGE_THRESHOLD_TYPES,
  CURRENT_THRESHOLD_TYPES,
  CurrentAlert,
  CurrentAlertWrite,
  type CurrentAlertChannel,
  CURRENT_ALERT_NULLABLE_MEMBERS,
  CURRENT_MANAGED_CHANNELS,
} from '../../kinds/alert/wire.js';
import { OBJECT_ID_PATTERN } from '../../schema/api-current.js';
import type { Variant } from '../../model/kinds.js';
import type { SchemaIssue } from '../../schema/validate.js';
import { findLacked, type Lacked } from '../../schema/lacked.js';
import { ALERT_MEMBERS_LACKED } from '../../kinds/alert/model.js';
import { ApiError } from '../errors.js';
import { isoTimestamp, newObjectId } from '../ids.js';
import type { CurrentWorkspace } from '../model.js';
import { atIndex } from '../stack.js';
import { supportsAlerts } from './tiles.js';
import { clean, cleaned, issueAt, jsonNotFound, throwIfAny, withoutNulls, type Pointer } from './validate.js';
import { BOTH, type StackKind } from './stack-kind.js';

/**
 * An alert of the current profile as stored: the response's members, except that `channel` and
 * `channels` hold whatever was written or seeded (an email channel, `{type: null}`, nothing); the
 * response shows them only when they resolve.
 */
export type CurrentAlertRecord = Omit<CurrentAlert, 'channel' | 'channels'> & {
  channel?: Record<string, unknown> | null;
  channels?: Record<string, unknown>[];
};

declare module '../model.js' {
  interface CurrentCollections {
    alerts: Map<string, CurrentAlertRecord>;
  }
  interface CurrentCollectionsData {
    alerts: CurrentAlertRecord[];
  }
}

const OBJECT_ID = new RegExp(OBJECT_ID_PATTERN);

/** A channel as written: a webhook one on both variants, an email one (and more members) on managed. */
type ChannelWrite = { type: string; webhookId?: string } & Record<string, unknown>;
type AlertWrite = Omit<CurrentAlertWrite, 'channel' | 'channels'> & {
  channel?: ChannelWrite;
  channels?: ChannelWrite[];
};

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

/**
 * What a variant's document lacks of an alert, which it does not take (issue 32: the documents
 * win; docs/manifests/alert.md#channels): the managed alert's list of channels, the self-hosted
 * server's channel types but the webhook. The table `stacksync validate` refuses them by.
 */
const LACKED: Record<Variant, readonly Lacked[]> = {
  managed: ALERT_MEMBERS_LACKED.managed.alert.map((path) => ({ path })),
  'self-hosted': ['channel.type', 'channels[].type'].map((path) => ({
    path,
    values: ALERT_MEMBERS_LACKED['self-hosted'].channelTypes,
  })),
};

/** The body, with nulls the OpenAPI allows dropped, read by the variant's rules; then the rules across members. */
function readWrite(body: unknown, variant: Variant, nowMs: number): AlertWrite {
  throwIfAny(findLacked(body, LACKED[variant], "the service's API").map((each) => issueAt(each.pointer, each.message)));
  const nullsDropped = withoutNulls(body, CURRENT_ALERT_NULLABLE_MEMBERS);
  const write =
    variant === 'managed' ? readManagedWrite(nullsDropped) : cleaned<AlertWrite>(CurrentAlertWrite, nullsDropped);
  throwIfAny([...crossMemberIssues(write), ...scheduleStartIssues(write, nowMs)]);
  return write;
}

function readManagedWrite(body: unknown): AlertWrite {
  const { value, issues } = clean<Record<string, unknown>>(ManagedAlertWrite, body);
  if (value['channel'] !== undefined) value['channel'] = readManagedChannel(value['channel'], ['channel'], issues);
  if (Array.isArray(value['channels']))
    value['channels'] = value['channels'].map((channel, index) =>
      readManagedChannel(channel, ['channels', index], issues),
    );
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
  if (at < nowMs - 10 * YEAR_MS)
    return [issueAt(['scheduleStartAt'], 'scheduleStartAt must be within 10 years in the past')];
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
  if (write.scheduleStartAt != null && offset > 0)
    issues.push(issueAt(['scheduleOffsetMinutes'], 'scheduleOffsetMinutes must be 0 when scheduleStartAt is provided'));
  const minutes = CURRENT_ALERT_INTERVAL_MINUTES[write.interval];
  if (offset >= minutes)
    issues.push(
      issueAt(
        ['scheduleOffsetMinutes'],
        `scheduleOffsetMinutes must be less than ${minutes} minute${minutes === 1 ? '' : 's'}`,
      ),
    );
  if ((CURRENT_RANGE_THRESHOLD_TYPES as readonly string[]).includes(write.thresholdType)) {
    if (write.thresholdMax === undefined)
      issues.push(issueAt(['thresholdMax'], 'thresholdMax is required for between/not_between threshold types'));
    else if (write.thresholdMax < write.threshold)
      issues.push(issueAt(['thresholdMax'], 'thresholdMax must be greater than or equal to threshold'));
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
  if (
    write.channel &&
    write.channels &&
    channelKey(write.channel) !== (write.channels[0] && channelKey(write.channels[0]))
  ) {
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
    if (!ws.savedSearches.some((search) => search.id === write.savedSearchId))
      throw new ApiError('bad_request', 'Saved search not found');
  }
  const webhookIds = channelsOf(write).flatMap((channel) =>
    channel.type === 'webhook' ? [channel.webhookId ?? ''] : [],
  );
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
    throw new ApiError(
      'bad_request',
      'Alerts on Raw SQL tiles are only supported for Line, Stacked Bar, or Number display types',
    );
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
  const offset =
    startSent && (write.scheduleStartAt !== null || write.scheduleOffsetMinutes === undefined)
      ? 0
      : (write.scheduleOffsetMinutes ?? previous?.scheduleOffsetMinutes);
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
    ...(scheduleStartAt !== undefined && {
      scheduleStartAt: scheduleStartAt === null ? null : new Date(scheduleStartAt).toISOString(),
    }),
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

/**
 * The response: `channel` (the first) and `channels` only when a channel resolves, in place. The
 * managed document's alert has no `channels` (docs/manifests/alert.md#channels): a managed
 * service answers its one `channel`, so what a client reads back it may write again.
 */
export function externalAlert(alert: CurrentAlertRecord, variant: Variant): CurrentAlert {
  const resolved = resolvedChannels(alert) as CurrentAlertChannel[];
  const channels = (channel: CurrentAlertChannel): Partial<CurrentAlert> =>
    variant === 'managed' ? { channel } : { channel, channels: resolved };
  const response: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(alert)) {
    if (key === 'channels') continue;
    if (key !== 'channel') response[key] = value;
    else if (resolved[0]) Object.assign(response, channels(resolved[0]));
  }
  if (!('channel' in alert) && resolved[0]) Object.assign(response, channels(resolved[0]));
  return response as CurrentAlert;
}

// ---------------------------------------------------------------- operations

/** In creation order. */
export function listAlerts(ws: CurrentWorkspace): CurrentAlert[] {
  return [...ws.alerts.values()].map((alert) => externalAlert(alert, ws.variant));
}

function requireAlert(ws: CurrentWorkspace, id: string): CurrentAlertRecord {
  const alert = ws.alerts.get(id);
  if (!alert) throw alertNotFound();
  return alert;
}

export function getAlert(ws: CurrentWorkspace, id: string): CurrentAlert {
  return externalAlert(requireAlert(ws, id), ws.variant);
}

export function createAlert(ws: CurrentWorkspace, body: unknown, nowMs: number): CurrentAlert {
  const write = readWrite(body, ws.variant, nowMs);
  checkReferences(ws, write);
  const now = isoTimestamp(nowMs);
  const alert = recordOf(newObjectId(nowMs), write, {
    state: CURRENT_ALERT_INITIAL_STATE,
    teamId: ws.owner,
    createdAt: now,
    updatedAt: now,
  });
  ws.alerts.set(alert.id, alert);
  return externalAlert(alert, ws.variant);
}

/** PUT replaces the configuration; state, silencing and creation time stay. */
export function updateAlert(ws: CurrentWorkspace, id: string, body: unknown, nowMs: number): CurrentAlert {
  const write = readWrite(body, ws.variant, nowMs);
  checkReferences(ws, write);
  const current = requireAlert(ws, id);
  const alert = recordOf(
    id,
    write,
    { state: current.state, teamId: current.teamId, createdAt: current.createdAt, updatedAt: isoTimestamp(nowMs) },
    current,
  );
  ws.alerts.set(id, alert);
  return externalAlert(alert, ws.variant);
}

export function deleteAlert(ws: CurrentWorkspace, id: string): void {
  if (!ws.alerts.delete(id)) throw alertNotFound();
}

// ---------------------------------------------------------------- seeds

const objectId = Type.String({ pattern: OBJECT_ID_PATTERN });
const nullable = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));
const anyChannel = Type.Object({ type: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: true });

const { teamId: _teamId, ...alertResponseMembers } = CurrentAlert.properties;

/**
 * An alert in a seed: the response's members (`teamId` is the workspace's), channels of any type,
 * and what the service would refuse (enums, ranges, dates) checked, so a seed's typo is caught.
 */
export const SeededAlert = Type.Object({
  ...alertResponseMembers,
  id: Type.Optional(objectId),
  interval: Type.Enum(CURRENT_ALERT_INTERVALS),
  scheduleOffsetMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1439 })),
  scheduleStartAt: nullable(Type.String({ format: 'date-time' })),
  numConsecutiveWindows: nullable(Type.Integer({ minimum: 1 })),
  thresholdType: Type.Enum(CURRENT_THRESHOLD_TYPES),
  source: Type.Optional(Type.Enum(CURRENT_ALERT_SOURCES)),
  state: Type.Optional(Type.Enum(CURRENT_ALERT_STATES)),
  channel: Type.Optional(Type.Union([anyChannel, Type.Null()])),
  channels: Type.Optional(Type.Array(anyChannel)),
  createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  updatedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

type SeededAlert = Type.Static<typeof SeededAlert>;

/** An alert as the data file holds it: the response's members, with `channel` and `channels` as written or seeded. */
const StoredAlert = Type.Object({
  ...CurrentAlert.properties,
  channel: Type.Optional(Type.Union([anyChannel, Type.Null()])),
  channels: Type.Optional(Type.Array(anyChannel)),
});

/** A seeded alert as stored, in the response's member order; what the seed leaves out is null or absent. */
function alertOf(seed: SeededAlert, owner: string, nowMs: number): CurrentAlertRecord {
  const createdAt = seed.createdAt ?? isoTimestamp(nowMs);
  const source = seed.source ?? 'saved_search';
  const optional = <K extends keyof SeededAlert>(key: K) => (seed[key] === undefined ? {} : { [key]: seed[key] });
  return {
    id: seed.id ?? newObjectId(nowMs),
    name: seed.name ?? null,
    message: seed.message ?? null,
    note: seed.note ?? null,
    threshold: seed.threshold,
    ...optional('thresholdMax'),
    interval: seed.interval,
    ...optional('scheduleOffsetMinutes'),
    ...optional('scheduleStartAt'),
    numConsecutiveWindows: seed.numConsecutiveWindows ?? null,
    thresholdType: seed.thresholdType,
    source,
    state: seed.state ?? CURRENT_ALERT_INITIAL_STATE,
    ...optional('channel'),
    ...optional('channels'),
    teamId: owner,
    ...optional('tileId'),
    ...optional('dashboardId'),
    ...optional('savedSearchId'),
    ...optional('groupBy'),
    ...optional('silenced'),
    ...optional('executionErrors'),
    createdAt,
    updatedAt: seed.updatedAt ?? createdAt,
  } as CurrentAlertRecord;
}

/** The kind's routes on both variants; the self-hosted list pages. */
export const stackKind: StackKind = {
  // Seeded alerts come after what they name: dashboards, webhooks, saved searches.
  collection: {
    member: 'alerts',
    data: { items: StoredAlert },
    after: ['dashboards', 'webhooks', 'savedSearches'],
    seed: (ws, seeded, { nowMs }) => {
      ws.alerts = new Map();
      for (const [index, entry] of (seeded.alerts ?? []).entries()) {
        atIndex('alerts', index, () => {
          const alert = alertOf(cleaned<SeededAlert>(SeededAlert, entry), ws.owner, nowMs);
          ws.alerts.set(alert.id, alert);
        });
      }
    },
    restore: (ws, saved) => {
      ws.alerts = new Map(saved.alerts.map((alert) => [alert.id, alert]));
    },
    save: (ws) => [...ws.alerts.values()],
  },
  segment: 'alerts',
  idName: 'alertId',
  gateway: () => CurrentAlertWrite,
  servedOn: BOTH,
  pagedOn: ['self-hosted'],
  writableOn: BOTH,
  list: listAlerts,
  get: ({ ws, id }) => getAlert(ws, id),
  create: ({ ws, body, nowMs }) => createAlert(ws, body, nowMs),
  update: ({ ws, id, body, nowMs }) => updateAlert(ws, id, body, nowMs),
  remove: ({ ws, id }) => deleteAlert(ws, id),
};
