/**
 * Wire shapes of the observability API as the real services speak it today (docs/reference/api-behaviour.md, "The
 * real services today"), as TypeBox schemas with their static types. The seed's shapes live in
 * `api.ts`; these are the `current` profile's: tiles in the `config` format (or the old `series`
 * format naming a `sourceId`), alerts with `saved_search`, eight threshold types, webhook
 * channels, and the richer sources and webhooks.
 *
 * Request schemas are lenient where the real validators are: members they do not know are
 * dropped (the emulator cleans a body with the schema before checking it), and null is accepted
 * where the real service marks a member nullable. The same schemas type the responses, which
 * always fit them: a body read with GET can be sent back with PUT.
 *
 * A tile `config` is one schema per `displayType` (and per `configType: "sql"`), looked up by its
 * discriminator rather than tried as a union, so an error names the member that is wrong.
 */
import { Type, type Static, type TSchema } from 'typebox';

// ---------------------------------------------------------------- enumerations

/** Ids of the real service's documents: 24 hex digits. */
export const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$';

/** A chart's aggregations, as both services' documents list them (docs/api-client.md#the-contract-suite: no `increase`). */
export const CURRENT_AGG_FNS = ['avg', 'count', 'count_distinct', 'last_value', 'max', 'min', 'quantile', 'sum', 'any', 'none'] as const;
export const CURRENT_QUANTILE_LEVELS = [0.5, 0.9, 0.95, 0.99] as const;
/** A chart's or a dashboard's query languages, as both services' documents list them (no `promql`). */
export const CURRENT_WHERE_LANGUAGES = ['sql', 'lucene'] as const;
export const CURRENT_METRIC_TYPES = ['gauge', 'histogram', 'sum', 'summary', 'exponential histogram'] as const;
export const CURRENT_NUMBER_FORMAT_OUTPUTS = ['currency', 'percent', 'byte', 'time', 'duration', 'number', 'data_rate', 'throughput'] as const;
/** A number format's units, as both services' documents list them. */
export const CURRENT_NUMERIC_UNITS = ['bytes_iec', 'bytes_si', 'bits_iec', 'bits_si', 'kibibytes', 'kilobytes', 'mebibytes', 'megabytes', 'gibibytes', 'gigabytes', 'tebibytes', 'terabytes', 'pebibytes', 'petabytes', 'packets_sec', 'bytes_sec_iec', 'bytes_sec_si', 'bits_sec_iec', 'bits_sec_si', 'kibibytes_sec', 'kibibits_sec', 'kilobytes_sec', 'kilobits_sec', 'mebibytes_sec', 'mebibits_sec', 'megabytes_sec', 'megabits_sec', 'gibibytes_sec', 'gibibits_sec', 'gigabytes_sec', 'gigabits_sec', 'tebibytes_sec', 'tebibits_sec', 'terabytes_sec', 'terabits_sec', 'pebibytes_sec', 'pebibits_sec', 'petabytes_sec', 'petabits_sec', 'cps', 'ops', 'rps', 'reads_sec', 'wps', 'iops', 'cpm', 'opm', 'rpm_reads', 'wpm'] as const;
/** The chart palette a number tile's colours are named from, as both services' documents list it. */
export const CURRENT_PALETTE = ['chart-blue', 'chart-orange', 'chart-red', 'chart-cyan', 'chart-green', 'chart-pink', 'chart-purple', 'chart-light-blue', 'chart-brown', 'chart-gray', 'chart-success', 'chart-warning', 'chart-error'] as const;
export const CURRENT_BUILDER_DISPLAY_TYPES = ['line', 'stacked_bar', 'table', 'number', 'pie', 'bar', 'heatmap', 'search', 'markdown', 'event_patterns'] as const;
export const CURRENT_SQL_DISPLAY_TYPES = ['line', 'stacked_bar', 'table', 'number', 'pie', 'bar'] as const;
export const CURRENT_SERIES_TYPES = ['time', 'table', 'number', 'search', 'markdown'] as const;
/** Display types whose tiles can carry an alert (builder and raw SQL alike). */
export const CURRENT_ALERTABLE_DISPLAY_TYPES = ['line', 'stacked_bar', 'number'] as const;

