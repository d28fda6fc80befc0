/**
 * A Pipe manifest's rules beyond its schema, its secret references, and the desired pipe it
 * becomes. A pipe born in Git is named by its API name and an existing pipe by its id: two
 * manifests of one pipe are duplicates either way.
 */
import type { Static } from 'typebox';
import type { SecretValue } from '../../model/desired.js';
import { pipePatchBeyondSeedMembers, PIPE_SOURCE_KINDS, type PipeSourceKind } from './wire.js';
import { RESYNC_ANNOTATION } from '../../schema/manifest.js';
import { isWriteOnlySourceMember, PIPE_WRITE_ONLY_SOURCE_MEMBERS } from '../../schema/pipe-create-only.js';
import { isMissingMember, pipeDestinationRules, pipeScalingRules, pipeSourceRules } from '../../schema/pipe-rules.js';
import type { SchemaIssue } from '../../schema/validate.js';
import {
  PIPE_FAMILIES,
  PIPE_LACKED_ON_CURRENT,
  RESYNCABLE_PIPE_FAMILIES,
  SCALABLE_PIPE_FAMILIES,
  TABLE_MAPPING_KEYS,
  type PipeFamily,
} from '../../schema/pipe-sources.js';
import type { DesiredBaseOf, DocumentProblem, KindManifests, SecretSite } from '../descriptor.js';
import { duplicatesIn } from '../shared/duplicates.js';
import { lackedProblems } from '../shared/lacked.js';
import { isArrayOf, isRecord, recordOr } from '../../support/json.js';
import {
  isExistingSpec,
  PIPE,
  type BornPipeSpec,
  uuidKey,
  type DesiredPipe,
  type DesiredPipeSource,
  type PipeSpec,
  type SecretMember,
} from './model.js';
import type { pipeDocumentSchema } from './schema.js';

export type PipeManifest = Static<typeof pipeDocumentSchema>;

const BEYOND_SEED_WARNING =
  "is not in the seed's Update pipe list; it is sent as written (the real service takes it, a service that follows the seed refuses it)";

export const pipeManifests: KindManifests<DesiredPipe, PipeManifest> = {
  // Two manifests of one pipe would send it conflicting writes; an id's case does not make it another pipe.
  uniqueName: (manifest) => {
    const { spec } = manifest;
    if (isExistingSpec(spec))
      return { value: uuidKey(spec.pipeId), pointer: ['spec', 'pipeId'], what: (id) => `pipe ${id}` };
    return { value: `name\u0000${spec.name}`, pointer: ['spec', 'name'], what: () => `a pipe named "${spec.name}"` };
  },
  check: (manifest) => [...duplicateMappings(manifest.spec), ...bornRules(manifest)],
  // What the managed service's newest API description lacks is not sent to a target of today's API.
  checkForTarget: (manifest, { profile }) =>
    profile === 'current' && !isExistingSpec(manifest.spec)
      ? lackedProblems(manifest.spec, PIPE_LACKED_ON_CURRENT, "the managed service's API")
      : [],
  warnings: (manifest) => {
    const { spec } = manifest;
    if (!isExistingSpec(spec)) return [];
    const kind = seedKind(spec.source);
    const block = kind ? blockOf(spec.source, kind) : {};
    return Object.keys(block)
      .filter((member) => kind !== undefined && Object.hasOwn(pipePatchBeyondSeedMembers[kind], member))
      .map((member) => ({
        code: 'E_MANIFEST_INVALID',
        pointer: ['spec', 'source', kind ?? '', member],
        message: BEYOND_SEED_WARNING,
      }));
  },
  secrets: (manifest) => {
    const family = familyOf(manifest.spec.source);
    if (!family) return [];
    const block = blockOf(manifest.spec.source, family);
    return PIPE_WRITE_ONLY_SOURCE_MEMBERS[family].flatMap((member) =>
      secretSites(family, member, valueAt(block, member)),
    );
  },
  build: (manifest, base, secrets) => toDesiredPipe(manifest, base, secrets),
  // Secrets as their HMACs only: the digest is recorded in the state file.
  specView: (rest) => {
    const secrets = rest.source?.secrets;
    if (!secrets) return rest;
    const hashes = secrets.map(({ member, fields, value }) => ({
      member,
      ...(fields
        ? { fields: Object.fromEntries(Object.entries(fields).map(([name, secret]) => [name, secret.hmac])) }
        : {}),
      ...(value ? { value: value.hmac } : {}),
    }));
    return { ...rest, source: { ...rest.source, secrets: hashes } };
  },
};

