/**
 * Create bodies of the current profile's pipes, one valid body per source family and flavour, and
 * an emulator on a clock the test moves: no test of the lifecycle sleeps.
 */
import {
  KAFKA_AUTHENTICATIONS_BY_FLAVOUR,
  type PIPE_FLAVOURS,
  type PipeFamily,
} from '../../src/schema/pipe-sources.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { basic, call, IDS, start, type CallOptions, type CallResult } from './helpers.js';

export const ORG = IDS.organizationId;
export const SERVICE = IDS.serviceId;
/** A second service of the fixture seed with no pipe at all. */
export const EMPTY_SERVICE = '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e02';

export type Body = Record<string, any>;

/** Secrets the bodies carry; none may ever come back. */
export const SECRETS = [
  'kafka-secret',
  'aws-secret',
  'azure-secret-key',
  'gcp-key-file',
  'pg-secret',
  'mysql-secret',
  'mongo-secret',
  'bq-key-file',
];

const columns = [
  { name: 'id', type: 'String' },
  { name: 'at', type: 'DateTime64(3)' },
];
const streamingDestination = (table: string): Body => ({
  database: 'default',
  table,
  managedTable: true,
  tableDefinition: { engine: { type: 'MergeTree' }, sortingKey: ['id'] },
  columns,
});
const fieldMappings = [
  { sourceField: 'id', destinationField: 'id' },
  { sourceField: 'at', destinationField: 'at' },
];

type KafkaFlavour = (typeof PIPE_FLAVOURS)['kafka'][number];

/** A kafka block of a flavour, with the first authentication that flavour supports and the credentials it needs. */
export function kafkaBlock(flavour: KafkaFlavour = 'kafka'): Body {
  const authentication = KAFKA_AUTHENTICATIONS_BY_FLAVOUR[flavour][0];
  const credentials =
    flavour === 'azureeventhub'
      ? { connectionString: 'Endpoint=sb://x/;SharedAccessKey=kafka-secret' }
      : { username: 'consumer', password: 'kafka-secret' };
  return {
    type: flavour,
    format: 'JSONEachRow',
    brokers: 'b-1.kafka.internal:9092',
    topics: 'orders',
    consumerGroup: 'stacksync',
    authentication,
    credentials,
  };
}

export function objectStorageBlock(flavour: (typeof PIPE_FLAVOURS)['objectStorage'][number] = 's3'): Body {
  if (flavour === 'azureblobstorage') {
    return {
      type: flavour,
      format: 'Parquet',
      path: 'events/*.parquet',
      azureContainerName: 'events',
      authentication: 'CONNECTION_STRING',
      connectionString: 'AccountName=a;AccountKey=azure-secret-key',
    };
  }
  if (flavour === 'gcs') {
    return {
      type: flavour,
      format: 'CSV',
      url: 'https://storage.googleapis.com/events/*.csv',
      authentication: 'SERVICE_ACCOUNT',
      serviceAccountKey: 'gcp-key-file',
    };
  }
  return {
    type: flavour,
    format: 'JSONEachRow',
    url: 'https://events.s3.amazonaws.com/events/*.json',
    isContinuous: true,
    authentication: 'IAM_USER',
    accessKey: { accessKeyId: 'AKIA1', secretKey: 'aws-secret' },
  };
}

export const kinesisBlock = (): Body => ({
  format: 'JSONEachRow',
  streamName: 'clicks',
  region: 'eu-west-1',
  iteratorType: 'TRIM_HORIZON',
  authentication: 'IAM_USER',
  accessKey: { accessKeyId: 'AKIA2', secretKey: 'aws-secret' },
});

export const pubsubBlock = (): Body => ({
  format: 'JSONEachRow',
  projectId: 'analytics-1',
  topic: 'events',
  authentication: 'SERVICE_ACCOUNT',
  seekType: 'earliest',
  serviceAccountKey: { serviceAccountFile: 'gcp-key-file' },
});

export function postgresBlock(flavour?: string, mode = 'cdc'): Body {
  return {
    ...(flavour && { type: flavour }),
    host: 'db.internal',
    port: 5432,
    database: 'app',
    credentials: { username: 'replicator', password: 'pg-secret' },
    settings: { replicationMode: mode, pullBatchSize: 1000 },
    tableMappings: [{ sourceSchemaName: 'public', sourceTable: 'users', targetTable: 'users' }],
  };
}