export const CURRENT_ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const;
/** Minutes of each interval; a schedule offset must stay below it. */
export const CURRENT_ALERT_INTERVAL_MINUTES: Record<(typeof CURRENT_ALERT_INTERVALS)[number], number> = {
  '1m': 1,
  '5m': 5,
  '15m': 15,
  '30m': 30,
  '1h': 60,
  '6h': 360,
  '12h': 720,
  '1d': 1440,
};
export const CURRENT_THRESHOLD_TYPES = ['above', 'below', 'above_exclusive', 'below_or_equal', 'equal', 'not_equal', 'between', 'not_between'] as const;
/** Threshold types that compare against a range and so need `thresholdMax`. */
export const CURRENT_RANGE_THRESHOLD_TYPES = ['between', 'not_between'] as const;
export const CURRENT_ALERT_SOURCES = ['saved_search', 'tile'] as const;
export const CURRENT_ALERT_STATES = ['OK', 'ALERT', 'INSUFFICIENT_DATA', 'DISABLED', 'PENDING'] as const;
/** The state of a new alert. */
export const CURRENT_ALERT_INITIAL_STATE = 'OK';
export const CURRENT_MAX_ALERT_CHANNELS = 10;

export const CURRENT_SOURCE_KINDS = ['log', 'trace', 'metric', 'session', 'promql'] as const;
export const CURRENT_WEBHOOK_SERVICES = ['slack', 'generic', 'incidentio'] as const;

/** Limits of the real service's dashboards. */
export const CURRENT_DASHBOARD_LIMITS = {
  nameMaxLength: 1024,
  maxTiles: 500,
  maxTags: 50,
  tagMaxLength: 32,
  tileIdMaxLength: 36,
  tileXMax: 23,
  tileWMin: 1,
  tileWMax: 24,
  tileHMin: 1,
  maxSelectItems: 20,
  maxSeriesGroupBy: 10,
  containerIdMaxLength: 256,
  maxContainers: 50,
  maxTabs: 20,
  textMaxLength: 10_000,
  markdownMaxLength: 50_000,
  sqlMaxLength: 100_000,
} as const;

// ---------------------------------------------------------------- building blocks

const L = CURRENT_DASHBOARD_LIMITS;
const objectId = Type.String({ pattern: OBJECT_ID_PATTERN });
const text = Type.String({ maxLength: L.textMaxLength });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** Members the real service accepts and keeps without looking inside (palette tokens, link-outs, rules). */
const opaque = Type.Unknown();

export const CurrentNumberFormat = Type.Object({
  output: Type.Enum(CURRENT_NUMBER_FORMAT_OUTPUTS),
  numericUnit: Type.Optional(Type.Enum(CURRENT_NUMERIC_UNITS)),
  mantissa: Type.Optional(Type.Integer()),
  thousandSeparated: Type.Optional(Type.Boolean()),
  average: Type.Optional(Type.Boolean()),
  decimalBytes: Type.Optional(Type.Boolean()),
  factor: Type.Optional(Type.Number()),
  currencySymbol: Type.Optional(Type.String()),
  unit: Type.Optional(Type.String()),
});

/**
 * One aggregation of a builder chart. Cross-member rules (level only with quantile, valueExpression with
 * everything but count) are checked beside the schema.
 */
export const CurrentSelectItem = Type.Object({
  alias: Type.Optional(text),
  metricType: Type.Optional(Type.Enum(CURRENT_METRIC_TYPES)),
  metricName: Type.Optional(Type.String()),
  numberFormat: Type.Optional(CurrentNumberFormat),
  valueExpression: Type.Optional(text),
  aggFn: Type.Enum(CURRENT_AGG_FNS),
  where: Type.Optional(text),
  whereLanguage: Type.Optional(Type.Enum(CURRENT_WHERE_LANGUAGES)),
  periodAggFn: Type.Optional(Type.Literal('delta')),
  level: Type.Optional(Type.Enum(CURRENT_QUANTILE_LEVELS)),
});

export const CurrentHeatmapSelectItem = Type.Object({
  valueExpression: Type.String({ minLength: 1, maxLength: L.textMaxLength }),
  countExpression: Type.Optional(text),
  heatmapScaleType: Type.Optional(Type.Enum(['log', 'linear'])),
});