/** A secret reference as written: a string, `{fromEnv}` or `{fromFile}`. */
function isSecretRef(value: unknown): boolean {
  if (typeof value === 'string') return true;
  return isRecord(value) && Object.keys(value).length === 1 && ('fromEnv' in value || 'fromFile' in value);
}

function secretSites(family: PipeFamily, member: string, value: unknown): SecretSite[] {
  const pointer = ['spec', 'source', family, ...member.split('.')];
  const path = `source.${family}.${member}`;
  if (value === undefined) return [];
  if (isSecretRef(value)) return [{ pointer, ref: value, path }];
  if (!isRecord(value)) return [];
  return Object.entries(value).map(
    ([field, ref]): SecretSite => ({ pointer: [...pointer, field], ref, path: `${path}.${field}` }),
  );
}

function valueAt(block: Record<string, unknown>, dotted: string): unknown {
  let value: unknown = block;
  for (const part of dotted.split('.')) value = isRecord(value) ? value[part] : undefined;
  return value;
}

/** What a pipe born in Git must be beyond its schema: scaling only where the family scales, a resync only where it resyncs. */
function bornRules(manifest: PipeManifest): DocumentProblem[] {
  const { spec } = manifest;
  const family = familyOf(spec.source);
  if (!family) return [];
  const problems: DocumentProblem[] = isExistingSpec(spec) ? [] : createRules(spec, family);
  if (manifest.metadata.annotations?.[RESYNC_ANNOTATION] !== undefined && !RESYNCABLE_PIPE_FAMILIES.includes(family)) {
    problems.push({
      code: 'E_MANIFEST_INVALID',
      pointer: ['metadata', 'annotations', RESYNC_ANNOTATION],
      message: `a resync is only for pipes of a database source (${RESYNCABLE_PIPE_FAMILIES.join(', ')}); this one reads from ${family}`,
    });
  }
  return problems;
}

/**
 * The rules the real create applies across members (`schema/pipe-rules.ts`, which the emulator's
 * `current` profile applies too): what the family and flavour need beside what the block has, the
 * destination the family needs, and where scaling goes. Found here, at the manifest's line, they
 * never reach apply as a 400 after the target's other writes went through.
 */
function createRules(spec: BornPipeSpec, family: PipeFamily): DocumentProblem[] {
  const at = (found: SchemaIssue): DocumentProblem => ({
    code: 'E_MANIFEST_INVALID',
    pointer: ['spec', ...found.pointer],
    message: found.message,
  });
  const block = blockOf(spec.source, family);
  // Of the source's rules, the members a create needs. Not credentials: a live pipe keeps its own,
  // which its exported manifest cannot hold (never read back); nor members that disagree, which a
  // live pipe made before a rule may hold: the service refuses those at create.
  const needed = (found: SchemaIssue): boolean =>
    isMissingMember(found) && !isWriteOnlySourceMember(family, found.pointer.slice(2).join('.'));
  const sourceRules = pipeSourceRules(family, block, `source.${family}`).filter(needed);
  const problems = [...sourceRules, ...pipeDestinationRules(family, spec.destination)].map(at);
  if (spec.scaling === undefined) return problems;
  if (!SCALABLE_PIPE_FAMILIES.includes(family)) {
    return [
      ...problems,
      {
        code: 'E_MANIFEST_INVALID',
        pointer: ['spec', 'scaling'],
        message:
          `is only for ${SCALABLE_PIPE_FAMILIES.join(', ')} pipes; ${family} pipes share the service's CDC ` +
          `scaling, one per service, which no pipe's manifest sets`,
      },
    ];
  }
  return [...problems, ...pipeScalingRules(family, spec.scaling, 'scaling').map(at)];
}

function duplicateMappings(spec: PipeSpec): DocumentProblem[] {
  const family = familyOf(spec.source);
  const keys = family ? TABLE_MAPPING_KEYS[family] : undefined;
  if (!family || !keys) return [];
  const list = blockOf(spec.source, family)['tableMappings'];
  const mappings = isArrayOf(list, isRecord) ? list : [];
  const [schema, table] = keys;
  return duplicatesIn(mappings, (m) => `${String(m[schema])}.${String(m[table])}`).map(([index, earlier]) => {
    const mapping = mappings[index] ?? {};
    return {
      code: 'E_MANIFEST_DUPLICATE',
      pointer: ['spec', 'source', family, 'tableMappings', index],
      message: `source table ${String(mapping[schema])}.${String(mapping[table])} is already mapped by tableMappings[${earlier}]`,
    };
  });
}

