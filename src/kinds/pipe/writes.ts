/**
 * What both forms of a Pipe manifest share once drafted: the planning context, the PATCH
 * operations of a draft, a table-mapping edit wrapped in a stop and a start, the resync an
 * annotation asks for, and how a change carries the live state.
 */
import type { UnreadableResource } from '../../model/resources.js';
import type { Variant } from '../../model/kinds.js';
import { operationType, type Change, type FieldDiff, type Operation } from '../../model/plan.js';
import type { Marks, TargetState } from '../../model/state.js';
import type { ApiProfile } from '../../schema/enums.js';
import {
  EDITABLE_MAPPING_STATES,
  MAPPING_EDIT_NEEDS_PAUSE,
  RESYNCABLE_PIPE_FAMILIES,
} from '../../schema/pipe-sources.js';
import { errorChange } from '../shared/change.js';
import type { IntentTiming } from '../shared/intents.js';
import { fieldDiff } from '../shared/values.js';
import { editsMappings, type PipeDraft } from './drafts.js';
import { RUNNING_GOAL, STOPPED_GOAL } from './lifecycle.js';
import {
  PIPE,
  type DesiredBornPipe,
  type DesiredPipe,
  type LivePipe,
  type PipeDesiredState,
  type PipePatch,
} from './model.js';

export interface PipeContext {
  target: string;
  variant: Variant;
  /** Whose rules the target's server follows (`api.profile`): whether a mapping edit needs the pipe paused. */
  profile: ApiProfile;
  livePipes: readonly LivePipe[];
  /** Live pipes that could not be read; a manifest naming one gets an error row. */
  unreadable?: readonly UnreadableResource[];
  secretHashes: Readonly<Record<string, string>>;
  state: TargetState;
  timing: IntentTiming;
  adopt: boolean;
}

export function notManaged(ctx: Pick<PipeContext, 'target' | 'variant'>, desired: DesiredPipe): Change {
  return errorChange(
    ctx.target,
    desired,
    'E_MANIFEST_INVALID',
    `target ${ctx.target} is ${ctx.variant}: pipes exist only on managed targets`,
  );
}

/** The live state travels with the change: `/status`, the pipe-state gauge and the plan's health warning read it. */
export function withLiveState(change: Change, live: LivePipe): Change {
  if (live.state !== undefined) change.liveState = live.state;
  return change;
}

/** The marks stacksync keeps for this pipe, if the inventory holds it under this manifest. */
export function ownMarks(ctx: PipeContext, desired: DesiredPipe, live: LivePipe): Marks {
  const entry = ctx.state.inventory[PIPE][desired.key];
  return entry?.id === live.id ? (entry.marks ?? {}) : {};
}

// ---------------------------------------------------------------- operations

/** The writes a live pipe needs, in order, with what the plan shows and says of them. */
export interface LiveMoves {
  operations: Operation[];
  diff: FieldDiff[];
  warnings: string[];
  /**
   * Why apply fails this pipe's change even when it sends nothing: it stays where its manifest
   * does not want it and stacksync may not move it (a Failed pipe whose start for this revision is
   * spent). Never "unchanged": plan lists it, apply ends it failed, each time (docs/manifests/pipe.md).
   */
  failure?: string;
}

/** The PATCH (or, for a changed mapping, the remove and the add PATCHes) of a draft; none when nothing differs. */
export function patchOperations(desired: DesiredPipe, id: string, draft: PipeDraft): Operation[] {
  const family = desired.source?.kind;
  const first: PipePatch = { ...draft.patch };
  if (family && Object.keys(draft.block).length > 0)
    first.source = withValidateSamples(desired, { [family]: draft.block });
  const type = operationType('update', PIPE);
  if (Object.keys(first).length === 0 && draft.readd.length === 0) return [];
  if (draft.readd.length === 0 || !family) return [{ type, id, patch: first }];
  const second: PipePatch = { source: withValidateSamples(desired, { [family]: { tableMappingsToAdd: draft.readd } }) };
  return [
    { type, id, patch: first, step: 'remove-mappings' },
    { type, id, patch: second, step: 'add-mappings' },
  ];
}

