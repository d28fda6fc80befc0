/**
 * Pipe rules of the managed variant (seed 4.1 and docs/reference/api-behaviour.md, "Managed variant"): create, the
 * PATCH merge with its cross-member rules, and delete. Pure over a service record; no HTTP.
 */
import { validateApi } from '../kinds/wire.js';
import { ApiError, invalidMember, notFound } from './errors.js';
import { isoTimestamp, newId } from './ids.js';
import type { CredentialHasher } from './credentials.js';
import type { PipeResource, PipeSecrets, ServiceRecord } from './model.js';

/** Members of a source block that are accepted, stored as fingerprints, and never returned. */
const WRITE_ONLY_MEMBERS = ['credentials', 'accessKey'] as const;

type Block = Record<string, unknown>;

/** A PATCH's `settings` over the source block's: the members it names replace, the others stay. */
export function overlaySourceSettings(block: Block, settings: unknown): void {
  if (settings !== undefined)
    block['settings'] = { ...(block['settings'] as Block | undefined), ...(settings as Block) };
}
type TableMapping = { sourceSchemaName: string; sourceTable: string; targetTable: string } & Block;

interface PipeInput {
  id?: string;
  name: string;
  state?: string;
  scaling?: Record<string, number>;
  source: Record<string, unknown>;
  destination?: Block;
  fieldMappings?: PipeResource['fieldMappings'];
  settings?: PipeResource['settings'];
  createdAt?: string;
  updatedAt?: string;
}

/** How a write-only value is kept: a fingerprint that shows it was stored (and changed) without keeping it in clear. */
export type Fingerprint = (value: unknown) => string;

/**
 * `sha256:<hex>` fingerprints salted like key secrets (see `CredentialHasher`), so a dump cannot
 * be checked against guessed passwords.
 */
export function fingerprintWith(credentials: CredentialHasher): Fingerprint {
  return (value) => `sha256:${credentials.hash(canonicalJson(value))}`;
}

/** What the seed profile's pipe rules depend on besides the request: how secrets are kept. */
export interface PipeRules {
  fingerprint: Fingerprint;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Block).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The one kind block a source holds (`validateSamples` sits beside it and is an instruction, not state). */
function sourceKinds(source: Record<string, unknown>): string[] {
  return Object.keys(source).filter((key) => key !== 'validateSamples');
}

export function pipeKind(pipe: PipeResource): string {
  return Object.keys(pipe.source)[0] ?? 'unknown';
}

function requireColumnsForFieldMappings(body: { fieldMappings?: unknown; destination?: Block }): void {
  if (body.fieldMappings !== undefined && body.destination?.['columns'] === undefined) {
    throw new ApiError('bad_request', 'Columns are required if field mappings are provided');
  }
}

/** Moves write-only members out of a block into fingerprints keyed `kind.member`. */
function splitWriteOnly(kind: string, block: Block, secrets: PipeSecrets, fingerprint: Fingerprint): Block {
  const kept: Block = {};
  for (const [key, value] of Object.entries(block)) {
    if ((WRITE_ONLY_MEMBERS as readonly string[]).includes(key)) secrets[`${kind}.${key}`] = fingerprint(value);
    else kept[key] = value;
  }
  return kept;
}

/** A new pipe from a create body or a seed entry (both already schema-valid). */
export function buildPipe(
  serviceId: string,
  input: PipeInput,
  nowMs: number,
  defaultState: string,
  fingerprint: Fingerprint,
): { pipe: PipeResource; secrets: PipeSecrets } {
  requireColumnsForFieldMappings(input);
  const kind = sourceKinds(input.source)[0] ?? 'unknown';
  const secrets: PipeSecrets = {};
  const block = splitWriteOnly(kind, input.source[kind] as Block, secrets, fingerprint);
  const now = isoTimestamp(nowMs);
  const pipe: PipeResource = {
    id: input.id ?? newId('uuid', nowMs),
    serviceId,
    name: input.name,
    state: input.state ?? defaultState,
    ...(input.scaling && { scaling: input.scaling }),
    source: { [kind]: block },
    destination: input.destination ?? {},
    ...(input.fieldMappings && { fieldMappings: input.fieldMappings }),
    ...(input.settings && { settings: input.settings }),
    createdAt: input.createdAt ?? now,
    updatedAt: input.updatedAt ?? input.createdAt ?? now,
  };
  return { pipe, secrets };
}

export function requirePipe(service: ServiceRecord, id: string): PipeResource {
  const pipe = service.pipes.get(id);
  if (!pipe) throw notFound(`pipe ${id} not found`);
  return pipe;
}

// ---------------------------------------------------------------- unknown members (the current profile's rules)

type Schema = Record<string, unknown>;

/**
 * Deletes the members of `value` that `schema` does not name, through `properties` and `items`:
 * the real service drops what it does not know instead of rejecting it. Works on any JSON Schema
 * object (plain or TypeBox); objects that allow additional members are left whole.
 */
