/**
 * A workspace of the current profile as seeded: sources (one of each kind when none are given),
 * connections (one for each that the sources name when none are given), webhooks (their headers
 * and query parameters kept as fingerprints), saved searches, then dashboards created by the
 * dashboard rules (ids kept, with the tiles a GET hides beside them) and alerts taken as the
 * service would hold them: email or several channels, a note, consecutive windows, no channel at
 * all, a state or a silencing, each returned as seeded.
 */
import { Type } from 'typebox';
import { CurrentAlert, CURRENT_ALERT_INITIAL_STATE, CURRENT_ALERT_INTERVALS, CURRENT_ALERT_SOURCES, CURRENT_ALERT_STATES, CURRENT_THRESHOLD_TYPES } from '../../kinds/alert/wire.js';
import type { CurrentSavedSearch } from '../../kinds/saved-search/wire.js';
import type { CurrentSource } from '../../kinds/source/wire.js';
import { OBJECT_ID_PATTERN } from '../../schema/api-current.js';
import { CurrentConnection, type CurrentConnection as CurrentConnectionType } from '../../kinds/connection/wire.js';
import { CurrentHiddenTile, type CurrentHiddenTile as HiddenTile } from '../../kinds/dashboard/wire.js';
import { CurrentWebhookEntry } from '../../kinds/webhook/wire.js';
import type { Variant } from '../../model/kinds.js';
import { ApiError } from '../errors.js';
import { isObjectId, isoTimestamp, newObjectId } from '../ids.js';
import type { CurrentAlertRecord, CurrentWorkspace, StackSecrets } from '../model.js';
import type { Fingerprint } from '../pipes.js';
import { defaultCurrentSources, type SeedConnection, type SeedSource, type SeedStack } from '../seed.js';
import { atIndex } from '../stack.js';
import { connectionsNamedBy } from './connections.js';
import { createDashboard } from './dashboards.js';
import { predefinedRoles } from './roles.js';
import { cleaned, inSchemaOrder } from './validate.js';

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

/**
 * Default sources given their ids: the session source names the trace source, as every session
 * source must (`traceSourceId` is required of it in the documents, docs/emulator.md#the-services-documents).
 */
function linkedDefaults(sources: CurrentSource[]): CurrentSource[] {
  const trace = sources.find((source) => source.kind === 'trace');
  return sources.map((source) => (source.kind === 'session' && trace && !('traceSourceId' in source) ? { ...source, traceSourceId: trace.id } : source));
}

/** Created and updated times as seeded, or now. */
function timesOf(seed: Record<string, unknown>, nowMs: number): { createdAt: string; updatedAt: string } {
  const createdAt = typeof seed['createdAt'] === 'string' ? seed['createdAt'] : isoTimestamp(nowMs);
  return { createdAt, updatedAt: typeof seed['updatedAt'] === 'string' ? seed['updatedAt'] : createdAt };
}

const idOf = (seed: Record<string, unknown>, nowMs: number): string => (typeof seed['id'] === 'string' ? seed['id'] : newObjectId(nowMs));

/** A seeded webhook as listed, in the answer's order; its headers and query parameters go to `secrets`. */
function webhookOf(seed: Record<string, unknown>, nowMs: number, secrets: Map<string, StackSecrets>, fingerprint: Fingerprint): CurrentWebhookEntry {
  const { createdAt, updatedAt } = timesOf(seed, nowMs);
  const text = (key: string) => (typeof seed[key] === 'string' ? (seed[key] as string) : undefined);
  const webhook = inSchemaOrder(CurrentWebhookEntry, { id: idOf(seed, nowMs), name: String(seed['name']), url: text('url'), description: text('description'), updatedAt, createdAt, service: String(seed['service']), body: text('body') });
  const written = (['headers', 'queryParams'] as const).flatMap((member) =>
    Object.entries((seed[member] ?? {}) as Record<string, string>).map(([name, value]) => [`${member}.${name}`, fingerprint(value)]),
  );
  if (written.length) secrets.set(webhook.id, Object.fromEntries(written));
  return webhook;
}

/** A seeded connection as answered; its password goes to `secrets`. */
function connectionOf(seed: SeedConnection, nowMs: number, secrets: Map<string, StackSecrets>, fingerprint: Fingerprint): CurrentConnectionType {
  const { id: _id, password, createdAt: _created, updatedAt: _updated, ...members } = seed;
  const connection = inSchemaOrder(CurrentConnection, { id: idOf(seed, nowMs), ...members, ...timesOf(seed, nowMs) }) as CurrentConnectionType;
  if (typeof password === 'string' && password) secrets.set(connection.id, { password: fingerprint(password) });
  return connection;
}

/** A seeded dashboard: created by the dashboard rules, with the tiles a GET hides (`hiddenTiles`) kept beside it. */
function seedDashboard(ws: CurrentWorkspace, entry: Record<string, unknown>, nowMs: number): void {
  const { id, hiddenTiles, ...body } = entry;
  if (id !== undefined && !(typeof id === 'string' && isObjectId(id))) {
    throw new ApiError('bad_request', 'invalid id', { issues: [{ path: 'id', pointer: ['id'], message: 'must be a 24-hex object id' }] });
  }
  const hidden = hiddenTiles === undefined ? undefined : cleaned<HiddenTile[]>(Type.Array(CurrentHiddenTile), hiddenTiles, ['hiddenTiles']);
  const dashboard = createDashboard(ws, body, nowMs, typeof id === 'string' ? id : newObjectId(nowMs));
  if (hidden?.length) ws.dashboards.set(dashboard.id, { ...dashboard, hiddenTiles: hidden });
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

/** The workspace of a seeded service (managed) or team (self-hosted) under the current profile. */
export function seededWorkspace(owner: string, variant: Variant, seeded: SeedStack, nowMs: number, fingerprint: Fingerprint): CurrentWorkspace {
  const connection = newObjectId(nowMs);
  const secrets = new Map<string, StackSecrets>();
  const sources = seeded.sources ? seeded.sources.map((source) => sourceOf(source, connection, nowMs)) : linkedDefaults(defaultCurrentSources(connection).map((source) => sourceOf(source, connection, nowMs)));
  const ws: CurrentWorkspace = {
    profile: 'current',
    owner,
    variant,
    sources,
    connections: seeded.connections?.map((entry) => connectionOf(entry, nowMs, secrets, fingerprint)) ?? connectionsNamedBy(sources, variant, owner, nowMs),
    webhooks: (seeded.webhooks ?? []).map((webhook) => webhookOf(webhook, nowMs, secrets, fingerprint)),
    roles: predefinedRoles(variant === 'managed', nowMs),
    savedSearches: (seeded.savedSearches ?? []).map((search) => savedSearchOf(search, nowMs)),
    dashboards: new Map(),
    alerts: new Map(),
    secrets,
  };
  (seeded.dashboards ?? []).forEach((entry, index) => {
    atIndex('dashboards', index, () => seedDashboard(ws, entry, nowMs));
  });
  (seeded.alerts ?? []).forEach((entry, index) => {
    atIndex('alerts', index, () => {
      const alert = alertOf(cleaned<SeededAlert>(SeededAlert, entry), owner, nowMs);
      ws.alerts.set(alert.id, alert);
    });
  });
  return ws;
}
