/**
 * A pipe's wire shapes: the seed's (seed 2.2, 4.1) and those the real managed service speaks today
 * (docs/reference/api-behaviour.md, "The real services today: the whole lifecycle"; the OpenAPI's
 * ClickPipes schemas), as TypeBox schemas. Today's are one create block and one PATCH block per
 * source family, looked up by the family's key rather than tried as a union, so an error names
 * the member that is wrong.
 *
 * Like the real validators, the emulator drops members these schemas do not name before checking
 * a body (create-only members excepted: a PATCH refuses those, see `schema/pipe-create-only.ts`).
 * Members the OpenAPI marks nullable may be sent as null, which means "not set".
 *
 * Settings are written here with the seed's prefix (`engine_max_threads`); a server that spells
 * them otherwise (`clickhouse_…`) is served by renaming at the edge.
 */
import { type TSchema, Type } from 'typebox';
import {
  boolean,
  integer,
  nonEmptyString,
  port,
  positiveInteger,
  string,
  stringArray,
  timestamp,
  uuid,
} from '../../schema/api.js';
import { object, oneOf, optional } from '../../schema/build.js';
import { mapValues, recordOf } from '../../support/records.js';
import {
  BIGQUERY_AUTHENTICATIONS,
  DATABASE_AUTHENTICATIONS,
  DESTINATION_TABLE_ENGINES,
  KAFKA_AUTHENTICATIONS,
  KAFKA_OFFSET_STRATEGIES,
  KAFKA_TOMBSTONE_MODES,
  KINESIS_AUTHENTICATIONS,
  KINESIS_ITERATOR_TYPES,
  MONGODB_READ_PREFERENCES,
  MYSQL_REPLICATION_MECHANISMS,
  OBJECT_STORAGE_AUTHENTICATIONS,
  PIPE_FLAVOURS,
  PIPE_FORMATS,
  PIPE_SCALING_BOUNDS,
  PIPE_STATE_COMMANDS,
  type PipeFamily,
  PUBSUB_AUTHENTICATIONS,
  PUBSUB_SEEK_TYPES,
  REPLICATION_MODES,
  TABLE_ENGINES,
} from '../../schema/pipe-sources.js';

// ---------------------------------------------------------------- enumerations and limits

export const PIPE_STATES = ['Provisioning', 'Running', 'Stopped', 'Failed', 'Paused', 'Completed'] as const;
export const PIPE_SOURCE_KINDS = ['kafka', 'objectStorage', 'kinesis', 'postgres'] as const;
export type PipeSourceKind = (typeof PIPE_SOURCE_KINDS)[number];
export const OBJECT_STORAGE_COMPRESSIONS = [
  'none',
  'gzip',
  'gz',
  'brotli',
  'br',
  'xz',
  'LZMA',
  'zstd',
  'auto',
] as const;
export const SCHEMA_REGISTRY_AUTHENTICATIONS = ['PLAIN'] as const;
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
export const PIPE_BOOLEAN_SETTINGS = [
  'object_storage_use_cluster_function',
  'engine_parallel_view_processing',
] as const;

// ---------------------------------------------------------------- the seed profile

/** The integer settings, each within its bounds: the same on both profiles. */
const boundedSettings = mapValues(PIPE_SETTING_BOUNDS, ([minimum, maximum]) =>
  Type.Optional(Type.Integer({ minimum, maximum })),
);

/** Pipe settings (seed 2.5) with the bounds of docs/reference/api-behaviour.md. */
export const pipeSettingsSchema = object({
  ...boundedSettings,
  ...recordOf(PIPE_BOOLEAN_SETTINGS, () => Type.Optional(boolean)),
});

export const usernamePasswordSchema = object({ username: string, password: string });
export const accessKeySchema = object({ accessKeyId: string, secretKey: string });

export const tableMappingSchema = object({
  sourceSchemaName: nonEmptyString,
  sourceTable: nonEmptyString,
  targetTable: nonEmptyString,
  ...optional({ excludedColumns: stringArray, useCustomSortingKey: boolean, sortingKeys: stringArray }),
});
/** What identifies a table mapping; the shape `tableMappingsToRemove` takes. */
export const tableMappingRemovalSchema = object({
  sourceSchemaName: nonEmptyString,
  sourceTable: nonEmptyString,
  targetTable: nonEmptyString,
});

