/**
 * Tiles of the current profile, pure. A request tile carries either the old `series` (each naming
 * a `sourceId`) or a `config`; the service stores its own chart form and answers every tile as a
 * `config`. The answer is computed here directly, member by member in the real server's order,
 * as its two conversions (request → stored chart → response) would give it: a `series` tile
 * becomes the equivalent `config`, a `config` tile comes back normalised (`fillNulls: true`,
 * `where: ""`, `whereLanguage: "lucene"`, …). Normalising twice changes nothing, so a tile read
 * with GET and sent back with PUT is stored byte for byte as it was. One quirk of the real
 * service is kept on purpose: a count series' `field` is left out of the answer, and that answer
 * sent back gains `valueExpression: ""`.
 */
import {
  CURRENT_BUILDER_CONFIGS,
  CURRENT_SERIES,
  CURRENT_SQL_CONFIGS,
  type CurrentBuilderTileConfig,
  type CurrentHeatmapSelectItem,
  type CurrentSelectItem,
  type CurrentSeries,
  type CurrentSqlTileConfig,
  type CurrentTileConfig,
  type CurrentTileWrite,
  CURRENT_BUILDER_DISPLAY_TYPES,
  CURRENT_SERIES_TYPES,
  CURRENT_SQL_DISPLAY_TYPES,
} from '../../kinds/dashboard/wire.js';
import type { SchemaIssue } from '../../schema/validate.js';
import { clean, issueAt, type Pointer } from './validate.js';
import { isRecord } from '../../support/json.js';

type Json = Record<string, unknown>;

/** The object without its undefined members, as JSON would write it. */
function compact<T extends Json>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}

// ---------------------------------------------------------------- reading a request tile

/**
 * The tile's `config` in response form, or undefined when the tile is invalid (its problems are
 * added to `issues`, with paths below `at`).
 */
export function readTileConfig(
  tile: CurrentTileWrite,
  at: Pointer,
  issues: SchemaIssue[],
): CurrentTileConfig | undefined {
  const hasSeries = tile.series !== undefined;
  const hasConfig = tile.config !== undefined && tile.config !== null;
  if (hasSeries && hasConfig) issues.push(issueAt(at, 'Tile cannot have both series and config'));
  else if (!hasSeries && !hasConfig) issues.push(issueAt(at, 'Tile must have either series or config'));
  if (tile.asRatio !== undefined && hasConfig) {
    issues.push(
      issueAt(at, 'asRatio property is not supported when using config property. Specify config.asRatio instead.'),
    );
  }
  if (hasSeries && !hasConfig) {
    const series = readSeries(tile.series ?? [], [...at, 'series'], issues);
    return series ? seriesToConfig(series, tile.asRatio === true) : undefined;
  }
  if (hasConfig && !hasSeries) {
    const config = readConfig(tile.config, [...at, 'config'], issues);
    return config ? normalizeConfig(config) : undefined;
  }
  return undefined;
}

function readSeries(items: readonly unknown[], at: Pointer, issues: SchemaIssue[]): CurrentSeries[] | undefined {
  const before = issues.length;
  const series = items.map((item, index) => {
    const type = isRecord(item) ? item['type'] : undefined;
    if (!(CURRENT_SERIES_TYPES as readonly unknown[]).includes(type)) {
      issues.push(issueAt([...at, index, 'type'], `must be one of ${CURRENT_SERIES_TYPES.join(', ')}`));
      return undefined;
    }
    const checked = clean<CurrentSeries>(CURRENT_SERIES[type as CurrentSeries['type']], item, [...at, index]);
    issues.push(...checked.issues);
    return checked.value;
  });
  const types = new Set(series.map((entry) => entry?.type));
  if (types.size > 1) issues.push(issueAt(at, 'All series must have the same type'));
  return issues.length === before ? (series as CurrentSeries[]) : undefined;
}

