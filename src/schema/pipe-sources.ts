/**
 * The pipe source families of the real managed service and everything that varies by family:
 * flavours (`type`), formats, authentication modes, which families scale, resync or share the
 * service-wide CDC scaling, and the bounds of both scaling operations. Plain data, read alike by
 * the emulator's `current` profile and by the client (validate, differ, schemas).
 *
 * Sources: docs/reference/api-behaviour.md, "The real services today: the whole lifecycle" (the project's reading of
 * them, which wins where it speaks); the managed OpenAPI's ClickPipes schemas; the Terraform
 * provider's `clickhouse_clickpipe` and `clickhouse_clickpipe_cdc_infrastructure` resources.
 */
import type { Lacked } from './lacked.js';
import type { ApiProfile } from './enums.js';

/** The key of a pipe's one source block. */
export const PIPE_FAMILIES = [
  'kafka',
  'objectStorage',
  'kinesis',
  'pubsub',
  'postgres',
  'mysql',
  'mongodb',
  'bigquery',
] as const;
export type PipeFamily = (typeof PIPE_FAMILIES)[number];

/**
 * `type` of the families that have flavours. Object storage: docs/reference/api-behaviour.md and the provider name three
 * (the newest OpenAPI also lists dospaces, cloudflarer2, ovhobjectstorage); MySQL: docs/reference/api-behaviour.md and
 * the provider name six (the OpenAPI omits planetscalevitess). Postgres and MySQL default their
 * `type` to the family's own name when it is left out (OpenAPI: 'Defaults to "postgres"').
 */
export const PIPE_FLAVOURS = {
  kafka: ['kafka', 'confluent', 'msk', 'azureeventhub', 'redpanda', 'warpstream', 'gcmk', 'dokafka'],
  objectStorage: ['s3', 'gcs', 'azureblobstorage'],
  postgres: [
    'postgres',
    'supabase',
    'neon',
    'alloydb',
    'planetscale',
    'rdspostgres',
    'aurorapostgres',
    'cloudsqlpostgres',
    'azurepostgres',
    'crunchybridge',
    'tigerdata',
  ],
  mysql: ['mysql', 'rdsmysql', 'auroramysql', 'planetscalevitess', 'mariadb', 'rdsmariadb'],
} as const;
export type FlavouredFamily = keyof typeof PIPE_FLAVOURS;

/** Families whose `type` may be left out on create, and what it then is. */
export const DEFAULT_PIPE_FLAVOURS: Partial<Record<FlavouredFamily, string>> = { postgres: 'postgres', mysql: 'mysql' };

/** What a family is, which decides how it settles, stops and scales. */
export type PipeFamilyClass = 'streaming' | 'objectStorage' | 'database';

export const PIPE_FAMILY_CLASSES: Record<PipeFamily, PipeFamilyClass> = {
  kafka: 'streaming',
  kinesis: 'streaming',
  pubsub: 'streaming',
  objectStorage: 'objectStorage',
  postgres: 'database',
  mysql: 'database',
  mongodb: 'database',
  bigquery: 'database',
};

/** Families that take `PATCH …/pipes/{id}/scaling` (docs/reference/api-behaviour.md; provider: CDC sources refuse it). */
export const SCALABLE_PIPE_FAMILIES: readonly PipeFamily[] = ['kafka', 'kinesis', 'objectStorage'];
/** Families that take the `resync` command (OpenAPI: Postgres and MySQL; the provider also sends it for MongoDB). */
export const RESYNCABLE_PIPE_FAMILIES: readonly PipeFamily[] = ['postgres', 'mysql', 'mongodb'];
/** Families that only ever take a snapshot: they end `Completed`, and take no change after create. */
export const SNAPSHOT_ONLY_PIPE_FAMILIES: readonly PipeFamily[] = ['bigquery'];
/** Families whose table mappings change by `tableMappingsToAdd`/`ToRemove`, only while paused. */
export const MAPPED_PIPE_FAMILIES: readonly PipeFamily[] = ['postgres', 'mysql', 'mongodb'];
/** Families sharing the service's CDC scaling (OpenAPI: "database ClickPipes (PostgreSQL, MySQL, MongoDB, BigQuery)"). */
export const CDC_SCALING_PIPE_FAMILIES: readonly PipeFamily[] = ['postgres', 'mysql', 'mongodb', 'bigquery'];

