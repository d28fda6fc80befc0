/**
 * Pipes born in Git (docs/manifests/pipe.md: a Pipe without `pipeId`). Matched like dashboards: the
 * inventory id first, then the API name, with the adopt rules. A new one is created (and stopped
 * in the same apply when it is born `Stopped`); a live one gets the smallest PATCH, its scaling,
 * its state (start, stop; a failed pipe is started again once per revision of its manifest), a
 * resync per new token, and a table-mapping edit on a running database pipe as one change: stop,
 * edit, start again. A change to a create-only member is a `replace` (delete, then create),
 * applied only on request. Pure.
 */
import { withUnreadable, type UnreadableResource } from '../../model/resources.js';
import { operationType, type Change, type FieldDiff, type Operation } from '../../model/plan.js';
import type { Marks } from '../../model/state.js';
import {
  isCreateOnlyDestinationMember,
  isCreateOnlySourceMember,
  PIPE_CREATE_ONLY_MEMBERS,
} from '../../schema/pipe-create-only.js';
import {
  PIPE_FAMILY_CLASSES,
  PIPE_FAMILY_TITLES,
  SCALABLE_PIPE_FAMILIES,
  SNAPSHOT_ONLY_PIPE_FAMILIES,
  TABLE_MAPPING_KEYS,
} from '../../schema/pipe-sources.js';
import { digestOf } from '../../support/digest.js';
import {
  adoptWarning,
  ambiguousMessage,
  changeFor,
  errorChange,
  isUnreadable,
  unreadableChange,
  withUnresolved,
} from '../shared/change.js';
import { matchAll, type Match } from '../shared/match.js';
import { covers, diffValues, fieldDiff, isRecord } from '../shared/values.js';
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
  allSecretHashes,
  changedKeys,
  createSecretRow,
  unresolvedSecrets,
  draftColumns,
  draftFieldMappings,
  draftSecrets,
  draftSettings,
  draftTableMappings,
  emptyDraft,
  withSecretValues,
  type PipeDraft,
} from './drafts.js';
import { ignorePipeFields } from './ignore.js';
import { isSnapshotOnly, RUNNING_GOAL, stateMove, STOPPED_GOAL } from './lifecycle.js';
import { pipeManifests } from './manifests.js';
import { PIPE, type DesiredBornPipe, type DesiredPipe, type LivePipe } from './model.js';

const URI_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:@/]+:)([^@/]+)(@)/i;

export function planBornPipes(ctx: PipeContext, desired: readonly DesiredBornPipe[]): Change[] {
  if (desired.length === 0) return [];
  const matches = matchAll(
    PIPE,
    desired.map((pipe) => ({ key: pipe.key, name: pipe.name })),
    withUnreadable(PIPE, ctx.livePipes, ctx.unreadable),
    ctx.state,
    ctx.timing,
  );
  return desired.map((pipe) => planBorn(ctx, pipe, matches.get(pipe.key) ?? { how: 'none' }));
}

function planBorn(ctx: PipeContext, desired: DesiredBornPipe, match: Match<LivePipe | UnreadableResource>): Change {
  if (ctx.variant !== 'managed') return notManaged(ctx, desired);
  switch (match.how) {
    case 'ambiguous':
      return errorChange(ctx.target, desired, 'E_CONFLICT', ambiguousMessage(PIPE, desired.name, match.count));
    case 'none':
      return planCreate(ctx, desired);
    case 'owned':
    case 'adopt': {
      const live = match.live;
      if (isUnreadable(live)) return unreadableChange(ctx.target, desired, live);
      return planLive(ctx, desired, live, match.how === 'adopt', match.how === 'owned' && match.reclaimed);
    }
  }
}

/** The digest of a manifest's spec (secrets as their HMACs): a failed pipe is started again at most once per value. */
function revisionOf(desired: DesiredPipe): string {
  const { location: _where, sensitive: _values, ...rest } = desired;
  return digestOf(pipeManifests.specView?.(rest) ?? rest);
}

// ---------------------------------------------------------------- create

