/**
 * A dashboard's wire shapes: the seed's (tiles with `series`) and the `current` profile's, as the
 * real services speak them today (docs/reference/api-behaviour.md, "The real services today"):
 * tiles in the `config` format (or the old `series` format naming a `sourceId`), the answer of
 * `dashboards/validate` and hidden tiles. A tile `config` is one schema per `displayType` (and per
 * `configType: "sql"`), looked up by its discriminator rather than tried as a union, so an error
 * names the member that is wrong.
 */
import { type Static, type TSchema, Type } from 'typebox';
import { CURRENT_AGG_FNS, nullable, objectId } from '../../schema/api-current.js';
import { boolean, nonEmptyString, string, stringArray, timestamp } from '../../schema/api.js';
import { object, oneOf, optional, unionOf } from '../../schema/build.js';

// ---------------------------------------------------------------- enumerations and limits

export const CURRENT_QUANTILE_LEVELS = [0.5, 0.9, 0.95, 0.99] as const;
/** A chart's or a dashboard's query languages, as both services' documents list them (no `promql`). */
export const CURRENT_WHERE_LANGUAGES = ['sql', 'lucene'] as const;
export const CURRENT_METRIC_TYPES = ['gauge', 'histogram', 'sum', 'summary', 'exponential histogram'] as const;
export const CURRENT_NUMBER_FORMAT_OUTPUTS = [
  'currency',
  'percent',
  'byte',
  'time',
  'duration',
  'number',
  'data_rate',
  'throughput',
] as const;
/** A number format's units, as both services' documents list them. */
export const CURRENT_NUMERIC_UNITS = [
  'bytes_iec',
  'bytes_si',
  'bits_iec',
  'bits_si',
  'kibibytes',
  'kilobytes',
  'mebibytes',
  'megabytes',
  'gibibytes',
  'gigabytes',
  'tebibytes',
  'terabytes',
  'pebibytes',
  'petabytes',
  'packets_sec',
  'bytes_sec_iec',
  'bytes_sec_si',
  'bits_sec_iec',
  'bits_sec_si',
  'kibibytes_sec',
  'kibibits_sec',
  'kilobytes_sec',
  'kilobits_sec',
  'mebibytes_sec',
  'mebibits_sec',
  'megabytes_sec',
  'megabits_sec',
  'gibibytes_sec',
  'gibibits_sec',
  'gigabytes_sec',
  'gigabits_sec',
  'tebibytes_sec',
  'tebibits_sec',
  'terabytes_sec',
  'terabits_sec',
  'pebibytes_sec',
  'pebibits_sec',
  'petabytes_sec',
  'petabits_sec',
  'cps',
  'ops',
  'rps',
  'reads_sec',
  'wps',
  'iops',
  'cpm',
  'opm',
  'rpm_reads',
  'wpm',
] as const;
/** The chart palette a number tile's colours are named from, as both services' documents list it. */
export const CURRENT_PALETTE = [
  'chart-blue',
  'chart-orange',
  'chart-red',
  'chart-cyan',
  'chart-green',
  'chart-pink',
  'chart-purple',
  'chart-light-blue',
  'chart-brown',
  'chart-gray',
  'chart-success',
  'chart-warning',
  'chart-error',
] as const;
export const CURRENT_BUILDER_DISPLAY_TYPES = [
  'line',
  'stacked_bar',
  'table',
  'number',
  'pie',
  'bar',
  'heatmap',
  'search',
  'markdown',
  'event_patterns',
] as const;
export const CURRENT_SQL_DISPLAY_TYPES = ['line', 'stacked_bar', 'table', 'number', 'pie', 'bar'] as const;
export const CURRENT_SERIES_TYPES = ['time', 'table', 'number', 'search', 'markdown'] as const;
/** Display types whose tiles can carry an alert (builder and raw SQL alike). */
export const CURRENT_ALERTABLE_DISPLAY_TYPES = ['line', 'stacked_bar', 'number'] as const;
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
const L = CURRENT_DASHBOARD_LIMITS;
const text = Type.String({ maxLength: L.textMaxLength });
/** Members the real service accepts and keeps without looking inside (palette tokens, link-outs, rules). */
const opaque = Type.Unknown();