const selectList = Type.Array(CurrentSelectItem, { minItems: 1, maxItems: L.maxSelectItems });
const oneSelect = Type.Array(CurrentSelectItem, { minItems: 1, maxItems: 1 });
const formula = Type.Object({ expression: Type.String({ maxLength: 1024 }), alias: Type.Optional(Type.String()), numberFormat: Type.Optional(CurrentNumberFormat) });
const formulas = Type.Array(formula, { maxItems: 10 });
const palette = Type.Enum(CURRENT_PALETTE);
const colorRuleLabel = Type.Optional(Type.String({ maxLength: 40 }));
const numericColorRule = Type.Object({ operator: Type.Enum(['gt', 'gte', 'lt', 'lte']), value: Type.Number(), color: palette, label: colorRuleLabel });
const betweenColorRule = Type.Object({ operator: Type.Literal('between'), value: Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }), color: palette, label: colorRuleLabel });
const equalityColorRule = Type.Object({ operator: Type.Enum(['eq', 'neq']), value: Type.Union([Type.Number(), Type.String({ maxLength: 200 })]), color: palette, label: colorRuleLabel });
const seriesLimit = Type.Integer({ minimum: 0 });

const timeChart = {
  sourceId: objectId,
  select: selectList,
  groupBy: Type.Optional(text),
  asRatio: Type.Optional(Type.Boolean()),
  alignDateRangeToGranularity: Type.Optional(Type.Boolean()),
  fillNulls: Type.Optional(Type.Boolean()),
  numberFormat: Type.Optional(CurrentNumberFormat),
  formulas: Type.Optional(formulas),
  showOperandSeries: Type.Optional(Type.Boolean()),
};

// ---------------------------------------------------------------- tile configs: builder

export const CurrentLineConfig = Type.Object({
  displayType: Type.Literal('line'),
  ...timeChart,
  compareToPreviousPeriod: Type.Optional(Type.Boolean()),
  fitYAxisToData: Type.Optional(Type.Boolean()),
  seriesLimit: Type.Optional(seriesLimit),
});
export const CurrentStackedBarConfig = Type.Object({ displayType: Type.Literal('stacked_bar'), ...timeChart, seriesLimit: Type.Optional(seriesLimit) });
export const CurrentTableConfig = Type.Object({
  displayType: Type.Literal('table'),
  sourceId: objectId,
  select: selectList,
  groupBy: Type.Optional(text),
  having: Type.Optional(text),
  orderBy: Type.Optional(text),
  asRatio: Type.Optional(Type.Boolean()),
  numberFormat: Type.Optional(CurrentNumberFormat),
  groupByColumnsOnLeft: Type.Optional(Type.Boolean()),
  onClick: Type.Optional(opaque),
  formulas: Type.Optional(formulas),
  showOperandSeries: Type.Optional(Type.Boolean()),
});
export const CurrentNumberConfig = Type.Object({
  displayType: Type.Literal('number'),
  sourceId: objectId,
  select: selectList,
  numberFormat: Type.Optional(CurrentNumberFormat),
  formulas: Type.Optional(Type.Array(formula, { maxItems: 1 })),
  color: Type.Optional(palette),
  colorRules: Type.Optional(Type.Array(Type.Union([numericColorRule, betweenColorRule, equalityColorRule]), { maxItems: 10 })),
  backgroundChart: Type.Optional(Type.Object({ type: Type.Enum(['line', 'area']), color: Type.Optional(palette) })),
});
const categorical = {
  sourceId: objectId,
  select: oneSelect,
  groupBy: Type.Optional(text),
  orderBy: Type.Optional(text),
  numberFormat: Type.Optional(CurrentNumberFormat),
  limit: Type.Optional(seriesLimit),
};
export const CurrentPieConfig = Type.Object({ displayType: Type.Literal('pie'), ...categorical });
export const CurrentBarConfig = Type.Object({ displayType: Type.Literal('bar'), ...categorical });
export const CurrentHeatmapConfig = Type.Object({
  displayType: Type.Literal('heatmap'),
  sourceId: objectId,
  select: Type.Array(CurrentHeatmapSelectItem, { minItems: 1, maxItems: 1 }),
  where: Type.Optional(text),
  whereLanguage: Type.Optional(Type.Enum(CURRENT_WHERE_LANGUAGES)),
  numberFormat: Type.Optional(CurrentNumberFormat),
});
export const CurrentSearchConfig = Type.Object({
  displayType: Type.Literal('search'),
  sourceId: objectId,
  select: text,
  where: Type.Optional(text),
  whereLanguage: Type.Optional(Type.Enum(CURRENT_WHERE_LANGUAGES)),
});
export const CurrentMarkdownConfig = Type.Object({ displayType: Type.Literal('markdown'), markdown: Type.Optional(Type.String({ maxLength: L.markdownMaxLength })) });
export const CurrentEventPatternsConfig = Type.Object({
  displayType: Type.Literal('event_patterns'),
  sourceId: objectId,
  select: Type.Optional(text),
  where: Type.Optional(text),
  whereLanguage: Type.Optional(Type.Enum(CURRENT_WHERE_LANGUAGES)),
});