/** The body of `POST …/pipes`: what the manifest holds, its secrets resolved. */
function createBody(desired: DesiredBornPipe): Record<string, unknown> {
  const { source, born } = desired;
  const block = withSecretValues(source.block, source.secrets ?? []);
  if (source.tableMappings !== undefined) block['tableMappings'] = source.tableMappings;
  return {
    name: desired.name,
    source: { [source.kind]: block },
    destination: born.destination,
    ...(born.description !== undefined ? { description: born.description } : {}),
    ...(desired.fieldMappings !== undefined ? { fieldMappings: desired.fieldMappings } : {}),
    ...(born.scaling !== undefined ? { scaling: born.scaling } : {}),
    ...(desired.settings !== undefined ? { settings: desired.settings } : {}),
  };
}

/** What a create (and the create of a replace) sends: the create, and a stop right after for a pipe born stopped. */
function createOperations(desired: DesiredBornPipe): Operation[] {
  const create: Operation = { type: operationType('create', PIPE), body: createBody(desired) };
  if (desired.born.state !== 'Stopped') return [{ ...create, await: RUNNING_GOAL }];
  // The stop needs no running pipe (the service stops one from any state), so the create is not waited for.
  return [create, { type: operationType('stop', PIPE), body: { command: 'stop' }, await: STOPPED_GOAL }];
}

/** What a create records beside the pipe: the resync token it makes moot, and that this revision had its attempt. */
function createMarks(desired: DesiredBornPipe): Marks {
  return {
    restartedFor: revisionOf(desired),
    ...(desired.policy?.resync !== undefined ? { resync: desired.policy.resync } : {}),
  };
}

function createDiff(desired: DesiredBornPipe): FieldDiff[] {
  const { source, born } = desired;
  const diff = [
    fieldDiff('name', undefined, desired.name),
    fieldDiff(`source.${source.kind}`, undefined, source.block),
  ];
  if (source.tableMappings !== undefined)
    diff.push(fieldDiff(`source.${source.kind}.tableMappings`, undefined, source.tableMappings));
  for (const member of source.secrets ?? []) diff.push(createSecretRow(source.kind, member));
  diff.push(fieldDiff('destination', undefined, born.destination));
  if (desired.fieldMappings !== undefined) diff.push(fieldDiff('fieldMappings', undefined, desired.fieldMappings));
  if (born.scaling !== undefined) diff.push(fieldDiff('scaling', undefined, born.scaling));
  if (desired.settings !== undefined) diff.push(fieldDiff('settings', undefined, desired.settings));
  diff.push(fieldDiff('state', undefined, born.state));
  return diff;
}

/** What a create sends of the secrets: their HMACs to record, and those this run cannot resolve. */
function withCreateSecrets(change: Change, desired: DesiredBornPipe): void {
  const hashes = allSecretHashes(desired.source.kind, desired.source.secrets ?? []);
  if (Object.keys(hashes).length > 0) change.secretHashes = hashes;
  withUnresolved(change, unresolvedSecrets(desired.source.kind, desired.source.secrets ?? []));
}

function planCreate(ctx: PipeContext, desired: DesiredBornPipe): Change {
  const change = changeFor(ctx.target, desired, 'create');
  change.liveName = desired.name;
  change.diff = createDiff(desired);
  change.operations = createOperations(desired);
  change.marks = createMarks(desired);
  withCreateSecrets(change, desired);
  change.wantedState = desired.born.state;
  return change;
}

// ---------------------------------------------------------------- a live pipe