export function stripUnknownMembers(schema: Schema | undefined, value: unknown): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    for (const item of value) stripUnknownMembers(schema['items'] as Schema | undefined, item);
    return;
  }
  const properties = schema['properties'] as Record<string, Schema> | undefined;
  if (!properties || value === null || typeof value !== 'object') return;
  const open = schema['additionalProperties'] !== undefined && schema['additionalProperties'] !== false;
  for (const key of Object.keys(value)) {
    const member = properties[key];
    if (member) stripUnknownMembers(member, (value as Record<string, unknown>)[key]);
    else if (!open) delete (value as Record<string, unknown>)[key];
  }
}

export function createPipe(service: ServiceRecord, body: unknown, nowMs: number, rules: PipeRules): PipeResource {
  const checked = validateApi('pipeCreateBody', body);
  if (!checked.ok) throw new ApiError('bad_request', 'invalid pipe', { issues: checked.issues });
  const { pipe, secrets } = buildPipe(service.id, checked.value, nowMs, 'Provisioning', rules.fingerprint);
  service.pipes.set(pipe.id, pipe);
  service.pipeSecrets.set(pipe.id, secrets);
  return pipe;
}

/**
 * Update pipe: a merge where absent members stay unchanged. The patch is applied to a copy so a
 * request rejected by any rule changes nothing.
 */
export function patchPipe(
  service: ServiceRecord,
  id: string,
  body: unknown,
  nowMs: number,
  rules: PipeRules,
): PipeResource {
  const current = requirePipe(service, id);
  const checked = validateApi('pipePatchBody', body);
  if (!checked.ok) throw new ApiError('bad_request', 'invalid pipe patch', { issues: checked.issues });
  const patch = checked.value;
  requireColumnsForFieldMappings(patch);
  const next = structuredClone(current);
  const secrets = { ...service.pipeSecrets.get(id) };
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.source) applySourcePatch(next, secrets, patch.source, rules.fingerprint);
  if (patch.destination) next.destination = { ...next.destination, columns: patch.destination.columns };
  if (patch.fieldMappings) next.fieldMappings = patch.fieldMappings;
  if (patch.settings) next.settings = { ...next.settings, ...patch.settings };
  next.updatedAt = isoTimestamp(nowMs);
  service.pipes.set(id, next);
  service.pipeSecrets.set(id, secrets);
  return next;
}

function applySourcePatch(
  pipe: PipeResource,
  secrets: PipeSecrets,
  source: Record<string, unknown>,
  fingerprint: Fingerprint,
): void {
  const kinds = sourceKinds(source);
  if (kinds.length > 1) throw invalidMember('source', `must hold one source kind, got ${kinds.join(', ')}`);
  const kind = kinds[0];
  if (kind === undefined) return;
  const actual = pipeKind(pipe);
  if (kind !== actual) throw invalidMember(`source.${kind}`, `this pipe's source is ${actual}, not ${kind}`);
  const { tableMappingsToAdd, tableMappingsToRemove, settings, ...members } = splitWriteOnly(
    kind,
    source[kind] as Block,
    secrets,
    fingerprint,
  );
  const block = pipe.source[kind] ?? {};
  Object.assign(block, members);
  overlaySourceSettings(block, settings);
  if (tableMappingsToAdd !== undefined || tableMappingsToRemove !== undefined) {
    block['tableMappings'] = changeTableMappings(
      kind,
      (block['tableMappings'] as TableMapping[] | undefined) ?? [],
      (tableMappingsToAdd as TableMapping[] | undefined) ?? [],
      (tableMappingsToRemove as TableMapping[] | undefined) ?? [],
    );
  }
  pipe.source[kind] = block;
}

/**
 * Mappings are keyed by their source (schema + table for postgres; `keys` names the pair). The
 * same source in both lists is refused (a changed mapping takes two PATCHes), as is removing a
 * mapping that is not there. `family` names the block in errors.
 */
export function changeTableMappings<M extends Record<string, unknown>>(
  family: string,
  current: M[],
  add: M[],
  remove: M[],
  keys: readonly [string, string] = ['sourceSchemaName', 'sourceTable'],
): M[] {
  const keyOf = (mapping: M): string => `${String(mapping[keys[0]])}.${String(mapping[keys[1]])}`;
  const adding = new Set(add.map(keyOf));
  let mappings = [...current];
  remove.forEach((removal, index) => {
    const key = keyOf(removal);
    const at = `source.${family}.tableMappingsToRemove[${index}]`;
    if (adding.has(key))
      throw invalidMember(at, `${key} is also in tableMappingsToAdd; remove and add in two requests`);
    const found = mappings.findIndex(
      (mapping) => keyOf(mapping) === key && mapping['targetTable'] === removal['targetTable'],
    );
    if (found < 0) throw invalidMember(at, `no table mapping ${key} → ${String(removal['targetTable'])} to remove`);
    mappings = mappings.filter((_, position) => position !== found);
  });
  add.forEach((mapping, index) => {
    const key = keyOf(mapping);
    if (mappings.some((existing) => keyOf(existing) === key))
      throw invalidMember(`source.${family}.tableMappingsToAdd[${index}]`, `${key} is already mapped`);
    mappings.push(mapping);
  });
  return mappings;
}

export function deletePipe(service: ServiceRecord, id: string): void {
  requirePipe(service, id);
  service.pipes.delete(id);
  service.pipeSecrets.delete(id);
}
