/**
 * What both forms of a Pipe manifest share when they are compared with a live pipe: the smallest
 * PATCH body, member by member. Write-only values (credentials) by the HMAC of what was last sent;
 * the full desired list of table mappings as additions and removals (a changed mapping is a
 * removal, then an add in a second call); columns, field mappings and settings. Pure.
 */
import type { SecretValue } from '../../model/desired.js';
import { SENSITIVE, UNKNOWN_IN_PLAN, type FieldDiff } from '../../model/plan.js';
import { secretHashKey } from '../../model/state.js';
import { TABLE_MAPPING_KEYS, type PipeFamily } from '../../schema/pipe-sources.js';
import { covers, diffValues, fieldDiff, isRecord } from '../shared/values.js';
import { PIPE, type Column, type FieldMapping, type LivePipe, type PipePatch, type SecretMember } from './model.js';

/** What one pipe needs; `error` set when it cannot be planned. */
export interface PipeDraft {
  diff: FieldDiff[];
  patch: PipePatch;
  /** The family block of the PATCH's source. */
  block: Record<string, unknown>;
  /** Changed mappings, added back in a second PATCH. */
  readd: Record<string, unknown>[];
  /** Secret path (`source.kafka.credentials.password`) → HMAC sent, as `withSecretHashes` takes them. */
  secretHashes: Record<string, string>;
  /** Create-only members that differ (born in Git: a replace). */
  forcing: string[];
  /** Write-only members this draft sends whose value this run cannot resolve (`path: why`): apply refuses it. */
  unresolved: string[];
  error?: string;
}

export function emptyDraft(): PipeDraft {
  return { diff: [], patch: {}, block: {}, readd: [], secretHashes: {}, forcing: [], unresolved: [] };
}

/** Only the keys of a nested object that differ: PATCH merges, so the rest stays as it is. */
export function changedKeys<V>(desired: Record<string, V>, live: unknown): Record<string, V> {
  const liveObject = isRecord(live) ? live : {};
  return Object.fromEntries(Object.entries(desired).filter(([key, value]) => !covers(value, liveObject[key])));
}

// ---------------------------------------------------------------- secrets

/** The secrets of one write-only member, with their paths and the HMACs last sent. */
function secretFields(
  key: string,
  family: PipeFamily,
  member: SecretMember,
  known: Readonly<Record<string, string>>,
): { path: string; secret: SecretValue; field?: string; known?: string }[] {
  const path = `source.${family}.${member.member}`;
  const hash = (secretPath: string): string | undefined => known[secretHashKey(PIPE, key, secretPath)];
  if (member.value) return [{ path, secret: member.value, ...maybe('known', hash(path)) }];
  return Object.entries(member.fields ?? {}).map(([field, secret]) => ({
    path: `${path}.${field}`,
    secret,
    field,
    ...maybe('known', hash(`${path}.${field}`)),
  }));
}

function maybe<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  const pair: Partial<Record<K, V>> = {};
  if (value !== undefined) pair[key] = value;
  return pair;
}

/**
 * Write-only values: the service never returns them, so the HMAC of what was last sent decides.
 * A member is sent whole (the API wants every field of it), so every field's hash is recorded.
 * `isFixed(member)`: the member cannot change once created (a secret under a create-only member):
 * a known, different value forces a replace; an unknown one is left alone, as it cannot be sent.
 */
export function draftSecrets(
  key: string,
  family: PipeFamily,
  members: readonly SecretMember[],
  known: Readonly<Record<string, string>>,
  draft: PipeDraft,
  isFixed: (member: string) => boolean = () => false,
): void {
  for (const member of members) {
    const fields = secretFields(key, family, member, known);
    const path = `source.${family}.${member.member}`;
    if (fields.some(({ secret }) => secret.unknown !== undefined)) {
      draftUnknown(path, fields, draft, isFixed(member.member));
      continue;
    }
    if (fields.every(({ secret, known: hash }) => hash === secret.hmac)) continue;
    if (isFixed(member.member)) {
      if (fields.some(({ known: hash, secret }) => hash !== undefined && hash !== secret.hmac)) {
        draft.forcing.push(path);
        draft.diff.push(fieldDiff(path, SENSITIVE, SENSITIVE));
      }
      continue;
    }
    const value = member.value
      ? member.value.value
      : Object.fromEntries(fields.map(({ field, secret }) => [field ?? '', secret.value]));
    setAt(draft.block, member.member.split('.'), value);
    for (const { path: secretPath, secret } of fields) draft.secretHashes[secretPath] = secret.hmac;
    const seenBefore = fields.some(({ known: hash }) => hash !== undefined);
    draft.diff.push(fieldDiff(path, seenBefore ? SENSITIVE : undefined, SENSITIVE));
  }
}

