/**
 * What the observability kinds' wire shapes of the `current` profile share, as the real services
 * speak them today (docs/reference/api-behaviour.md, "The real services today"): the enumerations
 * and limits several kinds name, and the building blocks of their TypeBox schemas. Each kind's
 * shapes are in its folder (`kinds/<kind>/wire.ts`); the seed profile's building blocks are in `api.ts`.
 *
 * Request schemas are lenient where the real validators are: members they do not know are
 * dropped (the emulator cleans a body with the schema before checking it), and null is accepted
 * where the real service marks a member nullable. The same schemas type the responses, which
 * always fit them: a body read with GET can be sent back with PUT.
 */
import { type TSchema, Type } from 'typebox';

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

export const L = CURRENT_DASHBOARD_LIMITS;
export const objectId = Type.String({ pattern: OBJECT_ID_PATTERN });
export const text = Type.String({ maxLength: L.textMaxLength });
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** Members the real service accepts and keeps without looking inside (palette tokens, link-outs, rules). */
export const opaque = Type.Unknown();