function readConfig(value: unknown, at: Pointer, issues: SchemaIssue[]): CurrentTileConfig | undefined {
  if (!isRecord(value)) {
    issues.push(issueAt(at, 'must be an object'));
    return undefined;
  }
  const sql = value['configType'] === 'sql';
  const displayTypes: readonly string[] = sql ? CURRENT_SQL_DISPLAY_TYPES : CURRENT_BUILDER_DISPLAY_TYPES;
  const displayType = value['displayType'];
  if (typeof displayType !== 'string' || !displayTypes.includes(displayType)) {
    issues.push(issueAt([...at, 'displayType'], `must be one of ${displayTypes.join(', ')}`));
    return undefined;
  }
  const schema = sql
    ? CURRENT_SQL_CONFIGS[displayType as CurrentSqlTileConfig['displayType']]
    : CURRENT_BUILDER_CONFIGS[displayType as CurrentBuilderTileConfig['displayType']];
  const checked = clean<CurrentTileConfig>(schema, value, at);
  if (checked.issues.length) {
    issues.push(...checked.issues);
    return undefined;
  }
  const before = issues.length;
  if (!sql) checkBuilderRules(checked.value as CurrentBuilderTileConfig, at, issues);
  return issues.length === before ? checked.value : undefined;
}

/** The rules of a builder config that span members: select items, asRatio, number tiles. */
function checkBuilderRules(config: CurrentBuilderTileConfig, at: Pointer, issues: SchemaIssue[]): void {
  const select = 'select' in config && Array.isArray(config.select) ? config.select : undefined;
  if (select && config.displayType !== 'heatmap') {
    (select as CurrentSelectItem[]).forEach((item, index) => {
      checkSelectItem(item, [...at, 'select', index], issues);
    });
  }
  if ('asRatio' in config && config.asRatio && select?.length !== 2)
    issues.push(issueAt(at, 'asRatio can only be used with exactly two select items'));
  if (config.displayType === 'number' && !config.formulas?.length && config.select.length !== 1) {
    issues.push(
      issueAt(
        [...at, 'select'],
        'Number tiles support a single select item unless formulas are used (extra items are formula operands)',
      ),
    );
  }
}

function checkSelectItem(item: CurrentSelectItem, at: Pointer, issues: SchemaIssue[]): void {
  if (item.level !== undefined && item.aggFn !== 'quantile')
    issues.push(issueAt(at, 'Level can only be used with quantile aggregation function'));
  if (item.valueExpression && item.aggFn === 'count')
    issues.push(issueAt(at, 'Value expression cannot be used with count aggregation function'));
  else if (!item.valueExpression && item.aggFn !== 'count')
    issues.push(issueAt(at, 'Value expression is required for non-count aggregation functions'));
}

// ---------------------------------------------------------------- what a tile refers to

/** The source ids a tile names (every series' and the config's), for the check against the team's sources. */
export function tileSourceIds(tile: CurrentTileWrite, config: CurrentTileConfig): string[] {
  if (tile.series !== undefined)
    return (tile.series as Json[]).flatMap((series) =>
      typeof series['sourceId'] === 'string' ? [series['sourceId']] : [],
    );
  return 'sourceId' in config && config.sourceId ? [config.sourceId] : [];
}

/** Whether an alert may watch a tile of this config (builder and raw SQL alike). */
export function supportsAlerts(config: CurrentTileConfig): boolean {
  return config.displayType === 'line' || config.displayType === 'stacked_bar' || config.displayType === 'number';
}

// ---------------------------------------------------------------- normal form

/** A select item as the real server answers it after storing it. */
function normalizeSelectItem(item: CurrentSelectItem): CurrentSelectItem {
  return compact({
    alias: item.alias,
    metricType: item.metricType,
    metricName: item.metricName,
    numberFormat: item.numberFormat,
    // A leftover expression on a count is dropped on the way out (the count ignores it).
    valueExpression: item.aggFn === 'count' && item.valueExpression ? undefined : (item.valueExpression ?? ''),
    aggFn: item.aggFn,
    where: item.where ?? '',
    whereLanguage: item.whereLanguage ?? 'lucene',
    periodAggFn: item.periodAggFn === 'delta' ? 'delta' : undefined,
    level: item.aggFn === 'quantile' ? item.level : undefined,
  });
}

