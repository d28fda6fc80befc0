/**
 * A source's wire shapes: the seed's data source and the `current` profile's sources of each kind
 * (log, trace, metric, session, promql), as the real services speak them today
 * (docs/reference/api-behaviour.md, "The real services today: the whole lifecycle"). Rules that
 * span members are checked beside them.
 */
import { type Static, Type } from 'typebox';
import { CURRENT_AGG_FNS, nullable, optionalTexts, required, text } from '../../schema/api-current.js';
import { nonEmptyString, string } from '../../schema/api.js';
import { object, oneOf } from '../../schema/build.js';

export const SOURCE_KINDS = ['log', 'trace', 'metric', 'session'] as const;

// ---------------------------------------------------------------- the seed profile

export const dataSourceSchema = object({ id: nonEmptyString, name: string, kind: oneOf(SOURCE_KINDS) });

// ---------------------------------------------------------------- the current profile: a source as read

/** A data source: the members every kind has, and whatever else its kind carries (expressions, views, …). */
export const CurrentSource = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    kind: Type.String(),
    connection: Type.String(),
    from: Type.Object({ databaseName: Type.String(), tableName: Type.String() }),
    timestampValueExpression: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export type CurrentSource = Static<typeof CurrentSource>;
export const CURRENT_USE_TEXT_INDEX = ['auto', 'enabled', 'disabled'] as const;
/** Metric tables a metric source names, by metric type (one at least). */
export const CURRENT_METRIC_TABLE_TYPES = ['gauge', 'histogram', 'sum', 'summary', 'exponential histogram'] as const;

// ---------------------------------------------------------------- the current profile: the write bodies of each kind of source

const HighlightedExpressions = Type.Array(
  Type.Object({ sqlExpression: required, luceneExpression: Type.Optional(text), alias: Type.Optional(text) }),
);

/** `minGranularity` and `granularity` are sent and answered short (`5m`); stored as SQL intervals (`5 minute`). */
const MaterializedView = Type.Object({
  databaseName: required,
  tableName: required,
  dimensionColumns: text,
  minGranularity: text,
  minDate: Type.Optional(nullable(Type.String({ format: 'date-time' }))),
  timestampColumn: required,
  aggregatedColumns: Type.Array(
    Type.Object({
      sourceColumn: Type.Optional(text),
      aggFn: Type.Enum([...CURRENT_AGG_FNS, 'increase', 'histogram']),
      mvColumn: required,
    }),
    { minItems: 1 },
  ),
});
const MetadataMaterializedViews = Type.Object({
  keyRollupTable: Type.Optional(nullable(text)),
  kvRollupTable: required,
  granularity: text,
});

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

export const CurrentSessionSourceWrite = Type.Object({
  ...sourceBase('session'),
  traceSourceId: required,
  ...optionalTexts(['resourceAttributesExpression']),
});

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
const viewNullable = [
  'useTextIndexForImplicitColumn',
  'highlightedTraceAttributeExpressions',
  'highlightedRowAttributeExpressions',
  'materializedViews',
  'metadataMaterializedViews',
] as const;

/**
 * Members of a source body the OpenAPI marks nullable (hyperdx `packages/api/openapi.json`,
 * `LogSource` … `PromqlSource`): null there means the member is not set.
 */
export const CURRENT_SOURCE_NULLABLE: Record<CurrentSourceKind, readonly string[]> = {
  log: [
    ...commonNullable,
    ...LOG_OPTIONAL_TEXTS.filter((member) => member !== 'tableFilterExpression'),
    ...viewNullable,
  ],
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

export type CurrentSourceWrite = {
  [K in CurrentSourceKind]: Static<(typeof CURRENT_SOURCE_WRITES)[K]>;
}[CurrentSourceKind];