function planLive(
  ctx: PipeContext,
  desired: DesiredBornPipe,
  live: LivePipe,
  adopting: boolean,
  reclaimed: boolean,
): Change {
  const pipe = ignorePipeFields(desired, live);
  const draft = draftLive(ctx, pipe, live);
  if (draft.forcing.length > 0) return withLiveState(planReplace(ctx, pipe, live, draft, adopting), live);
  const frozen = frozenReason(pipe, live);
  const marks = ownMarks(ctx, pipe, live);
  const moves: LiveMoves =
    draft.error === undefined
      ? liveOperations(ctx, pipe, live, draft, marks)
      : { operations: [], diff: [], warnings: [] };
  const writes = [...moves.operations.filter((operation) => operation.type !== operationType('resync', PIPE))];
  if (draft.error === undefined && frozen !== undefined && (draft.diff.length > 0 || writes.length > 0))
    draft.error = `${frozen}; the manifest asks for ${describeDiff(draft.diff, moves.diff)}`;
  if (draft.error !== undefined)
    return withLiveState(errorChange(ctx.target, desired, 'E_MANIFEST_INVALID', draft.error, live.id), live);
  const diff = [...draft.diff, ...moves.diff];
  const change = changeFor(
    ctx.target,
    desired,
    adopting ? 'adopt' : moves.operations.length > 0 || moves.failure !== undefined ? 'update' : 'unchanged',
  );
  change.id = live.id;
  change.liveName = pipe.name;
  change.diff = diff;
  change.warnings.push(...moves.warnings);
  change.wantedState = pipe.born.state;
  if (reclaimed) change.reclaimed = true;
  if (moves.failure !== undefined && !adopting) {
    change.code = 'E_RESOURCE_FAILED';
    change.error = moves.failure;
  }
  if (adopting) change.warnings.push(adoptWarning(PIPE, live.name, ctx.adopt));
  if (!adopting || ctx.adopt) change.operations = moves.operations;
  if (Object.keys(draft.secretHashes).length > 0 && change.operations.length > 0)
    change.secretHashes = draft.secretHashes;
  if (change.operations.length > 0) withUnresolved(change, draft.unresolved);
  return withLiveState(change, live);
}

/** Why this pipe takes no change but a resync, if it does not: snapshot only, or a snapshot that completed. */
function frozenReason(desired: DesiredBornPipe, live: LivePipe): string | undefined {
  const family = live.source.kind;
  if (SNAPSHOT_ONLY_PIPE_FAMILIES.includes(family))
    return (
      `${PIPE_FAMILY_TITLES[family]} pipes are snapshot only: pipe ${live.id} takes no change after it ` +
      `is created (stacksync.io/replace: allow deletes and creates it again)`
    );
  if (live.state === 'Completed' && isSnapshotOnly(family, live.source.block))
    return `pipe ${live.id} is Completed: it takes no change but a resync`;
  void desired;
  return undefined;
}

function describeDiff(...diffs: FieldDiff[][]): string {
  const paths = [...new Set(diffs.flat().map((diff) => diff.path))];
  return paths.length > 0 ? `changes to ${paths.join(', ')}` : 'a change';
}

/** Every difference that is a member of the pipe (not its state): PATCH members, and the create-only ones that force a replace. */
function draftLive(ctx: PipeContext, desired: DesiredBornPipe, live: LivePipe): PipeDraft {
  const draft = emptyDraft();
  const { source } = desired;
  if (source.kind !== live.source.kind) {
    draft.forcing.push('source');
    draft.diff.push(fieldDiff('source', live.source.kind, source.kind));
    return draft;
  }
  if (desired.name !== live.name) {
    draft.diff.push(fieldDiff('name', live.name, desired.name));
    draft.patch.name = desired.name;
  }
  draftCreateOnlyMembers(desired, live, draft);
  draftBlock(desired, live, draft);
  draftSecrets(desired.key, source.kind, source.secrets ?? [], ctx.secretHashes, draft, (member) =>
    isCreateOnlySourceMember(source.kind, member),
  );
  if (TABLE_MAPPING_KEYS[source.kind] && source.tableMappings)
    draftTableMappings(source.kind, source.tableMappings, live.source.block, draft);
  draftDestination(desired, live, draft);
  draftFieldMappings(desired.fieldMappings, columnsOf(desired), live, draft);
  draftSettings(desired.settings, live, draft);
  return draft;
}

/** The pipe's own create-only members (description): one the manifest sets and the live pipe lacks or differs in forces a replace. */
function draftCreateOnlyMembers(desired: DesiredBornPipe, live: LivePipe, draft: PipeDraft): void {
  const wanted: Record<string, unknown> = { description: desired.born.description };
  const have: Record<string, unknown> = { description: live.description };
  for (const member of PIPE_CREATE_ONLY_MEMBERS) {
    if (wanted[member] === undefined || wanted[member] === have[member]) continue;
    draft.forcing.push(member);
    draft.diff.push(fieldDiff(member, have[member], wanted[member]));
  }
}