/**
 * A member with a value this run cannot resolve. Whether it differs from what was last sent cannot
 * be told, so one sent before whose other fields are as sent stays as it is (no change it cannot
 * know); one that must be sent (never sent, or another field of it changed) is shown as unknown and
 * the draft is refused at apply. A create-only member is never sent to a live pipe.
 */
function draftUnknown(
  path: string,
  fields: readonly { secret: SecretValue; known?: string }[],
  draft: PipeDraft,
  fixed: boolean,
): void {
  const sent = fields.every(
    ({ secret, known: hash }) => hash !== undefined && (secret.unknown !== undefined || hash === secret.hmac),
  );
  if (sent || fixed) return;
  draft.diff.push(
    fieldDiff(path, fields.some(({ known: hash }) => hash !== undefined) ? SENSITIVE : undefined, UNKNOWN_IN_PLAN),
  );
  draft.unresolved.push(...unknownReasons(path, fields));
}

function unknownReasons(path: string, fields: readonly { secret: SecretValue; path?: string }[]): string[] {
  return fields.flatMap(({ secret, path: own }) =>
    secret.unknown === undefined ? [] : [`${own ?? path}: ${secret.unknown}`],
  );
}

/** The write-only values a create would send that this run cannot resolve (`path: why`). */
export function unresolvedSecrets(family: PipeFamily, members: readonly SecretMember[]): string[] {
  return members.flatMap((member) => unknownReasons('', secretFields('', family, member, {})));
}

/** The diff row of a write-only member on a create: unknown when any of its values is. */
export function createSecretRow(family: PipeFamily, member: SecretMember): FieldDiff {
  const unknown = unresolvedSecrets(family, [member]).length > 0;
  return fieldDiff(`source.${family}.${member.member}`, undefined, unknown ? UNKNOWN_IN_PLAN : SENSITIVE);
}

/** Every secret HMAC a create sends, by secret path. */
export function allSecretHashes(family: PipeFamily, members: readonly SecretMember[]): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const member of members)
    for (const { path, secret } of secretFields('', family, member, {}))
      if (secret.unknown === undefined) hashes[path] = secret.hmac;
  return hashes;
}

/** The resolved values of the write-only members, placed in a copy of `block` (a create's). */
export function withSecretValues(
  block: Record<string, unknown>,
  members: readonly SecretMember[],
): Record<string, unknown> {
  const copy = structuredClone(block);
  for (const member of members) {
    const value = member.value
      ? member.value.value
      : Object.fromEntries(Object.entries(member.fields ?? {}).map(([field, secret]) => [field, secret.value]));
    setAt(copy, member.member.split('.'), value);
  }
  return copy;
}

function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const inner = isRecord(target[head]) ? { ...target[head] } : {};
  target[head] = inner;
  setAt(inner, rest, value);
}

// ---------------------------------------------------------------- table mappings

/** A mapping's identity: its source (schema and table, database and collection, …), as the family names it. */
export function mappingKey(family: PipeFamily, mapping: Record<string, unknown>): string {
  const [schema, table] = TABLE_MAPPING_KEYS[family] ?? ['sourceSchemaName', 'sourceTable'];
  return `${String(mapping[schema])}.${String(mapping[table])}`;
}

function liveTableMappings(family: PipeFamily, block: Record<string, unknown>): Record<string, unknown>[] {
  const list = block['tableMappings'];
  const [schema, table] = TABLE_MAPPING_KEYS[family] ?? ['sourceSchemaName', 'sourceTable'];
  if (!Array.isArray(list)) return [];
  return list.filter(
    (item): item is Record<string, unknown> =>
      isRecord(item) && typeof item[schema] === 'string' && typeof item[table] === 'string',
  );
}