/** Builder configs by `displayType`. */
export const CURRENT_BUILDER_CONFIGS = {
  line: CurrentLineConfig,
  stacked_bar: CurrentStackedBarConfig,
  table: CurrentTableConfig,
  number: CurrentNumberConfig,
  pie: CurrentPieConfig,
  bar: CurrentBarConfig,
  heatmap: CurrentHeatmapConfig,
  search: CurrentSearchConfig,
  markdown: CurrentMarkdownConfig,
  event_patterns: CurrentEventPatternsConfig,
} as const satisfies Record<(typeof CURRENT_BUILDER_DISPLAY_TYPES)[number], TSchema>;

// ---------------------------------------------------------------- tile configs: raw SQL

const sqlChart = {
  configType: Type.Literal('sql'),
  connectionId: objectId,
  sqlTemplate: Type.String({ maxLength: L.sqlMaxLength }),
  sourceId: Type.Optional(objectId),
  numberFormat: Type.Optional(CurrentNumberFormat),
};
export const CurrentSqlLineConfig = Type.Object({
  ...sqlChart,
  displayType: Type.Literal('line'),
  compareToPreviousPeriod: Type.Optional(Type.Boolean()),
  fillNulls: Type.Optional(Type.Boolean()),
  alignDateRangeToGranularity: Type.Optional(Type.Boolean()),
  fitYAxisToData: Type.Optional(Type.Boolean()),
});
export const CurrentSqlStackedBarConfig = Type.Object({
  ...sqlChart,
  displayType: Type.Literal('stacked_bar'),
  fillNulls: Type.Optional(Type.Boolean()),
  alignDateRangeToGranularity: Type.Optional(Type.Boolean()),
});
export const CurrentSqlTableConfig = Type.Object({ ...sqlChart, displayType: Type.Literal('table'), onClick: Type.Optional(opaque) });
export const CurrentSqlNumberConfig = Type.Object({ ...sqlChart, displayType: Type.Literal('number'), color: Type.Optional(palette) });
export const CurrentSqlPieConfig = Type.Object({ ...sqlChart, displayType: Type.Literal('pie') });
export const CurrentSqlBarConfig = Type.Object({ ...sqlChart, displayType: Type.Literal('bar') });

/** Raw SQL configs (`configType: "sql"`) by `displayType`. */
export const CURRENT_SQL_CONFIGS = {
  line: CurrentSqlLineConfig,
  stacked_bar: CurrentSqlStackedBarConfig,
  table: CurrentSqlTableConfig,
  number: CurrentSqlNumberConfig,
  pie: CurrentSqlPieConfig,
  bar: CurrentSqlBarConfig,
} as const satisfies Record<(typeof CURRENT_SQL_DISPLAY_TYPES)[number], TSchema>;

export const CurrentBuilderTileConfig = Type.Union(Object.values(CURRENT_BUILDER_CONFIGS) as [typeof CurrentLineConfig, ...TSchema[]]);
export const CurrentSqlTileConfig = Type.Union(Object.values(CURRENT_SQL_CONFIGS) as [typeof CurrentSqlLineConfig, ...TSchema[]]);

// ---------------------------------------------------------------- tile series (the old format)

const seriesQuery = {
  sourceId: objectId,
  aggFn: Type.Enum(CURRENT_AGG_FNS),
  level: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  field: Type.Optional(Type.String()),
  alias: Type.Optional(Type.String()),
  where: Type.String(),
  whereLanguage: Type.Optional(Type.Enum(CURRENT_WHERE_LANGUAGES)),
  numberFormat: Type.Optional(CurrentNumberFormat),
  metricDataType: Type.Optional(Type.Enum(CURRENT_METRIC_TYPES)),
  metricName: Type.Optional(Type.String()),
};
const seriesGroupBy = Type.Array(Type.String(), { maxItems: L.maxSeriesGroupBy });

