/**
 * Sources of the current profile (hyperdx `routers/external-api/v2/sources.ts`,
 * `controllers/sources.ts`), pure over one workspace. A body is one of the kinds' schemas
 * (`log`, `trace`, `session`, `metric`, `promql`), checked by its `kind`; its `connection` must be
 * one of the workspace's connections. PUT is a full replace and may change the kind. Granularities
 * of materialized views are taken short (`5m`) or as SQL intervals (`5 minute`) and answered
 * short. A delete checks nothing that names the source: the real server deletes it and leaves
 * dashboards, saved searches and other sources pointing at nothing.
 */
import type { TSchema } from 'typebox';
import {
  CurrentSource,
  CURRENT_SOURCE_NULLABLE,
  CURRENT_SOURCE_WRITES,
  type CurrentSourceKind,
  type CurrentSourceWrite,
} from '../../kinds/source/wire.js';
import { findLacked } from '../../schema/lacked.js';
import { SOURCE_LACKED_ON_CURRENT } from '../../schema/manifest-stack.js';
import type { SchemaIssue } from '../../schema/validate.js';
import { newObjectId } from '../ids.js';
import type { CurrentWorkspace } from '../model.js';
import { defaultCurrentSources, type SeedSource } from '../seed.js';
import { checkConnectionId } from './connection.js';
import { clean, inSchemaOrder, issueAt, jsonNotFound, throwIfAny, withoutNulls, type Pointer } from './validate.js';
import { BOTH, type StackKind } from './stack-kind.js';
import { isRecord } from '../../support/json.js';

declare module '../model.js' {
  interface CurrentCollections {
    sources: CurrentSource[];
  }
  interface CurrentCollectionsData {
    sources: CurrentSource[];
  }
}

const KINDS = Object.keys(CURRENT_SOURCE_WRITES) as CurrentSourceKind[];
const GRANULARITY_UNITS: Record<string, string> = { s: 'second', m: 'minute', h: 'hour', d: 'day' };
const SQL_INTERVAL = /^(\d+) (second|minute|hour|day)$/;
/** The trace kind's default precision (nanoseconds are 9, the schema's default is milliseconds). */
const DEFAULT_DURATION_PRECISION = 3;
const LEGACY_SESSION_TIMESTAMP = 'TimestampTime';
const HIGHLIGHT_NULLABLE = ['luceneExpression', 'alias'] as const;

type Json = Record<string, unknown>;

// ---------------------------------------------------------------- reading a request

/** The kind's schema, or a 400 naming the kinds (the discriminated union's check). */
function schemaOf(body: unknown): TSchema {
  const kind = isRecord(body) ? body['kind'] : undefined;
  if (!KINDS.includes(kind as CurrentSourceKind)) throwIfAny([issueAt(['kind'], `must be one of ${KINDS.join(', ')}`)]);
  return CURRENT_SOURCE_WRITES[kind as CurrentSourceKind];
}

/**
 * A source body: nulls where the OpenAPI allows them dropped, cleaned by its kind's schema, granularities in
 * the answer's short form, cross-member rules checked.
 */
function readWrite(body: unknown, variant: CurrentWorkspace['variant']): CurrentSourceWrite {
  const schema = schemaOf(body);
  const kind = (body as { kind: CurrentSourceKind }).kind;
  // What the service's newest API description lacks of a source of this kind, it does not take
  // (docs/manifests/source.md#what-a-target-of-todays-api-does-not-take).
  const lacked = (SOURCE_LACKED_ON_CURRENT[variant][kind] ?? []).map((path) => ({ path }));
  throwIfAny(
    findLacked(body, lacked, `the service's API, for a ${kind} source,`).map((each) =>
      issueAt(each.pointer, each.message),
    ),
  );
  const { value, issues } = clean<CurrentSourceWrite>(
    schema,
    nestedNullsDropped(withoutNulls(withSessionTimestamp(body as Json), CURRENT_SOURCE_NULLABLE[kind]) as Json),
  );
  throwIfAny(issues);
  const write = value as CurrentSourceWrite & Json;
  issues.push(...granularityIssues(write), ...kindIssues(write));
  throwIfAny(issues);
  if (write.kind === 'trace' && write.durationPrecision === undefined)
    write.durationPrecision = DEFAULT_DURATION_PRECISION;
  return inSchemaOrder(schema, write);
}

/** A session source's null timestamp is its table's `TimestampTime`, the service's legacy default. */
function withSessionTimestamp(body: Json): Json {
  return body['kind'] === 'session' && body['timestampValueExpression'] === null
    ? { ...body, timestampValueExpression: LEGACY_SESSION_TIMESTAMP }
    : body;
}

/**
 * Nulls the OpenAPI allows below the top: a metric source's `from.tableName` (empty), highlighted
 * expressions' `luceneExpression` and `alias`, aggregated columns' `sourceColumn`.
 */
