/**
 * The seed (docs/emulator.md): organizations with keys and services (state, pipes,
 * sources), and self-hosted teams with tokens. Either may also hold dashboards and alerts, and
 * under the current profile sources, webhooks and saved searches, each in the profile's own
 * format. Loaded from YAML or JSON and validated here, so a bad seed fails at start with the file
 * and the path of what is wrong (dashboards and alerts are checked by the profile's rules as
 * they are seeded).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { StacksyncError } from '../errors.js';
import { CURRENT_WEBHOOK_SERVICES } from '../kinds/webhook/wire.js';
import { CURRENT_SOURCE_KINDS, OBJECT_ID_PATTERN } from '../schema/api-current.js';
import { PIPE_STATES, pipeCreateBodySchema } from '../kinds/pipe/wire.js';
import { SOURCE_KINDS, dataSourceSchema } from '../kinds/source/wire.js';
import { SERVICE_STATES } from '../schema/enums.js';
import { PIPE_FAMILIES } from '../schema/pipe-sources.js';
import type { JsonSchema } from '../schema/api.js';
import { describeIssues, toIssues, validatorOf, type NamedSchema } from '../schema/validate.js';
import { PROFILES, type Profile, type ServiceState } from './model.js';

export interface SeedKey {
  id: string;
  secret: string;
}

/** A full pipe as the service would hold it; credentials may be given and are stored, never returned. */
export type SeedPipe = {
  id?: string;
  name: string;
  state?: string;
  source: Record<string, Record<string, unknown>>;
} & Record<string, unknown>;

/** A data source: `{id, name, kind}`; under the current profile also `connection`, `from`, `timestampValueExpression` and any member of its kind. */
export type SeedSource = { id?: string; name: string; kind: string } & Record<string, unknown>;
/** A webhook alerts can name (current profile); its `headers` and `queryParams` are stored as fingerprints, never returned. */
export type SeedWebhook = { id?: string; name: string; service: string } & Record<string, unknown>;
/** A connection sources name (current profile); its `password` is stored as a fingerprint, never returned. */
export type SeedConnection = { id?: string; name: string; host: string; username: string } & Record<string, unknown>;
/** A saved search `saved_search` alerts can name (current profile). */
export type SeedSavedSearch = { id?: string; name: string } & Record<string, unknown>;

/** What a service or team may be seeded with besides its credentials. */
export interface SeedStack {
  /** Data sources; a service without them gets one of each kind (under `current`, teams too). */
  sources?: SeedSource[];
  /** Connections (current profile); without them, one for each connection the sources name. On a managed service they are the platform's. */
  connections?: SeedConnection[];
  webhooks?: SeedWebhook[];
  savedSearches?: SeedSavedSearch[];
  /** Dashboards in the profile's request format, with ids (assigned when absent), created in order. */
  dashboards?: Record<string, unknown>[];
  /** Alerts in the profile's response format (ids assigned when absent), after the dashboards. */
  alerts?: Record<string, unknown>[];
}

export interface SeedService extends SeedStack {
  id: string;
  /** `idle` and `stopped` answer 424 on every route of the service. Default `running`. */
  state?: ServiceState;
  pipes?: SeedPipe[];
  /**
   * Current profile: names (or `*` globs) of pipes whose every provisioning — create, start,
   * resync — ends `Failed`, for testing how a client meets a pipe that fails.
   */
  failPipes?: string[];
}

export interface SeedOrganization {
  id: string;
  keys: SeedKey[];
  services?: SeedService[];
}
export interface SeedTeam extends SeedStack {
  id: string;
  tokens: string[];
}

export interface Seed {
  organizations?: SeedOrganization[];
  teams?: SeedTeam[];
}

const uuid = { type: 'string', format: 'uuid' } as const;
const objectId = { type: 'string', pattern: OBJECT_ID_PATTERN } as const;
const nonEmpty = { type: 'string', minLength: 1 } as const;
// A token must fit in one Authorization header value after `Bearer `.
const token = { type: 'string', pattern: '^[\\x21-\\x7e]+$' } as const;
const objects = { type: 'array', items: { type: 'object' } } as const;

