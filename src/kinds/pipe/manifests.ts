/**
 * A Pipe manifest's rules beyond its schema, its secret references, and the desired pipe it
 * becomes. An existing pipe is named by its id, so two manifests of one pipe are duplicates.
 */
import type { Static } from 'typebox';
import type { SecretValue } from '../../model/desired.js';
import { PIPE_SOURCE_KINDS, type PipeSourceKind } from '../../schema/enums.js';
import { pipePatchBeyondSeedMembers } from '../../schema/api.js';
import type { DOCUMENT_SCHEMAS } from '../../schema/manifest.js';
import type { DesiredBaseOf, DocumentProblem, KindManifests, SecretSite } from '../descriptor.js';
import { duplicatesIn } from '../kit/duplicates.js';
import { isPlainObject } from '../kit/values.js';
import { PIPE, uuidKey, type DesiredPipe, type PipeSpec } from './model.js';

export type PipeManifest = Static<typeof DOCUMENT_SCHEMAS.Pipe>;

/** The block members that hold secret references, and the fields of each. */
const SECRET_MEMBERS = ['credentials', 'accessKey'] as const;

const BEYOND_SEED_WARNING =
  "is not in the seed's Update pipe list; it is sent as written (the real service takes it, a service that follows the seed refuses it)";

export const pipeManifests: KindManifests<DesiredPipe, PipeManifest> = {
  // Two manifests of one pipe would send it conflicting PATCHes; an id's case does not make it another pipe.
  uniqueName: (manifest) => ({ value: uuidKey(manifest.spec.pipeId), pointer: ['spec', 'pipeId'], what: (id) => `pipe ${id}` }),
  check: (manifest) => duplicateMappings(manifest.spec),
  warnings: (manifest) => {
    const kind = sourceKind(manifest.spec.source);
    const block = kind ? blockOf(manifest.spec, kind) : {};
    return Object.keys(block)
      .filter((member) => kind !== undefined && Object.hasOwn(pipePatchBeyondSeedMembers[kind], member))
      .map((member) => ({ code: 'E_MANIFEST_INVALID', pointer: ['spec', 'source', kind ?? '', member], message: BEYOND_SEED_WARNING }));
  },
  secrets: (manifest) => {
    const kind = sourceKind(manifest.spec.source);
    if (!kind) return [];
    const block = blockOf(manifest.spec, kind);
    return SECRET_MEMBERS.flatMap((member) =>
      Object.entries(isPlainObject(block[member]) ? block[member] : {}).map(
        ([field, ref]): SecretSite => ({ pointer: ['spec', 'source', kind, member, field], ref, path: `source.${kind}.${member}.${field}` }),
      ),
    );
  },
  build: (manifest, base, secrets) => toDesiredPipe(manifest.spec, base, secrets),
  // Secrets as their HMACs only: the digest is recorded in the state file.
  specView: (rest) => {
    if (!rest.source?.secrets) return rest;
    const { member, fields } = rest.source.secrets;
    const hashes = Object.fromEntries(Object.entries(fields).map(([name, secret]) => [name, secret.hmac]));
    return { ...rest, source: { ...rest.source, secrets: { member, fields: hashes } } };
  },
};

function duplicateMappings(spec: PipeSpec): DocumentProblem[] {
  const postgres = isPlainObject(spec.source?.['postgres']) ? spec.source['postgres'] : undefined;
  const mappings = (postgres?.['tableMappings'] ?? []) as { sourceSchemaName: string; sourceTable: string }[];
  return duplicatesIn(mappings, (m) => `${m.sourceSchemaName}.${m.sourceTable}`).map(([index, earlier]) => {
    const mapping = mappings[index];
    return {
      code: 'E_MANIFEST_DUPLICATE',
      pointer: ['spec', 'source', 'postgres', 'tableMappings', index],
      message: `source table ${mapping?.sourceSchemaName}.${mapping?.sourceTable} is already mapped by tableMappings[${earlier}]`,
    };
  });
}

function sourceKind(source: PipeSpec['source']): PipeSourceKind | undefined {
  return source ? PIPE_SOURCE_KINDS.find((kind) => kind in source) : undefined;
}

function blockOf(spec: PipeSpec, kind: PipeSourceKind): Record<string, unknown> {
  const block = spec.source?.[kind];
  return isPlainObject(block) ? block : {};
}

function toDesiredPipe(spec: PipeSpec, base: DesiredBaseOf, secrets: ReadonlyMap<string, SecretValue>): DesiredPipe {
  const pipe: DesiredPipe = { kind: PIPE, ...base, pipeId: spec.pipeId };
  if (spec.name !== undefined) pipe.name = spec.name;
  const kind = sourceKind(spec.source);
  if (spec.source && kind) pipe.source = toDesiredSource(spec.source, kind, secrets);
  if (spec.destination?.columns !== undefined) pipe.columns = spec.destination.columns;
  if (spec.fieldMappings !== undefined) pipe.fieldMappings = spec.fieldMappings;
  if (spec.settings !== undefined) pipe.settings = spec.settings;
  return pipe;
}

function toDesiredSource(source: NonNullable<PipeSpec['source']>, kind: PipeSourceKind, secrets: ReadonlyMap<string, SecretValue>): NonNullable<DesiredPipe['source']> {
  const { credentials, accessKey, tableMappings, ...block } = blockOf({ source } as PipeSpec, kind);
  const desired: NonNullable<DesiredPipe['source']> = { kind, block };
  const member = credentials !== undefined ? 'credentials' : accessKey !== undefined ? 'accessKey' : undefined;
  if (member) {
    const prefix = `source.${kind}.${member}.`;
    const fields = Object.fromEntries([...secrets].filter(([path]) => path.startsWith(prefix)).map(([path, value]) => [path.slice(prefix.length), value]));
    desired.secrets = { member, fields };
  }
  if (tableMappings !== undefined) desired.tableMappings = tableMappings as NonNullable<typeof desired.tableMappings>;
  if (typeof source['validateSamples'] === 'boolean') desired.validateSamples = source['validateSamples'];
  return desired;
}