export const SERIES_TYPES = ['time', 'histogram', 'search', 'number', 'table', 'markdown'] as const;
export const SERIES_DATA_SOURCES = ['events', 'metrics'] as const;
export const SERIES_AGG_FNS = [
  'avg',
  'count',
  'count_distinct',
  'last_value',
  'max',
  'min',
  'quantile',
  'sum',
  'any',
  'none',
] as const;
/** Series types that cannot render without an aggregation function. */
export const SERIES_TYPES_NEEDING_AGG_FN = ['time', 'table', 'number'] as const;
/** Dashboard limits of the real service. */
export const DASHBOARD_LIMITS = {
  nameMaxLength: 1024,
  maxTiles: 500,
  maxTags: 50,
  tagMaxLength: 32,
  tileXMax: 23,
  tileWMin: 1,
  tileWMax: 24,
  tileHMin: 1,
} as const;

// ---------------------------------------------------------------- the seed profile

export const seriesSchema = object(
  {
    type: oneOf(SERIES_TYPES),
    ...optional({
      dataSource: oneOf(SERIES_DATA_SOURCES),
      aggFn: oneOf(SERIES_AGG_FNS),
      field: string,
      where: string,
      groupBy: stringArray,
      content: string,
    }),
  },
  {
    if: { properties: { type: { enum: [...SERIES_TYPES_NEEDING_AGG_FN] } } },
    then: { required: ['aggFn'] },
  },
);

/** A tile's members other than its id, with the service's limits; manifests write tiles with just these. */
export const tileMembers = {
  name: Type.String({ minLength: 1, maxLength: DASHBOARD_LIMITS.nameMaxLength }),
  x: Type.Integer({ minimum: 0, maximum: DASHBOARD_LIMITS.tileXMax }),
  y: Type.Integer({ minimum: 0 }),
  w: Type.Integer({ minimum: DASHBOARD_LIMITS.tileWMin, maximum: DASHBOARD_LIMITS.tileWMax }),
  h: Type.Integer({ minimum: DASHBOARD_LIMITS.tileHMin }),
  asRatio: Type.Optional(boolean),
  series: Type.Array(seriesSchema),
};

/** A tile in a request: ids are optional (ignored on POST, matched on PUT). */
export const tileWriteSchema = object({ id: Type.Optional(string), ...tileMembers });
/** A tile as the service returns it. */
export const tileSchema = object({ id: nonEmptyString, ...tileMembers });

export const dashboardNameSchema = Type.String({ minLength: 1, maxLength: DASHBOARD_LIMITS.nameMaxLength });
export const dashboardTagsSchema = Type.Array(Type.String({ minLength: 1, maxLength: DASHBOARD_LIMITS.tagMaxLength }), {
  maxItems: DASHBOARD_LIMITS.maxTags,
});

/** A dashboard's tile list, at most as long as the service allows. */
export function tileList<T extends TSchema>(tile: T, options: { description?: string } = {}) {
  return Type.Array(tile, { maxItems: DASHBOARD_LIMITS.maxTiles, ...options });
}

export const dashboardCreateBodySchema = object({
  name: dashboardNameSchema,
  ...optional({ tiles: tileList(tileWriteSchema), tags: dashboardTagsSchema }),
});
/** PUT replaces name and the whole tile list; tags left out stay as they were. */
export const dashboardUpdateBodySchema = object({
  id: Type.Optional(string),
  name: dashboardNameSchema,
  tiles: tileList(tileWriteSchema),
  tags: Type.Optional(dashboardTagsSchema),
});
export const dashboardSchema = object({
  id: nonEmptyString,
  name: string,
  tiles: Type.Array(tileSchema),
  ...optional({ tags: stringArray, team: string, createdAt: timestamp, updatedAt: timestamp }),
});

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
const formula = Type.Object({
  expression: Type.String({ maxLength: 1024 }),
  alias: Type.Optional(Type.String()),
  numberFormat: Type.Optional(CurrentNumberFormat),
});
const formulas = Type.Array(formula, { maxItems: 10 });
const palette = Type.Enum(CURRENT_PALETTE);
const colorRuleLabel = Type.Optional(Type.String({ maxLength: 40 }));
const numericColorRule = Type.Object({
  operator: Type.Enum(['gt', 'gte', 'lt', 'lte']),
  value: Type.Number(),
  color: palette,
  label: colorRuleLabel,
});
const betweenColorRule = Type.Object({
  operator: Type.Literal('between'),
  value: Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }),
  color: palette,
  label: colorRuleLabel,
});
const equalityColorRule = Type.Object({
  operator: Type.Enum(['eq', 'neq']),
  value: Type.Union([Type.Number(), Type.String({ maxLength: 200 })]),
  color: palette,
  label: colorRuleLabel,
});
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

