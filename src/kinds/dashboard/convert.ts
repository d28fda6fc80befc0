/**
 * The seed's `series` tile in the form a current server speaks (`config`), where it maps exactly
 * (hyperdx `v2/utils/dashboards.ts`, the series → chart translation): one source, one series type,
 * the aggregations, their conditions, the group-by. The result holds only what the manifest says
 * and what the server derives from it exactly, so a plan against the server's normalised answer
 * is clean. Where a series does not map, the problem says what to write instead.
 */
import { CURRENT_AGG_FNS } from '../../schema/api-current.js';
import { CURRENT_QUANTILE_LEVELS } from './wire.js';
import { isRecord } from '../shared/values.js';
import { isOneOf } from '../../support/json.js';
import type { LiveSeries } from './model.js';

/** The converted chart, with where each series named its source (by name or id). */
export interface Converted {
  config: Record<string, unknown>;
  /** The source the series name (one for all). */
  source: { name: string } | { id: string } | undefined;
}

const QUERY_TYPES = ['time', 'table', 'number'];

/** Why a tile's series do not map onto a `config`, and the series it is about (its index), where it is one. */
export interface Unmapped {
  problem: string;
  series?: number;
}

/** The `config` of a tile written as series, or what to write instead. */
export function seriesToConfig(series: readonly LiveSeries[], asRatio: boolean): Converted | Unmapped {
  const [first] = series;
  if (!first) return { problem: 'it has an empty series list; give it a series, or write it as config' };
  const types = [...new Set(series.map((item) => item.type))];
  if (types.length > 1)
    return {
      problem: `its series are of different types (${types.join(', ')}); a current server takes one type per tile`,
      series: series.findIndex((item) => item.type !== first.type),
    };
  const source = sourceOf(series);
  if (source !== undefined && 'problem' in source) return source;
  const chart = chartOf(first.type, series, asRatio);
  return isUnmapped(chart) ? chart : { config: chart, source };
}

function isUnmapped(chart: Record<string, unknown> | Unmapped): chart is Unmapped {
  return typeof chart['problem'] === 'string';
}

function sourceOf(series: readonly LiveSeries[]): Converted['source'] | Unmapped {
  if (series[0]?.type === 'markdown') return undefined;
  const named = series.map((item) =>
    typeof item['source'] === 'string'
      ? { name: item['source'] }
      : typeof item['sourceId'] === 'string'
        ? { id: item['sourceId'] }
        : undefined,
  );
  const unnamed = named.indexOf(undefined);
  if (unnamed >= 0) {
    return {
      problem:
        "a current server names a tile's data by source, not dataSource: add `source: <name of a source>` to each series (or write the tile as config)",
      series: unnamed,
    };
  }
  const distinct = new Set(named.map((each) => JSON.stringify(each)));
  if (distinct.size > 1)
    return {
      problem:
        'its series name different sources; a current server reads a tile from one source: split it, or write it as config',
    };
  return named[0];
}

function chartOf(type: string, series: readonly LiveSeries[], asRatio: boolean): Record<string, unknown> | Unmapped {
  // Called with at least one series; none reads as one empty series of the type.
  const first: LiveSeries = series[0] ?? { type };
  if (type === 'markdown') return { displayType: 'markdown', markdown: text(first['content']) };
  // The documents require a search chart's language; the server's default, lucene, where the series names none.
  if (type === 'search')
    return {
      displayType: 'search',
      select: listOf(first['fields']).join(', '),
      where: text(first['where']),
      whereLanguage: 'lucene',
      ...language(first),
    };
  if (!QUERY_TYPES.includes(type))
    return {
      problem: `a current server has no ${type} series; write this tile as config (for a histogram, displayType: heatmap)`,
      series: 0,
    };
  const select: Record<string, unknown>[] = [];
  for (const [index, item] of series.entries()) {
    const converted = selectItem(item);
    if (typeof converted === 'string') return { problem: converted, series: index };
    select.push(converted);
  }
  if (type === 'number') return { displayType: 'number', select, ...numberFormat(series) };
  const groupBy = listOf(first['groupBy']).join(',');
  const chart: Record<string, unknown> = { select, ...(groupBy ? { groupBy } : {}), ...numberFormat(series) };
  if (asRatio && select.length !== 2) return { problem: 'asRatio needs exactly two series' };
  if (asRatio) chart['asRatio'] = true;
  if (type === 'table') return { displayType: 'table', ...chart };
  return { displayType: first['displayType'] === 'stacked_bar' ? 'stacked_bar' : 'line', ...chart };
}

/** One series as one select item: `field` is its value expression (a count has none), `where` its condition. */
function selectItem(series: LiveSeries): Record<string, unknown> | string {
  const aggFn = series['aggFn'];
  if (typeof aggFn !== 'string' || !isOneOf(CURRENT_AGG_FNS, aggFn))
    return `a ${series.type} series needs an aggFn a current server knows (${CURRENT_AGG_FNS.join(', ')})`;
  const field = series['field'];
  if (aggFn !== 'count' && (typeof field !== 'string' || field === ''))
    return `a ${aggFn} series needs the field it aggregates`;
  const level = series['level'];
  if (aggFn === 'quantile' && !isOneOf(CURRENT_QUANTILE_LEVELS, level)) {
    return `a quantile series needs its level on a current server: one of ${CURRENT_QUANTILE_LEVELS.join(', ')}`;
  }
  return {
    ...(typeof series['alias'] === 'string' && series['alias'] ? { alias: series['alias'] } : {}),
    ...(typeof series['metricDataType'] === 'string' ? { metricType: series['metricDataType'] } : {}),
    ...(typeof series['metricName'] === 'string' ? { metricName: series['metricName'] } : {}),
    ...(aggFn === 'count' ? {} : { valueExpression: field }),
    aggFn,
    where: text(series['where']),
    ...language(series),
    ...(aggFn === 'quantile' ? { level } : {}),
  };
}

/** The condition's language where the series names one (the server's default, lucene, otherwise). */
function language(series: LiveSeries): Record<string, unknown> {
  return typeof series['whereLanguage'] === 'string' ? { whereLanguage: series['whereLanguage'] } : {};
}

function numberFormat(series: readonly LiveSeries[]): Record<string, unknown> {
  const format = series.find((item) => isRecord(item['numberFormat']))?.['numberFormat'];
  return format === undefined ? {} : { numberFormat: format };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function listOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