export const postgresSettingsSchema = object(
  optional({
    syncIntervalSeconds: positiveInteger,
    pullBatchSize: positiveInteger,
    publicationName: string,
    replicationSlotName: string,
    allowNullableColumns: boolean,
    initialLoadParallelism: positiveInteger,
    snapshotNumRowsPerPartition: positiveInteger,
    snapshotNumberOfParallelTables: positiveInteger,
    enableFailoverSlots: boolean,
  }),
);

/** Members of each source block as stored and returned (seed 2.3); credentials are never in a response. */
const pipeSourceBlockMembers = {
  kafka: optional({
    brokers: string,
    topics: string,
    consumerGroup: string,
    iamRole: string,
    offset: object(optional({ timestamp: string })),
    schemaRegistry: object(
      optional({
        url: Type.String({ format: 'uri' }),
        authentication: oneOf(SCHEMA_REGISTRY_AUTHENTICATIONS),
        caCertificate: string,
      }),
    ),
    caCertificate: string,
    reversePrivateEndpointIds: stringArray,
  }),
  objectStorage: optional({
    url: string,
    delimiter: string,
    compression: oneOf(OBJECT_STORAGE_COMPRESSIONS),
    isContinuous: boolean,
    queueUrl: string,
    iamRole: string,
    connectionString: string,
    path: string,
    azureContainerName: string,
  }),
  kinesis: optional({
    streamName: string,
    region: string,
    useEnhancedFanOut: boolean,
    timestamp: integer,
    iamRole: string,
  }),
  postgres: optional({
    host: string,
    port,
    database: string,
    settings: postgresSettingsSchema,
    tableMappings: Type.Array(tableMappingSchema),
  }),
};

/** Source blocks as stored and returned (seed 2.3). */
export const pipeSourceBlockSchemas = {
  kafka: object(pipeSourceBlockMembers.kafka),
  objectStorage: object(pipeSourceBlockMembers.objectStorage),
  kinesis: object(pipeSourceBlockMembers.kinesis),
  postgres: object(pipeSourceBlockMembers.postgres),
};

/**
 * Members of each Update pipe source block (seed 4.1) other than credentials and table mapping
 * changes: what the service lets you change in place. The manifest's source blocks are these
 * plus credentials as secret references.
 */
export const pipePatchBlockMembers = {
  kafka: optional({ iamRole: string, caCertificate: string, reversePrivateEndpointIds: stringArray }),
  objectStorage: optional({ iamRole: string, connectionString: string, path: string, azureContainerName: string }),
  kinesis: optional({ iamRole: string }),
  postgres: optional({
    host: string,
    port,
    database: string,
    settings: object(optional({ syncIntervalSeconds: positiveInteger, pullBatchSize: positiveInteger })),
  }),
};

/**
 * Members the real service's Update pipe takes beyond the seed's list (docs/reference/api-behaviour.md, "The real
 * services today"). Manifests may set them: they are sent as written, and `validate` warns that
 * a service that follows the seed refuses them.
 */
export const pipePatchBeyondSeedMembers = {
  kafka: optional({ authentication: string, tlsHost: string, disableTls: boolean }),
  objectStorage: {},
  kinesis: {},
  postgres: {},
};

const { settings: postgresPatchSettings, ...postgresPatchConnection } = pipePatchBlockMembers.postgres;

/** Source blocks of an Update pipe body (seed 4.1): only the members the service lets you change. */
export const pipePatchSourceBlockSchemas = {
  kafka: object({ ...pipePatchBlockMembers.kafka, credentials: Type.Optional(usernamePasswordSchema) }),
  objectStorage: object({ ...pipePatchBlockMembers.objectStorage, accessKey: Type.Optional(accessKeySchema) }),
  kinesis: object({ ...pipePatchBlockMembers.kinesis, accessKey: Type.Optional(accessKeySchema) }),
  postgres: object({
    ...postgresPatchConnection,
    credentials: Type.Optional(usernamePasswordSchema),
    settings: postgresPatchSettings,
    ...optional({
      tableMappingsToAdd: Type.Array(tableMappingSchema),
      tableMappingsToRemove: Type.Array(tableMappingRemovalSchema),
    }),
  }),
};

export const columnSchema = object({ name: nonEmptyString, type: nonEmptyString });
export const fieldMappingSchema = object({ sourceField: nonEmptyString, destinationField: nonEmptyString });

export const pipeDestinationSchema = object(
  optional({
    database: string,
    table: string,
    managedTable: boolean,
    tableDefinition: object(
      optional({
        engine: object(optional({ versionColumnId: string, columnIds: stringArray })),
        sortingKey: stringArray,
        partitionBy: string,
        primaryKey: string,
      }),
    ),
    columns: Type.Array(columnSchema),
  }),
);

