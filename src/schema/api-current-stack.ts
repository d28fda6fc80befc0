/**
 * Wire shapes of the observability kinds the real services added beside dashboards and alerts
 * (docs/reference/api-behaviour.md, "The real services today: the whole lifecycle"): sources, connections, webhooks,
 * saved searches, the answer of `dashboards/validate`, and the managed service's alert channels.
 * Read from the self-hosted server's v2 routers and zod schemas (hyperdxio/hyperdx
 * `packages/api/src/routers/external-api/v2/`, `packages/api/src/utils/zod.ts`,
 * `packages/common-utils/src/types.ts`) and the managed OpenAPI's ClickStack operations.
 *
 * Like `api-current.ts`, request schemas are the lenient ones the emulator cleans a body with:
 * members they do not name are dropped. Rules that span members, and the real messages of rules
 * a schema cannot say (a header name's charset, a URL's host), are checked beside them.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { CURRENT_AGG_FNS, OBJECT_ID_PATTERN } from './api-current.js';

// ---------------------------------------------------------------- limits

/** Caps of the webhook write body (hyperdx `utils/zod.ts`, `externalWebhookCreateSchema`). */
export const CURRENT_WEBHOOK_LIMITS = {
  nameMaxLength: 1024,
  urlMaxLength: 2048,
  descriptionMaxLength: 2048,
  bodyMaxLength: 16 * 1024,
  headerNameMaxLength: 256,
  headerValueMaxLength: 4096,
  queryParamKeyMaxLength: 1024,
  queryParamValueMaxLength: 4096,
  maxHeaders: 100,
  maxQueryParams: 100,
} as const;

/** Caps of the saved-search write body (hyperdx `v2/savedSearches.ts`). */
export const CURRENT_SAVED_SEARCH_LIMITS = {
  nameMaxLength: 1024,
  selectMaxLength: 4 * 1024,
  whereMaxLength: 8 * 1024,
  orderByMaxLength: 1024,
  maxFilters: 100,
  filterMaxLength: 8 * 1024,
  maxTags: 50,
  tagMaxLength: 32,
} as const;

/** The webhook services a write may name; the managed service lists more (e.g. `slack_api`), made by its integrations. */
export const CURRENT_WEBHOOK_WRITE_SERVICES = ['slack', 'incidentio', 'generic'] as const;
/** Members a slack webhook refuses: Slack gets a fixed payload, so they would be stored and never used. */
export const CURRENT_SLACK_UNSUPPORTED_MEMBERS = ['headers', 'queryParams', 'body'] as const;
export const CURRENT_SAVED_SEARCH_LANGUAGES = ['lucene', 'sql'] as const;
export const CURRENT_SQL_AST_OPERATORS = ['=', '<', '>', '!=', '<=', '>='] as const;
/** Severities of the managed service's PagerDuty webhook channels. */
export const CURRENT_CHANNEL_SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export const CURRENT_USE_TEXT_INDEX = ['auto', 'enabled', 'disabled'] as const;
/** Metric tables a metric source names, by metric type (one at least). */
export const CURRENT_METRIC_TABLE_TYPES = ['gauge', 'histogram', 'sum', 'summary', 'exponential histogram'] as const;

// ---------------------------------------------------------------- building blocks

const objectId = Type.String({ pattern: OBJECT_ID_PATTERN });
const required = Type.String({ minLength: 1 });
const text = Type.String();
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const optionalTexts = <K extends string>(names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, Type.Optional(text)])) as { [P in K]: Type.TOptional<Type.TString> };

// ---------------------------------------------------------------- sources

const HighlightedExpressions = Type.Array(Type.Object({ sqlExpression: required, luceneExpression: Type.Optional(text), alias: Type.Optional(text) }));

/** `minGranularity` and `granularity` are sent and answered short (`5m`); stored as SQL intervals (`5 minute`). */
const MaterializedView = Type.Object({
  databaseName: required,
  tableName: required,
  dimensionColumns: text,
  minGranularity: text,
  minDate: Type.Optional(nullable(Type.String({ format: 'date-time' }))),
  timestampColumn: required,
  aggregatedColumns: Type.Array(Type.Object({ sourceColumn: Type.Optional(text), aggFn: Type.Enum([...CURRENT_AGG_FNS, 'increase', 'histogram']), mvColumn: required }), { minItems: 1 }),
});
const MetadataMaterializedViews = Type.Object({ keyRollupTable: Type.Optional(nullable(text)), kvRollupTable: required, granularity: text });