/** The members that identify one table mapping, by family; a changed mapping is a removal, then an add. */
export const TABLE_MAPPING_KEYS: Partial<Record<PipeFamily, readonly [string, string]>> = {
  postgres: ['sourceSchemaName', 'sourceTable'],
  mysql: ['sourceSchemaName', 'sourceTable'],
  mongodb: ['sourceDatabaseName', 'sourceCollection'],
  bigquery: ['sourceDatasetName', 'sourceTable'],
};

/** How the families name themselves in the service's messages ("Postgres ClickPipe must be paused to edit"). */
export const PIPE_FAMILY_TITLES: Record<PipeFamily, string> = {
  kafka: 'Kafka',
  objectStorage: 'Object storage',
  kinesis: 'Kinesis',
  pubsub: 'Pub/Sub',
  postgres: 'Postgres',
  mysql: 'MySQL',
  mongodb: 'MongoDB',
  bigquery: 'BigQuery',
};

// ---------------------------------------------------------------- formats and modes (OpenAPI)

export const PIPE_FORMATS = {
  kafka: ['JSONEachRow', 'Avro', 'AvroConfluent', 'Protobuf'],
  kinesis: ['JSONEachRow', 'Avro', 'AvroConfluent', 'Protobuf'],
  pubsub: ['JSONEachRow', 'Avro', 'Protobuf'],
  objectStorage: [
    'JSONEachRow',
    'JSONAsObject',
    'CSV',
    'CSVWithNames',
    'TabSeparated',
    'TabSeparatedWithNames',
    'Parquet',
    'Avro',
  ],
} as const;

export const KAFKA_AUTHENTICATIONS = [
  'PLAIN',
  'SCRAM-SHA-256',
  'SCRAM-SHA-512',
  'IAM_ROLE',
  'IAM_USER',
  'MUTUAL_TLS',
  'SERVICE_ACCOUNT_WORKLOAD_IDENTITY',
] as const;
/** OpenAPI, kafka `authentication`: "Supported authentication methods: kafka: PLAIN, SCRAM-SHA-256, …". */
export const KAFKA_AUTHENTICATIONS_BY_FLAVOUR: Record<
  (typeof PIPE_FLAVOURS)['kafka'][number],
  readonly (typeof KAFKA_AUTHENTICATIONS)[number][]
> = {
  kafka: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'MUTUAL_TLS'],
  msk: ['SCRAM-SHA-512', 'IAM_ROLE', 'IAM_USER', 'MUTUAL_TLS'],
  gcmk: ['PLAIN', 'MUTUAL_TLS', 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY'],
  confluent: ['PLAIN', 'MUTUAL_TLS'],
  warpstream: ['PLAIN'],
  azureeventhub: ['PLAIN'],
  redpanda: ['SCRAM-SHA-256', 'SCRAM-SHA-512', 'MUTUAL_TLS'],
  dokafka: ['SCRAM-SHA-256', 'MUTUAL_TLS'],
};
export const KAFKA_OFFSET_STRATEGIES = ['from_beginning', 'from_latest', 'from_timestamp'] as const;
export const KAFKA_TOMBSTONE_MODES = ['delete', 'soft_delete'] as const;

export const OBJECT_STORAGE_AUTHENTICATIONS = [
  'IAM_ROLE',
  'IAM_USER',
  'CONNECTION_STRING',
  'SERVICE_ACCOUNT',
  'SERVICE_ACCOUNT_WORKLOAD_IDENTITY',
] as const;
/**
 * OpenAPI: "IAM_USER is for S3, GCS …; IAM_ROLE is for S3 only; SERVICE_ACCOUNT is for GCS only;
 * CONNECTION_STRING is for Azure Blob Storage". No authentication is a public bucket.
 */