/** The block's members: a create-only one that differs forces a replace, the others are patched. */
function draftBlock(desired: DesiredBornPipe, live: LivePipe, draft: PipeDraft): void {
  const family = desired.source.kind;
  const wanted = comparable(family, desired.source.block);
  for (const diff of diffValues(`source.${family}`, wanted, live.source.block)) {
    const member = diff.path.slice(`source.${family}.`.length).replace(/\[[^\]]*\]/g, '');
    if (isCreateOnlySourceMember(family, member)) draft.forcing.push(diff.path);
    draft.diff.push(diff);
  }
  if (draft.forcing.length > 0) return;
  for (const [member, value] of Object.entries(desired.source.block)) {
    if (covers(wanted[member], live.source.block[member])) continue;
    draft.block[member] = isRecord(value) ? changedKeys(value, live.source.block[member]) : value;
  }
}

/** The block as the service shows it: a MongoDB URI's password is answered redacted, so it is compared so. */
function comparable(family: string, block: Record<string, unknown>): Record<string, unknown> {
  const uri = block['uri'];
  if (family !== 'mongodb' || typeof uri !== 'string' || !URI_PASSWORD.test(uri)) return block;
  return { ...block, uri: uri.replace(URI_PASSWORD, '$1[REDACTED]$3') };
}

/** The destination: columns are patched; the rest (database, table, managedTable, tableDefinition) is create-only. */
function draftDestination(desired: DesiredBornPipe, live: LivePipe, draft: PipeDraft): void {
  const { columns, ...rest } = desired.born.destination;
  for (const diff of diffValues('destination', rest, live.destination)) {
    if (isCreateOnlyDestinationMember(diff.path.slice('destination.'.length))) draft.forcing.push(diff.path);
    draft.diff.push(diff);
  }
  if (Array.isArray(columns)) draftColumns(columns, live, draft);
}

function columnsOf(desired: DesiredBornPipe): DesiredPipe['columns'] {
  const columns = desired.born.destination.columns;
  return Array.isArray(columns) ? columns : undefined;
}

// ---------------------------------------------------------------- replace

/**
 * A create-only member changed: the pipe is deleted and created again, as one change (`replace`)
 * that names the members forcing it and what it costs; applied only with `--allow-replace` or
 * `stacksync.io/replace: allow`. BigQuery pipes take a replace only on the annotation.
 */
function planReplace(
  ctx: PipeContext,
  desired: DesiredBornPipe,
  live: LivePipe,
  draft: PipeDraft,
  adopting: boolean,
): Change {
  const family = live.source.kind;
  if (SNAPSHOT_ONLY_PIPE_FAMILIES.includes(family) && desired.policy?.replace !== true) {
    const message =
      `${PIPE_FAMILY_TITLES[family]} pipes are snapshot only: pipe ${live.id} takes no change after it ` +
      `is created (changed: ${draft.forcing.join(', ')}); stacksync.io/replace: allow deletes it and ` +
      `creates it again`;
    return errorChange(ctx.target, desired, 'E_MANIFEST_INVALID', message, live.id);
  }
  if (adopting && !ctx.adopt) {
    const change = changeFor(ctx.target, desired, 'adopt');
    change.id = live.id;
    change.diff = draft.diff;
    change.warnings.push(adoptWarning(PIPE, live.name, false));
    return change;
  }
  const change = changeFor(ctx.target, desired, 'replace');
  change.id = live.id;
  change.liveName = desired.name;
  change.diff = draft.diff;
  change.operations = [{ type: operationType('delete', PIPE), id: live.id }, ...createOperations(desired)];
  change.marks = createMarks(desired);
  withCreateSecrets(change, desired);
  change.warnings.push(replaceWarning(desired, live, draft.forcing));
  if (desired.policy?.replace === true) change.replaceAllowed = true;
  change.wantedState = desired.born.state;
  return change;
}

function replaceWarning(desired: DesiredBornPipe, live: LivePipe, forcing: readonly string[]): string {
  const family = live.source.kind;
  const what = `${forcing.join(', ')} ${forcing.length === 1 ? 'is' : 'are'} create-only: pipe ${live.id} is deleted and created again`;
  const database = PIPE_FAMILY_CLASSES[family] === 'database';
  const cost = database
    ? 'a database pipe then copies every table again from scratch, which can take hours or days'
    : 'ingestion stops until the new pipe runs, and it starts reading again where its offset or iterator says';
  const managed =
    desired.born.destination['managedTable'] === true || live.destination['managedTable'] === true
      ? '; its managed table may be dropped with it, and its data lost'
      : '';
  const how =
    desired.policy?.replace === true
      ? ' (allowed by stacksync.io/replace: allow)'
      : '; applied only with apply --allow-replace or stacksync.io/replace: allow';
  return `replace: ${what}; ${cost}${managed}${how}`;
}