/** What every kind has, in the order the service answers (the base of its source schemas). */
const sourceBase = <K extends string>(kind: K) => ({
  name: required,
  section: Type.Optional(Type.String({ maxLength: 256 })),
  kind: Type.Literal(kind),
  connection: required,
  from: Type.Object({ databaseName: required, tableName: required }),
  disabled: Type.Optional(Type.Boolean()),
  querySettings: Type.Optional(Type.Array(Type.Object({ setting: required, value: required }), { maxItems: 10 })),
  timestampValueExpression: required,
});
const viewMembers = {
  highlightedTraceAttributeExpressions: Type.Optional(HighlightedExpressions),
  highlightedRowAttributeExpressions: Type.Optional(HighlightedExpressions),
  materializedViews: Type.Optional(Type.Array(MaterializedView)),
  metadataMaterializedViews: Type.Optional(MetadataMaterializedViews),
  orderByExpression: Type.Optional(text),
  useTextIndexForImplicitColumn: Type.Optional(Type.Enum(CURRENT_USE_TEXT_INDEX)),
};

/** The log source's optional text members; all but `tableFilterExpression` are nullable too ({@link CURRENT_SOURCE_NULLABLE}). */
const LOG_OPTIONAL_TEXTS = [
  'serviceNameExpression',
  'serviceVersionExpression',
  'severityTextExpression',
  'bodyExpression',
  'eventAttributesExpression',
  'resourceAttributesExpression',
  'displayedTimestampValueExpression',
  'metricSourceId',
  'traceSourceId',
  'traceIdExpression',
  'spanIdExpression',
  'implicitColumnExpression',
  'knownColumnsListExpression',
  'tableFilterExpression',
] as const;

export const CurrentLogSourceWrite = Type.Object({
  ...sourceBase('log'),
  defaultTableSelectExpression: required,
  ...optionalTexts(LOG_OPTIONAL_TEXTS),
  ...viewMembers,
});

export const CurrentTraceSourceWrite = Type.Object({
  ...sourceBase('trace'),
  defaultTableSelectExpression: required,
  durationExpression: required,
  durationPrecision: Type.Optional(Type.Integer({ minimum: 0, maximum: 9 })),
  traceIdExpression: required,
  spanIdExpression: required,
  parentSpanIdExpression: required,
  spanNameExpression: required,
  spanKindExpression: required,
  ...optionalTexts(['sampleRateExpression']),
  logSourceId: Type.Optional(nullable(text)),
  ...optionalTexts([
    'sessionSourceId',
    'metricSourceId',
    'statusCodeExpression',
    'statusMessageExpression',
    'serviceNameExpression',
    'serviceVersionExpression',
    'resourceAttributesExpression',
    'eventAttributesExpression',
    'spanEventsValueExpression',
    'spanLinksValueExpression',
    'implicitColumnExpression',
    'knownColumnsListExpression',
    'displayedTimestampValueExpression',
  ]),
  ...viewMembers,
});

export const CurrentSessionSourceWrite = Type.Object({ ...sourceBase('session'), traceSourceId: required, ...optionalTexts(['resourceAttributesExpression']) });

export const CurrentMetricSourceWrite = Type.Object({
  ...sourceBase('metric'),
  // A metric source locates its tables in `metricTables`; `from.tableName` may be empty.
  from: Type.Object({ databaseName: required, tableName: text }),
  metricTables: Type.Object(Object.fromEntries(CURRENT_METRIC_TABLE_TYPES.map((type) => [type, Type.Optional(text)]))),
  resourceAttributesExpression: required,
  ...optionalTexts(['serviceNameExpression', 'logSourceId', 'seriesTable']),
});

export const CurrentPromqlSourceWrite = Type.Object(sourceBase('promql'));

/** Source bodies by `kind` (the service's discriminated union); a response is the body plus its `id`. */
export const CURRENT_SOURCE_WRITES = {
  log: CurrentLogSourceWrite,
  trace: CurrentTraceSourceWrite,
  session: CurrentSessionSourceWrite,
  metric: CurrentMetricSourceWrite,
  promql: CurrentPromqlSourceWrite,
} as const;

export type CurrentSourceKind = keyof typeof CURRENT_SOURCE_WRITES;

const commonNullable = ['disabled', 'querySettings'] as const;
const viewNullable = ['useTextIndexForImplicitColumn', 'highlightedTraceAttributeExpressions', 'highlightedRowAttributeExpressions', 'materializedViews', 'metadataMaterializedViews'] as const;

