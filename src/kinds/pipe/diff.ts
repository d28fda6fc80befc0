/**
 * Pipe differ. Two forms: a pipe born in Git (no `pipeId`) is matched by name and created,
 * updated, started, stopped, scaled, resynced and replaced as `born.ts` plans; an existing pipe
 * (`pipeId`) is only ever updated: the smallest Update pipe (PATCH) body that brings it in line,
 * or two when a table mapping changes (the API refuses one table in both mapping lists of one
 * PATCH), and a resync when its annotation asks for one. Its state is not the manifest's to set,
 * but where the server takes a table-mapping edit only on a paused pipe, it is stopped for the
 * edit and brought back to the state it was found in.
 */
import { operationType, type Change, type Operation } from '../../model/plan.js';
import type { Marks } from '../../model/state.js';
import { PIPE_SOURCE_KINDS, pipePatchBeyondSeedMembers, pipePatchSourceBlockSchemas } from './wire.js';
import { EDITABLE_MAPPING_STATES, TABLE_MAPPING_KEYS, type PipeFamily } from '../../schema/pipe-sources.js';
import { isOneOf } from '../../support/json.js';
import { changeFor, errorChange, unreadableChange, withUnresolved } from '../shared/change.js';
import { covers, diffValues, fieldDiff, isRecord } from '../shared/values.js';
import { planBornPipes } from './born.js';
import {
  editFlow,
  notManaged,
  ownMarks,
  patchOperations,
  pausesForMappings,
  resyncOf,
  withLiveState,
  type LiveMoves,
  type PipeContext,
} from './writes.js';
import {
  changedKeys,
  draftColumns,
  draftFieldMappings,
  draftSecrets,
  draftSettings,
  draftTableMappings,
  emptyDraft,
  type PipeDraft,
} from './drafts.js';
import { ignorePipeFields } from './ignore.js';
import { RUNNING_GOAL, stateMove, STOPPED_GOAL } from './lifecycle.js';
import { isBorn, PIPE, uuidKey, type DesiredPipe, type LivePipe, type PipeDesiredState } from './model.js';

export function planPipes(ctx: PipeContext, desired: readonly DesiredPipe[]): Change[] {
  const born = desired.filter(isBorn);
  const existing = desired.filter((pipe) => !isBorn(pipe));
  const bornChanges = new Map(planBornPipes(ctx, born).map((change) => [change.name, change]));
  const existingChanges = new Map(planExistingPipes(ctx, existing).map((change) => [change.name, change]));
  return desired.flatMap((pipe) => {
    // Every pipe is born or existing, so one of the two planned it.
    const change = bornChanges.get(pipe.key) ?? existingChanges.get(pipe.key);
    return change ? [change] : [];
  });
}

function planExistingPipes(ctx: PipeContext, desired: readonly DesiredPipe[]): Change[] {
  const owners = new Map<string, string>();
  // By id, so thousands of pipes are not each looked for in the whole list.
  const liveById = new Map(ctx.livePipes.map((pipe) => [uuidKey(pipe.id), pipe]));
  const unreadableById = new Map(
    (ctx.unreadable ?? []).filter((item) => item.kind === PIPE).map((item) => [uuidKey(item.id), item]),
  );
  return desired.map((pipe) => {
    const pipeId = pipe.pipeId ?? '';
    const owner = owners.get(uuidKey(pipeId));
    if (owner !== undefined)
      return errorChange(
        ctx.target,
        pipe,
        'E_MANIFEST_DUPLICATE',
        `pipe ${pipeId} is already managed by Pipe/${owner}`,
        pipeId,
      );
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
      `pipe ${desired.pipeId ?? ''} does not exist in target ${ctx.target}; a manifest with a pipeId ` +
        `only updates an existing pipe (leave pipeId out for a pipe stacksync creates)`,
    );
  }
  const draft = draftExisting(ctx, ignorePipeFields(desired, live), live);
  const resync = resyncOf(desired, live, ctx.state);
  if (resync?.error !== undefined) draft.error ??= resync.error;
  if (draft.error !== undefined)
    return withLiveState(errorChange(ctx.target, desired, 'E_MANIFEST_INVALID', draft.error, live.id), live);
  const moves = existingMoves(
    live,
    patchOperations(desired, live.id, draft),
    pausesForMappings(ctx, draft),
    ownMarks(ctx, desired, live),
  );
  const operations = [...moves.operations, ...(resync?.operation ? [resync.operation] : [])];
  const change = changeFor(ctx.target, desired, operations.length > 0 ? 'update' : 'unchanged');
  change.id = live.id;
  change.liveName = desired.name ?? live.name;
  change.diff = [...draft.diff, ...moves.diff];
  change.warnings.push(...moves.warnings);
  change.operations = operations;
  if (Object.keys(draft.secretHashes).length > 0) change.secretHashes = draft.secretHashes;
  if (operations.length > 0) withUnresolved(change, draft.unresolved);
  return withLiveState(change, live);
}