export const OBJECT_STORAGE_AUTHENTICATIONS_BY_FLAVOUR: Record<
  (typeof PIPE_FLAVOURS)['objectStorage'][number],
  readonly (typeof OBJECT_STORAGE_AUTHENTICATIONS)[number][]
> = {
  s3: ['IAM_ROLE', 'IAM_USER'],
  gcs: ['IAM_USER', 'SERVICE_ACCOUNT', 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY'],
  azureblobstorage: ['CONNECTION_STRING'],
};

export const KINESIS_AUTHENTICATIONS = ['IAM_ROLE', 'IAM_USER'] as const;
export const KINESIS_ITERATOR_TYPES = ['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'] as const;

export const PUBSUB_AUTHENTICATIONS = ['SERVICE_ACCOUNT', 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY'] as const;
export const PUBSUB_SEEK_TYPES = ['latest', 'earliest', 'timestamp'] as const;

export const DATABASE_AUTHENTICATIONS = ['basic', 'IAM_ROLE'] as const;
export const REPLICATION_MODES = ['cdc', 'snapshot', 'cdc_only'] as const;
export const MYSQL_REPLICATION_MECHANISMS = ['GTID', 'FILE_POS'] as const;
/** OpenAPI: "MariaDB supports GTID only". */
export const MARIADB_FLAVOURS: readonly string[] = ['mariadb', 'rdsmariadb'];
export const MONGODB_READ_PREFERENCES = [
  'primary',
  'primaryPreferred',
  'secondary',
  'secondaryPreferred',
  'nearest',
] as const;
export const TABLE_ENGINES = ['MergeTree', 'ReplacingMergeTree', 'Null'] as const;
export const DESTINATION_TABLE_ENGINES = ['MergeTree', 'ReplacingMergeTree', 'SummingMergeTree', 'Null'] as const;
export const BIGQUERY_AUTHENTICATIONS = ['SERVICE_ACCOUNT', 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY'] as const;

// ---------------------------------------------------------------- lifecycle

/** States the real API returns (OpenAPI `ClickPipe.state`); clients treat any other text as opaque. */
export const CURRENT_PIPE_STATES = [
  'Unknown',
  'Provisioning',
  'Running',
  'Degraded',
  'Stopping',
  'Stopped',
  'Failed',
  'Completed',
  'InternalError',
  'Setup',
  'Snapshot',
  'Paused',
  'Pausing',
  'Modifying',
  'Resync',
] as const;

export const PIPE_STATE_COMMANDS = ['start', 'stop', 'resync'] as const;
export type PipeStateCommand = (typeof PIPE_STATE_COMMANDS)[number];

/** OpenAPI, Update ClickPipe state: "Starting is allowed for ClickPipes in the Stopped state or with a Failed state"; a stopped database pipe is `Paused`. */
export const STARTABLE_PIPE_STATES: readonly string[] = ['Stopped', 'Paused', 'Failed'];
/** Provider: CDC pipes accept table-mapping edits only once settled in one of these (`isClickPipeStoppedOrPaused`). */
export const EDITABLE_MAPPING_STATES: readonly string[] = ['Stopped', 'Paused'];
/**
 * Whether a table-mapping edit waits for the pipe to be paused, by the profile a target speaks: the
 * real services refuse one on a running pipe ("must be paused to edit", docs/reference/api-behaviour.md); the seed's
 * Update pipe takes it as it is, and the seed has no state command to pause a pipe with.
 */
export const MAPPING_EDIT_NEEDS_PAUSE: Readonly<Record<ApiProfile, boolean>> = { seed: false, current: true };

// ---------------------------------------------------------------- scaling

/**
 * `PATCH …/pipes/{id}/scaling` bounds, inclusive: the newest managed OpenAPI's (`ClickPipeScaling`,
 * `ClickPipeScalingPatchRequest`: replicas 1–40; the provider's validators once said 1–10), and
 * `concurrency`, deprecated and for object storage only, 0–34 (0: automatic).
 */
export const PIPE_SCALING_BOUNDS = {
  replicas: { minimum: 1, maximum: 40 },
  replicaCpuMillicores: { minimum: 125, maximum: 2000 },
  replicaMemoryGb: { minimum: 0.5, maximum: 8 },
  concurrency: { minimum: 0, maximum: 34 },
} as const;

/** Scaling of a new streaming or object-storage pipe created without one. */
export const DEFAULT_PIPE_SCALING = { replicas: 1, replicaCpuMillicores: 250, replicaMemoryGb: 1 } as const;

/**
 * `…/pipesCdcScaling` bounds (provider `clickhouse_clickpipe_cdc_infrastructure`): CPU in steps of
 * 1000 millicores, memory in steps of 4 GB and exactly 4 GB per CPU core.
 */
export const CDC_SCALING_BOUNDS = {
  replicaCpuMillicores: { minimum: 1000, maximum: 24000, multipleOf: 1000 },
  replicaMemoryGb: { minimum: 4, maximum: 96, multipleOf: 4 },
  memoryGbPerCore: 4,
} as const;

/**
 * What is wrong with a CDC sizing's memory for its CPU (it must be `memoryGbPerCore` per core);
 * undefined when nothing. One rule for the manifest check and the emulator's answer alike.
 */
export function cdcMemoryProblem(cpuMillicores: number, memoryGb: number): string | undefined {
  const perCore = CDC_SCALING_BOUNDS.memoryGbPerCore;
  const expected = (cpuMillicores / 1000) * perCore;
  return memoryGb === expected
    ? undefined
    : `must be ${perCore} GB per CPU core: ${expected} for ${cpuMillicores} millicores`;
}

/** The CDC scaling a service starts with once its first database pipe is provisioned (2 CPU + 8 GB, one compute unit). */
export const DEFAULT_CDC_SCALING = { replicaCpuMillicores: 2000, replicaMemoryGb: 8 } as const;

/** The settings prefix of the seed (`engine_max_threads`); real servers spell it with the engine's name. */
export const DEFAULT_SETTINGS_PREFIX = 'engine_';

export function isPipeFamily(name: string): name is PipeFamily {
  return (PIPE_FAMILIES as readonly string[]).includes(name);
}

const WORKLOAD_IDENTITY = ['SERVICE_ACCOUNT_WORKLOAD_IDENTITY'];

/**
 * Members and values of a pipe born in Git that the managed service's newest API description
 * (its create, its update and its answer) does not have, though the seed spec or the Terraform
 * provider name them (docs/manifests/pipe.md#what-a-target-of-todays-api-does-not-take).
 */
export const PIPE_LACKED_ON_CURRENT: readonly Lacked[] = [
  { path: 'description' },
  { path: 'destination.tableDefinition.ttl' },
  { path: 'settings.kafka_read_committed' },
  { path: 'source.bigquery.authentication' },
  { path: 'source.bigquery.projectId' },
  { path: 'source.kafka.authentication', values: WORKLOAD_IDENTITY },
  { path: 'source.kafka.protobufSchema' },
  { path: 'source.kafka.schemaRegistry.glueRegion' },
  { path: 'source.kafka.schemaRegistry.glueRegistryName' },
  { path: 'source.kafka.schemaRegistry.glueRoleArn' },
  { path: 'source.kafka.schemaRegistry.type' },
  { path: 'source.kafka.tombstoneMode' },
  { path: 'source.kinesis.format', values: ['Protobuf'] },
  { path: 'source.kinesis.protobufSchema' },
  { path: 'source.kinesis.schemaRegistry' },
  { path: 'source.mongodb.settings.initialLoadParallelism' },
  { path: 'source.mysql.tableMappings[].partitionByExpr' },
  { path: 'source.mysql.type', values: ['planetscalevitess'] },
  { path: 'source.objectStorage.authentication', values: WORKLOAD_IDENTITY },
  { path: 'source.pubsub.authentication', values: WORKLOAD_IDENTITY },
];
