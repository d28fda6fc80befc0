/**
 * JSON Schemas of every API resource and request body (draft 2020-12 subset that ajv 8 speaks).
 * The one place these shapes live: the emulator validates requests with them, the client checks
 * responses with them, and the manifest schemas are built from their parts.
 *
 * Schemas are plain objects composed by spreading, not `$ref`s, so each one is self-contained
 * and can be published as a file on its own.
 */
import {
  ALERT_CHANNEL_TYPES,
  ALERT_INTERVALS,
  ALERT_SOURCES,
  ALERT_THRESHOLD_TYPES,
  DASHBOARD_LIMITS,
  OBJECT_STORAGE_COMPRESSIONS,
  PIPE_BOOLEAN_SETTINGS,
  PIPE_SETTING_BOUNDS,
  PIPE_STATES,
  SCHEMA_REGISTRY_AUTHENTICATIONS,
  SERIES_AGG_FNS,
  SERIES_DATA_SOURCES,
  SERIES_TYPES,
  SERIES_TYPES_NEEDING_AGG_FN,
  SOURCE_KINDS,
} from './enums.js';

export type JsonSchema = Record<string, unknown>;

const string = { type: 'string' } as const;
const nonEmptyString = { type: 'string', minLength: 1 } as const;
const integer = { type: 'integer' } as const;
const boolean = { type: 'boolean' } as const;
const stringArray = { type: 'array', items: string } as const;
const uuid = { type: 'string', format: 'uuid' } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;