/**
 * The writes of an existing pipe. Where the server edits table mappings only on a paused pipe
 * (`pauses`), an edit of a pipe it reports running is wrapped in a stop and a start; one at rest
 * is edited, then stopped again (the service resumes a pipe after an edit). The state it goes
 * back to is the one it was found in, or, after a run cut short between the stop and the start,
 * the one the stop recorded: that run's start is sent now. A pipe whose state the service does
 * not report is patched as it is.
 */
function existingMoves(live: LivePipe, patches: Operation[], pauses: boolean, marks: Marks): LiveMoves {
  const moves: LiveMoves = { operations: [], diff: [], warnings: [] };
  const state = live.state;
  const mark = marks['resume'];
  const resume: PipeDesiredState | undefined = mark === 'Running' || mark === 'Stopped' ? mark : undefined;
  if (state === undefined) {
    moves.operations.push(...patches);
    return moves;
  }
  if (pauses) {
    editFlow(resume ?? (EDITABLE_MAPPING_STATES.includes(state) ? 'Stopped' : 'Running'), live, patches, moves);
    return moves;
  }
  moves.operations.push(...patches);
  if (resume === 'Running') resumeCutEdit(live, state, moves);
  return moves;
}

/** The start a run cut short after stopping the pipe for a mapping edit did not send. */
function resumeCutEdit(live: LivePipe, state: string, moves: LiveMoves): void {
  const move = stateMove('Running', state);
  if (move !== 'start' && move !== 'stop-then-start') return;
  const start: Operation = {
    type: operationType('start', PIPE),
    id: live.id,
    body: { command: 'start' },
    step: 'resume',
    await: RUNNING_GOAL,
    marks: { resume: null },
  };
  if (move === 'stop-then-start')
    moves.operations.push({
      type: operationType('stop', PIPE),
      id: live.id,
      body: { command: 'stop' },
      step: 'resume',
      await: STOPPED_GOAL,
    });
  moves.operations.push(start);
  moves.diff.push(fieldDiff('state', state, 'Running'));
  moves.warnings.push('stacksync stopped this pipe for a table-mapping edit that did not finish; it is started again');
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
  const kind = source.kind;
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
    draft.block[member] = isRecord(value) ? changedKeys(value, live.source.block[member]) : value;
  }
  if (source.secrets) draftSecrets(desired.key, source.kind, source.secrets, ctx.secretHashes, draft);
  if (TABLE_MAPPING_KEYS[source.kind] && source.tableMappings)
    draftTableMappings(source.kind, source.tableMappings, live.source.block, draft);
}

/** Whether the seed's Update pipe accepts the member at `path` (`source.<kind>.a.b`), per its JSON Schema. */
function isPatchable(kind: PipeFamily, path: string): boolean {
  // A family the seed's Update pipe has no source block for takes no member.
  if (!isOneOf(PIPE_SOURCE_KINDS, kind)) return false;
  const members = path
    .replace(/\[[^\]]*\]/g, '')
    .split('.')
    .slice(2);
  // Members the real service takes beyond the seed's list are sent as written.
  if (members[0] !== undefined && Object.hasOwn(pipePatchBeyondSeedMembers[kind], members[0])) return true;
  let schema: unknown = pipePatchSourceBlockSchemas[kind];
  for (const member of members) {
    const properties = isRecord(schema) ? schema['properties'] : undefined;
    if (!isRecord(properties) || !(member in properties)) return false;
    schema = properties[member];
  }
  return true;
}

export type { PipeContext } from './writes.js';