export const CurrentTimeSeries = Type.Object({
  type: Type.Literal('time'),
  ...seriesQuery,
  groupBy: seriesGroupBy,
  displayType: Type.Optional(Type.Enum(['stacked_bar', 'line'])),
});
export const CurrentTableSeries = Type.Object({ type: Type.Literal('table'), ...seriesQuery, groupBy: seriesGroupBy, sortOrder: Type.Optional(Type.Enum(['desc', 'asc'])) });
export const CurrentNumberSeries = Type.Object({ type: Type.Literal('number'), ...seriesQuery });
export const CurrentSearchSeries = Type.Object({
  type: Type.Literal('search'),
  sourceId: objectId,
  fields: Type.Array(Type.String()),
  where: Type.String(),
  whereLanguage: Type.Optional(Type.Enum(CURRENT_WHERE_LANGUAGES)),
});
export const CurrentMarkdownSeries = Type.Object({ type: Type.Literal('markdown'), content: Type.String({ maxLength: 100_000 }) });

/** Series of the old tile format by `type`. */
export const CURRENT_SERIES = {
  time: CurrentTimeSeries,
  table: CurrentTableSeries,
  number: CurrentNumberSeries,
  search: CurrentSearchSeries,
  markdown: CurrentMarkdownSeries,
} as const satisfies Record<(typeof CURRENT_SERIES_TYPES)[number], TSchema>;

export const CurrentSeries = Type.Union(Object.values(CURRENT_SERIES) as [typeof CurrentTimeSeries, ...TSchema[]]);

// ---------------------------------------------------------------- tiles and dashboards

const tilePlacement = {
  name: Type.String(),
  x: Type.Number({ minimum: 0, maximum: L.tileXMax }),
  y: Type.Number({ minimum: 0 }),
  w: Type.Number({ minimum: L.tileWMin, maximum: L.tileWMax }),
  h: Type.Number({ minimum: L.tileHMin }),
  containerId: Type.Optional(Type.String({ minLength: 1, maxLength: L.containerIdMaxLength })),
  tabId: Type.Optional(Type.String({ minLength: 1, maxLength: L.containerIdMaxLength })),
};

/**
 * A tile in a request: exactly one of `series` (checked against the series schemas) and `config`
 * (checked against the config schema of its display type). `id` is kept on PUT when it names a
 * tile of that dashboard; on POST it is ignored.
 */
export const CurrentTileWrite = Type.Object({
  id: Type.Optional(Type.String({ maxLength: L.tileIdMaxLength })),
  ...tilePlacement,
  asRatio: Type.Optional(Type.Boolean()),
  series: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1 })),
  config: Type.Optional(Type.Unknown()),
});

/** A tile as the service returns it: always a `config`, never `series`. */
export const CurrentTile = Type.Object({
  id: Type.String(),
  x: Type.Number(),
  y: Type.Number(),
  w: Type.Number(),
  h: Type.Number(),
  name: Type.String(),
  config: Type.Union([CurrentBuilderTileConfig, CurrentSqlTileConfig]),
  containerId: Type.Optional(Type.String()),
  tabId: Type.Optional(Type.String()),
});

export const CurrentDashboardFilter = Type.Object({
  id: Type.Optional(Type.String()),
  type: Type.Literal('QUERY_EXPRESSION'),
  name: Type.String({ minLength: 1 }),
  expression: Type.String({ minLength: 1 }),
  sourceId: objectId,
  sourceMetricType: Type.Optional(Type.Enum(CURRENT_METRIC_TYPES)),
  where: Type.Optional(Type.String()),
  whereLanguage: Type.Optional(Type.Enum(['sql', 'lucene'])),
  appliesToSourceIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  isBroadcastEnabled: Type.Optional(Type.Boolean()),
  isVariableEnabled: Type.Optional(Type.Boolean()),
  variableName: Type.Optional(Type.String({ maxLength: 64, pattern: '^[a-zA-Z][a-zA-Z0-9_]*$' })),
});