/** Exactly one source kind block, optionally beside `extra` members (`validateSamples`). */
function sourceWithOneKind<B extends Record<string, TSchema>, E extends Record<string, TSchema>>(blocks: B, extra: E) {
  return object(
    { ...optional(blocks), ...optional(extra) },
    { minProperties: 1, oneOf: Object.keys(blocks).map((kind) => ({ required: [kind] })) },
  );
}

export const pipeScalingSchema = object(
  optional({
    replicas: positiveInteger,
    concurrency: positiveInteger,
    replicaCpuMillicores: positiveInteger,
    replicaMemoryGb: Type.Number({ exclusiveMinimum: 0 }),
  }),
);

/** The pipe resource (seed 2.2) as the service returns it. */
export const pipeSchema = object({
  id: uuid,
  serviceId: Type.Optional(uuid),
  name: string,
  ...optional({ state: oneOf(PIPE_STATES), scaling: pipeScalingSchema }),
  source: sourceWithOneKind(pipeSourceBlockSchemas, {}),
  ...optional({
    destination: pipeDestinationSchema,
    fieldMappings: Type.Array(fieldMappingSchema),
    settings: pipeSettingsSchema,
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
});

/** Body of Update pipe (seed 4.1). An empty source object is allowed only with validateSamples. */
export const pipePatchBodySchema = object(
  optional({
    name: nonEmptyString,
    source: object(optional({ ...pipePatchSourceBlockSchemas, validateSamples: boolean }), { maxProperties: 2 }),
    destination: object(optional({ columns: Type.Array(columnSchema, { minItems: 1 }) })),
    fieldMappings: Type.Array(fieldMappingSchema),
    settings: pipeSettingsSchema,
  }),
);

/** Body of `POST …/pipes` (docs/reference/api-behaviour.md): a full pipe with credentials, without server-set fields. */
export const pipeCreateBodySchema = object({
  name: nonEmptyString,
  scaling: Type.Optional(pipeScalingSchema),
  source: sourceWithOneKind(
    {
      kafka: object({ ...pipeSourceBlockMembers.kafka, credentials: Type.Optional(usernamePasswordSchema) }),
      objectStorage: object({ ...pipeSourceBlockMembers.objectStorage, accessKey: Type.Optional(accessKeySchema) }),
      kinesis: object({ ...pipeSourceBlockMembers.kinesis, accessKey: Type.Optional(accessKeySchema) }),
      postgres: object({ ...pipeSourceBlockMembers.postgres, credentials: Type.Optional(usernamePasswordSchema) }),
    },
    { validateSamples: boolean },
  ),
  destination: pipeDestinationSchema,
  ...optional({ fieldMappings: Type.Array(fieldMappingSchema), settings: pipeSettingsSchema }),
});

// ---------------------------------------------------------------- the current profile: building blocks

const nonEmpty = Type.String({ minLength: 1 });
const positive = Type.Integer({ minimum: 1 });
const uniqueStrings = Type.Array(string, { uniqueItems: true });

// ---------------------------------------------------------------- credentials (write-only)

const plain = object(optional({ username: string, password: string }));
const accessKey = object(optional({ accessKeyId: string, secretKey: string }));
const serviceAccount = object({ serviceAccountFile: nonEmpty });
/** One of the shapes kafka credentials take, by authentication: user/password, IAM user keys, an Event Hubs connection string, or mTLS. */
const kafkaCredentials = object(
  optional({
    username: string,
    password: string,
    accessKeyId: string,
    secretKey: string,
    connectionString: string,
    certificate: string,
    privateKey: string,
  }),
);

// ---------------------------------------------------------------- streaming and object storage

const kafkaOffset = object({ strategy: oneOf(KAFKA_OFFSET_STRATEGIES), timestamp: Type.Optional(string) });
const kafkaSchemaRegistry = object({
  url: nonEmpty,
  ...optional({
    type: oneOf(['confluent', 'glue']),
    authentication: oneOf(['PLAIN']),
    caCertificate: string,
    credentials: plain,
    glueRegion: string,
    glueRegistryName: string,
    glueRoleArn: string,
  }),
});

const kafkaPatchMembers = {
  authentication: oneOf(KAFKA_AUTHENTICATIONS),
  iamRole: string,
  caCertificate: string,
  reversePrivateEndpointIds: Type.Array(string),
  credentials: kafkaCredentials,
};
const kafkaCreate = object({
  type: oneOf(PIPE_FLAVOURS.kafka),
  format: oneOf(PIPE_FORMATS.kafka),
  brokers: nonEmpty,
  topics: nonEmpty,
  ...optional({
    ...kafkaPatchMembers,
    consumerGroup: string,
    offset: kafkaOffset,
    schemaRegistry: kafkaSchemaRegistry,
    exactlyOnce: boolean,
    tombstoneMode: oneOf(KAFKA_TOMBSTONE_MODES),
    protobufSchema: Type.String({ minLength: 1, maxLength: 1_048_576 }),
  }),
});
const kafkaPatch = object(optional(kafkaPatchMembers));

const objectStoragePatchMembers = {
  skipInitialLoad: boolean,
  startAfter: string,
  authentication: oneOf(OBJECT_STORAGE_AUTHENTICATIONS),
  iamRole: string,
  connectionString: string,
  path: string,
  azureContainerName: string,
  accessKey,
  serviceAccountKey: nonEmpty,
};
const objectStorageCreate = object({
  type: oneOf(PIPE_FLAVOURS.objectStorage),
  format: oneOf(PIPE_FORMATS.objectStorage),
  ...optional({
    ...objectStoragePatchMembers,
    url: nonEmpty,
    delimiter: string,
    compression: oneOf(['none', 'gzip', 'gz', 'brotli', 'br', 'xz', 'LZMA', 'zstd', 'auto']),
    isContinuous: boolean,
    queueUrl: string,
  }),
});
const objectStoragePatch = object(optional(objectStoragePatchMembers));

const kinesisPatchMembers = { authentication: oneOf(KINESIS_AUTHENTICATIONS), iamRole: string, accessKey };
const kinesisCreate = object({
  format: oneOf(PIPE_FORMATS.kinesis),
  streamName: nonEmpty,
  region: nonEmpty,
  iteratorType: oneOf(KINESIS_ITERATOR_TYPES),
  authentication: oneOf(KINESIS_AUTHENTICATIONS),
  ...optional({
    iamRole: string,
    accessKey,
    timestamp: Type.Integer({ minimum: 0 }),
    useEnhancedFanOut: boolean,
    schemaRegistry: object({
      type: oneOf(['glue']),
      glueRegion: nonEmpty,
      glueRegistryName: nonEmpty,
      glueRoleArn: Type.Optional(string),
    }),
    protobufSchema: Type.String({ minLength: 1, maxLength: 1_048_576 }),
  }),
});
const kinesisPatch = object(optional(kinesisPatchMembers));

const ackDeadline = Type.Integer({ minimum: 10, maximum: 600 });
const pubsubCreate = object({
  format: oneOf(PIPE_FORMATS.pubsub),
  projectId: nonEmpty,
  topic: nonEmpty,
  authentication: oneOf(PUBSUB_AUTHENTICATIONS),
  seekType: oneOf(PUBSUB_SEEK_TYPES),
  ...optional({
    seekTimestamp: Type.String({ format: 'date-time' }),
    filter: Type.String({ maxLength: 256 }),
    enableOrdering: boolean,
    ackDeadline,
    serviceAccountKey: serviceAccount,
  }),
});
const pubsubPatch = object(
  optional({ authentication: oneOf(PUBSUB_AUTHENTICATIONS), ackDeadline, serviceAccountKey: serviceAccount }),
);

// ---------------------------------------------------------------- databases

const tableOptions = {
  excludedColumns: uniqueStrings,
  useCustomSortingKey: boolean,
  sortingKeys: uniqueStrings,
  tableEngine: oneOf(TABLE_ENGINES),
  partitionKey: string,
  partitionByExpr: string,
};
const schemaTableMapping = object({
  sourceSchemaName: nonEmpty,
  sourceTable: nonEmpty,
  targetTable: nonEmpty,
  ...optional(tableOptions),
});
const schemaTableRemoval = object({
  sourceSchemaName: nonEmpty,
  sourceTable: nonEmpty,
  targetTable: nonEmpty,
  ...optional({ tableEngine: oneOf(TABLE_ENGINES), partitionKey: string, partitionByExpr: string }),
});
const collectionMapping = object({
  sourceDatabaseName: nonEmpty,
  sourceCollection: nonEmpty,
  targetTable: nonEmpty,
  tableEngine: Type.Optional(oneOf(TABLE_ENGINES)),
});
const datasetMapping = object({
  sourceDatasetName: nonEmpty,
  sourceTable: nonEmpty,
  targetTable: nonEmpty,
  ...optional({
    excludedColumns: Type.Array(string),
    useCustomSortingKey: boolean,
    sortingKeys: Type.Array(string),
    tableEngine: oneOf(TABLE_ENGINES),
  }),
});
const mappings = <T extends TSchema>(mapping: T) => Type.Array(mapping, { minItems: 1 });

const syncSettings = { syncIntervalSeconds: positive, pullBatchSize: positive };
const snapshotSettings = {
  initialLoadParallelism: positive,
  snapshotNumRowsPerPartition: Type.Integer({ minimum: 1000 }),
  snapshotNumberOfParallelTables: positive,
};
const tls = { tlsHost: string, caCertificate: string, disableTls: boolean, skipCertVerification: boolean };

const databaseAccess = { authentication: oneOf(DATABASE_AUTHENTICATIONS), iamRole: string, ...tls, credentials: plain };
const postgresConnection = { host: nonEmpty, port, database: nonEmpty };
const postgresCreate = object({
  ...postgresConnection,
  tableMappings: mappings(schemaTableMapping),
  ...optional({
    ...databaseAccess,
    type: oneOf(PIPE_FLAVOURS.postgres),
    settings: object(
      optional({
        ...syncSettings,
        ...snapshotSettings,
        replicationMode: oneOf(REPLICATION_MODES),
        publicationName: string,
        replicationSlotName: string,
        allowNullableColumns: boolean,
        enableFailoverSlots: boolean,
        deleteOnMerge: boolean,
      }),
    ),
  }),
});
const postgresPatch = object(
  optional({
    ...postgresConnection,
    ...databaseAccess,
    settings: object(optional(syncSettings)),
    tableMappingsToAdd: Type.Array(schemaTableMapping),
    tableMappingsToRemove: Type.Array(schemaTableRemoval),
  }),
);

const mysqlConnection = { host: nonEmpty, port };
const mysqlAccess = { ...databaseAccess, serverId: Type.Integer({ minimum: 1, maximum: 4_294_967_295 }) };
const mysqlCreate = object({
  ...mysqlConnection,
  settings: object({
    replicationMode: oneOf(REPLICATION_MODES),
    ...optional({
      ...syncSettings,
      ...snapshotSettings,
      replicationMechanism: oneOf(MYSQL_REPLICATION_MECHANISMS),
      useCompression: boolean,
      allowNullableColumns: boolean,
      deleteOnMerge: boolean,
    }),
  }),
  tableMappings: mappings(schemaTableMapping),
  ...optional({ ...mysqlAccess, type: oneOf(PIPE_FLAVOURS.mysql) }),
});
const mysqlPatch = object(
  optional({
    ...mysqlConnection,
    ...mysqlAccess,
    settings: object(optional({ ...syncSettings, useCompression: boolean })),
    tableMappingsToAdd: Type.Array(schemaTableMapping),
    tableMappingsToRemove: Type.Array(schemaTableRemoval),
  }),
);

const mongodbConnection = { uri: nonEmpty, readPreference: oneOf(MONGODB_READ_PREFERENCES) };
const mongodbAccess = { ...tls, credentials: plain };
const mongodbCreate = object({
  ...mongodbConnection,
  settings: object({
    replicationMode: oneOf(REPLICATION_MODES),
    ...optional({ ...syncSettings, ...snapshotSettings, deleteOnMerge: boolean, useJsonNativeFormat: boolean }),
  }),
  tableMappings: mappings(collectionMapping),
  ...optional(mongodbAccess),
});
const mongodbPatch = object(
  optional({
    ...mongodbConnection,
    ...mongodbAccess,
    settings: object(optional(syncSettings)),
    tableMappingsToAdd: Type.Array(collectionMapping),
    tableMappingsToRemove: Type.Array(collectionMapping),
  }),
);

const bigqueryCreate = object({
  snapshotStagingPath: nonEmpty,
  settings: object({
    replicationMode: oneOf(['snapshot']),
    ...optional({ allowNullableColumns: boolean, ...snapshotSettings }),
  }),
  tableMappings: mappings(datasetMapping),
  ...optional({ authentication: oneOf(BIGQUERY_AUTHENTICATIONS), projectId: nonEmpty, credentials: serviceAccount }),
});

/** The source block of each family in a create body, write-only members included. */
export const PIPE_CREATE_BLOCKS: Record<PipeFamily, TSchema> = {
  kafka: kafkaCreate,
  objectStorage: objectStorageCreate,
  kinesis: kinesisCreate,
  pubsub: pubsubCreate,
  postgres: postgresCreate,
  mysql: mysqlCreate,
  mongodb: mongodbCreate,
  bigquery: bigqueryCreate,
};

/** The source block of each family in a PATCH body: what the service changes in place. BigQuery has none (snapshot only). */
export const PIPE_PATCH_BLOCKS: Partial<Record<PipeFamily, TSchema>> = {
  kafka: kafkaPatch,
  objectStorage: objectStoragePatch,
  kinesis: kinesisPatch,
  pubsub: pubsubPatch,
  postgres: postgresPatch,
  mysql: mysqlPatch,
  mongodb: mongodbPatch,
};

// ---------------------------------------------------------------- the rest of a pipe

/** Pipe settings with the seed's prefix and the real service's bounds (a null, "the default", is taken out before the check). */
export const currentPipeSettingsSchema = object({
  ...boundedSettings,
  ...Object.fromEntries([...PIPE_BOOLEAN_SETTINGS, 'kafka_read_committed'].map((key) => [key, Type.Optional(boolean)])),
});

const column = object({ name: nonEmpty, type: nonEmpty });
const fieldMapping = object({ sourceField: nonEmpty, destinationField: nonEmpty });

export const currentPipeDestinationSchema = object(
  optional({
    database: nonEmpty,
    table: nonEmpty,
    managedTable: boolean,
    tableDefinition: object(
      optional({
        engine: object(
          optional({ type: oneOf(DESTINATION_TABLE_ENGINES), versionColumnId: string, columnIds: Type.Array(string) }),
        ),
        sortingKey: Type.Array(string),
        partitionBy: string,
        primaryKey: string,
        ttl: nonEmpty,
      }),
    ),
    columns: Type.Array(column),
    roles: Type.Array(string),
  }),
);

const scalingMembers = {
  replicas: Type.Integer(PIPE_SCALING_BOUNDS.replicas),
  replicaCpuMillicores: Type.Integer(PIPE_SCALING_BOUNDS.replicaCpuMillicores),
  replicaMemoryGb: Type.Number(PIPE_SCALING_BOUNDS.replicaMemoryGb),
};

/** `PATCH …/pipes/{id}/scaling` and the `scaling` of a create body; `concurrency` is for object storage only (0 = automatic) and deprecated. */
export const pipeScalingBodySchema = object(
  optional({ ...scalingMembers, concurrency: Type.Integer(PIPE_SCALING_BOUNDS.concurrency) }),
  { minProperties: 1 },
);

/** `PATCH …/pipes/{id}/state`. */
export const pipeStateBodySchema = object({ command: oneOf(PIPE_STATE_COMMANDS) });

/** `POST …/pipes` without its source block, which is checked by its family's schema. */
export const currentPipeCreateBodySchema = object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  source: Type.Object({}, { additionalProperties: true }),
  destination: currentPipeDestinationSchema,
  ...optional({
    description: string,
    fieldMappings: Type.Array(fieldMapping),
    settings: currentPipeSettingsSchema,
    scaling: pipeScalingBodySchema,
  }),
});