// ---------------------------------------------------------------- state, scaling, mappings, resync

/**
 * The writes a live pipe needs, in order: the PATCH (where the target's server needs it, a
 * table-mapping edit on a running database pipe wrapped in a stop and a start, the start sent
 * whatever becomes of the edit), the scaling, the state, the resync.
 */
function liveOperations(
  ctx: PipeContext,
  desired: DesiredBornPipe,
  live: LivePipe,
  draft: PipeDraft,
  marks: Marks,
): LiveMoves {
  const moves: LiveMoves = { operations: [], diff: [], warnings: [] };
  const patches = patchOperations(desired, live.id, draft);
  const wanted = desired.born.state;
  const pauses = pausesForMappings(ctx, draft);
  if (pauses) editFlow(wanted, live, patches, moves);
  else moves.operations.push(...patches);
  const scaling = scalingOf(desired, live);
  if (scaling) {
    moves.operations.push({ type: operationType('scale', PIPE), id: live.id, body: scaling });
    diffValues('scaling', scaling, live.scaling, moves.diff);
  }
  if (!pauses) stateOperations(desired, live, marks, moves);
  const resync = resyncOf(desired, live, ctx.state);
  if (resync?.operation) {
    moves.operations.push(resync.operation);
    moves.diff.push(fieldDiff('resync', marks['resync'], desired.policy?.resync));
  }
  if (marks['resume'] !== undefined && wanted === 'Running' && !pauses) {
    moves.warnings.push(
      'stacksync stopped this pipe for a table-mapping edit that did not finish; it is started again',
    );
  }
  return moves;
}

/** The scaling members that differ, for pipes that scale on their own; none otherwise. */
function scalingOf(desired: DesiredBornPipe, live: LivePipe): Record<string, number> | undefined {
  const scaling = desired.born.scaling;
  if (scaling === undefined || !SCALABLE_PIPE_FAMILIES.includes(live.source.kind)) return undefined;
  const changed = changedKeys(scaling, live.scaling);
  return Object.keys(changed).length > 0 ? changed : undefined;
}

/** The start or stop that brings the pipe where the manifest wants it; a failed pipe is started again once per revision. */
function stateOperations(desired: DesiredBornPipe, live: LivePipe, marks: Marks, moves: LiveMoves): void {
  const wanted = desired.born.state;
  const start: Operation = {
    type: operationType('start', PIPE),
    id: live.id,
    body: { command: 'start' },
    step: 'resume',
    await: RUNNING_GOAL,
    ...(marks['resume'] ? { marks: { resume: null } } : {}),
  };
  const stop: Operation = {
    type: operationType('stop', PIPE),
    id: live.id,
    body: { command: 'stop' },
    step: 'resume',
    await: STOPPED_GOAL,
  };
  const shown = fieldDiff('state', live.state, wanted);
  switch (stateMove(wanted, live.state)) {
    case 'none':
      return;
    case 'start':
      moves.operations.push(start);
      moves.diff.push(shown);
      return;
    case 'stop':
      moves.operations.push(stop);
      moves.diff.push(shown);
      return;
    case 'stop-then-start':
      moves.operations.push({ ...stop, await: STOPPED_GOAL }, start);
      moves.diff.push(shown);
      return;
    case 'restart-failed': {
      const revision = revisionOf(desired);
      if (marks['restartedFor'] === revision) {
        // Not started again (one start per revision), and never "unchanged" either: the pipe is not
        // where its manifest wants it, so plan lists it and apply fails it, each time.
        moves.diff.push(shown);
        moves.failure =
          `pipe ${live.id} is Failed and its manifest wants it Running; it was started once already for ` +
          `this revision of its manifest, so it is not started again until the manifest changes (or a ` +
          `resync is asked for): the service's console says why it failed`;
        return;
      }
      moves.operations.push({ ...start, marksBefore: { restartedFor: revision } });
      moves.diff.push(shown);
      moves.warnings.push(`pipe ${live.id} is Failed: it is started again, once for this revision of its manifest`);
      return;
    }
  }
}