export function mysqlBlock(flavour?: string): Body {
  return {
    ...(flavour && { type: flavour }),
    host: 'mysql.internal',
    port: 3306,
    credentials: { username: 'replicator', password: 'mysql-secret' },
    settings: { replicationMode: 'cdc' },
    tableMappings: [{ sourceSchemaName: 'shop', sourceTable: 'orders', targetTable: 'orders' }],
  };
}

export const mongodbBlock = (): Body => ({
  uri: 'mongodb+srv://reader:mongo-secret@cluster0.example.net/app',
  readPreference: 'secondaryPreferred',
  settings: { replicationMode: 'cdc' },
  tableMappings: [{ sourceDatabaseName: 'app', sourceCollection: 'users', targetTable: 'users' }],
});

export const bigqueryBlock = (): Body => ({
  snapshotStagingPath: 'gs://staging/bq/',
  settings: { replicationMode: 'snapshot' },
  tableMappings: [{ sourceDatasetName: 'sales', sourceTable: 'orders', targetTable: 'orders' }],
  credentials: { serviceAccountFile: 'bq-key-file' },
});

const BLOCKS: Record<PipeFamily, () => Body> = {
  kafka: () => kafkaBlock(),
  objectStorage: () => objectStorageBlock(),
  kinesis: kinesisBlock,
  pubsub: pubsubBlock,
  postgres: () => postgresBlock(),
  mysql: () => mysqlBlock(),
  mongodb: mongodbBlock,
  bigquery: bigqueryBlock,
};

const STREAMING: readonly PipeFamily[] = ['kafka', 'objectStorage', 'kinesis', 'pubsub'];

/** A valid create body of a family: streaming and object-storage pipes write to a table, database pipes to a database. */
export function pipeBody(family: PipeFamily, name: string = `${family}-pipe`, block: Body = BLOCKS[family]()): Body {
  if (STREAMING.includes(family))
    return {
      name,
      source: { [family]: block },
      destination: streamingDestination(name.replace(/-/g, '_')),
      fieldMappings,
    };
  return { name, source: { [family]: block }, destination: { database: 'replica' } };
}

/** The fixture seed: the built-in current one, plus a service without pipes and names that fail. */
export function fixtureSeed(extra: Body = {}): EmulatorOptions['seed'] {
  return {
    organizations: [
      {
        id: ORG,
        keys: [{ id: IDS.keyId, secret: IDS.keySecret }],
        services: [
          { id: SERVICE, failPipes: ['broken-*'], ...extra },
          { id: EMPTY_SERVICE, failPipes: ['broken-*'] },
        ],
      },
    ],
  };
}

/** A clock the test moves by hand. */
export function manualClock(startMs = Date.parse('2026-03-01T09:00:00.000Z')) {
  let now = startMs;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

export type Managed = (method: string, suffix: string, options?: CallOptions) => Promise<CallResult>;

/** A current-profile emulator and a client of one of its services. */
export async function startCurrent(options: EmulatorOptions = {}, service: string = SERVICE) {
  const { emulator } = await start({ profile: 'current', seed: fixtureSeed(), pipeTransitionMs: 0, ...options });
  const managed: Managed = (method, suffix, callOptions = {}) =>
    call(emulator.url, method, `/v1/organizations/${ORG}/services/${service}${suffix}`, {
      auth: basic(),
      ...callOptions,
    });
  return { emulator, managed };
}

/** POSTs a pipe and returns it, failing the test on anything but 200. */
export async function createPipe(managed: Managed, body: Body): Promise<Body> {
  const response = await managed('POST', '/pipes', { body });
  if (response.status !== 200) throw new Error(`create ${String(body['name'])}: ${response.status} ${response.text}`);
  return response.json.result;
}

export async function stateOf(managed: Managed, id: string): Promise<string> {
  return (await managed('GET', `/pipes/${id}`)).json.result.state;
}

export async function command(managed: Managed, id: string, name: string): Promise<CallResult> {
  return managed('PATCH', `/pipes/${id}/state`, { body: { command: name } });
}

export async function dumpOf(emulator: RunningEmulator): Promise<Body> {
  return (await call(emulator.url, 'GET', '/_emulator/dump')).json;
}