/** What `tableMappingsToRemove` takes of a live mapping: its identity and its target table. */
function removalOf(family: PipeFamily, mapping: Record<string, unknown>): Record<string, unknown> {
  const [schema, table] = TABLE_MAPPING_KEYS[family] ?? ['sourceSchemaName', 'sourceTable'];
  return { [schema]: mapping[schema], [table]: mapping[table], targetTable: mapping['targetTable'] };
}

/**
 * The full desired list against the live one: additions, removals, and each changed mapping as a
 * removal now and an add in a second call (the API refuses one table in both lists of one call).
 */
export function draftTableMappings(
  family: PipeFamily,
  desired: readonly Record<string, unknown>[],
  liveBlock: Record<string, unknown>,
  draft: PipeDraft,
): void {
  const live = liveTableMappings(family, liveBlock);
  const liveByKey = new Map(live.map((mapping) => [mappingKey(family, mapping), mapping]));
  const desiredKeys = new Set(desired.map((mapping) => mappingKey(family, mapping)));
  const toAdd: Record<string, unknown>[] = [];
  const toRemove: Record<string, unknown>[] = [];
  for (const mapping of desired) {
    const key = mappingKey(family, mapping);
    const path = `source.${family}.tableMappings[${key}]`;
    const current = liveByKey.get(key);
    if (!current) {
      toAdd.push(mapping);
      draft.diff.push(fieldDiff(path, undefined, mapping));
    } else if (!covers(mapping, current)) {
      toRemove.push(removalOf(family, current));
      draft.readd.push(mapping);
      diffValues(path, mapping, current, draft.diff);
    }
  }
  for (const mapping of live.filter((item) => !desiredKeys.has(mappingKey(family, item)))) {
    toRemove.push(removalOf(family, mapping));
    draft.diff.push(fieldDiff(`source.${family}.tableMappings[${mappingKey(family, mapping)}]`, mapping, undefined));
  }
  if (toAdd.length > 0) draft.block['tableMappingsToAdd'] = toAdd;
  if (toRemove.length > 0) draft.block['tableMappingsToRemove'] = toRemove;
}

/** Whether a draft edits table mappings (which the service takes only while the pipe is paused). */
export function editsMappings(draft: PipeDraft): boolean {
  return (
    draft.block['tableMappingsToAdd'] !== undefined ||
    draft.block['tableMappingsToRemove'] !== undefined ||
    draft.readd.length > 0
  );
}

// ---------------------------------------------------------------- destination, mappings, settings

export function draftColumns(desired: readonly Column[] | undefined, live: LivePipe, draft: PipeDraft): void {
  if (desired === undefined || covers(desired, live.destination.columns)) return;
  diffValues('destination.columns', desired, live.destination.columns, draft.diff);
  draft.patch.destination = { columns: [...desired] };
}

export function draftFieldMappings(
  desired: readonly FieldMapping[] | undefined,
  columns: readonly Column[] | undefined,
  live: LivePipe,
  draft: PipeDraft,
): void {
  if (desired === undefined) return;
  if (covers(sortMappings(desired), sortMappings(live.fieldMappings ?? []))) return;
  // The API rejects fieldMappings without destination.columns in the same body.
  const sent = columns ?? live.destination.columns;
  if (sent === undefined || sent.length === 0) {
    draft.error =
      'fieldMappings can only be changed together with destination.columns, and neither the manifest nor the live pipe has columns';
    return;
  }
  draft.diff.push(fieldDiff('fieldMappings', live.fieldMappings, desired));
  draft.patch.fieldMappings = [...desired];
  draft.patch.destination = { columns: [...sent] };
}

function sortMappings(mappings: readonly FieldMapping[]): FieldMapping[] {
  const text = (m: FieldMapping): string => `${m.sourceField}\u0000${m.destinationField}`;
  return [...mappings].sort((a, b) => text(a).localeCompare(text(b)));
}

export function draftSettings(
  desired: Record<string, number | boolean> | undefined,
  live: LivePipe,
  draft: PipeDraft,
): void {
  if (desired === undefined) return;
  const changed = changedKeys(desired, live.settings);
  if (Object.keys(changed).length === 0) return;
  diffValues('settings', changed, live.settings, draft.diff);
  draft.patch.settings = changed;
}