// ---------------------------------------------------------------- the current profile: tile configs, builder

export const CurrentLineConfig = Type.Object({
  displayType: Type.Literal('line'),
  ...timeChart,
  compareToPreviousPeriod: Type.Optional(Type.Boolean()),
  fitYAxisToData: Type.Optional(Type.Boolean()),
  seriesLimit: Type.Optional(seriesLimit),
});
export const CurrentStackedBarConfig = Type.Object({
  displayType: Type.Literal('stacked_bar'),
  ...timeChart,
  seriesLimit: Type.Optional(seriesLimit),
});
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
  colorRules: Type.Optional(
    Type.Array(Type.Union([numericColorRule, betweenColorRule, equalityColorRule]), { maxItems: 10 }),
  ),
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
export const CurrentMarkdownConfig = Type.Object({
  displayType: Type.Literal('markdown'),
  markdown: Type.Optional(Type.String({ maxLength: L.markdownMaxLength })),
});
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
export const CurrentSqlTableConfig = Type.Object({
  ...sqlChart,
  displayType: Type.Literal('table'),
  onClick: Type.Optional(opaque),
});
export const CurrentSqlNumberConfig = Type.Object({
  ...sqlChart,
  displayType: Type.Literal('number'),
  color: Type.Optional(palette),
});
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

export const CurrentBuilderTileConfig = unionOf(CURRENT_BUILDER_CONFIGS);
export const CurrentSqlTileConfig = unionOf(CURRENT_SQL_CONFIGS);

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
export const CurrentTableSeries = Type.Object({
  type: Type.Literal('table'),
  ...seriesQuery,
  groupBy: seriesGroupBy,
  sortOrder: Type.Optional(Type.Enum(['desc', 'asc'])),
});
export const CurrentNumberSeries = Type.Object({ type: Type.Literal('number'), ...seriesQuery });
export const CurrentSearchSeries = Type.Object({
  type: Type.Literal('search'),
  sourceId: objectId,
  fields: Type.Array(Type.String()),
  where: Type.String(),
  whereLanguage: Type.Optional(Type.Enum(CURRENT_WHERE_LANGUAGES)),
});
export const CurrentMarkdownSeries = Type.Object({
  type: Type.Literal('markdown'),
  content: Type.String({ maxLength: 100_000 }),
});

/** Series of the old tile format by `type`. */
export const CURRENT_SERIES = {
  time: CurrentTimeSeries,
  table: CurrentTableSeries,
  number: CurrentNumberSeries,
  search: CurrentSearchSeries,
  markdown: CurrentMarkdownSeries,
} as const satisfies Record<(typeof CURRENT_SERIES_TYPES)[number], TSchema>;

export const CurrentSeries = unionOf(CURRENT_SERIES);

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
  tabs: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String({ minLength: 1, maxLength: L.containerIdMaxLength }),
        title: Type.String({ minLength: 1, maxLength: 256 }),
      }),
      { maxItems: L.maxTabs },
    ),
  ),
});

export const CurrentSavedFilterValue = Type.Object({
  type: Type.Optional(Type.Literal('sql')),
  condition: Type.String({ maxLength: L.textMaxLength }),
});

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

// ---------------------------------------------------------------- static types

export type CurrentNumberFormat = Static<typeof CurrentNumberFormat>;
export type CurrentSelectItem = Static<typeof CurrentSelectItem>;
export type CurrentHeatmapSelectItem = Static<typeof CurrentHeatmapSelectItem>;
export type CurrentBuilderDisplayType = (typeof CURRENT_BUILDER_DISPLAY_TYPES)[number];
export type CurrentSqlDisplayType = (typeof CURRENT_SQL_DISPLAY_TYPES)[number];
export type CurrentBuilderTileConfig = {
  [K in CurrentBuilderDisplayType]: Static<(typeof CURRENT_BUILDER_CONFIGS)[K]>;
}[CurrentBuilderDisplayType];
export type CurrentSqlTileConfig = {
  [K in CurrentSqlDisplayType]: Static<(typeof CURRENT_SQL_CONFIGS)[K]>;
}[CurrentSqlDisplayType];
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

export type CurrentDashboardValidation = Static<typeof CurrentDashboardValidation>;
export type CurrentHiddenTile = Static<typeof CurrentHiddenTile>;
