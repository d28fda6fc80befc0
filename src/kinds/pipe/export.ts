/**
 * A live pipe as a manifest born in Git (docs/export.md: export writes every pipe so that it could be
 * created again elsewhere, and so that `plan` shows it clean): its name, its source block as the
 * create takes it, destination, field mappings, scaling, settings and state. Credentials are
 * never returned, so they are offered as `fromEnv` placeholders in a comment. A live pipe that
 * lacks what a create needs (a pipe of the seed's shape, without `type` or `format`) is written
 * in the existing form instead, naming it by its id, which always describes it. A pipe at rest,
 * or failed, is written `state: Stopped`.
 */
import { validatorOf, type NamedSchema } from '../../schema/validate.js';
import { bornPipeSpecSchema, existingPipeSpecSchema } from './schema.js';
import { SCALABLE_PIPE_FAMILIES, type PipeFamily } from '../../schema/pipe-sources.js';
import type { CredentialPlaceholder, KindExport } from '../descriptor.js';
import { envName } from '../shared/export-names.js';
import { pickBySchema } from '../shared/pick.js';
import { recordOr } from '../../support/json.js';
import { isRecord } from '../shared/values.js';
import { FAILED_STATES, STOPPED_STATES, STOPPING_STATES } from './lifecycle.js';
import type { LivePipe } from './model.js';

export const pipeExport: KindExport<LivePipe> = {
  keyPrefix: 'pipe',
  write: (pipe, key) => {
    const born = bornSpec(pipe);
    const spec = born ?? existingSpec(pipe);
    const credentials = credentialPlaceholder(pipe, key, born !== undefined);
    return credentials ? { spec, credentials } : { spec };
  },
};

function bornSpec(pipe: LivePipe): Record<string, unknown> | undefined {
  const { kind, block } = pipe.source;
  // A failed pipe is not running either: exported Stopped, it plans clean, and Running starts it again.
  const stopped =
    pipe.state !== undefined && [...STOPPED_STATES, ...STOPPING_STATES, ...FAILED_STATES].includes(pipe.state);
  const candidate = {
    name: pipe.name,
    source: { [kind]: block },
    destination: pipe.destination,
    description: pipe.description,
    fieldMappings: pipe.fieldMappings,
    ...(SCALABLE_PIPE_FAMILIES.includes(kind) ? { scaling: pipe.scaling } : {}),
    settings: pipe.settings,
    ...(stopped ? { state: 'Stopped' } : {}),
  };
  const spec = recordOr(pickBySchema(candidate, bornPipeSpecSchema)) ?? {};
  return validatorOf(BORN_PIPE_SPEC)(spec) ? spec : undefined;
}

/** The spec of a pipe born in Git, which an export written in that form must meet. */
export const BORN_PIPE_SPEC: NamedSchema = { name: 'export:pipe-born', schema: bornPipeSpecSchema };

function existingSpec(pipe: LivePipe): Record<string, unknown> {
  const { kind, block } = pipe.source;
  const candidate = {
    pipeId: pipe.id,
    name: pipe.name,
    source: { [kind]: block },
    destination: pipe.destination,
    fieldMappings: pipe.fieldMappings,
    settings: pipe.settings,
  };
  const spec = recordOr(pickBySchema(candidate, existingPipeSpecSchema)) ?? {};
  // The kind block stays even when empty: it says where credentials would go.
  spec['source'] ??= { [kind]: {} };
  return spec;
}

/** The write-only member a pipe of this family and authentication takes, and its fields ('' for a member that is one secret). */
function credentialMember(
  family: PipeFamily,
  block: Record<string, unknown>,
  born: boolean,
): { member: string; fields: string[] } | undefined {
  const authentication = block['authentication'];
  const basic = { member: 'credentials', fields: ['username', 'password'] };
  const keys = { member: 'accessKey', fields: ['accessKeyId', 'secretKey'] };
  switch (family) {
    case 'kafka':
      if (authentication === 'IAM_USER') return { member: 'credentials', fields: ['accessKeyId', 'secretKey'] };
      if (authentication === 'MUTUAL_TLS') return { member: 'credentials', fields: ['certificate', 'privateKey'] };
      if (authentication === 'IAM_ROLE' || authentication === 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY') return undefined;
      return block['type'] === 'azureeventhub' ? { member: 'credentials', fields: ['connectionString'] } : basic;
    case 'objectStorage':
      if (!born || authentication === 'IAM_USER') return keys;
      return authentication === 'SERVICE_ACCOUNT' ? { member: 'serviceAccountKey', fields: [''] } : undefined;
    case 'kinesis':
      return !born || authentication === 'IAM_USER' ? keys : undefined;
    case 'pubsub':
      return authentication === 'SERVICE_ACCOUNT'
        ? { member: 'serviceAccountKey', fields: ['serviceAccountFile'] }
        : undefined;
    case 'bigquery':
      return authentication === 'SERVICE_ACCOUNT_WORKLOAD_IDENTITY'
        ? undefined
        : { member: 'credentials', fields: ['serviceAccountFile'] };
    default:
      return authentication === 'IAM_ROLE' ? undefined : basic;
  }
}

function credentialPlaceholder(pipe: LivePipe, key: string, born: boolean): CredentialPlaceholder | undefined {
  const { kind, block } = pipe.source;
  const found = credentialMember(kind, isRecord(block) ? block : {}, born);
  if (!found) return undefined;
  const path = `spec.source.${kind}`;
  if (found.fields.length === 1 && found.fields[0] === '')
    return { path, member: found.member, fields: {}, value: { fromEnv: envName(key, found.member) } };
  return {
    path,
    member: found.member,
    fields: Object.fromEntries(found.fields.map((field) => [field, { fromEnv: envName(key, field) }])),
  };
}