export const CurrentDashboardContainer = Type.Object({
  id: Type.String({ minLength: 1, maxLength: L.containerIdMaxLength }),
  title: Type.String({ minLength: 1, maxLength: 256 }),
  collapsed: Type.Boolean(),
  collapsible: Type.Optional(Type.Boolean()),
  bordered: Type.Optional(Type.Boolean()),
  tabs: Type.Optional(Type.Array(Type.Object({ id: Type.String({ minLength: 1, maxLength: L.containerIdMaxLength }), title: Type.String({ minLength: 1, maxLength: 256 }) }), { maxItems: L.maxTabs })),
});

export const CurrentSavedFilterValue = Type.Object({ type: Type.Optional(Type.Literal('sql')), condition: Type.String({ maxLength: L.textMaxLength }) });

const dashboardMembers = {
  name: Type.String({ maxLength: L.nameMaxLength }),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: L.tagMaxLength }), { maxItems: L.maxTags })),
  filters: Type.Optional(Type.Array(CurrentDashboardFilter)),
  savedQuery: Type.Optional(nullable(Type.String())),
  savedQueryLanguage: Type.Optional(nullable(Type.Enum(CURRENT_WHERE_LANGUAGES))),
  savedFilterValues: Type.Optional(Type.Array(CurrentSavedFilterValue)),
  containers: Type.Optional(Type.Array(CurrentDashboardContainer, { maxItems: L.maxContainers })),
};

/** Body of create and update dashboard; `tiles` is required on both. */
export const CurrentDashboardWrite = Type.Object({
  ...dashboardMembers,
  tiles: Type.Array(CurrentTileWrite, { maxItems: L.maxTiles }),
});

/** A dashboard as the service returns it. */
export const CurrentDashboard = Type.Object({
  id: Type.String(),
  name: Type.String(),
  tiles: Type.Array(CurrentTile),
  tags: Type.Array(Type.String()),
  filters: Type.Array(CurrentDashboardFilter),
  savedQuery: nullable(Type.String()),
  savedQueryLanguage: nullable(Type.String()),
  savedFilterValues: Type.Array(CurrentSavedFilterValue),
  containers: Type.Optional(Type.Array(CurrentDashboardContainer)),
});

// ---------------------------------------------------------------- alerts

/** The one channel type a request may name; stored alerts may hold others (email, …) and are returned as they are. */
export const CurrentWebhookChannel = Type.Object({ type: Type.Literal('webhook'), webhookId: Type.String({ minLength: 1 }) });
/** A channel as returned: `type` is open text, so a reader survives channel types it does not know. */
export const CurrentAlertChannel = Type.Object({ type: Type.String(), webhookId: Type.Optional(Type.String()) }, { additionalProperties: true });

const nullableText = (maxLength: number) => Type.Optional(nullable(Type.String({ minLength: 1, maxLength })));

/**
 * Body of create alert and of PUT (which replaces the configuration). Cross-member rules are
 * checked beside the schema: `savedSearchId` for `saved_search` (the default source), `dashboardId`
 * and `tileId` for `tile`, `thresholdMax` for the range types, `channel` or `channels`.
 */
export const CurrentAlertWrite = Type.Object({
  channel: Type.Optional(CurrentWebhookChannel),
  channels: Type.Optional(Type.Array(CurrentWebhookChannel, { minItems: 1, maxItems: CURRENT_MAX_ALERT_CHANNELS })),
  interval: Type.Enum(CURRENT_ALERT_INTERVALS),
  scheduleOffsetMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1439 })),
  scheduleStartAt: Type.Optional(nullable(Type.String({ format: 'date-time' }))),
  threshold: Type.Number(),
  thresholdType: Type.Enum(CURRENT_THRESHOLD_TYPES),
  thresholdMax: Type.Optional(Type.Number()),
  source: Type.Optional(Type.Enum(CURRENT_ALERT_SOURCES)),
  name: nullableText(512),
  message: nullableText(4096),
  note: nullableText(4096),
  numConsecutiveWindows: Type.Optional(nullable(Type.Integer({ minimum: 1 }))),
  groupBy: Type.Optional(nullable(Type.String())),
  savedSearchId: Type.Optional(Type.String({ minLength: 1 })),
  dashboardId: Type.Optional(Type.String({ minLength: 1 })),
  tileId: Type.Optional(Type.String({ minLength: 1 })),
});

export const CurrentAlertSilenced = Type.Object({ by: Type.Optional(Type.String()), at: Type.String(), until: Type.String() });