function nestedNullsDropped(body: Json): Json {
  const from =
    isRecord(body['from']) && body['from']['tableName'] === null && body['kind'] === 'metric'
      ? { ...body['from'], tableName: '' }
      : body['from'];
  const items = (member: string, nullable: readonly string[]) =>
    Array.isArray(body[member])
      ? { [member]: (body[member] as unknown[]).map((item) => withoutNulls(item, nullable)) }
      : {};
  const views = Array.isArray(body['materializedViews'])
    ? {
        materializedViews: (body['materializedViews'] as unknown[]).map((view) =>
          isRecord(view) && Array.isArray(view['aggregatedColumns'])
            ? {
                ...view,
                aggregatedColumns: view['aggregatedColumns'].map((column) => withoutNulls(column, ['sourceColumn'])),
              }
            : view,
        ),
      }
    : {};
  return {
    ...body,
    from,
    ...items('highlightedTraceAttributeExpressions', HIGHLIGHT_NULLABLE),
    ...items('highlightedRowAttributeExpressions', HIGHLIGHT_NULLABLE),
    ...views,
  };
}

/** `5m` or `5 minute`, answered `5m`; anything else is refused like the SQL interval schema refuses it. */
function shortGranularity(value: string, at: Pointer, issues: SchemaIssue[]): string {
  const short = /^(\d+)([smhd])$/.exec(value);
  const interval = short ? `${short[1]} ${GRANULARITY_UNITS[short[2] ?? '']}` : value;
  const match = SQL_INTERVAL.exec(interval);
  if (!match) {
    issues.push(issueAt(at, 'Invalid'));
    return value;
  }
  return `${match[1]}${(match[2] ?? '').charAt(0)}`;
}

function granularityIssues(write: Json): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const views = Array.isArray(write['materializedViews']) ? (write['materializedViews'] as Json[]) : [];
  views.forEach((view, index) => {
    view['minGranularity'] = shortGranularity(
      String(view['minGranularity']),
      ['materializedViews', index, 'minGranularity'],
      issues,
    );
    (view['aggregatedColumns'] as Json[]).forEach((column, at) => {
      if (column['aggFn'] !== 'count' && !column['sourceColumn']) {
        issues.push(
          issueAt(['materializedViews', index, 'aggregatedColumns', at], 'Materialized View Source Column is required'),
        );
      }
    });
  });
  const metadata = write['metadataMaterializedViews'];
  if (isRecord(metadata))
    metadata['granularity'] = shortGranularity(
      String(metadata['granularity']),
      ['metadataMaterializedViews', 'granularity'],
      issues,
    );
  return issues;
}

function kindIssues(write: Json): SchemaIssue[] {
  if (write['kind'] !== 'metric') return [];
  const tables = Object.values((write['metricTables'] ?? {}) as Json);
  return tables.some((table) => typeof table === 'string' && table.length > 0)
    ? []
    : [issueAt(['metricTables'], 'At least one metric table must be specified')];
}

// ---------------------------------------------------------------- operations

export function listSources(ws: CurrentWorkspace): CurrentSource[] {
  return ws.sources;
}

function sourceIndex(ws: CurrentWorkspace, id: string): number {
  const index = ws.sources.findIndex((source) => source.id === id);
  if (index < 0) throw jsonNotFound('Source not found');
  return index;
}

export function getSource(ws: CurrentWorkspace, id: string): CurrentSource {
  return ws.sources[sourceIndex(ws, id)] as CurrentSource;
}

/** The order of the real checks: the body (400), its connection (400), then the source (404). */
export function createSource(ws: CurrentWorkspace, body: unknown, nowMs: number): CurrentSource {
  const write = readWrite(body, ws.variant);
  checkConnectionId(ws, write.connection);
  const source = { id: newObjectId(nowMs), ...write } as CurrentSource;
  ws.sources.push(source);
  return source;
}

/** A full replace: members left out are gone, the kind may change, the id stays. */
export function updateSource(ws: CurrentWorkspace, id: string, body: unknown): CurrentSource {
  const write = readWrite(body, ws.variant);
  checkConnectionId(ws, write.connection);
  const index = sourceIndex(ws, id);
  const source = { id, ...write } as CurrentSource;
  ws.sources[index] = source;
  return source;
}

export function deleteSource(ws: CurrentWorkspace, id: string): void {
  ws.sources.splice(sourceIndex(ws, id), 1);
}

// ---------------------------------------------------------------- seeds

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
  return sources.map((source) =>
    source.kind === 'session' && trace && !('traceSourceId' in source)
      ? { ...source, traceSourceId: trace.id }
      : source,
  );
}

/** The kind's routes on both variants; the managed gateway checks a body against its kind's schema. */
export const stackKind: StackKind = {
  // A workspace seeded without sources has one of each kind, on its one connection.
  collection: {
    member: 'sources',
    data: { items: CurrentSource },
    seed: (ws, seeded, { connection, nowMs }) => {
      ws.sources = seeded.sources
        ? seeded.sources.map((source) => sourceOf(source, connection, nowMs))
        : linkedDefaults(defaultCurrentSources(connection).map((source) => sourceOf(source, connection, nowMs)));
    },
    restore: (ws, saved) => {
      ws.sources = saved.sources;
    },
    save: (ws) => ws.sources,
  },
  segment: 'sources',
  idName: 'sourceId',
  gateway: (body) => CURRENT_SOURCE_WRITES[body['kind'] as CurrentSourceKind],
  servedOn: BOTH,
  pagedOn: [],
  writableOn: BOTH,
  list: listSources,
  get: ({ ws, id }) => getSource(ws, id),
  create: ({ ws, body, nowMs }) => createSource(ws, body, nowMs),
  update: ({ ws, id, body }) => updateSource(ws, id, body),
  remove: ({ ws, id }) => deleteSource(ws, id),
};
