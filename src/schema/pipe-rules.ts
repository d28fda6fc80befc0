/**
 * The rules of a pipe's create body that span members, which a schema cannot say: what each
 * source family and flavour needs beside what it has (an s3 source's `url`, a kafka source's
 * credentials for its authentication), the destination a family needs, and which families scale.
 * One home for both sides: the emulator's `current` profile refuses a create body by them, and
 * `validate` refuses a Pipe manifest born in Git by them, at its line, before anything is sent
 * (docs/manifests/pipe.md). Pure; every rule names its source beside it (the managed OpenAPI's
 * ClickPipes schemas and their prose; docs/manifests/pipe.md says them for manifest writers).
 */
import {
  KAFKA_AUTHENTICATIONS_BY_FLAVOUR,
  MARIADB_FLAVOURS,
  OBJECT_STORAGE_AUTHENTICATIONS_BY_FLAVOUR,
  PIPE_FAMILY_CLASSES,
  SCALABLE_PIPE_FAMILIES,
  TABLE_MAPPING_KEYS,
  type PipeFamily,
} from './pipe-sources.js';
import { parsePointer, type SchemaIssue } from './validate.js';

type Block = Record<string, unknown>;

function isObject(value: unknown): value is Block {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An issue at a dotted path (`source.kafka.tableMappings[1].targetTable`), with its pointer for the line of a manifest. */
function issue(path: string, message: string): SchemaIssue {
  const pointer = parsePointer(
    `/${path
      .replace(/^\./, '')
      .replace(/\[(\d+)\]/g, '.$1')
      .split('.')
      .join('/')}`,
  );
  return { path, pointer: path ? pointer : [], message };
}

type FamilyRule = (block: Block, at: string) => SchemaIssue[];

/** Issues that say a member the create needs is missing (beside those that say two members disagree). */
const MISSING = new WeakSet<SchemaIssue>();

/** Whether `found` says a member the create needs is missing, as opposed to members that disagree. */
export function isMissingMember(found: SchemaIssue): boolean {
  return MISSING.has(found);
}

function missing(path: string, message: string): SchemaIssue {
  const found = issue(path, message);
  MISSING.add(found);
  return found;
}

const need = (block: Block, member: string, at: string, why: string): SchemaIssue[] =>
  block[member] === undefined ? [missing(`${at}.${member}`, `is required ${why}`)] : [];

function credentialMembers(block: Block, members: string[], at: string, why: string): SchemaIssue[] {
  const credentials = block['credentials'];
  if (!isObject(credentials)) return [missing(`${at}.credentials`, `is required ${why}`)];
  return members
    .filter((member) => credentials[member] === undefined)
    .map((member) => missing(`${at}.credentials.${member}`, `is required ${why}`));
}

/** An authentication the flavour does not support, as an issue at its member; none when it does. */
function unsupportedAuthentication(
  at: string,
  flavour: string,
  authentication: string,
  supported: readonly string[],
): SchemaIssue | undefined {
  if (supported.includes(authentication)) return undefined;
  return issue(
    `${at}.authentication`,
    `${flavour} does not support ${authentication} (supported: ${supported.join(', ')})`,
  );
}

/** OpenAPI, kafka `authentication`: the methods each flavour supports, and what each needs. */
const kafkaRules: FamilyRule = (block, at) => {
  const flavour = block['type'] as keyof typeof KAFKA_AUTHENTICATIONS_BY_FLAVOUR;
  const authentication = block['authentication'] as string | undefined;
  const issues: SchemaIssue[] = [];
  if (authentication !== undefined) {
    const why = `with ${authentication} authentication`;
    const unsupported = unsupportedAuthentication(
      at,
      flavour,
      authentication,
      KAFKA_AUTHENTICATIONS_BY_FLAVOUR[flavour],
    );
    if (unsupported) issues.push(unsupported);
    else if (authentication === 'IAM_ROLE') issues.push(...need(block, 'iamRole', at, why));
    else if (authentication === 'IAM_USER')
      issues.push(...credentialMembers(block, ['accessKeyId', 'secretKey'], at, why));
    else if (authentication === 'MUTUAL_TLS')
      issues.push(...credentialMembers(block, ['certificate', 'privateKey'], at, why));
    else if (flavour === 'azureeventhub') issues.push(...credentialMembers(block, ['connectionString'], at, why));
    else if (authentication !== 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY')
      issues.push(...credentialMembers(block, ['username', 'password'], at, why));
  }
  const offset = block['offset'] as Block | undefined;
  if (offset?.['strategy'] === 'from_timestamp' && offset['timestamp'] === undefined)
    issues.push(missing(`${at}.offset.timestamp`, 'is required for the from_timestamp strategy'));
  // OpenAPI: tombstone "delete" "requires exactly-once delivery"; protobufSchema "Supported only with
  // Protobuf format and cannot be combined with schemaRegistry".
  if (block['tombstoneMode'] === 'delete' && block['exactlyOnce'] !== true)
    issues.push(issue(`${at}.tombstoneMode`, 'delete requires exactlyOnce'));
  if (
    block['protobufSchema'] !== undefined &&
    (block['format'] !== 'Protobuf' || block['schemaRegistry'] !== undefined)
  ) {
    issues.push(issue(`${at}.protobufSchema`, 'is only for the Protobuf format, without a schemaRegistry'));
  }
  return issues;
};

/** OpenAPI, objectStorage: Azure names `path` and `azureContainerName`, the others a `url`; each flavour its authentication methods. */
const objectStorageRules: FamilyRule = (block, at) => {
  const flavour = block['type'] as keyof typeof OBJECT_STORAGE_AUTHENTICATIONS_BY_FLAVOUR;
  const issues: SchemaIssue[] = [];
  if (flavour === 'azureblobstorage')
    issues.push(
      ...need(block, 'path', at, 'for azureblobstorage'),
      ...need(block, 'azureContainerName', at, 'for azureblobstorage'),
    );
  else issues.push(...need(block, 'url', at, `for ${flavour}`));
  const authentication = block['authentication'] as string | undefined;
  if (authentication !== undefined) {
    const why = `with ${authentication} authentication`;
    const unsupported = unsupportedAuthentication(
      at,
      flavour,
      authentication,
      OBJECT_STORAGE_AUTHENTICATIONS_BY_FLAVOUR[flavour],
    );
    if (unsupported) issues.push(unsupported);
    else if (authentication === 'IAM_ROLE') issues.push(...need(block, 'iamRole', at, why));
    else if (authentication === 'IAM_USER') issues.push(...need(block, 'accessKey', at, why));
    else if (authentication === 'CONNECTION_STRING') issues.push(...need(block, 'connectionString', at, why));
    else if (authentication === 'SERVICE_ACCOUNT') issues.push(...need(block, 'serviceAccountKey', at, why));
  }
  // OpenAPI: queueUrl "Only applicable when isContinuous is true"; skipInitialLoad "Only applicable when queueUrl is provided".
  if (block['queueUrl'] !== undefined && block['isContinuous'] !== true)
    issues.push(issue(`${at}.queueUrl`, 'needs isContinuous: true'));
  if (block['skipInitialLoad'] === true && block['queueUrl'] === undefined)
    issues.push(issue(`${at}.skipInitialLoad`, 'needs a queueUrl'));
  if (block['skipInitialLoad'] === true && block['startAfter'] !== undefined)
    issues.push(issue(`${at}.startAfter`, 'cannot be given with skipInitialLoad'));
  return issues;
};

/** OpenAPI, kinesis: "If AT_TIMESTAMP is used, the timestamp field must be provided"; IAM_ROLE "Required if IAM_ROLE is used". */
const kinesisRules: FamilyRule = (block, at) => {
  const issues: SchemaIssue[] = [];
  if (block['iteratorType'] === 'AT_TIMESTAMP')
    issues.push(...need(block, 'timestamp', at, 'with the AT_TIMESTAMP iterator'));
  if (block['authentication'] === 'IAM_ROLE')
    issues.push(...need(block, 'iamRole', at, 'with IAM_ROLE authentication'));
  if (block['authentication'] === 'IAM_USER')
    issues.push(...need(block, 'accessKey', at, 'with IAM_USER authentication'));
  return issues;
};

/** OpenAPI, pubsub: seekTimestamp "Required when seekType is timestamp; must be omitted otherwise"; a service-account key with SERVICE_ACCOUNT. */
const pubsubRules: FamilyRule = (block, at) => {
  const issues: SchemaIssue[] = [];
  if (block['seekType'] === 'timestamp') issues.push(...need(block, 'seekTimestamp', at, 'when seekType is timestamp'));
  else if (block['seekTimestamp'] !== undefined)
    issues.push(issue(`${at}.seekTimestamp`, 'must be omitted unless seekType is timestamp'));
  if (block['authentication'] === 'SERVICE_ACCOUNT')
    issues.push(...need(block, 'serviceAccountKey', at, 'with SERVICE_ACCOUNT authentication'));
  return issues;
};

/** Mappings are identified by their source (docs/manifests/pipe.md: a mapping is keyed by its source table); the provider also wants each target table once. */
function mappingRules(family: PipeFamily, block: Block, at: string): SchemaIssue[] {
  const keys = TABLE_MAPPING_KEYS[family];
  const list = block['tableMappings'];
  if (!keys || !Array.isArray(list)) return [];
  const issues: SchemaIssue[] = [];
  const sources = new Set<string>();
  const targets = new Set<string>();
  list.forEach((mapping: Block, index) => {
    const source = `${String(mapping[keys[0]])}.${String(mapping[keys[1]])}`;
    const target = String(mapping['targetTable']);
    if (sources.has(source)) issues.push(issue(`${at}.tableMappings[${index}]`, `${source} is mapped twice`));
    if (targets.has(target))
      issues.push(issue(`${at}.tableMappings[${index}].targetTable`, `${target} is the target of two mappings`));
    sources.add(source);
    targets.add(target);
  });
  return issues;
}

/** Basic authentication (the default) needs credentials; IAM_ROLE an iamRole (OpenAPI: "required for IAM_ROLE authentication"). */
function databaseAccessRules(block: Block, at: string): SchemaIssue[] {
  if (block['authentication'] === 'IAM_ROLE') return need(block, 'iamRole', at, 'with IAM_ROLE authentication');
  return credentialMembers(block, ['username', 'password'], at, 'with basic authentication');
}

const postgresRules: FamilyRule = (block, at) => {
  const settings = (block['settings'] ?? {}) as Block;
  const issues = [...databaseAccessRules(block, at), ...mappingRules('postgres', block, at)];
  // OpenAPI: replicationSlotName 'Only valid for "cdc_only" mode'.
  if (settings['replicationSlotName'] !== undefined && settings['replicationMode'] !== 'cdc_only') {
    issues.push(issue(`${at}.settings.replicationSlotName`, 'is only valid in cdc_only replication mode'));
  }
  return issues;
};

const mysqlRules: FamilyRule = (block, at) => {
  const settings = (block['settings'] ?? {}) as Block;
  const issues = [...databaseAccessRules(block, at), ...mappingRules('mysql', block, at)];
  // OpenAPI: "MariaDB supports GTID only".
  if (MARIADB_FLAVOURS.includes(String(block['type'])) && settings['replicationMechanism'] === 'FILE_POS') {
    issues.push(issue(`${at}.settings.replicationMechanism`, `${String(block['type'])} supports GTID only`));
  }
  return issues;
};

const mongodbRules: FamilyRule = (block, at) => mappingRules('mongodb', block, at);

/** OpenAPI, bigquery: a service-account key unless the workload identity is used, which needs a projectId and no key. */
const bigqueryRules: FamilyRule = (block, at) => {
  const issues = mappingRules('bigquery', block, at);
  if (block['authentication'] === 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY') {
    issues.push(...need(block, 'projectId', at, 'with SERVICE_ACCOUNT_WORKLOAD_IDENTITY authentication'));
    if (block['credentials'] !== undefined)
      issues.push(
        issue(`${at}.credentials`, 'must not be given with SERVICE_ACCOUNT_WORKLOAD_IDENTITY authentication'),
      );
  } else {
    issues.push(...need(block, 'credentials', at, 'with SERVICE_ACCOUNT authentication'));
  }
  return issues;
};

const FAMILY_RULES: Record<PipeFamily, FamilyRule> = {
  kafka: kafkaRules,
  objectStorage: objectStorageRules,
  kinesis: kinesisRules,
  pubsub: pubsubRules,
  postgres: postgresRules,
  mysql: mysqlRules,
  mongodb: mongodbRules,
  bigquery: bigqueryRules,
};

/** OpenAPI, destination: `database` always; `table`, `managedTable` and `columns` "Required field for all pipe types except database pipes". */
export function pipeDestinationRules(family: PipeFamily, destination: Block): SchemaIssue[] {
  const issues = destination['database'] === undefined ? [issue('destination.database', 'is required')] : [];
  if (PIPE_FAMILY_CLASSES[family] === 'database') return issues;
  for (const member of ['table', 'managedTable', 'columns']) {
    if (destination[member] === undefined)
      issues.push(issue(`destination.${member}`, `is required for ${family} pipes`));
  }
  if (Array.isArray(destination['columns']) && destination['columns'].length === 0)
    issues.push(issue('destination.columns', `needs at least one column for ${family} pipes`));
  return issues;
}

/** Scaling is for kafka, kinesis and object-storage pipes only (docs/manifests/pipe.md); OpenAPI: `concurrency` "Only for S3 pipes". */
export function pipeScalingRules(family: PipeFamily, scaling: Block | undefined, at: string): SchemaIssue[] {
  if (scaling === undefined) return [];
  if (!SCALABLE_PIPE_FAMILIES.includes(family))
    return [
      issue(
        at,
        `is only for ${SCALABLE_PIPE_FAMILIES.join(', ')} pipes; database pipes share the service's CDC scaling`,
      ),
    ];
  if (scaling['concurrency'] !== undefined && family !== 'objectStorage')
    return [issue(`${at}.concurrency`, 'is only for objectStorage pipes')];
  return [];
}

/** The cross-member rules of one family's create block, `at` its dotted path (`source.kafka`). */
export function pipeSourceRules(family: PipeFamily, block: Block, at: string): SchemaIssue[] {
  return FAMILY_RULES[family](block, at);
}