function object(properties: Record<string, unknown>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

// ---------------------------------------------------------------- pipes

/** Pipe settings (seed 2.5) with the bounds of api-notes. */
export const pipeSettingsSchema: JsonSchema = object({
  ...Object.fromEntries(
    Object.entries(PIPE_SETTING_BOUNDS).map(([key, [minimum, maximum]]) => [key, { type: 'integer', minimum, maximum }]),
  ),
  ...Object.fromEntries(PIPE_BOOLEAN_SETTINGS.map((key) => [key, boolean])),
});

export const usernamePasswordSchema: JsonSchema = object({ username: string, password: string }, ['username', 'password']);
export const accessKeySchema: JsonSchema = object({ accessKeyId: string, secretKey: string }, ['accessKeyId', 'secretKey']);

export const tableMappingSchema: JsonSchema = object(
  {
    sourceSchemaName: nonEmptyString,
    sourceTable: nonEmptyString,
    targetTable: nonEmptyString,
    excludedColumns: stringArray,
    useCustomSortingKey: boolean,
    sortingKeys: stringArray,
  },
  ['sourceSchemaName', 'sourceTable', 'targetTable'],
);
export const tableMappingRemovalSchema: JsonSchema = object(
  { sourceSchemaName: nonEmptyString, sourceTable: nonEmptyString, targetTable: nonEmptyString },
  ['sourceSchemaName', 'sourceTable', 'targetTable'],
);

export const postgresSettingsSchema: JsonSchema = object({
  syncIntervalSeconds: { type: 'integer', minimum: 1 },
  pullBatchSize: { type: 'integer', minimum: 1 },
  publicationName: string,
  replicationSlotName: string,
  allowNullableColumns: boolean,
  initialLoadParallelism: { type: 'integer', minimum: 1 },
  snapshotNumRowsPerPartition: { type: 'integer', minimum: 1 },
  snapshotNumberOfParallelTables: { type: 'integer', minimum: 1 },
  enableFailoverSlots: boolean,
});

/** Source blocks as stored and returned (seed 2.3); credentials are never in a response. */
export const pipeSourceBlockSchemas = {
  kafka: object({
    brokers: string,
    topics: string,
    consumerGroup: string,
    iamRole: string,
    offset: object({ timestamp: string }),
    schemaRegistry: object({
      url: { type: 'string', format: 'uri' },
      authentication: { enum: [...SCHEMA_REGISTRY_AUTHENTICATIONS] },
      caCertificate: string,
    }),
    caCertificate: string,
    reversePrivateEndpointIds: stringArray,
  }),
  objectStorage: object({
    url: string,
    delimiter: string,
    compression: { enum: [...OBJECT_STORAGE_COMPRESSIONS] },
    isContinuous: boolean,
    queueUrl: string,
    iamRole: string,
    connectionString: string,
    path: string,
    azureContainerName: string,
  }),
  kinesis: object({ streamName: string, region: string, useEnhancedFanOut: boolean, timestamp: integer, iamRole: string }),
  postgres: object({
    host: string,
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    database: string,
    settings: postgresSettingsSchema,
    tableMappings: { type: 'array', items: tableMappingSchema },
  }),
} as const;

/** Source blocks of an Update pipe body (seed 4.1): only the members the service lets you change. */
export const pipePatchSourceBlockSchemas = {
  kafka: object({ iamRole: string, caCertificate: string, reversePrivateEndpointIds: stringArray, credentials: usernamePasswordSchema }),
  objectStorage: object({ iamRole: string, connectionString: string, path: string, azureContainerName: string, accessKey: accessKeySchema }),
  kinesis: object({ iamRole: string, accessKey: accessKeySchema }),
  postgres: object({
    host: string,
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    database: string,
    credentials: usernamePasswordSchema,
    settings: object({ syncIntervalSeconds: { type: 'integer', minimum: 1 }, pullBatchSize: { type: 'integer', minimum: 1 } }),
    tableMappingsToAdd: { type: 'array', items: tableMappingSchema },
    tableMappingsToRemove: { type: 'array', items: tableMappingRemovalSchema },
  }),
} as const;

export const columnSchema: JsonSchema = object({ name: nonEmptyString, type: nonEmptyString }, ['name', 'type']);
export const fieldMappingSchema: JsonSchema = object({ sourceField: nonEmptyString, destinationField: nonEmptyString }, ['sourceField', 'destinationField']);

export const pipeDestinationSchema: JsonSchema = object({
  database: string,
  table: string,
  managedTable: boolean,
  tableDefinition: object({
    engine: object({ versionColumnId: string, columnIds: stringArray }),
    sortingKey: stringArray,
    partitionBy: string,
    primaryKey: string,
  }),
  columns: { type: 'array', items: columnSchema },
});

/** Exactly one source kind block, optionally beside `validateSamples`. */
function sourceWithOneKind(blocks: Record<string, JsonSchema>, extra: Record<string, JsonSchema>): JsonSchema {
  return {
    ...object({ ...blocks, ...extra }),
    minProperties: 1,
    oneOf: Object.keys(blocks).map((kind) => ({ required: [kind] })),
  };
}

export const pipeScalingSchema: JsonSchema = object({
  replicas: { type: 'integer', minimum: 1 },
  concurrency: { type: 'integer', minimum: 1 },
  replicaCpuMillicores: { type: 'integer', minimum: 1 },
  replicaMemoryGb: { type: 'number', exclusiveMinimum: 0 },
});

/** The pipe resource (seed 2.2) as the service returns it. */
export const pipeSchema: JsonSchema = object(
  {
    id: uuid,
    serviceId: uuid,
    name: string,
    state: { enum: [...PIPE_STATES] },
    scaling: pipeScalingSchema,
    source: sourceWithOneKind(pipeSourceBlockSchemas, {}),
    destination: pipeDestinationSchema,
    fieldMappings: { type: 'array', items: fieldMappingSchema },
    settings: pipeSettingsSchema,
    createdAt: timestamp,
    updatedAt: timestamp,
  },
  ['id', 'name', 'source'],
);

/** Body of Update pipe (seed 4.1). An empty source object is allowed only with validateSamples. */
export const pipePatchBodySchema: JsonSchema = object({
  name: nonEmptyString,
  source: {
    ...object({ ...pipePatchSourceBlockSchemas, validateSamples: boolean }),
    maxProperties: 2,
  },
  destination: object({ columns: { type: 'array', items: columnSchema, minItems: 1 } }),
  fieldMappings: { type: 'array', items: fieldMappingSchema },
  settings: pipeSettingsSchema,
});

/** Body of `POST …/pipes` (api-notes): a full pipe with credentials, without server-set fields. */
export const pipeCreateBodySchema: JsonSchema = object(
  {
    name: nonEmptyString,
    scaling: pipeScalingSchema,
    source: sourceWithOneKind(
      {
        kafka: withMembers(pipeSourceBlockSchemas.kafka, { credentials: usernamePasswordSchema }),
        objectStorage: withMembers(pipeSourceBlockSchemas.objectStorage, { accessKey: accessKeySchema }),
        kinesis: withMembers(pipeSourceBlockSchemas.kinesis, { accessKey: accessKeySchema }),
        postgres: withMembers(pipeSourceBlockSchemas.postgres, { credentials: usernamePasswordSchema }),
      },
      { validateSamples: boolean },
    ),
    destination: pipeDestinationSchema,
    fieldMappings: { type: 'array', items: fieldMappingSchema },
    settings: pipeSettingsSchema,
  },
  ['name', 'source', 'destination'],
);

function withMembers(schema: JsonSchema, members: Record<string, JsonSchema>): JsonSchema {
  return { ...schema, properties: { ...(schema['properties'] as Record<string, unknown>), ...members } };
}

// ---------------------------------------------------------------- dashboards

export const seriesSchema: JsonSchema = {
  ...object(
    {
      type: { enum: [...SERIES_TYPES] },
      dataSource: { enum: [...SERIES_DATA_SOURCES] },
      aggFn: { enum: [...SERIES_AGG_FNS] },
      field: string,
      where: string,
      groupBy: stringArray,
      content: string,
    },
    ['type'],
  ),
  if: { properties: { type: { enum: [...SERIES_TYPES_NEEDING_AGG_FN] } } },
  then: { required: ['aggFn'] },
};

const tileProperties = {
  name: { type: 'string', minLength: 1, maxLength: DASHBOARD_LIMITS.nameMaxLength },
  x: { type: 'integer', minimum: 0, maximum: DASHBOARD_LIMITS.tileXMax },
  y: { type: 'integer', minimum: 0 },
  w: { type: 'integer', minimum: DASHBOARD_LIMITS.tileWMin, maximum: DASHBOARD_LIMITS.tileWMax },
  h: { type: 'integer', minimum: DASHBOARD_LIMITS.tileHMin },
  asRatio: boolean,
  series: { type: 'array', items: seriesSchema },
};
const tileRequired = ['name', 'x', 'y', 'w', 'h', 'series'];

/** A tile in a request: ids are optional (ignored on POST, matched on PUT). */
export const tileWriteSchema: JsonSchema = object({ id: string, ...tileProperties }, tileRequired);
/** A tile as the service returns it. */
export const tileSchema: JsonSchema = object({ id: nonEmptyString, ...tileProperties }, ['id', ...tileRequired]);

const dashboardName = { type: 'string', minLength: 1, maxLength: DASHBOARD_LIMITS.nameMaxLength };
const dashboardTags = {
  type: 'array',
  maxItems: DASHBOARD_LIMITS.maxTags,
  items: { type: 'string', minLength: 1, maxLength: DASHBOARD_LIMITS.tagMaxLength },
};

export const dashboardCreateBodySchema: JsonSchema = object(
  { name: dashboardName, tiles: { type: 'array', maxItems: DASHBOARD_LIMITS.maxTiles, items: tileWriteSchema }, tags: dashboardTags },
  ['name'],
);
/** PUT replaces name and the whole tile list; tags left out stay as they were. */
export const dashboardUpdateBodySchema: JsonSchema = object(
  { id: string, name: dashboardName, tiles: { type: 'array', maxItems: DASHBOARD_LIMITS.maxTiles, items: tileWriteSchema }, tags: dashboardTags },
  ['name', 'tiles'],
);
export const dashboardSchema: JsonSchema = object(
  { id: nonEmptyString, name: string, tiles: { type: 'array', items: tileSchema }, tags: stringArray, team: string, createdAt: timestamp, updatedAt: timestamp },
  ['id', 'name', 'tiles'],
);

// ---------------------------------------------------------------- alerts

export const alertChannelSchema: JsonSchema = {
  ...object({ type: { enum: [...ALERT_CHANNEL_TYPES] }, webhookId: nonEmptyString }, ['type']),
  if: { properties: { type: { const: 'webhook' } } },
  then: { required: ['webhookId'] },
};

const alertConfigProperties = {
  name: string,
  message: string,
  threshold: { type: 'number' },
  interval: { enum: [...ALERT_INTERVALS] },
  thresholdType: { enum: [...ALERT_THRESHOLD_TYPES] },
  source: { enum: [...ALERT_SOURCES] },
  channel: alertChannelSchema,
  groupBy: string,
};

/** Body of create alert and of PUT (which replaces the whole configuration). */
export const alertWriteBodySchema: JsonSchema = {
  ...object(
    { ...alertConfigProperties, dashboardId: nonEmptyString, tileId: nonEmptyString, savedSearchId: nonEmptyString },
    ['threshold', 'interval', 'thresholdType', 'source', 'channel'],
  ),
  allOf: [
    { if: { properties: { source: { const: 'tile' } }, required: ['source'] }, then: { required: ['dashboardId', 'tileId'] } },
    { if: { properties: { source: { const: 'search' } }, required: ['source'] }, then: { required: ['savedSearchId'] } },
  ],
};

/** The alert as the emulator returns it (seed 2.6). The client's reader is more tolerant (api-notes). */
export const alertSchema: JsonSchema = object(
  {
    id: nonEmptyString,
    ...alertConfigProperties,
    state: string,
    team: string,
    tileId: string,
    dashboard: string,
    savedSearch: string,
    silenced: boolean,
    createdAt: timestamp,
    updatedAt: timestamp,
  },
  ['id', 'threshold', 'interval', 'thresholdType', 'source'],
);

// ---------------------------------------------------------------- sources

export const dataSourceSchema: JsonSchema = object(
  { id: nonEmptyString, name: string, kind: { enum: [...SOURCE_KINDS] } },
  ['id', 'name', 'kind'],
);

/** Every schema by a stable name, for the validator cache and for publishing. */
export const API_SCHEMAS = {
  pipe: pipeSchema,
  pipePatchBody: pipePatchBodySchema,
  pipeCreateBody: pipeCreateBodySchema,
  dashboard: dashboardSchema,
  dashboardCreateBody: dashboardCreateBodySchema,
  dashboardUpdateBody: dashboardUpdateBodySchema,
  alert: alertSchema,
  alertWriteBody: alertWriteBodySchema,
  dataSource: dataSourceSchema,
} as const;

export type ApiSchemaName = keyof typeof API_SCHEMAS;