/** The family block a source holds (schema-checked: exactly one). */
export function familyOf(source: PipeSpec['source']): PipeFamily | undefined {
  return source ? PIPE_FAMILIES.find((family) => family in source) : undefined;
}

function seedKind(source: PipeSpec['source']): PipeSourceKind | undefined {
  return source ? PIPE_SOURCE_KINDS.find((kind) => kind in source) : undefined;
}

function blockOf(source: PipeSpec['source'], family: PipeFamily): Record<string, unknown> {
  const block = recordOr(source)?.[family];
  return isRecord(block) ? block : {};
}

function toDesiredPipe(
  manifest: PipeManifest,
  base: DesiredBaseOf,
  secrets: ReadonlyMap<string, SecretValue>,
): DesiredPipe {
  const { spec } = manifest;
  const pipe: DesiredPipe = { kind: PIPE, ...base };
  if (spec.name !== undefined) pipe.name = spec.name;
  const family = familyOf(spec.source);
  if (spec.source && family) pipe.source = toDesiredSource(spec.source, family, secrets);
  if (spec.fieldMappings !== undefined) pipe.fieldMappings = spec.fieldMappings;
  if (spec.settings !== undefined)
    pipe.settings = membersOf(spec.settings, (value) => typeof value === 'number' || typeof value === 'boolean');
  if (isExistingSpec(spec)) {
    pipe.pipeId = spec.pipeId;
    if (spec.destination?.columns !== undefined) pipe.columns = spec.destination.columns;
    return pipe;
  }
  pipe.born = { destination: spec.destination, state: spec.state ?? 'Running' };
  if (spec.scaling !== undefined) pipe.born.scaling = membersOf(spec.scaling, (value) => typeof value === 'number');
  if (spec.description !== undefined) pipe.born.description = spec.description;
  return pipe;
}

/** The members of a schema-checked block whose values pass `keep` (the schema types them so; an absent one is left out). */
function membersOf<T>(block: object, keep: (value: unknown) => value is T): Record<string, T> {
  const members: Record<string, T> = {};
  for (const [member, value] of Object.entries(block)) if (keep(value)) members[member] = value;
  return members;
}

function toDesiredSource(
  source: Record<string, unknown>,
  family: PipeFamily,
  secrets: ReadonlyMap<string, SecretValue>,
): DesiredPipeSource {
  const { tableMappings, ...rest } = blockOf(source, family);
  const members = PIPE_WRITE_ONLY_SOURCE_MEMBERS[family];
  const desired: DesiredPipeSource = { kind: family, block: withoutMembers(rest, members) };
  const resolved = members.flatMap((member) => secretMemberOf(family, member, valueAt(rest, member), secrets));
  if (resolved.length > 0) desired.secrets = resolved;
  if (isArrayOf(tableMappings, isRecord)) desired.tableMappings = tableMappings;
  if (typeof source['validateSamples'] === 'boolean') desired.validateSamples = source['validateSamples'];
  return desired;
}

function secretMemberOf(
  family: PipeFamily,
  member: string,
  value: unknown,
  secrets: ReadonlyMap<string, SecretValue>,
): SecretMember[] {
  if (value === undefined) return [];
  const path = `source.${family}.${member}`;
  if (isSecretRef(value)) {
    const secret = secrets.get(path);
    return secret ? [{ member, value: secret }] : [];
  }
  const prefix = `${path}.`;
  const fields = Object.fromEntries(
    [...secrets].filter(([key]) => key.startsWith(prefix)).map(([key, secret]) => [key.slice(prefix.length), secret]),
  );
  return Object.keys(fields).length > 0 ? [{ member, fields }] : [];
}

/** The block without the write-only members (nested ones too), which travel as resolved secrets instead. */
function withoutMembers(block: Record<string, unknown>, members: readonly string[]): Record<string, unknown> {
  let copy = block;
  for (const member of members) copy = dropAt(copy, member.split('.'));
  return copy;
}

function dropAt(value: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined || !(head in value)) return value;
  const { [head]: inner, ...others } = value;
  if (rest.length === 0) return others;
  return isRecord(inner) ? { ...others, [head]: dropAt(inner, rest) } : value;
}
