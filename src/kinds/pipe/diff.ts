/**
 * Pipe differ. Pipes are never created or deleted: a manifest names a live pipe by id and the
 * plan is the smallest Update pipe (PATCH) body that brings it in line, or two when a postgres
 * table mapping changes (the API refuses one table in both mapping lists of one PATCH).
 */
import type { UnreadableResource } from '../../model/resources.js';
import type { Variant } from '../../model/kinds.js';
import type { SecretValue } from '../../model/desired.js';
import { operationType, SENSITIVE, type Change, type FieldDiff, type Operation } from '../../model/plan.js';
import { pipePatchBeyondSeedMembers, pipePatchSourceBlockSchemas } from '../../schema/api.js';
import { secretHashKey } from '../../model/state.js';
import { changeFor, errorChange, unreadableChange } from '../kit/change.js';
import { covers, diffValues, fieldDiff, isPlainObject } from '../kit/values.js';
import { ignorePipeFields } from './ignore.js';
import { PIPE, uuidKey, type Column, type DesiredPipe, type FieldMapping, type LivePipe, type PipePatch, type TableMapping, type TableMappingKey } from './model.js';

export interface PipeContext {
  target: string;
  variant: Variant;
  livePipes: readonly LivePipe[];
  /** Live pipes that could not be read; a manifest naming one gets an error row. */
  unreadable?: readonly UnreadableResource[];
  secretHashes: Readonly<Record<string, string>>;
}

/** What one pipe needs; `error` set when it cannot be planned. */
interface PipeDraft {
  diff: FieldDiff[];
  patch: PipePatch;
  source: Record<string, unknown>;
  /** Changed postgres mappings, added back in a second PATCH. */
  readd: TableMapping[];
  /** Secret path (`source.kafka.credentials.password`) → HMAC sent, as `recordSecretHashes` takes them. */
  secretHashes: Record<string, string>;
  error?: string;
}

export function planPipes(ctx: PipeContext, desired: readonly DesiredPipe[]): Change[] {
  const owners = new Map<string, string>();
  // By id, so thousands of pipes are not each looked for in the whole list.
  const liveById = new Map(ctx.livePipes.map((pipe) => [uuidKey(pipe.id), pipe]));
  const unreadableById = new Map((ctx.unreadable ?? []).filter((item) => item.kind === PIPE).map((item) => [uuidKey(item.id), item]));
  return desired.map((pipe) => {
    const owner = owners.get(uuidKey(pipe.pipeId));
    if (owner !== undefined) return errorChange(ctx.target, pipe, 'E_MANIFEST_DUPLICATE', `pipe ${pipe.pipeId} is already managed by Pipe/${owner}`, pipe.pipeId);
    owners.set(uuidKey(pipe.pipeId), pipe.key);
    const unreadable = unreadableById.get(uuidKey(pipe.pipeId));
    if (unreadable) return unreadableChange(ctx.target, pipe, unreadable);
    return planPipe(ctx, pipe, liveById.get(uuidKey(pipe.pipeId)));
  });
}

function planPipe(ctx: PipeContext, desired: DesiredPipe, live: LivePipe | undefined): Change {
  if (ctx.variant !== 'managed') {
    return errorChange(ctx.target, desired, 'E_MANIFEST_INVALID', `target ${ctx.target} is ${ctx.variant}: pipes exist only on managed targets`);
  }
  if (!live) {
    return errorChange(
      ctx.target,
      desired,
      'E_API_NOT_FOUND',
      `pipe ${desired.pipeId} does not exist in target ${ctx.target}; stacksync cannot create pipes, only update existing ones`,
    );
  }
  const draft = draftPipe(ctx, ignorePipeFields(desired, live), live);
  if (draft.error !== undefined) return withLiveState(errorChange(ctx.target, desired, 'E_MANIFEST_INVALID', draft.error, live.id), live);
  const operations = pipeOperations(desired, live.id, draft);
  const change = changeFor(ctx.target, desired, operations.length > 0 ? 'update' : 'unchanged');
  change.id = live.id;
  change.liveName = desired.name ?? live.name;
  change.diff = draft.diff;
  change.operations = operations;
  if (Object.keys(draft.secretHashes).length > 0) change.secretHashes = draft.secretHashes;
  return withLiveState(change, live);
}

/** The live state travels with the change: `/status`, the pipe-state gauge and the plan's health warning read it. */
function withLiveState(change: Change, live: LivePipe): Change {
  if (live.state !== undefined) change.liveState = live.state;
  return change;
}

function draftPipe(ctx: PipeContext, desired: DesiredPipe, live: LivePipe): PipeDraft {
  const draft: PipeDraft = { diff: [], patch: {}, source: {}, readd: [], secretHashes: {} };
  if (desired.name !== undefined && desired.name !== live.name) {
    draft.diff.push(fieldDiff('name', live.name, desired.name));
    draft.patch.name = desired.name;
  }
  const steps = [draftSource, draftColumns, draftFieldMappings, draftSettings];
  for (const step of steps) {
    step(ctx, desired, live, draft);
    if (draft.error !== undefined) break;
  }
  return draft;
}

