/**
 * Enumerations and bounds of the API: the seed spec where it speaks, `docs/reference/api-behaviour.md` where it says "not shown".
 * Plain data, so schemas, emulator, differ and docs read the same values.
 */

/** The kinds of manifest (the registry derives the order their writes run in from what each names). */
export const RESOURCE_KINDS = ['Pipe', 'Connection', 'Source', 'Dashboard', 'SavedSearch', 'Webhook', 'Alert', 'Role', 'PipeCdcScaling'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/**
 * Which spelling of the observability API a target takes on writes: the seed's (`search`,
 * `series` tiles) or the real services' of today (`saved_search`). Reading accepts both always.
 */
export const API_PROFILES = ['seed', 'current'] as const;
export type ApiProfile = (typeof API_PROFILES)[number];
export const DEFAULT_API_PROFILE: ApiProfile = 'seed';

/** The API variants a target speaks: the managed cloud API (HTTP Basic) or the self-hosted one (Bearer). */
export const TARGET_VARIANTS = ['managed', 'self-hosted'] as const;

export const ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const;
export const ALERT_THRESHOLD_TYPES = ['above', 'below'] as const;
export const ALERT_SOURCES = ['tile', 'search'] as const;
export const ALERT_CHANNEL_TYPES = ['webhook'] as const;

/** Threshold types a manifest may name: the seed's two and the six newer servers add (docs/reference/api-behaviour.md). */
export const MANIFEST_THRESHOLD_TYPES = ['above', 'below', 'above_exclusive', 'below_or_equal', 'equal', 'not_equal', 'between', 'not_between'] as const;
/** Alert sources a manifest may name: `saved_search`, the one manifests, plans and export write; `search` (the seed's word) is read as it. */
export const MANIFEST_ALERT_SOURCES = ['tile', 'search', 'saved_search'] as const;

export const SERIES_TYPES = ['time', 'histogram', 'search', 'number', 'table', 'markdown'] as const;
export const SERIES_DATA_SOURCES = ['events', 'metrics'] as const;
export const SERIES_AGG_FNS = [
  'avg', 'count', 'count_distinct', 'last_value', 'max', 'min', 'quantile', 'sum', 'any', 'none',
] as const;
/** Series types that cannot render without an aggregation function. */
export const SERIES_TYPES_NEEDING_AGG_FN = ['time', 'table', 'number'] as const;

export const PIPE_STATES = ['Provisioning', 'Running', 'Stopped', 'Failed', 'Paused', 'Completed'] as const;
export const PIPE_SOURCE_KINDS = ['kafka', 'objectStorage', 'kinesis', 'postgres'] as const;
export type PipeSourceKind = (typeof PIPE_SOURCE_KINDS)[number];

export const OBJECT_STORAGE_COMPRESSIONS = ['none', 'gzip', 'gz', 'brotli', 'br', 'xz', 'LZMA', 'zstd', 'auto'] as const;
export const SCHEMA_REGISTRY_AUTHENTICATIONS = ['PLAIN'] as const;

export const SOURCE_KINDS = ['log', 'trace', 'metric', 'session'] as const;
export const SERVICE_STATES = ['running', 'idle', 'stopped'] as const;

/** Integer pipe settings and the bounds the real service enforces (inclusive). */
export const PIPE_SETTING_BOUNDS = {
  streaming_max_insert_wait_ms: [500, 60_000],
  object_storage_concurrency: [1, 35],
  object_storage_polling_interval_ms: [100, 3_600_000],
  object_storage_max_insert_bytes: [10_485_760, 53_687_091_200],
  object_storage_max_file_count: [1, 10_000],
  engine_max_threads: [0, 64],
  engine_max_insert_threads: [0, 16],
  engine_min_insert_block_size_bytes: [0, 10_737_418_240],
  engine_max_download_threads: [0, 32],
  engine_parallel_distributed_insert_select: [0, 2],
} as const;
export const PIPE_BOOLEAN_SETTINGS = ['object_storage_use_cluster_function', 'engine_parallel_view_processing'] as const;

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

/** Self-hosted alert list paging. */
export const ALERT_PAGE_LIMIT_MAX = 1000;

/** The real services' request budgets; clients pace below these by default. */
export const DEFAULT_RATE_LIMITS = {
  managed: { requests: 10, perSeconds: 10, concurrency: 2 },
  'self-hosted': { requests: 100, perSeconds: 60, concurrency: 4 },
} as const;