/**
 * Members of a source body the OpenAPI marks nullable (hyperdx `packages/api/openapi.json`,
 * `LogSource` … `PromqlSource`): null there means the member is not set.
 */
export const CURRENT_SOURCE_NULLABLE: Record<CurrentSourceKind, readonly string[]> = {
  log: [...commonNullable, ...LOG_OPTIONAL_TEXTS.filter((member) => member !== 'tableFilterExpression'), ...viewNullable],
  trace: [
    ...commonNullable,
    'logSourceId',
    'sessionSourceId',
    'metricSourceId',
    'statusCodeExpression',
    'statusMessageExpression',
    'serviceNameExpression',
    'serviceVersionExpression',
    'resourceAttributesExpression',
    'eventAttributesExpression',
    'spanEventsValueExpression',
    'implicitColumnExpression',
    'knownColumnsListExpression',
    ...viewNullable,
  ],
  metric: [...commonNullable, 'logSourceId'],
  session: [...commonNullable, 'timestampValueExpression'],
  promql: commonNullable,
};

/** Alert members the OpenAPI marks nullable that the write schema does not take null for; null there means not set. */
export const CURRENT_ALERT_NULLABLE_MEMBERS = ['dashboardId', 'tileId', 'savedSearchId', 'thresholdMax', 'scheduleOffsetMinutes'] as const;
export type CurrentSourceWrite = { [K in CurrentSourceKind]: Static<(typeof CURRENT_SOURCE_WRITES)[K]> }[CurrentSourceKind];

// ---------------------------------------------------------------- connections

const settingPrefix = Type.String({ pattern: '^[a-zA-Z0-9_]+$' });
const connectionMembers = {
  name: text,
  host: text,
  username: text,
  password: Type.Optional(text),
  isPrometheusEndpoint: Type.Optional(Type.Boolean()),
};

/** Create body; `password` is write-only (absent means empty). */
export const CurrentConnectionCreate = Type.Object({ ...connectionMembers, hyperdxSettingPrefix: Type.Optional(nullable(settingPrefix)) });
/** Update body: `hyperdxSettingPrefix` null or `""` clears it, absent keeps it; an absent or empty `password` keeps the stored one. */
export const CurrentConnectionUpdate = Type.Object({ ...connectionMembers, hyperdxSettingPrefix: Type.Optional(nullable(Type.Union([settingPrefix, Type.Literal('')]))) });

/** A connection as answered: never its password. */
export const CurrentConnection = Type.Object({
  id: Type.String(),
  name: Type.String(),
  host: Type.String(),
  username: Type.String(),
  hyperdxSettingPrefix: Type.Optional(nullable(Type.String())),
  isPrometheusEndpoint: Type.Optional(Type.Boolean()),
  createdAt: Type.Optional(Type.String()),
  updatedAt: Type.Optional(Type.String()),
});

// ---------------------------------------------------------------- webhooks

const W = CURRENT_WEBHOOK_LIMITS;

/** A map of names to values; what a name and a value may hold is checked beside the schema, with the service's own messages. */
const nameValueMap = Type.Object({}, { additionalProperties: Type.Unknown() });

/**
 * Create and update body (PUT takes the same). Header and query-parameter maps are checked beside
 * the schema (names, values, control characters, counts), with the service's own messages.
 */
export const CurrentWebhookWrite = Type.Object({
  name: Type.String(),
  service: Type.Enum(CURRENT_WEBHOOK_WRITE_SERVICES),
  url: Type.String({ maxLength: W.urlMaxLength }),
  description: Type.Optional(Type.String({ maxLength: W.descriptionMaxLength })),
  queryParams: Type.Optional(nameValueMap),
  headers: Type.Optional(nameValueMap),
  body: Type.Optional(Type.String({ maxLength: W.bodyMaxLength })),
});

/** A webhook as listed: `body` only for generic ones; headers and query parameters never. */
export const CurrentWebhookEntry = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  updatedAt: Type.String(),
  createdAt: Type.String(),
  service: Type.String(),
  body: Type.Optional(Type.String()),
});

// ---------------------------------------------------------------- saved searches

const S = CURRENT_SAVED_SEARCH_LIMITS;

/** A pinned filter: a condition (`type` defaults to `sql`) or a parsed comparison. */
export const CurrentSavedSearchConditionFilter = Type.Object({
  type: Type.Optional(Type.Enum(CURRENT_SAVED_SEARCH_LANGUAGES)),
  condition: Type.String({ maxLength: S.filterMaxLength }),
});
export const CurrentSavedSearchAstFilter = Type.Object({
  type: Type.Literal('sql_ast'),
  operator: Type.Enum(CURRENT_SQL_AST_OPERATORS),
  left: Type.String({ maxLength: S.filterMaxLength }),
  right: Type.String({ maxLength: S.filterMaxLength }),
});

