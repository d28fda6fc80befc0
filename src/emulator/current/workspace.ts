/**
 * A workspace of the current profile as seeded: sources (one of each kind when none are given),
 * webhooks, saved searches, then dashboards created by the dashboard rules (ids kept) and alerts
 * taken as the service would hold them: email or several channels, a note, consecutive windows,
 * no channel at all, a state or a silencing, each returned as seeded.
 */
import { Type } from 'typebox';
import {
  CURRENT_ALERT_INITIAL_STATE,
  CURRENT_ALERT_INTERVALS,
  CURRENT_ALERT_SOURCES,
  CURRENT_ALERT_STATES,
  CURRENT_THRESHOLD_TYPES,
  CurrentAlert,
  OBJECT_ID_PATTERN,
  type CurrentSavedSearch,
  type CurrentSource,
  type CurrentWebhook,
} from '../../schema/api-current.js';
import { ApiError } from '../errors.js';
import { isObjectId, isoTimestamp, newObjectId } from '../ids.js';
import type { CurrentAlertRecord, CurrentWorkspace } from '../model.js';
import { defaultCurrentSources, type SeedSource, type SeedStack } from '../seed.js';
import { atIndex } from '../stack.js';
import { createDashboard } from './dashboards.js';
import { cleaned } from './validate.js';

const objectId = Type.String({ pattern: OBJECT_ID_PATTERN });
const nullable = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
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

/** A seeded source with what every source has filled in: an id, the workspace's connection, a table and a timestamp. */
function sourceOf(seed: SeedSource, connection: string, nowMs: number): CurrentSource {
  const [fallback] = defaultCurrentSources(connection).filter((source) => source.kind === seed.kind);
  const { id, name, kind, connection: own, from, timestampValueExpression, ...rest } = seed;
  return {
    id: typeof id === 'string' ? id : newObjectId(nowMs),
    name,
    kind,
    connection: typeof own === 'string' ? own : connection,
    from: (from ?? fallback?.['from'] ?? { databaseName: 'default', tableName: '' }) as CurrentSource['from'],
    ...((timestampValueExpression ?? fallback?.['timestampValueExpression']) !== undefined && {
      timestampValueExpression: (timestampValueExpression ?? fallback?.['timestampValueExpression']) as string,
    }),
    ...rest,
  };
}

function webhookOf(seed: Record<string, unknown>, nowMs: number): CurrentWebhook {
  const createdAt = typeof seed['createdAt'] === 'string' ? seed['createdAt'] : isoTimestamp(nowMs);
  return {
    id: typeof seed['id'] === 'string' ? seed['id'] : newObjectId(nowMs),
    name: String(seed['name']),
    service: String(seed['service']),
    ...(typeof seed['url'] === 'string' && { url: seed['url'] }),
    ...(typeof seed['description'] === 'string' && { description: seed['description'] }),
    createdAt,
    updatedAt: typeof seed['updatedAt'] === 'string' ? seed['updatedAt'] : createdAt,
  };
}

function savedSearchOf(seed: Record<string, unknown>, nowMs: number): CurrentSavedSearch {
  const { id, name, ...rest } = seed;
  return { id: typeof id === 'string' ? id : newObjectId(nowMs), name: String(name), ...rest };
}

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

/** The workspace of a seeded service or team under the current profile. */
export function seededWorkspace(owner: string, seeded: SeedStack, nowMs: number): CurrentWorkspace {
  const connection = newObjectId(nowMs);
  const ws: CurrentWorkspace = {
    profile: 'current',
    owner,
    sources: (seeded.sources ?? defaultCurrentSources(connection)).map((source) => sourceOf(source, connection, nowMs)),
    webhooks: (seeded.webhooks ?? []).map((webhook) => webhookOf(webhook, nowMs)),
    savedSearches: (seeded.savedSearches ?? []).map((search) => savedSearchOf(search, nowMs)),
    dashboards: new Map(),
    alerts: new Map(),
  };
  (seeded.dashboards ?? []).forEach((entry, index) =>
    atIndex('dashboards', index, () => {
      const { id, ...body } = entry;
      if (id !== undefined && !(typeof id === 'string' && isObjectId(id))) {
        throw new ApiError('bad_request', 'invalid id', { issues: [{ path: 'id', pointer: ['id'], message: 'must be a 24-hex object id' }] });
      }
      return createDashboard(ws, body, nowMs, id ?? newObjectId(nowMs));
    }),
  );
  (seeded.alerts ?? []).forEach((entry, index) =>
    atIndex('alerts', index, () => {
      const alert = alertOf(cleaned<SeededAlert>(SeededAlert, entry), owner, nowMs);
      ws.alerts.set(alert.id, alert);
    }),
  );
  return ws;
}