/** `PATCH …/pipes/{id}` without its source block, which is checked by the pipe's family's schema. */
export const currentPipePatchBodySchema = object(
  optional({
    name: Type.String({ minLength: 1, maxLength: 255 }),
    source: Type.Object({}, { additionalProperties: true }),
    destination: object(optional({ columns: Type.Array(column) })),
    fieldMappings: Type.Array(fieldMapping),
    settings: currentPipeSettingsSchema,
  }),
);

/**
 * A pipe as the current profile stores and returns it, for its data file and seeds: the frame is
 * checked, the source block is open (its family's rules ran when it was written).
 */
export const currentStoredPipeSchema = object({
  id: Type.String({ format: 'uuid' }),
  serviceId: Type.String({ format: 'uuid' }),
  name: nonEmpty,
  state: nonEmpty,
  source: Type.Object(
    {},
    { additionalProperties: Type.Object({}, { additionalProperties: true }), minProperties: 1, maxProperties: 1 },
  ),
  destination: Type.Object({}, { additionalProperties: true }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  ...optional({
    description: string,
    scaling: Type.Object({}, { additionalProperties: true }),
    fieldMappings: Type.Array(Type.Object({}, { additionalProperties: true })),
    settings: Type.Object({}, { additionalProperties: true }),
  }),
});