/** Create and update body: PUT is a full replace, every optional member falls back to its default. Filters are checked one by one beside it. */
export const CurrentSavedSearchWrite = Type.Object({
  name: Type.String(),
  sourceId: objectId,
  select: Type.Optional(Type.String({ maxLength: S.selectMaxLength })),
  where: Type.Optional(Type.String({ maxLength: S.whereMaxLength })),
  whereLanguage: Type.Optional(Type.Enum(CURRENT_SAVED_SEARCH_LANGUAGES)),
  orderBy: Type.Optional(Type.String({ maxLength: S.orderByMaxLength })),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: S.tagMaxLength }), { maxItems: S.maxTags })),
  filters: Type.Optional(Type.Array(Type.Unknown(), { maxItems: S.maxFilters })),
});

const savedSearchFilter = Type.Union([CurrentSavedSearchConditionFilter, CurrentSavedSearchAstFilter]);

/** A saved search as answered (`toExternalJSON`): `sourceId`, never the internal `source`. */
export const CurrentSavedSearchEntry = Type.Object({
  id: Type.String(),
  name: Type.String(),
  select: Type.Optional(Type.String()),
  where: Type.Optional(Type.String()),
  whereLanguage: Type.Optional(Type.String()),
  orderBy: Type.Optional(Type.String()),
  sourceId: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(Type.String())),
  filters: Type.Optional(Type.Array(savedSearchFilter)),
  teamId: Type.String(),
  createdAt: Type.Optional(Type.String()),
  updatedAt: Type.Optional(Type.String()),
});

// ---------------------------------------------------------------- dashboards: validate, hidden tiles

/** The answer of `POST …/dashboards/validate`: always 200, nothing stored. */
export const CurrentDashboardValidation = Type.Object({
  valid: Type.Boolean(),
  errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
  normalized: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
});

/**
 * A tile GET does not return (a PromQL tile: the external API has no schema for it yet), kept in
 * the service's internal form. A PUT built from GET cannot carry it, so the PUT deletes it.
 */
export const CurrentHiddenTile = Type.Object({
  id: Type.String({ minLength: 1 }),
  x: Type.Number(),
  y: Type.Number(),
  w: Type.Number(),
  h: Type.Number(),
  config: Type.Record(Type.String(), Type.Unknown()),
});

// ---------------------------------------------------------------- managed alert channels

/** The managed service's email channel. */
export const CurrentEmailChannel = Type.Object({ type: Type.Literal('email'), emailRecipients: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }) });
/** The managed service's webhook channel: a webhook, with what its integrations add (Slack API channel, PagerDuty severity). */
export const CurrentManagedWebhookChannel = Type.Object({
  type: Type.Literal('webhook'),
  webhookId: Type.String({ minLength: 1 }),
  webhookService: Type.Optional(nullable(Type.String())),
  slackChannelId: Type.Optional(nullable(Type.String())),
  severity: Type.Optional(nullable(Type.Enum(CURRENT_CHANNEL_SEVERITIES))),
});
/** Managed channels by `type`. */
export const CURRENT_MANAGED_CHANNELS = { email: CurrentEmailChannel, webhook: CurrentManagedWebhookChannel } as const;

// ---------------------------------------------------------------- static types

export type CurrentConnectionCreate = Static<typeof CurrentConnectionCreate>;
export type CurrentConnectionUpdate = Static<typeof CurrentConnectionUpdate>;
export type CurrentConnection = Static<typeof CurrentConnection>;
export type CurrentWebhookWrite = Omit<Static<typeof CurrentWebhookWrite>, 'headers' | 'queryParams'> & { headers?: Record<string, string>; queryParams?: Record<string, string> };
export type CurrentWebhookEntry = Static<typeof CurrentWebhookEntry>;
export type CurrentSavedSearchWrite = Static<typeof CurrentSavedSearchWrite>;
export type CurrentSavedSearchFilter = Static<typeof savedSearchFilter>;
export type CurrentSavedSearchEntry = Static<typeof CurrentSavedSearchEntry>;
export type CurrentDashboardValidation = Static<typeof CurrentDashboardValidation>;
export type CurrentHiddenTile = Static<typeof CurrentHiddenTile>;
export type CurrentManagedChannel = Static<typeof CurrentEmailChannel> | Static<typeof CurrentManagedWebhookChannel>;