function object(properties: Record<string, unknown>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

function seedPipeSchema(profile: Profile): JsonSchema {
  if (profile === 'current') return currentSeedPipeSchema;
  return {
    ...pipeCreateBodySchema,
    properties: {
      ...(pipeCreateBodySchema['properties'] as Record<string, unknown>),
      id: uuid,
      serviceId: uuid,
      state: { enum: [...PIPE_STATES] },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
    required: ['name', 'source'],
  };
}

/**
 * A pipe seeded under the current profile: as the service would hold it, of any source family,
 * in any state (the real services have many more states than the seed names; any text goes).
 * Its family's create rules are not applied: a seed may hold what a service has drifted into.
 */
const currentSeedPipeSchema: JsonSchema = object(
  {
    id: uuid,
    serviceId: uuid,
    name: nonEmpty,
    state: nonEmpty,
    scaling: { type: 'object' },
    source: {
      type: 'object',
      minProperties: 1,
      maxProperties: 1,
      propertyNames: { enum: [...PIPE_FAMILIES] },
      additionalProperties: { type: 'object' },
    },
    destination: { type: 'object' },
    fieldMappings: objects,
    settings: { type: 'object' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
  ['name', 'source'],
);

const seedSourceSchema: JsonSchema = {
  ...dataSourceSchema,
  properties: { ...(dataSourceSchema['properties'] as Record<string, unknown>), id: uuid },
  required: ['name', 'kind'],
};

const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

/** Current-profile members of a service or team; open objects, as the real ones carry more than these. */
const currentStackMembers = {
  connections: {
    type: 'array',
    items: object(
      {
        id: objectId,
        name: { type: 'string' },
        host: { type: 'string' },
        username: { type: 'string' },
        password: { type: 'string' },
        hyperdxSettingPrefix: { type: ['string', 'null'] },
        isPrometheusEndpoint: { type: 'boolean' },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
      ['name', 'host', 'username'],
    ),
  },
  sources: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        id: objectId,
        name: { type: 'string' },
        kind: { enum: [...CURRENT_SOURCE_KINDS] },
        connection: objectId,
        from: object({ databaseName: { type: 'string' }, tableName: { type: 'string' } }, [
          'databaseName',
          'tableName',
        ]),
        timestampValueExpression: { type: 'string' },
      },
      required: ['name', 'kind'],
    },
  },
  webhooks: {
    type: 'array',
    items: object(
      {
        id: objectId,
        name: nonEmpty,
        service: { enum: [...CURRENT_WEBHOOK_SERVICES] },
        url: { type: 'string' },
        description: { type: 'string' },
        body: { type: 'string' },
        headers: stringMap,
        queryParams: stringMap,
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
      ['name', 'service'],
    ),
  },
  savedSearches: {
    type: 'array',
    items: { type: 'object', properties: { id: objectId, name: { type: 'string' } }, required: ['name'] },
  },
  dashboards: objects,
  alerts: objects,
};

/** JSON Schema of a seed file for a profile. */
export function seedSchemaFor(profile: Profile): JsonSchema {
  const stack = profile === 'current' ? currentStackMembers : { dashboards: objects, alerts: objects };
  const serviceSources = profile === 'current' ? {} : { sources: { type: 'array', items: seedSourceSchema } };
  const serviceOnly = profile === 'current' ? { failPipes: { type: 'array', items: nonEmpty } } : {};
  return object({
    organizations: {
      type: 'array',
      items: object(
        {
          id: uuid,
          keys: { type: 'array', minItems: 1, items: object({ id: nonEmpty, secret: nonEmpty }, ['id', 'secret']) },
          services: {
            type: 'array',
            items: object(
              {
                id: uuid,
                state: { enum: [...SERVICE_STATES] },
                pipes: { type: 'array', items: seedPipeSchema(profile) },
                ...serviceSources,
                ...serviceOnly,
                ...stack,
              },
              ['id'],
            ),
          },
        },
        ['id', 'keys'],
      ),
    },
    teams: {
      type: 'array',
      items: object({ id: nonEmpty, tokens: { type: 'array', minItems: 1, items: token }, ...stack }, ['id', 'tokens']),
    },
  });
}

/** JSON Schema of a seed file of the seed profile. */
export const seedSchema: JsonSchema = seedSchemaFor('seed');

function seedSchemaNamed(profile: Profile): NamedSchema {
  return { name: `emulator:seed:${profile}`, schema: seedSchemaFor(profile) };
}

/** The seed schema of every profile, by the names they compile under. */
export function seedSchemas(): NamedSchema[] {
  return PROFILES.map(seedSchemaNamed);
}

/** Validates a seed object for a profile (default `seed`); `origin` names it in errors (a file path, or `seed option`). */
export function parseSeed(value: unknown, origin = 'seed', profile: Profile = 'seed'): Seed {
  const validate = validatorOf(seedSchemaNamed(profile));
  if (!validate(value)) {
    throw seedError(origin, describeIssues(toIssues(validate.errors ?? [])));
  }
  const seed = value as Seed;
  const problem = findDuplicate(seed) ?? findPipeProblem(seed);
  if (problem) throw seedError(origin, problem);
  return seed;
}

/** Reads and validates a YAML or JSON seed file for a profile (default `seed`). */
export function loadSeedFile(path: string, profile: Profile = 'seed'): Seed {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new StacksyncError('E_EMULATOR_DATA', `cannot read seed file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw seedError(path, `not valid YAML or JSON: ${(error as Error).message}`);
  }
  return parseSeed(value ?? {}, path, profile);
}

function seedError(origin: string, detail: string): StacksyncError {
  return new StacksyncError('E_EMULATOR_DATA', `invalid emulator seed (${origin}): ${detail}`, { subject: origin });
}

/** Ids that must be unique across the whole seed; the first one repeated, described. */
function findDuplicate(seed: Seed): string | undefined {
  const organizations = seed.organizations ?? [];
  const services = organizations.flatMap((org) => org.services ?? []);
  const stacks: SeedStack[] = [...services, ...(seed.teams ?? [])];
  const idsOf = (
    member: 'sources' | 'connections' | 'webhooks' | 'savedSearches' | 'dashboards' | 'alerts',
  ): string[] =>
    stacks.flatMap((stack) =>
      (stack[member] ?? []).flatMap((entry) => (typeof entry['id'] === 'string' ? [entry['id']] : [])),
    );
  const checks: [string, string[]][] = [
    ['organization id', organizations.map((org) => org.id)],
    ['key id', organizations.flatMap((org) => org.keys.map((key) => key.id))],
    ['service id', services.map((service) => service.id)],
    ['pipe id', services.flatMap((service) => (service.pipes ?? []).flatMap((pipe) => (pipe.id ? [pipe.id] : [])))],
    ['source id', idsOf('sources')],
    ['connection id', idsOf('connections')],
    ['webhook id', idsOf('webhooks')],
    ['saved search id', idsOf('savedSearches')],
    ['dashboard id', idsOf('dashboards')],
    ['alert id', idsOf('alerts')],
    ['team id', (seed.teams ?? []).map((team) => team.id)],
    ['team token', (seed.teams ?? []).flatMap((team) => team.tokens)],
  ];
  for (const [what, values] of checks) {
    const seen = new Set<string>();
    for (const value of values) {
      // Never echo a token back: it is a secret.
      if (seen.has(value))
        return what === 'team token' ? 'a team token is used twice' : `${what} ${value} is used twice`;
      seen.add(value);
    }
  }
  return undefined;
}

/** The rules a pipe must follow beyond its schema, as the service would enforce them on create. */
function findPipeProblem(seed: Seed): string | undefined {
  for (const service of (seed.organizations ?? []).flatMap((org) => org.services ?? [])) {
    for (const pipe of service.pipes ?? []) {
      if (pipe['serviceId'] !== undefined && pipe['serviceId'] !== service.id) {
        return `pipe ${pipe.name} names serviceId ${String(pipe['serviceId'])} but is seeded under service ${service.id}`;
      }
      const destination = pipe['destination'] as { columns?: unknown } | undefined;
      if (pipe['fieldMappings'] !== undefined && destination?.columns === undefined) {
        return `pipe ${pipe.name}: Columns are required if field mappings are provided`;
      }
    }
  }
  return undefined;
}

/** The fixed ids of the built-in seed, which docs, examples and tests rely on. */
export const DEFAULT_SEED_IDS = {
  organizationId: '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a01',
  keyId: 'emulator-key',
  keySecret: 'emulator-secret',
  serviceId: '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01',
  pipes: {
    kafka: '7a0e1f2c-0001-4b3a-9c4d-5e6f7a8b9c01',
    objectStorage: '7a0e1f2c-0002-4b3a-9c4d-5e6f7a8b9c02',
    kinesis: '7a0e1f2c-0003-4b3a-9c4d-5e6f7a8b9c03',
    postgres: '7a0e1f2c-0004-4b3a-9c4d-5e6f7a8b9c04',
  },
  sources: {
    log: '5d0c3b2a-0001-4e5f-8a9b-0c1d2e3f4a01',
    trace: '5d0c3b2a-0002-4e5f-8a9b-0c1d2e3f4a02',
    metric: '5d0c3b2a-0003-4e5f-8a9b-0c1d2e3f4a03',
    session: '5d0c3b2a-0004-4e5f-8a9b-0c1d2e3f4a04',
  },
  teamId: 'team-1',
  token: 'emulator-token',
} as const;

/**
 * What the built-in seed adds under the current profile, with fixed 24-hex ids: the service and
 * the team each get one source of each kind on one connection, a webhook and a saved search.
 */
export const DEFAULT_CURRENT_IDS = {
  service: {
    connection: '66f0000000000000000c0001',
    sources: {
      log: '66f0000000000000000a0001',
      trace: '66f0000000000000000a0002',
      metric: '66f0000000000000000a0003',
      session: '66f0000000000000000a0004',
    },
    webhook: '66f0000000000000000b0001',
    savedSearch: '66f0000000000000000d0001',
  },
  team: {
    connection: '66f0000000000000000c0002',
    sources: {
      log: '66f0000000000000000a0011',
      trace: '66f0000000000000000a0012',
      metric: '66f0000000000000000a0013',
      session: '66f0000000000000000a0014',
    },
    webhook: '66f0000000000000000b0002',
    savedSearch: '66f0000000000000000d0002',
  },
} as const;

/** Default data sources of a service seeded without `sources`: one of each kind. */
export function defaultSources(): SeedSource[] {
  return SOURCE_KINDS.map((kind) => ({ name: `${kind}s`, kind }));
}

/** Where the default sources of the current profile read from, by kind (the OpenTelemetry exporter's tables). */
const CURRENT_SOURCE_TABLES: Record<
  (typeof SOURCE_KINDS)[number],
  { tableName: string; timestampValueExpression: string }
> = {
  log: { tableName: 'otel_logs', timestampValueExpression: 'TimestampTime' },
  trace: { tableName: 'otel_traces', timestampValueExpression: 'Timestamp' },
  metric: { tableName: 'otel_metrics_gauge', timestampValueExpression: 'TimeUnix' },
  session: { tableName: 'hyperdx_sessions', timestampValueExpression: 'TimestampTime' },
};

/** The members each kind requires (hyperdx `common-utils` source schemas), so a default source read with GET can be sent back with PUT. */
function kindMembers(kind: (typeof SOURCE_KINDS)[number], traceSourceId: string | undefined): Record<string, unknown> {
  switch (kind) {
    case 'log':
      return { defaultTableSelectExpression: 'Timestamp, ServiceName, SeverityText, Body' };
    case 'trace':
      return {
        defaultTableSelectExpression: 'Timestamp, ServiceName, StatusCode, round(Duration / 1e6), SpanName',
        durationExpression: 'Duration',
        durationPrecision: 9,
        traceIdExpression: 'TraceId',
        spanIdExpression: 'SpanId',
        parentSpanIdExpression: 'ParentSpanId',
        spanNameExpression: 'SpanName',
        spanKindExpression: 'SpanKind',
      };
    case 'metric':
      return {
        metricTables: { gauge: 'otel_metrics_gauge', sum: 'otel_metrics_sum', histogram: 'otel_metrics_histogram' },
        resourceAttributesExpression: 'ResourceAttributes',
      };
    case 'session':
      return traceSourceId === undefined ? {} : { traceSourceId };
  }
}

/** A current-profile source of each kind on one connection; ids given, or left to be assigned (then the session source names no trace source). */
export function defaultCurrentSources(
  connection: string,
  ids?: Record<(typeof SOURCE_KINDS)[number], string>,
): SeedSource[] {
  return SOURCE_KINDS.map((kind) => {
    const { tableName, timestampValueExpression } = CURRENT_SOURCE_TABLES[kind];
    const from = { databaseName: 'default', tableName };
    return {
      ...(ids && { id: ids[kind] }),
      name: `${kind}s`,
      kind,
      connection,
      from,
      timestampValueExpression,
      ...kindMembers(kind, ids?.trace),
    };
  });
}

function currentStack(ids: (typeof DEFAULT_CURRENT_IDS)['service' | 'team']): SeedStack {
  return {
    sources: defaultCurrentSources(ids.connection, ids.sources),
    webhooks: [{ id: ids.webhook, name: 'on-call', service: 'generic', url: 'https://hooks.example.com/on-call' }],
    // A saved search always names its source (the documents require `sourceId` in every answer).
    savedSearches: [{ id: ids.savedSearch, name: 'errors', sourceId: ids.sources.log }],
  };
}

/**
 * The built-in seed: one organization, one running service, one pipe of each source kind, one
 * team; under the current profile the service and the team also get sources, a webhook and a
 * saved search (`DEFAULT_CURRENT_IDS`).
 */
export function defaultSeed(profile: Profile = 'seed'): Seed {
  const seed = seedProfileDefault();
  if (profile === 'seed') return seed;
  const service = seed.organizations?.[0]?.services?.[0];
  const team = seed.teams?.[0];
  if (service) Object.assign(service, currentStack(DEFAULT_CURRENT_IDS.service));
  if (team) Object.assign(team, currentStack(DEFAULT_CURRENT_IDS.team));
  return seed;
}

function seedProfileDefault(): Seed {
  const ids = DEFAULT_SEED_IDS;
  return {
    organizations: [
      {
        id: ids.organizationId,
        keys: [{ id: ids.keyId, secret: ids.keySecret }],
        services: [
          {
            id: ids.serviceId,
            state: 'running',
            pipes: [kafkaPipe(), objectStoragePipe(), kinesisPipe(), postgresPipe()],
            sources: SOURCE_KINDS.map((kind) => ({ id: ids.sources[kind], name: `${kind}s`, kind })),
          },
        ],
      },
    ],
    teams: [{ id: ids.teamId, tokens: [ids.token] }],
  };
}

const SEEDED_AT = '2026-01-15T09:30:00.000Z';

function kafkaPipe(): SeedPipe {
  return {
    id: DEFAULT_SEED_IDS.pipes.kafka,
    name: 'orders-kafka',
    state: 'Running',
    scaling: { replicas: 2, concurrency: 2, replicaCpuMillicores: 500, replicaMemoryGb: 2 },
    source: {
      kafka: {
        brokers: 'b-1.orders.kafka.internal:9092,b-2.orders.kafka.internal:9092',
        topics: 'orders',
        consumerGroup: 'stacksync-orders',
        iamRole: 'arn:aws:iam::123456789012:role/orders-ingest',
        offset: { timestamp: '2026-01-01T00:00' },
        schemaRegistry: { url: 'https://schema-registry.internal:8081', authentication: 'PLAIN' },
        reversePrivateEndpointIds: [],
        credentials: { username: 'orders-consumer', password: 'emulator-kafka-password' },
      },
    },
    destination: {
      database: 'default',
      table: 'orders',
      managedTable: true,
      tableDefinition: {
        engine: { versionColumnId: 'updated_at', columnIds: [] },
        sortingKey: ['order_id'],
        partitionBy: 'toYYYYMM(created_at)',
        primaryKey: 'order_id',
      },
      columns: [
        { name: 'order_id', type: 'String' },
        { name: 'customer_id', type: 'String' },
        { name: 'amount', type: 'Decimal(18, 2)' },
        { name: 'currency', type: 'LowCardinality(String)' },
        { name: 'created_at', type: 'DateTime64(3)' },
        { name: 'updated_at', type: 'DateTime64(3)' },
      ],
    },
    fieldMappings: [
      { sourceField: 'orderId', destinationField: 'order_id' },
      { sourceField: 'customerId', destinationField: 'customer_id' },
      { sourceField: 'amount', destinationField: 'amount' },
      { sourceField: 'currency', destinationField: 'currency' },
      { sourceField: 'createdAt', destinationField: 'created_at' },
      { sourceField: 'updatedAt', destinationField: 'updated_at' },
    ],
    settings: {
      streaming_max_insert_wait_ms: 5000,
      engine_max_threads: 8,
      engine_max_insert_threads: 1,
      engine_parallel_view_processing: false,
    },
    createdAt: SEEDED_AT,
    updatedAt: SEEDED_AT,
  };
}

function objectStoragePipe(): SeedPipe {
  return {
    id: DEFAULT_SEED_IDS.pipes.objectStorage,
    name: 'events-s3',
    state: 'Running',
    scaling: { replicas: 1, concurrency: 1, replicaCpuMillicores: 1000, replicaMemoryGb: 4 },
    source: {
      objectStorage: {
        url: 'https://events-bucket.s3.eu-west-1.amazonaws.com/events/**/*.json.gz',
        delimiter: ',',
        compression: 'gzip',
        isContinuous: true,
        queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/events-notifications',
        iamRole: 'arn:aws:iam::123456789012:role/events-ingest',
      },
    },
    destination: {
      database: 'analytics',
      table: 'events',
      managedTable: true,
      tableDefinition: { sortingKey: ['event_time', 'event_id'], partitionBy: 'toDate(event_time)' },
      columns: [
        { name: 'event_id', type: 'UUID' },
        { name: 'event_type', type: 'LowCardinality(String)' },
        { name: 'payload', type: 'String' },
        { name: 'event_time', type: 'DateTime64(3)' },
      ],
    },
    fieldMappings: [
      { sourceField: 'id', destinationField: 'event_id' },
      { sourceField: 'type', destinationField: 'event_type' },
      { sourceField: 'payload', destinationField: 'payload' },
      { sourceField: 'time', destinationField: 'event_time' },
    ],
    settings: {
      object_storage_concurrency: 1,
      object_storage_polling_interval_ms: 30000,
      object_storage_max_insert_bytes: 10737418240,
      object_storage_max_file_count: 100,
      engine_max_download_threads: 4,
      object_storage_use_cluster_function: true,
    },
    createdAt: SEEDED_AT,
    updatedAt: SEEDED_AT,
  };
}

function kinesisPipe(): SeedPipe {
  return {
    id: DEFAULT_SEED_IDS.pipes.kinesis,
    name: 'clicks-kinesis',
    state: 'Running',
    scaling: { replicas: 1, concurrency: 1, replicaCpuMillicores: 250, replicaMemoryGb: 1 },
    source: {
      kinesis: {
        streamName: 'clicks',
        region: 'eu-west-1',
        useEnhancedFanOut: false,
        timestamp: 1767225600,
        iamRole: 'arn:aws:iam::123456789012:role/clicks-ingest',
      },
    },
    destination: {
      database: 'analytics',
      table: 'clicks',
      managedTable: true,
      tableDefinition: { sortingKey: ['clicked_at'] },
      columns: [
        { name: 'session_id', type: 'String' },
        { name: 'url', type: 'String' },
        { name: 'clicked_at', type: 'DateTime' },
      ],
    },
    fieldMappings: [
      { sourceField: 'sessionId', destinationField: 'session_id' },
      { sourceField: 'url', destinationField: 'url' },
      { sourceField: 'ts', destinationField: 'clicked_at' },
    ],
    settings: { streaming_max_insert_wait_ms: 5000, engine_min_insert_block_size_bytes: 1073741824 },
    createdAt: SEEDED_AT,
    updatedAt: SEEDED_AT,
  };
}

function postgresPipe(): SeedPipe {
  return {
    id: DEFAULT_SEED_IDS.pipes.postgres,
    name: 'billing-postgres',
    state: 'Running',
    scaling: { replicas: 1, concurrency: 1, replicaCpuMillicores: 2000, replicaMemoryGb: 8 },
    source: {
      postgres: {
        host: 'billing-db.internal',
        port: 5432,
        database: 'billing',
        settings: {
          syncIntervalSeconds: 60,
          pullBatchSize: 100000,
          publicationName: 'stacksync_billing',
          replicationSlotName: 'stacksync_billing_slot',
          allowNullableColumns: true,
          initialLoadParallelism: 4,
          snapshotNumRowsPerPartition: 100000,
          snapshotNumberOfParallelTables: 1,
          enableFailoverSlots: false,
        },
        tableMappings: [
          {
            sourceSchemaName: 'public',
            sourceTable: 'invoices',
            targetTable: 'invoices',
            excludedColumns: [],
            useCustomSortingKey: false,
            sortingKeys: [],
          },
          {
            sourceSchemaName: 'public',
            sourceTable: 'customers',
            targetTable: 'customers',
            excludedColumns: ['ssn'],
            useCustomSortingKey: true,
            sortingKeys: ['customer_id'],
          },
        ],
        credentials: { username: 'replicator', password: 'emulator-postgres-password' },
      },
    },
    destination: {
      database: 'billing',
      managedTable: true,
      columns: [
        { name: 'invoice_id', type: 'Int64' },
        { name: 'customer_id', type: 'Int64' },
        { name: 'total', type: 'Decimal(18, 2)' },
        { name: 'issued_at', type: 'DateTime64(6)' },
      ],
    },
    fieldMappings: [
      { sourceField: 'id', destinationField: 'invoice_id' },
      { sourceField: 'customer_id', destinationField: 'customer_id' },
      { sourceField: 'total', destinationField: 'total' },
      { sourceField: 'issued_at', destinationField: 'issued_at' },
    ],
    settings: { engine_max_threads: 8, engine_max_insert_threads: 1, engine_parallel_distributed_insert_select: 2 },
    createdAt: SEEDED_AT,
    updatedAt: SEEDED_AT,
  };
}