// ---------------------------------------------------------------- source

type Step = (ctx: PipeContext, desired: DesiredPipe, live: LivePipe, draft: PipeDraft) => void;

const draftSource: Step = (ctx, desired, live, draft) => {
  const source = desired.source;
  if (!source) return;
  if (source.kind !== live.source.kind) {
    draft.error = `the source kind cannot change: pipe ${live.id} reads from ${live.source.kind}, the manifest says ${source.kind}`;
    return;
  }
  const block: Record<string, unknown> = {};
  draftBlockMembers(source.kind, source.block, live.source.block, draft, block);
  if (draft.error !== undefined) return;
  if (source.secrets) draftSecrets(ctx, desired, source.secrets, draft, block);
  if (source.kind === 'postgres' && source.tableMappings) draftTableMappings(source.tableMappings, live.source.block, draft, block);
  if (Object.keys(block).length > 0) draft.source[source.kind] = block;
};

function draftBlockMembers(
  kind: DesiredPipeSourceKind,
  desired: Record<string, unknown>,
  live: Record<string, unknown>,
  draft: PipeDraft,
  block: Record<string, unknown>,
): void {
  const diffs = diffValues(`source.${kind}`, desired, live);
  const fixed = diffs.map((diff) => diff.path).filter((path) => !isPatchable(kind, path));
  if (fixed.length > 0) {
    const them = fixed.length > 1 ? 'them' : 'it';
    draft.error =
      `${fixed.join(', ')} cannot be changed through the API (Update pipe does not accept ${them}); ` +
      'change the pipe in the console or make the manifest match it';
    return;
  }
  draft.diff.push(...diffs);
  for (const [member, value] of Object.entries(desired)) {
    if (covers(value, live[member])) continue;
    block[member] = isPlainObject(value) ? changedKeys(value, live[member]) : value;
  }
}

type DesiredPipeSourceKind = NonNullable<DesiredPipe['source']>['kind'];

/** Whether Update pipe accepts the member at `path` (`source.<kind>.a.b`), per its JSON Schema. */
function isPatchable(kind: DesiredPipeSourceKind, path: string): boolean {
  const members = path.replace(/\[[^\]]*\]/g, '').split('.').slice(2);
  // Members the real service takes beyond the seed's list are sent as written.
  if (members[0] !== undefined && Object.hasOwn(pipePatchBeyondSeedMembers[kind], members[0])) return true;
  let schema: unknown = pipePatchSourceBlockSchemas[kind];
  for (const member of members) {
    const properties = isPlainObject(schema) ? schema['properties'] : undefined;
    if (!isPlainObject(properties) || !(member in properties)) return false;
    schema = properties[member];
  }
  return true;
}

/** Only the keys of a nested object that differ: PATCH merges, so the rest stays as it is. */
function changedKeys(desired: Record<string, unknown>, live: unknown): Record<string, unknown> {
  const liveObject = isPlainObject(live) ? live : {};
  return Object.fromEntries(Object.entries(desired).filter(([key, value]) => !covers(value, liveObject[key])));
}

/** Write-only values: the service never returns them, so the HMAC of what was last sent decides. */
function draftSecrets(
  ctx: PipeContext,
  desired: DesiredPipe,
  secrets: { member: 'credentials' | 'accessKey'; fields: Record<string, SecretValue> },
  draft: PipeDraft,
  block: Record<string, unknown>,
): void {
  const path = `source.${desired.source?.kind ?? ''}.${secrets.member}`;
  const fields = Object.entries(secrets.fields).map(([field, secret]) => {
    const secretPath = `${path}.${field}`;
    return { field, secret, secretPath, known: ctx.secretHashes[secretHashKey(PIPE, desired.key, secretPath)] };
  });
  if (fields.every(({ secret, known }) => known === secret.hmac)) return;
  // The member is sent whole (the API wants every field of it), so every field's hash is recorded.
  block[secrets.member] = Object.fromEntries(fields.map(({ field, secret }) => [field, secret.value]));
  for (const { secret, secretPath } of fields) draft.secretHashes[secretPath] = secret.hmac;
  const seenBefore = fields.some(({ known }) => known !== undefined);
  draft.diff.push(fieldDiff(path, seenBefore ? SENSITIVE : undefined, SENSITIVE));
}