/**
 * The API takes a mapping edit only while the pipe is paused ("must be paused to edit"), and
 * resumes the pipe by itself after one: so stop (if not at rest), edit, and bring it to the state
 * `wanted`, that last step whatever becomes of the edit. The stop leaves a mark first, so a run
 * cut short in between is finished by the next one.
 */
export function editFlow(wanted: PipeDesiredState, live: LivePipe, patches: Operation[], moves: LiveMoves): void {
  const atRest = live.state !== undefined && EDITABLE_MAPPING_STATES.includes(live.state);
  if (atRest === (wanted === 'Running')) moves.diff.push(fieldDiff('state', live.state, wanted));
  if (!atRest) {
    // Marked before the stop, and again with it: a pipe not yet in the inventory (its first write) has no entry before.
    const mark = { resume: wanted };
    moves.operations.push({
      type: operationType('stop', PIPE),
      id: live.id,
      body: { command: 'stop' },
      step: 'pause',
      await: STOPPED_GOAL,
      marksBefore: mark,
      marks: mark,
    });
  }
  moves.operations.push(...patches);
  const command = wanted === 'Running' ? 'start' : 'stop';
  moves.operations.push({
    type: operationType(command, PIPE),
    id: live.id,
    body: { command },
    step: 'resume',
    always: true,
    await: wanted === 'Running' ? RUNNING_GOAL : STOPPED_GOAL,
    marks: { resume: null },
  });
  const how = atRest
    ? 'edited while the pipe is at rest'
    : `applied as one change: stop the pipe (now ${live.state ?? 'in an unknown state'}), wait until it is paused, edit its table mappings`;
  moves.warnings.push(
    `table mappings: ${how}, then ${wanted === 'Running' ? 'start it again' : 'keep it stopped'} ` +
      `(the API edits mappings only while a pipe is paused, and restarts it after); added tables, and ` +
      `changed ones (removed, then added), are copied from scratch`,
  );
}

/** Whether the draft's table-mapping edit must be wrapped in a stop and a start on this target. */
export function pausesForMappings(ctx: Pick<PipeContext, 'profile'>, draft: PipeDraft): boolean {
  return MAPPING_EDIT_NEEDS_PAUSE[ctx.profile] && editsMappings(draft);
}

/** `validateSamples` is a request flag, not stored state: sent along with a write, never a diff. */
function withValidateSamples(desired: DesiredPipe, source: Record<string, unknown>): Record<string, unknown> {
  const validate = desired.source?.validateSamples;
  return validate === undefined ? source : { ...source, validateSamples: validate };
}

/**
 * The resync a new `stacksync.io/resync` token asks for (sent once: the token is recorded once it
 * was), or why this pipe cannot take one. The first token seen on a pipe stacksync creates is
 * recorded by the create, not sent.
 */
export function resyncOf(
  desired: DesiredPipe | DesiredBornPipe,
  live: LivePipe,
  state: TargetState,
): { operation?: Operation; error?: string } | undefined {
  const token = desired.policy?.resync;
  if (token === undefined) return undefined;
  const entry = state.inventory[PIPE][desired.key];
  if (entry?.id === live.id && entry.marks?.['resync'] === token) return undefined;
  if (!RESYNCABLE_PIPE_FAMILIES.includes(live.source.kind)) {
    return {
      error:
        `stacksync.io/resync: a resync is only for pipes of a database source ` +
        `(${RESYNCABLE_PIPE_FAMILIES.join(', ')}); pipe ${live.id} reads from ${live.source.kind}`,
    };
  }
  return {
    operation: {
      type: operationType('resync', PIPE),
      id: live.id,
      body: { command: 'resync' },
      step: 'resume',
      await: RUNNING_GOAL,
      marks: { resync: token },
    },
  };
}