function normalizeHeatmapItem(item: CurrentHeatmapSelectItem): CurrentHeatmapSelectItem {
  return compact({
    valueExpression: item.valueExpression,
    countExpression: item.countExpression,
    heatmapScaleType: item.heatmapScaleType,
  });
}

/** Formulas come back only when there are some, and `showOperandSeries` only beside them. */
function formulaMembers(config: { formulas?: unknown[] | undefined; showOperandSeries?: boolean | undefined }): Json {
  if (!config.formulas?.length) return {};
  return config.showOperandSeries === undefined
    ? { formulas: config.formulas }
    : { formulas: config.formulas, showOperandSeries: config.showOperandSeries };
}

/** A config in the form the service answers with. */
export function normalizeConfig(config: CurrentTileConfig): CurrentTileConfig {
  return 'configType' in config ? normalizeSqlConfig(config) : normalizeBuilderConfig(config);
}

function normalizeBuilderConfig(config: CurrentBuilderTileConfig): CurrentBuilderTileConfig {
  switch (config.displayType) {
    case 'line':
      return compact({
        displayType: config.displayType,
        sourceId: config.sourceId,
        asRatio: config.asRatio === true && config.select.length === 2,
        alignDateRangeToGranularity: config.alignDateRangeToGranularity,
        fillNulls: config.fillNulls !== false,
        fitYAxisToData: config.fitYAxisToData,
        groupBy: config.groupBy,
        select: config.select.map(normalizeSelectItem),
        compareToPreviousPeriod: config.compareToPreviousPeriod,
        numberFormat: config.numberFormat,
        seriesLimit: config.seriesLimit,
        ...formulaMembers(config),
      });
    case 'stacked_bar':
      return compact({
        displayType: config.displayType,
        sourceId: config.sourceId,
        asRatio: config.asRatio === true && config.select.length === 2,
        alignDateRangeToGranularity: config.alignDateRangeToGranularity,
        fillNulls: config.fillNulls !== false,
        groupBy: config.groupBy,
        select: config.select.map(normalizeSelectItem),
        numberFormat: config.numberFormat,
        seriesLimit: config.seriesLimit,
        ...formulaMembers(config),
      });
    case 'table':
      return compact({
        having: config.having,
        numberFormat: config.numberFormat,
        groupByColumnsOnLeft: config.groupByColumnsOnLeft,
        onClick: config.onClick,
        displayType: config.displayType,
        sourceId: config.sourceId,
        asRatio: config.asRatio === true && config.select.length === 2,
        groupBy: config.groupBy,
        select: config.select.map(normalizeSelectItem),
        orderBy: config.orderBy,
        ...formulaMembers(config),
      });
    case 'number':
      return compact({
        displayType: config.displayType,
        sourceId: config.sourceId,
        // A formula tile keeps its operands; otherwise the tile shows its one select item.
        select: (config.formulas?.length ? config.select : config.select.slice(0, 1)).map(normalizeSelectItem),
        numberFormat: config.numberFormat,
        ...(config.formulas?.length ? { formulas: config.formulas } : {}),
        color: config.color,
        colorRules: config.colorRules?.length ? config.colorRules : undefined,
        backgroundChart: config.backgroundChart,
      });
    case 'pie':
    case 'bar':
      return compact({
        displayType: config.displayType,
        sourceId: config.sourceId,
        select: config.select.slice(0, 1).map(normalizeSelectItem),
        groupBy: config.groupBy,
        orderBy: config.orderBy,
        numberFormat: config.numberFormat,
        limit: config.limit,
      });
    case 'heatmap':
      return compact({
        displayType: config.displayType,
        sourceId: config.sourceId,
        select: config.select.slice(0, 1).map(normalizeHeatmapItem),
        where: config.where ?? '',
        whereLanguage: config.whereLanguage ?? 'lucene',
        numberFormat: config.numberFormat,
      });
    case 'search':
    case 'event_patterns':
      return {
        displayType: config.displayType,
        sourceId: config.sourceId,
        select: config.select ?? '',
        where: config.where ?? '',
        whereLanguage: config.whereLanguage ?? 'lucene',
      };
    case 'markdown':
      return { displayType: config.displayType, markdown: config.markdown ?? '' };
  }
}

