/**
 * Manifest specs of the observability kinds beside dashboards and alerts (docs/manifests/README.md, "Source,
 * Webhook, SavedSearch, Connection"): the members of the real create bodies
 * (`api-current-stack.ts`), with the ids of other kinds' resources replaced by names
 * (`connection: <name>`, `source: <name>`) and credentials replaced by secret references.
 */
import { Type, type TSchema } from 'typebox';
import { described, object, oneOf, optional, readable } from './build.js';
import { secretRefSchema } from './config.js';
import { ignoreDifferencesSchema } from './manifest-parts.js';
import {
  CURRENT_SAVED_SEARCH_LANGUAGES,
  CURRENT_SAVED_SEARCH_LIMITS,
  CURRENT_SOURCE_WRITES,
  CURRENT_WEBHOOK_LIMITS,
  CURRENT_WEBHOOK_WRITE_SERVICES,
  CurrentConnectionCreate,
  CurrentSavedSearchAstFilter,
  CurrentSavedSearchConditionFilter,
  type CurrentSourceKind,
} from './api-current-stack.js';
import { CURRENT_SOURCE_KINDS, OBJECT_ID_PATTERN } from './api-current.js';

const required = Type.String({ minLength: 1 });
const objectId = Type.String({ pattern: OBJECT_ID_PATTERN });

/** A name of another kind's resource: a manifest's `metadata.name`, or a live resource's API name. */
function nameOf(kind: string, resolvedTo: string): TSchema {
  return Type.String({ minLength: 1, description: `Name of a ${kind}: the metadata.name of a ${kind} manifest of the target, or the API name of a ` +
    `live one; resolved to its id (${resolvedTo}) at apply time.` });
}

/** Exactly one of two members, or neither when `optionalPair`. */
function oneOfPair(a: string, b: string, optionalPair = false): Record<string, unknown> {
  return optionalPair ? { not: { required: [a, b] } } : { oneOf: [{ required: [a] }, { required: [b] }] };
}

// ---------------------------------------------------------------- Connection

const { password: _password, name: _name, host: _host, username: _username, ...connectionOptions } = CurrentConnectionCreate.properties;