function draftTableMappings(
  desired: readonly TableMapping[],
  liveBlock: Record<string, unknown>,
  draft: PipeDraft,
  block: Record<string, unknown>,
): void {
  const live = liveTableMappings(liveBlock);
  const liveByKey = new Map(live.map((mapping) => [mappingKey(mapping), mapping]));
  const desiredKeys = new Set(desired.map(mappingKey));
  const toAdd: TableMapping[] = [];
  const toRemove: TableMappingKey[] = [];
  for (const mapping of desired) {
    const path = `source.postgres.tableMappings[${mappingKey(mapping)}]`;
    const current = liveByKey.get(mappingKey(mapping));
    if (!current) {
      toAdd.push(mapping);
      draft.diff.push(fieldDiff(path, undefined, mapping));
    } else if (!covers(mapping, current)) {
      toRemove.push(removalOf(current));
      draft.readd.push(mapping);
      diffValues(path, mapping, current, draft.diff);
    }
  }
  for (const mapping of live.filter((item) => !desiredKeys.has(mappingKey(item)))) {
    toRemove.push(removalOf(mapping));
    draft.diff.push(fieldDiff(`source.postgres.tableMappings[${mappingKey(mapping)}]`, mapping, undefined));
  }
  if (toAdd.length > 0) block['tableMappingsToAdd'] = toAdd;
  if (toRemove.length > 0) block['tableMappingsToRemove'] = toRemove;
}

function liveTableMappings(block: Record<string, unknown>): TableMapping[] {
  const list = block['tableMappings'];
  if (!Array.isArray(list)) return [];
  return list.filter(
    (item): item is TableMapping =>
      isPlainObject(item) &&
      typeof item['sourceSchemaName'] === 'string' &&
      typeof item['sourceTable'] === 'string' &&
      typeof item['targetTable'] === 'string',
  );
}

function mappingKey(mapping: Pick<TableMapping, 'sourceSchemaName' | 'sourceTable'>): string {
  return `${mapping.sourceSchemaName}.${mapping.sourceTable}`;
}

function removalOf(mapping: TableMapping): TableMappingKey {
  return { sourceSchemaName: mapping.sourceSchemaName, sourceTable: mapping.sourceTable, targetTable: mapping.targetTable };
}

// ---------------------------------------------------------------- destination, mappings, settings

const draftColumns: Step = (_ctx, desired, live, draft) => {
  if (desired.columns === undefined || covers(desired.columns, live.destination.columns)) return;
  diffValues('destination.columns', desired.columns, live.destination.columns, draft.diff);
  draft.patch.destination = { columns: desired.columns };
};

const draftFieldMappings: Step = (_ctx, desired, live, draft) => {
  if (desired.fieldMappings === undefined) return;
  if (covers(sortMappings(desired.fieldMappings), sortMappings(live.fieldMappings ?? []))) return;
  // The API rejects fieldMappings without destination.columns in the same body.
  const columns: Column[] | undefined = desired.columns ?? live.destination.columns;
  if (columns === undefined || columns.length === 0) {
    draft.error = 'fieldMappings can only be changed together with destination.columns, and neither the manifest nor the live pipe has columns';
    return;
  }
  draft.diff.push(fieldDiff('fieldMappings', live.fieldMappings, desired.fieldMappings));
  draft.patch.fieldMappings = desired.fieldMappings;
  draft.patch.destination = { columns };
};

function sortMappings(mappings: readonly FieldMapping[]): FieldMapping[] {
  const text = (m: FieldMapping): string => `${m.sourceField}\u0000${m.destinationField}`;
  return [...mappings].sort((a, b) => text(a).localeCompare(text(b)));
}

const draftSettings: Step = (_ctx, desired, live, draft) => {
  if (desired.settings === undefined) return;
  const changed = changedKeys(desired.settings, live.settings) as Record<string, number | boolean>;
  if (Object.keys(changed).length === 0) return;
  diffValues('settings', changed, live.settings, draft.diff);
  draft.patch.settings = changed;
};

// ---------------------------------------------------------------- operations

function pipeOperations(desired: DesiredPipe, id: string, draft: PipeDraft): Operation[] {
  const first: PipePatch = { ...draft.patch };
  if (Object.keys(draft.source).length > 0) first.source = withValidateSamples(desired, draft.source);
  if (Object.keys(first).length === 0 && draft.readd.length === 0) return [];
  if (draft.readd.length === 0) return [{ type: operationType('update', PIPE), id, patch: first }];
  const second: PipePatch = { source: withValidateSamples(desired, { postgres: { tableMappingsToAdd: draft.readd } }) };
  return [
    { type: operationType('update', PIPE), id, patch: first, step: 'remove-mappings' },
    { type: operationType('update', PIPE), id, patch: second, step: 'add-mappings' },
  ];
}

/** `validateSamples` is a request flag, not stored state: sent along with a write, never a diff. */
function withValidateSamples(desired: DesiredPipe, source: Record<string, unknown>): Record<string, unknown> {
  const validate = desired.source?.validateSamples;
  return validate === undefined ? source : { ...source, validateSamples: validate };
}
