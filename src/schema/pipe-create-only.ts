/**
 * The one table of a pipe's create-only members: what cannot change once the pipe exists, so a
 * change to it means deleting the pipe and creating it again. Read by the emulator (its `current`
 * PATCH refuses these members, naming them) and by the client's differ (a change to one is a
 * `replace`).
 *
 * The list is docs/reference/api-behaviour.md's "Create-only members" (which wins where it speaks), completed with what
 * the other sources agree on where the notes are silent: members the OpenAPI says "can only be set
 * at pipe creation" (kafka `tombstoneMode`), and members the Terraform provider marks "requires
 * replacement" that the OpenAPI's PATCH bodies do not carry either (`deleteOnMerge`, MongoDB's
 * replication settings, kafka `protobufSchema`, destination `roles`). Where the OpenAPI's PATCH
 * body does carry a member the notes call create-only (kafka `reversePrivateEndpointIds`; pubsub
 * `authentication`, `ackDeadline`), the notes win.
 *
 * Paths are dotted, relative to the family's source block (`settings.replicationMode`) or to
 * `destination`; `'*'` means every member but the write-only ones (credentials).
 */
import type { PipeFamily } from './pipe-sources.js';

/** The source family itself is create-only: a pipe cannot turn from kafka into kinesis. */
export const PIPE_FAMILY_IS_CREATE_ONLY = true;

const DATABASE_SNAPSHOT_SETTINGS = [
  'settings.initialLoadParallelism',
  'settings.snapshotNumRowsPerPartition',
  'settings.snapshotNumberOfParallelTables',
] as const;

export const PIPE_CREATE_ONLY_SOURCE_MEMBERS: Record<PipeFamily, readonly string[] | '*'> = {
  kafka: [
    'type',
    'format',
    'brokers',
    'topics',
    'consumerGroup',
    'offset',
    'schemaRegistry',
    'reversePrivateEndpointIds',
    'exactlyOnce',
    'tombstoneMode',
    'protobufSchema',
  ],
  objectStorage: [
    'type',
    'format',
    'url',
    'delimiter',
    'compression',
    'isContinuous',
    'queueUrl',
    'path',
    'azureContainerName',
  ],
  kinesis: [
    'format',
    'streamName',
    'region',
    'iteratorType',
    'timestamp',
    'useEnhancedFanOut',
    'schemaRegistry',
    'protobufSchema',
  ],
  // docs/reference/api-behaviour.md: "pubsub all but its credentials".
  pubsub: '*',
  postgres: [
    'type',
    'settings.replicationMode',
    'settings.publicationName',
    'settings.replicationSlotName',
    'settings.allowNullableColumns',
    'settings.enableFailoverSlots',
    'settings.deleteOnMerge',
    ...DATABASE_SNAPSHOT_SETTINGS,
  ],
  mysql: [
    'type',
    'settings.replicationMode',
    'settings.replicationMechanism',
    'settings.allowNullableColumns',
    'settings.deleteOnMerge',
    ...DATABASE_SNAPSHOT_SETTINGS,
  ],
  mongodb: [
    'settings.replicationMode',
    'settings.deleteOnMerge',
    'settings.useJsonNativeFormat',
    ...DATABASE_SNAPSHOT_SETTINGS,
  ],
  // docs/reference/api-behaviour.md: "bigquery everything" (snapshot only: every change after create is refused).
  bigquery: '*',
};

/**
 * Members of the pipe itself (beside its source and destination) that only a create takes: the
 * OpenAPI's PATCH body (ClickPipePatchRequest) carries name, source, destination, fieldMappings and
 * settings, and no description.
 */
export const PIPE_CREATE_ONLY_MEMBERS = ['description'] as const;

export const PIPE_CREATE_ONLY_DESTINATION_MEMBERS = [
  'database',
  'table',
  'managedTable',
  'tableDefinition',
  'roles',
] as const;

/**
 * Members of each family's block that are written and never read back (docs/reference/api-behaviour.md: "Credentials
 * (`credentials`, `accessKey`, service-account keys) are accepted on create and PATCH, never
 * returned"). They are never create-only: rotating a secret is a PATCH.
 */
export const PIPE_WRITE_ONLY_SOURCE_MEMBERS: Record<PipeFamily, readonly string[]> = {
  kafka: ['credentials', 'schemaRegistry.credentials'],
  objectStorage: ['accessKey', 'serviceAccountKey'],
  kinesis: ['accessKey'],
  pubsub: ['serviceAccountKey'],
  postgres: ['credentials'],
  mysql: ['credentials'],
  mongodb: ['credentials'],
  bigquery: ['credentials'],
};

/** Whether `path` (dotted, inside the family's block) is create-only: the member itself or anything under it. */
export function isCreateOnlySourceMember(family: PipeFamily, path: string): boolean {
  const members = PIPE_CREATE_ONLY_SOURCE_MEMBERS[family];
  if (members === '*') return !isWriteOnlySourceMember(family, path);
  return members.some((member) => path === member || path.startsWith(`${member}.`));
}

export function isWriteOnlySourceMember(family: PipeFamily, path: string): boolean {
  return PIPE_WRITE_ONLY_SOURCE_MEMBERS[family].some((member) => path === member || path.startsWith(`${member}.`));
}

export function isCreateOnlyDestinationMember(path: string): boolean {
  return PIPE_CREATE_ONLY_DESTINATION_MEMBERS.some((member) => path === member || path.startsWith(`${member}.`));
}