export const connectionSpecSchema = object({
  name: described(required, 'Connection name in the API; what live connections are matched by.'),
  host: described(required, 'The database endpoint (ClickHouse HTTP, or a Prometheus-compatible API with isPrometheusEndpoint).'),
  username: described(Type.String(), 'User the connection queries as.'),
  ...optional({
    password: described(secretRefSchema, 'Write-only: sent once per new value, compared by an HMAC kept in the state file. Left out, the live password is kept.'),
    ...connectionOptions,
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

// ---------------------------------------------------------------- Source

/**
 * Every member of every kind's source body, each optional, the looser type where kinds differ; each kind's
 * rules (below) say which it requires and which it takes.
 */
function sourceMembers(): Record<string, TSchema> {
  const members: Record<string, TSchema> = {};
  const ordered = [CURRENT_SOURCE_WRITES.metric, ...Object.values(CURRENT_SOURCE_WRITES)];
  for (const schema of ordered) {
    for (const [member, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
      if (member in members || ['name', 'kind', 'connection'].includes(member)) continue;
      members[member] = Type.Optional(property);
    }
  }
  return members;
}

/**
 * What each kind of source must name beside `name`, `kind` and its connection: the `required` of
 * the documents' create schemas (`LogSource` … `PromqlSource`, alike on both variants), so that
 * `validate` refuses at its line what the service would refuse at apply (docs/manifests/source.md).
 * A PUT lays the manifest over the live source, but a manifest must also create one. A trace
 * source's `durationPrecision` the documents also list: the service defaults it to 3.
 */
export const SOURCE_REQUIRED_MEMBERS: Record<CurrentSourceKind, readonly string[]> = {
  log: ['from', 'defaultTableSelectExpression', 'timestampValueExpression'],
  trace: [
    'from',
    'defaultTableSelectExpression',
    'timestampValueExpression',
    'durationExpression',
    'traceIdExpression',
    'spanIdExpression',
    'parentSpanIdExpression',
    'spanNameExpression',
    'spanKindExpression',
  ],
  metric: ['from', 'metricTables', 'timestampValueExpression', 'resourceAttributesExpression'],
  session: ['from', 'traceSourceId'],
  promql: ['from', 'timestampValueExpression'],
};

/**
 * Per kind: the members its create requires, and no member of another kind's body (the managed
 * gateway refuses a member it does not know; each is an error at its line, "when kind is log").
 */
function sourceKindRules(members: Record<string, TSchema>): Record<string, unknown>[] {
  return (Object.keys(SOURCE_REQUIRED_MEMBERS) as CurrentSourceKind[]).map((kind) => {
    const own = new Set(Object.keys(CURRENT_SOURCE_WRITES[kind].properties as Record<string, TSchema>));
    const foreign = Object.keys(members).filter((member) => !own.has(member));
    return {
      if: { properties: { kind: { const: kind } }, required: ['kind'] },
      then: { required: [...SOURCE_REQUIRED_MEMBERS[kind]], properties: Object.fromEntries(foreign.map((member) => [member, false])) },
    };
  });
}

const SOURCE_MEMBERS = sourceMembers();

export const sourceSpecSchema = object(
  {
    name: described(required, 'Source name in the API; what live sources are matched by.'),
    kind: oneOf(CURRENT_SOURCE_KINDS, { description: 'log, trace, metric, session or promql: which members the source needs (log: from, ' +
      'defaultTableSelectExpression, timestampValueExpression; see docs/manifests/source.md).' }),
    ...optional({
      connection: nameOf('Connection', 'connection'),
      connectionId: described(objectId, 'Id of the connection (instead of connection).'),
    }),
    ...SOURCE_MEMBERS,
    ignoreDifferences: Type.Optional(ignoreDifferencesSchema),
  },
  { description: 'A source: where a kind of data lives and how to read it; each kind names the members its create requires.', ...oneOfPair('connection', 'connectionId'), allOf: sourceKindRules(SOURCE_MEMBERS) },
);

// ---------------------------------------------------------------- Webhook

const W = CURRENT_WEBHOOK_LIMITS;
const secretMap = (what: string) =>
  readable(
    Type.Record(Type.String({ minLength: 1 }), secretRefSchema, {
      maxProperties: what === 'headers' ? W.maxHeaders : W.maxQueryParams,
      description: `Write-only ${what}, each value a secret reference: the whole map is sent once per new value of ` +
        `any entry (the service never returns them), compared by HMACs kept in the state file. {} clears ` +
        `them; left out, the live ones are kept.`,
    }),
  );

export const webhookSpecSchema = object({
  name: described(Type.String({ minLength: 1, maxLength: W.nameMaxLength }), 'Webhook name in the API; with service, what live webhooks are matched by (unique per service).'),
  service: oneOf(CURRENT_WEBHOOK_WRITE_SERVICES, { description: 'slack, incidentio or generic.' }),
  ...optional({
    url: described(secretRefSchema, 'Where notifications go (a secret: webhook URLs carry tokens); compared with the live URL, shown ' +
      'as (sensitive). Needed to create one; left out, the live URL is kept.'),
    description: Type.String({ maxLength: W.descriptionMaxLength }),
    body: described(Type.String({ maxLength: W.bodyMaxLength }), 'Payload template (generic webhooks).'),
    headers: secretMap('headers'),
    queryParams: secretMap('query parameters'),
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

// ---------------------------------------------------------------- SavedSearch

const S = CURRENT_SAVED_SEARCH_LIMITS;

export const savedSearchSpecSchema = object(
  {
    name: described(Type.String({ minLength: 1, maxLength: S.nameMaxLength }), 'Saved search name in the API; what live saved searches are matched by.'),
    ...optional({
      source: nameOf('Source', 'sourceId'),
      sourceId: described(objectId, 'Id of the source searched (instead of source).'),
      select: Type.String({ maxLength: S.selectMaxLength }),
      where: Type.String({ maxLength: S.whereMaxLength }),
      whereLanguage: oneOf(CURRENT_SAVED_SEARCH_LANGUAGES),
      orderBy: Type.String({ maxLength: S.orderByMaxLength }),
      tags: Type.Array(Type.String({ maxLength: S.tagMaxLength }), { maxItems: S.maxTags }),
      filters: Type.Array(Type.Union([CurrentSavedSearchConditionFilter, CurrentSavedSearchAstFilter]), {
        maxItems: S.maxFilters,
        description: 'Pinned filters, in order: {condition, type?: sql | lucene} or {type: sql_ast, operator, left, right}.',
      }),
      ignoreDifferences: ignoreDifferencesSchema,
    }),
  },
  { description: 'A saved search of one source; alerts may watch it.', ...oneOfPair('source', 'sourceId') },
);

const LOG_LACKS = ['orderByExpression', 'tableFilterExpression'];
const TRACE_LACKS = ['displayedTimestampValueExpression', 'orderByExpression', 'sampleRateExpression', 'spanLinksValueExpression'];
const METRIC_LACKS = ['seriesTable', 'serviceNameExpression'];

/**
 * Members of a source, by its kind, that a variant's newest API description does not have (its
 * create schema of that kind), though HyperDX's own source schema names them
 * (docs/manifests/source.md#what-a-target-of-todays-api-does-not-take).
 */
export const SOURCE_LACKED_ON_CURRENT: Record<'managed' | 'self-hosted', Record<string, readonly string[]>> = {
  managed: { log: [...LOG_LACKS, 'serviceVersionExpression'], trace: [...TRACE_LACKS, 'serviceVersionExpression'], metric: METRIC_LACKS, session: ['resourceAttributesExpression'] },
  'self-hosted': { log: LOG_LACKS, trace: TRACE_LACKS, metric: METRIC_LACKS, session: ['resourceAttributesExpression'] },
};