/**
 * An alert as the service returns it: `dashboardId` and `teamId` (not `dashboard`, `team`),
 * `state` one of the five, `channel` and `channels` only when a channel resolves, `silenced` an
 * object or absent, and the nullable members present as null.
 */
export const CurrentAlert = Type.Object({
  id: Type.String(),
  name: Type.Optional(nullable(Type.String())),
  message: Type.Optional(nullable(Type.String())),
  note: Type.Optional(nullable(Type.String())),
  threshold: Type.Number(),
  thresholdMax: Type.Optional(Type.Number()),
  interval: Type.String(),
  scheduleOffsetMinutes: Type.Optional(Type.Number()),
  scheduleStartAt: Type.Optional(nullable(Type.String())),
  numConsecutiveWindows: Type.Optional(nullable(Type.Number())),
  thresholdType: Type.String(),
  source: Type.Optional(Type.String()),
  state: Type.String(),
  channel: Type.Optional(CurrentAlertChannel),
  channels: Type.Optional(Type.Array(CurrentAlertChannel)),
  teamId: Type.String(),
  tileId: Type.Optional(Type.String()),
  dashboardId: Type.Optional(Type.String()),
  savedSearchId: Type.Optional(Type.String()),
  groupBy: Type.Optional(Type.String()),
  silenced: Type.Optional(CurrentAlertSilenced),
  executionErrors: Type.Optional(Type.Array(Type.Object({ timestamp: Type.String(), type: Type.String(), message: Type.String() }))),
  createdAt: Type.Optional(Type.String()),
  updatedAt: Type.Optional(Type.String()),
});

// ---------------------------------------------------------------- sources, webhooks, saved searches

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

/** A saved search, as far as alerts need one: it exists in the team. */
export const CurrentSavedSearch = Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: true });

// ---------------------------------------------------------------- static types

export type CurrentNumberFormat = Static<typeof CurrentNumberFormat>;
export type CurrentSelectItem = Static<typeof CurrentSelectItem>;
export type CurrentHeatmapSelectItem = Static<typeof CurrentHeatmapSelectItem>;
export type CurrentBuilderDisplayType = (typeof CURRENT_BUILDER_DISPLAY_TYPES)[number];
export type CurrentSqlDisplayType = (typeof CURRENT_SQL_DISPLAY_TYPES)[number];
export type CurrentBuilderTileConfig = { [K in CurrentBuilderDisplayType]: Static<(typeof CURRENT_BUILDER_CONFIGS)[K]> }[CurrentBuilderDisplayType];
export type CurrentSqlTileConfig = { [K in CurrentSqlDisplayType]: Static<(typeof CURRENT_SQL_CONFIGS)[K]> }[CurrentSqlDisplayType];
/** A tile's `config`: a builder chart or a raw SQL chart. */
export type CurrentTileConfig = CurrentBuilderTileConfig | CurrentSqlTileConfig;
export type CurrentSeriesType = (typeof CURRENT_SERIES_TYPES)[number];
export type CurrentSeries = { [K in CurrentSeriesType]: Static<(typeof CURRENT_SERIES)[K]> }[CurrentSeriesType];
export type CurrentTileWrite = Static<typeof CurrentTileWrite>;
export type CurrentTile = Omit<Static<typeof CurrentTile>, 'config'> & { config: CurrentTileConfig };
export type CurrentDashboardFilter = Static<typeof CurrentDashboardFilter>;
export type CurrentDashboardContainer = Static<typeof CurrentDashboardContainer>;
export type CurrentSavedFilterValue = Static<typeof CurrentSavedFilterValue>;
export type CurrentDashboardWrite = Static<typeof CurrentDashboardWrite>;
export type CurrentDashboard = Omit<Static<typeof CurrentDashboard>, 'tiles'> & { tiles: CurrentTile[] };
export type CurrentWebhookChannel = Static<typeof CurrentWebhookChannel>;
export type CurrentAlertChannel = Static<typeof CurrentAlertChannel>;
export type CurrentAlertWrite = Static<typeof CurrentAlertWrite>;
export type CurrentAlert = Static<typeof CurrentAlert>;
export type CurrentAlertSilenced = Static<typeof CurrentAlertSilenced>;
export type CurrentSource = Static<typeof CurrentSource>;
export type CurrentSavedSearch = Static<typeof CurrentSavedSearch>;
