/**
 * JSON Schemas of every API resource and request body (draft 2020-12 subset that ajv 8 speaks),
 * declared with TypeBox so each is also the TypeScript type of what it accepts: `model/` derives
 * the request bodies and the pieces of the live model from them (`Static<typeof …>`).
 *
 * Who validates with them: the emulator (request bodies, its seed and data files) and, through
 * the manifest schemas built from their parts, the manifest loader. Responses are NOT checked
 * with them: the client reads responses with the deliberately tolerant `api/normalize.ts`, since
 * real services differ from these shapes (docs/reference/api-behaviour.md).
 *
 * Schemas are composed from parts, not `$ref`s, so each one is self-contained and can be
 * published as a file on its own.
 */
import { Type, type TBoolean, type TInteger, type TOptional, type TSchema } from 'typebox';
import { object, oneOf, optional } from './build.js';
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

export type { JsonSchema } from './build.js';

const string = Type.String();
const nonEmptyString = Type.String({ minLength: 1 });
const integer = Type.Integer();
const positiveInteger = Type.Integer({ minimum: 1 });
const boolean = Type.Boolean();
const stringArray = Type.Array(string);
const uuid = Type.String({ format: 'uuid' });
const timestamp = Type.String({ format: 'date-time' });
const port = Type.Integer({ minimum: 1, maximum: 65535 });

// ---------------------------------------------------------------- pipes

type PipeSettingMembers = { [K in keyof typeof PIPE_SETTING_BOUNDS]: TOptional<TInteger> } & {
  [K in (typeof PIPE_BOOLEAN_SETTINGS)[number]]: TOptional<TBoolean>;
};

/** Pipe settings (seed 2.5) with the bounds of docs/reference/api-behaviour.md. */
export const pipeSettingsSchema = object({
  ...Object.fromEntries(Object.entries(PIPE_SETTING_BOUNDS).map(([key, [minimum, maximum]]) => [key, Type.Optional(Type.Integer({ minimum, maximum }))])),
  ...Object.fromEntries(PIPE_BOOLEAN_SETTINGS.map((key) => [key, Type.Optional(boolean)])),
} as PipeSettingMembers);

export const usernamePasswordSchema = object({ username: string, password: string });
export const accessKeySchema = object({ accessKeyId: string, secretKey: string });

export const tableMappingSchema = object({
  sourceSchemaName: nonEmptyString,
  sourceTable: nonEmptyString,
  targetTable: nonEmptyString,
  ...optional({ excludedColumns: stringArray, useCustomSortingKey: boolean, sortingKeys: stringArray }),
});
/** What identifies a table mapping; the shape `tableMappingsToRemove` takes. */
export const tableMappingRemovalSchema = object({ sourceSchemaName: nonEmptyString, sourceTable: nonEmptyString, targetTable: nonEmptyString });

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
      optional({ url: Type.String({ format: 'uri' }), authentication: oneOf(SCHEMA_REGISTRY_AUTHENTICATIONS), caCertificate: string }),
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
  kinesis: optional({ streamName: string, region: string, useEnhancedFanOut: boolean, timestamp: integer, iamRole: string }),
  postgres: optional({ host: string, port, database: string, settings: postgresSettingsSchema, tableMappings: Type.Array(tableMappingSchema) }),
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
  postgres: optional({ host: string, port, database: string, settings: object(optional({ syncIntervalSeconds: positiveInteger, pullBatchSize: positiveInteger })) }),
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
    ...optional({ tableMappingsToAdd: Type.Array(tableMappingSchema), tableMappingsToRemove: Type.Array(tableMappingRemovalSchema) }),
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
  return object({ ...optional(blocks), ...optional(extra) }, { minProperties: 1, oneOf: Object.keys(blocks).map((kind) => ({ required: [kind] })) });
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

// ---------------------------------------------------------------- dashboards

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
export const dashboardTagsSchema = Type.Array(Type.String({ minLength: 1, maxLength: DASHBOARD_LIMITS.tagMaxLength }), { maxItems: DASHBOARD_LIMITS.maxTags });

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

// ---------------------------------------------------------------- alerts

export const alertChannelSchema = object(
  { type: oneOf(ALERT_CHANNEL_TYPES), webhookId: Type.Optional(nonEmptyString) },
  {
    if: { properties: { type: { const: 'webhook' } } },
    then: { required: ['webhookId'] },
  },
);

/** An alert's configuration, shared by the write body, the resource and the manifest's spec. */
export const alertConfigMembers = {
  name: Type.Optional(string),
  message: Type.Optional(string),
  threshold: Type.Number(),
  interval: oneOf(ALERT_INTERVALS),
  thresholdType: oneOf(ALERT_THRESHOLD_TYPES),
  source: oneOf(ALERT_SOURCES),
  channel: alertChannelSchema,
  groupBy: Type.Optional(string),
};

/** Body of create alert and of PUT (which replaces the whole configuration). */
export const alertWriteBodySchema = object(
  { ...alertConfigMembers, ...optional({ dashboardId: nonEmptyString, tileId: nonEmptyString, savedSearchId: nonEmptyString }) },
  {
    allOf: [
      { if: { properties: { source: { const: 'tile' } }, required: ['source'] }, then: { required: ['dashboardId', 'tileId'] } },
      { if: { properties: { source: { const: 'search' } }, required: ['source'] }, then: { required: ['savedSearchId'] } },
    ],
  },
);

/** The alert as the emulator returns it (seed 2.6). The client's reader is more tolerant (docs/reference/api-behaviour.md). */
export const alertSchema = object({
  id: nonEmptyString,
  ...alertConfigMembers,
  channel: Type.Optional(alertChannelSchema),
  ...optional({
    state: string,
    team: string,
    tileId: string,
    dashboard: string,
    savedSearch: string,
    silenced: boolean,
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
});

// ---------------------------------------------------------------- sources

export const dataSourceSchema = object({ id: nonEmptyString, name: string, kind: oneOf(SOURCE_KINDS) });

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
