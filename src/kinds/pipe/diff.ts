/**
 * Pipe differ. Two forms: a pipe born in Git (no `pipeId`) is matched by name and created,
 * updated, started, stopped, scaled, resynced and replaced as `born.ts` plans; an existing pipe
 * (`pipeId`) is only ever updated: the smallest Update pipe (PATCH) body that brings it in line,
 * or two when a table mapping changes (the API refuses one table in both mapping lists of one
 * PATCH), and a resync when its annotation asks for one.
 */
import type { Change } from '../../model/plan.js';
import { pipePatchBeyondSeedMembers, pipePatchSourceBlockSchemas } from '../../schema/api.js';
import type { PipeSourceKind } from '../../schema/enums.js';
import { TABLE_MAPPING_KEYS } from '../../schema/pipe-sources.js';
import { changeFor, errorChange, unreadableChange } from '../kit/change.js';
import { covers, diffValues, isPlainObject } from '../kit/values.js';
import { planBornPipes } from './born.js';
import { notManaged, patchOperations, resyncOf, withLiveState, type PipeContext } from './writes.js';
import { changedKeys, draftColumns, draftFieldMappings, draftSecrets, draftSettings, draftTableMappings, emptyDraft, type PipeDraft } from './drafts.js';
import { ignorePipeFields } from './ignore.js';
import { isBorn, PIPE, uuidKey, type DesiredPipe, type LivePipe } from './model.js';

export function planPipes(ctx: PipeContext, desired: readonly DesiredPipe[]): Change[] {
  const born = desired.filter(isBorn);
  const existing = desired.filter((pipe) => !isBorn(pipe));
  const bornChanges = new Map(planBornPipes(ctx, born).map((change) => [change.name, change]));
  const existingChanges = new Map(planExistingPipes(ctx, existing).map((change) => [change.name, change]));
  return desired.map((pipe) => (bornChanges.get(pipe.key) ?? existingChanges.get(pipe.key)) as Change);
}

function planExistingPipes(ctx: PipeContext, desired: readonly DesiredPipe[]): Change[] {
  const owners = new Map<string, string>();
  // By id, so thousands of pipes are not each looked for in the whole list.
  const liveById = new Map(ctx.livePipes.map((pipe) => [uuidKey(pipe.id), pipe]));
  const unreadableById = new Map((ctx.unreadable ?? []).filter((item) => item.kind === PIPE).map((item) => [uuidKey(item.id), item]));
  return desired.map((pipe) => {
    const pipeId = pipe.pipeId ?? '';
    const owner = owners.get(uuidKey(pipeId));
    if (owner !== undefined) return errorChange(ctx.target, pipe, 'E_MANIFEST_DUPLICATE', `pipe ${pipeId} is already managed by Pipe/${owner}`, pipeId);
    owners.set(uuidKey(pipeId), pipe.key);
    const unreadable = unreadableById.get(uuidKey(pipeId));
    if (unreadable) return unreadableChange(ctx.target, pipe, unreadable);
    return planExistingPipe(ctx, pipe, liveById.get(uuidKey(pipeId)));
  });
}

function planExistingPipe(ctx: PipeContext, desired: DesiredPipe, live: LivePipe | undefined): Change {
  if (ctx.variant !== 'managed') return notManaged(ctx, desired);
  if (!live) {
    return errorChange(
      ctx.target,
      desired,
      'E_API_NOT_FOUND',
      `pipe ${desired.pipeId ?? ''} does not exist in target ${ctx.target}; a manifest with a pipeId only updates an existing pipe (leave pipeId out for a pipe stacksync creates)`,
    );
  }
  const draft = draftExisting(ctx, ignorePipeFields(desired, live), live);
  const resync = resyncOf(desired, live, ctx.state);
  if (resync?.error !== undefined) draft.error ??= resync.error;
  if (draft.error !== undefined) return withLiveState(errorChange(ctx.target, desired, 'E_MANIFEST_INVALID', draft.error, live.id), live);
  const operations = [...patchOperations(desired, live.id, draft), ...(resync?.operation ? [resync.operation] : [])];
  const change = changeFor(ctx.target, desired, operations.length > 0 ? 'update' : 'unchanged');
  change.id = live.id;
  change.liveName = desired.name ?? live.name;
  change.diff = draft.diff;
  change.operations = operations;
  if (Object.keys(draft.secretHashes).length > 0) change.secretHashes = draft.secretHashes;
  return withLiveState(change, live);
}

function draftExisting(ctx: PipeContext, desired: DesiredPipe, live: LivePipe): PipeDraft {
  const draft = emptyDraft();
  if (desired.name !== undefined && desired.name !== live.name) {
    draft.diff.push({ path: 'name', before: live.name, after: desired.name });
    draft.patch.name = desired.name;
  }
  draftExistingSource(ctx, desired, live, draft);
  if (draft.error !== undefined) return draft;
  draftColumns(desired.columns, live, draft);
  draftFieldMappings(desired.fieldMappings, desired.columns, live, draft);
  if (draft.error !== undefined) return draft;
  draftSettings(desired.settings, live, draft);
  return draft;
}

function draftExistingSource(ctx: PipeContext, desired: DesiredPipe, live: LivePipe, draft: PipeDraft): void {
  const source = desired.source;
  if (!source) return;
  if (source.kind !== live.source.kind) {
    draft.error = `the source kind cannot change: pipe ${live.id} reads from ${live.source.kind}, the manifest says ${source.kind}`;
    return;
  }
  const kind = source.kind as PipeSourceKind;
  const diffs = diffValues(`source.${kind}`, source.block, live.source.block);
  const fixed = diffs.map((diff) => diff.path).filter((path) => !isPatchable(kind, path));
  if (fixed.length > 0) {
    const them = fixed.length > 1 ? 'them' : 'it';
    draft.error =
      `${fixed.join(', ')} cannot be changed through the API (Update pipe does not accept ${them}); ` +
      'change the pipe in the console or make the manifest match it';
    return;
  }
  draft.diff.push(...diffs);
  for (const [member, value] of Object.entries(source.block)) {
    if (covers(value, live.source.block[member])) continue;
    draft.block[member] = isPlainObject(value) ? changedKeys(value, live.source.block[member]) : value;
  }
  if (source.secrets) draftSecrets(desired.key, source.kind, source.secrets, ctx.secretHashes, draft);
  if (TABLE_MAPPING_KEYS[source.kind] && source.tableMappings) draftTableMappings(source.kind, source.tableMappings, live.source.block, draft);
}

/** Whether the seed's Update pipe accepts the member at `path` (`source.<kind>.a.b`), per its JSON Schema. */
function isPatchable(kind: PipeSourceKind, path: string): boolean {
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

export type { PipeContext } from './writes.js';
