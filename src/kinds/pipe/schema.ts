/**
 * A pipe's manifest: its spec in both forms (with pipeId: an existing pipe; without: born in Git),
 * built from the API schema parts so the two cannot disagree (docs/manifests/pipe.md).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { described, object, oneOf, optional, readable, type JsonSchema } from '../../schema/build.js';
import { secretRefSchema } from '../../schema/config.js';
import {
  PIPE_SOURCE_KINDS,
  columnSchema,
  fieldMappingSchema,
  pipePatchBeyondSeedMembers,
  pipePatchBlockMembers,
  pipeSettingsSchema,
  tableMappingSchema,
  currentPipeDestinationSchema,
  currentPipeSettingsSchema,
  PIPE_CREATE_BLOCKS,
  pipeScalingBodySchema,
} from './wire.js';
import { PIPE_WRITE_ONLY_SOURCE_MEMBERS } from '../../schema/pipe-create-only.js';
import { PIPE_FAMILIES, type PipeFamily } from '../../schema/pipe-sources.js';
import { recordOr } from '../../support/json.js';
import { ignoreDifferencesSchema } from '../../schema/manifest-parts.js';
import { documentSchema } from '../../schema/manifest.js';

/** The Pipe kind's name. */
export const PIPE = 'Pipe';

const SECRET_MEMBERS_DESCRIPTION =
  'Write-only; compared by an HMAC kept in the state file. Each member is a secret reference.';
const credentialsSecretSchema = object(
  { username: secretRefSchema, password: secretRefSchema },
  { description: SECRET_MEMBERS_DESCRIPTION },
);
const accessKeySecretSchema = object(
  { accessKeyId: secretRefSchema, secretKey: secretRefSchema },
  { description: SECRET_MEMBERS_DESCRIPTION },
);

/**
 * Update pipe's source blocks, with secret references for credentials and, for postgres, the full
 * mapping list instead of the additions and removals.
 */
const manifestSourceBlocks = {
  kafka: object({
    ...pipePatchBlockMembers.kafka,
    ...pipePatchBeyondSeedMembers.kafka,
    credentials: Type.Optional(credentialsSecretSchema),
  }),
  objectStorage: object({ ...pipePatchBlockMembers.objectStorage, accessKey: Type.Optional(accessKeySecretSchema) }),
  kinesis: object({ ...pipePatchBlockMembers.kinesis, accessKey: Type.Optional(accessKeySecretSchema) }),
  postgres: object({
    ...pipePatchBlockMembers.postgres,
    credentials: Type.Optional(credentialsSecretSchema),
    tableMappings: Type.Optional(
      Type.Array(tableMappingSchema, {
        description:
          'The full desired list; the plan sends the additions and removals (keyed by sourceSchemaName + sourceTable).',
      }),
    ),
  }),
} satisfies Record<(typeof PIPE_SOURCE_KINDS)[number], TSchema>;

const pipeSourceSchema = object(
  {
    ...optional(manifestSourceBlocks),
    validateSamples: Type.Optional(
      Type.Boolean({ description: 'Ask the service to check sample data with this update.' }),
    ),
  },
  {
    description: 'Exactly one source block, of the kind the pipe already has, beside an optional validateSamples.',
    oneOf: PIPE_SOURCE_KINDS.map((kind) => ({ required: [kind] })),
  },
);