function normalizeSqlConfig(config: CurrentSqlTileConfig): CurrentSqlTileConfig {
  const head = {
    configType: config.configType,
    displayType: config.displayType,
    connectionId: config.connectionId,
    sqlTemplate: config.sqlTemplate,
    sourceId: config.sourceId,
  };
  switch (config.displayType) {
    case 'line':
      return compact({
        ...head,
        displayType: config.displayType,
        alignDateRangeToGranularity: config.alignDateRangeToGranularity,
        fillNulls: config.fillNulls !== false,
        fitYAxisToData: config.fitYAxisToData,
        numberFormat: config.numberFormat,
        compareToPreviousPeriod: config.compareToPreviousPeriod,
      });
    case 'stacked_bar':
      return compact({
        ...head,
        displayType: config.displayType,
        alignDateRangeToGranularity: config.alignDateRangeToGranularity,
        fillNulls: config.fillNulls !== false,
        numberFormat: config.numberFormat,
      });
    case 'table':
      return compact({
        ...head,
        displayType: config.displayType,
        numberFormat: config.numberFormat,
        onClick: config.onClick,
      });
    case 'number':
      return compact({
        ...head,
        displayType: config.displayType,
        numberFormat: config.numberFormat,
        color: config.color,
      });
    case 'pie':
    case 'bar':
      return compact({ ...head, displayType: config.displayType, numberFormat: config.numberFormat });
  }
}

// ---------------------------------------------------------------- the old format, converted

type QuerySeries = Extract<CurrentSeries, { type: 'time' | 'table' | 'number' }>;

/** A series as a select item: `field` is the value expression, `where` the item's condition. */
function seriesSelectItem(series: QuerySeries): CurrentSelectItem {
  return compact({
    alias: series.alias || undefined,
    metricType: series.metricDataType || undefined,
    metricName: series.metricName || undefined,
    valueExpression: series.aggFn === 'count' && series.field ? undefined : (series.field ?? ''),
    aggFn: series.aggFn,
    where: series.where ?? '',
    whereLanguage: series.whereLanguage ?? 'lucene',
    level: series.aggFn === 'quantile' && isQuantileLevel(series.level) ? series.level : undefined,
  });
}

function isQuantileLevel(level: number | undefined): level is 0.5 | 0.9 | 0.95 | 0.99 {
  return level === 0.5 || level === 0.9 || level === 0.95 || level === 0.99;
}

/** The `config` equivalent of a tile's series, as the real service answers a tile created with them. */
export function seriesToConfig(series: readonly CurrentSeries[], asRatio: boolean): CurrentTileConfig {
  const first = series[0];
  if (!first) throw new Error('a series tile has at least one series');
  switch (first.type) {
    case 'time':
    case 'table': {
      const query = series as QuerySeries[];
      const select = query.map(seriesSelectItem);
      const groupBy = first.groupBy.join(',') || undefined;
      const numberFormat = query.find((entry) => entry.numberFormat)?.numberFormat;
      const ratio = asRatio && select.length === 2;
      if (first.type === 'table')
        return compact({
          numberFormat,
          displayType: 'table',
          sourceId: first.sourceId,
          asRatio: ratio,
          groupBy,
          select,
        });
      const chart = { sourceId: first.sourceId, asRatio: ratio, fillNulls: true, groupBy, select, numberFormat };
      return first.displayType === 'stacked_bar'
        ? compact({ displayType: 'stacked_bar', ...chart })
        : compact({ displayType: 'line', ...chart });
    }
    case 'number':
      return compact({
        displayType: 'number',
        sourceId: first.sourceId,
        select: [seriesSelectItem(first)],
        numberFormat: first.numberFormat,
      });
    case 'search':
      return {
        displayType: 'search',
        sourceId: first.sourceId,
        select: first.fields.join(', '),
        where: first.where ?? '',
        whereLanguage: first.whereLanguage ?? 'lucene',
      };
    case 'markdown':
      return { displayType: 'markdown', markdown: first.content };
  }
}