/** The spec of a manifest naming an existing pipe by id: the members Update pipe can change. */
export const existingPipeSpecSchema = object({
  pipeId: Type.String({
    format: 'uuid',
    description: 'Id of an existing pipe made elsewhere (leave out for a pipe born in Git, which stacksync creates).',
  }),
  ...optional({
    name: Type.String({ minLength: 1, description: 'Pipe name.' }),
    source: pipeSourceSchema,
    destination: object(
      {
        columns: Type.Optional(
          Type.Array(columnSchema, {
            minItems: 1,
            description: 'Destination columns; sent together with fieldMappings.',
          }),
        ),
      },
      { description: 'Only the columns can be changed.' },
    ),
    fieldMappings: Type.Array(fieldMappingSchema, { description: 'Source field → destination column.' }),
    settings: described(pipeSettingsSchema, 'Engine and ingestion settings, with the bounds the service enforces.'),
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

/**
 * A create block of the real service with its write-only members as secret references: at each
 * of the family's write-only paths, an object's every member (`credentials.password`), or the
 * member itself (`serviceAccountKey`), becomes a secret reference.
 */
function withSecretRefs(block: TSchema, family: PipeFamily): JsonSchema {
  const copy: JsonSchema = recordOr(JSON.parse(JSON.stringify(block))) ?? {};
  for (const path of PIPE_WRITE_ONLY_SOURCE_MEMBERS[family]) {
    const parts = path.split('.');
    let parent: JsonSchema | undefined = copy;
    for (const part of parts.slice(0, -1)) parent = recordOr(recordOr(parent?.['properties'])?.[part]);
    const properties = recordOr(parent?.['properties']);
    const last = parts[parts.length - 1] ?? '';
    const member = recordOr(properties?.[last]);
    if (!properties || !member) continue;
    const fields = recordOr(member['properties']);
    properties[last] = fields
      ? {
          ...member,
          description: SECRET_MEMBERS_DESCRIPTION,
          properties: Object.fromEntries(Object.keys(fields).map((field) => [field, secretRefSchema])),
        }
      : secretRefSchema;
  }
  return copy;
}

const BORN_BLOCK_DESCRIPTIONS: Record<PipeFamily, string> = {
  kafka:
    'A Kafka-compatible source: type (kafka, confluent, msk, azureeventhub, redpanda, ' +
    'warpstream, gcmk, dokafka), format, brokers, topics, authentication with credentials.',
  objectStorage:
    'Files in object storage: type (s3, gcs, azureblobstorage), format, url (or path ' +
    'and azureContainerName), authentication with accessKey, iamRole or connectionString.',
  kinesis:
    'An Amazon Kinesis stream: format, streamName, region, iteratorType, authentication with accessKey or iamRole.',
  pubsub:
    'A Google Pub/Sub topic (limited preview): format, projectId, topic, seekType, authentication with a service account key.',
  postgres:
    'A Postgres database (CDC): type (postgres, supabase, neon, alloydb, …), ' +
    'host, port, database, credentials, settings, and the full list of tableMappings.',
  mysql:
    'A MySQL or MariaDB database (CDC): type, host, port, credentials, settings (replicationMode required), and the full list of tableMappings.',
  mongodb:
    'A MongoDB database (CDC): uri, readPreference, credentials, settings (replicationMode required), and the full list of tableMappings.',
  bigquery:
    'A BigQuery dataset, snapshot only (every change after create needs a replace): snapshotStagingPath, settings, credentials, tableMappings.',
};

/** The source of a pipe born in Git: exactly one family block, as the real service's create takes it. */
const bornPipeSourceSchema = Type.Unsafe<Partial<Record<PipeFamily, Record<string, unknown>>>>({
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(
    PIPE_FAMILIES.map((family) => [
      family,
      { ...withSecretRefs(PIPE_CREATE_BLOCKS[family], family), description: BORN_BLOCK_DESCRIPTIONS[family] },
    ]),
  ),
  oneOf: PIPE_FAMILIES.map((family) => ({ required: [family] })),
  description: `Exactly one source block: ${PIPE_FAMILIES.join(', ')}. Credentials are secret references, sent once per new value and compared by their HMAC.`,
});

/** The states a pipe born in Git converges to (the state operation: start, stop). */
export const PIPE_DESIRED_STATES = ['Running', 'Stopped'] as const;

/** The spec of a pipe born in Git: what the real service's create takes, plus the state it should be in. */
export const bornPipeSpecSchema = object({
  name: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Pipe name in the API: what the live pipe is matched by, unique in the service.',
  }),
  source: bornPipeSourceSchema,
  destination: described(
    currentPipeDestinationSchema,
    'database (always), table, managedTable, tableDefinition and columns (streaming and object-storage pipes); only columns can change once created.',
  ),
  ...optional({
    description: Type.String({ description: 'Free text.' }),
    fieldMappings: Type.Array(fieldMappingSchema, { description: 'Source field → destination column.' }),
    scaling: described(
      pipeScalingBodySchema,
      'kafka, kinesis and objectStorage pipes: replicas 1–40, replicaCpuMillicores 125–2000, ' +
        "replicaMemoryGb 0.5–8; concurrency (0–34, deprecated) for objectStorage only (database pipes share the service's CDC " +
        "scaling, which no pipe's manifest sets).",
    ),
    settings: described(
      currentPipeSettingsSchema,
      'Engine and ingestion settings, with the bounds the service enforces.',
    ),
    state: oneOf(PIPE_DESIRED_STATES, {
      default: 'Running',
      description: 'Running (default) or Stopped: converged with the state operation (start, stop).',
    }),
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

/**
 * A Pipe's spec in either form: with `pipeId`, an existing pipe made elsewhere; without, a pipe
 * born in Git that stacksync creates, owns and prunes.
 */
export const pipeSpecSchema = readable(
  Type.Unsafe<Static<typeof existingPipeSpecSchema> | Static<typeof bornPipeSpecSchema>>({
    type: 'object',
    if: { required: ['pipeId'] },
    then: existingPipeSpecSchema,
    else: bornPipeSpecSchema,
    description:
      'With pipeId: an existing pipe, of which the manifest holds the members Update ' +
      'pipe can change. Without: a pipe born in Git (name, source, destination, …, state).',
  }),
);

/** What the kind is, as its published schema says. */
export const PIPE_DESCRIPTION =
  'An ingestion pipe (managed targets only): born in Git (created, updated, started and stopped, pruned) or, with pipeId, an existing one updated to match.';

/** The whole manifest document: the envelope with this spec. */
export const pipeDocumentSchema = documentSchema(PIPE, pipeSpecSchema, PIPE_DESCRIPTION);
