/**
 * What both forms of a Pipe manifest share once drafted: the planning context, the PATCH
 * operations of a draft, the resync an annotation asks for, and how a change carries the live state.
 */
import type { UnreadableResource } from '../../model/resources.js';
import type { Variant } from '../../model/kinds.js';
import { operationType, type Change, type Operation } from '../../model/plan.js';
import type { TargetState } from '../../model/state.js';
import { RESYNCABLE_PIPE_FAMILIES } from '../../schema/pipe-sources.js';
import { errorChange } from '../kit/change.js';
import type { IntentTiming } from '../kit/intents.js';
import type { PipeDraft } from './drafts.js';
import { RUNNING_GOAL } from './lifecycle.js';
import { PIPE, type DesiredBornPipe, type DesiredPipe, type LivePipe, type PipePatch } from './model.js';

export interface PipeContext {
  target: string;
  variant: Variant;
  livePipes: readonly LivePipe[];
  /** Live pipes that could not be read; a manifest naming one gets an error row. */
  unreadable?: readonly UnreadableResource[];
  secretHashes: Readonly<Record<string, string>>;
  state: TargetState;
  timing: IntentTiming;
  adopt: boolean;
}

export function notManaged(ctx: Pick<PipeContext, 'target' | 'variant'>, desired: DesiredPipe): Change {
  return errorChange(ctx.target, desired, 'E_MANIFEST_INVALID', `target ${ctx.target} is ${ctx.variant}: pipes exist only on managed targets`);
}

/** The live state travels with the change: `/status`, the pipe-state gauge and the plan's health warning read it. */
export function withLiveState(change: Change, live: LivePipe): Change {
  if (live.state !== undefined) change.liveState = live.state;
  return change;
}

// ---------------------------------------------------------------- operations

/** The PATCH (or, for a changed mapping, the remove and the add PATCHes) of a draft; none when nothing differs. */
export function patchOperations(desired: DesiredPipe, id: string, draft: PipeDraft): Operation[] {
  const family = desired.source?.kind;
  const first: PipePatch = { ...draft.patch };
  if (family && Object.keys(draft.block).length > 0) first.source = withValidateSamples(desired, { [family]: draft.block });
  const type = operationType('update', PIPE);
  if (Object.keys(first).length === 0 && draft.readd.length === 0) return [];
  if (draft.readd.length === 0 || !family) return [{ type, id, patch: first }];
  const second: PipePatch = { source: withValidateSamples(desired, { [family]: { tableMappingsToAdd: draft.readd } }) };
  return [
    { type, id, patch: first, step: 'remove-mappings' },
    { type, id, patch: second, step: 'add-mappings' },
  ];
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
export function resyncOf(desired: DesiredPipe | DesiredBornPipe, live: LivePipe, state: TargetState): { operation?: Operation; error?: string } | undefined {
  const token = desired.policy?.resync;
  if (token === undefined) return undefined;
  const entry = state.inventory[PIPE][desired.key];
  if (entry?.id === live.id && entry.marks?.['resync'] === token) return undefined;
  if (!RESYNCABLE_PIPE_FAMILIES.includes(live.source.kind)) {
    return { error: `stacksync.io/resync: a resync is only for pipes of a database source (${RESYNCABLE_PIPE_FAMILIES.join(', ')}); pipe ${live.id} reads from ${live.source.kind}` };
  }
  return { operation: { type: operationType('resync', PIPE), id: live.id, body: { command: 'resync' }, step: 'resume', await: RUNNING_GOAL, marks: { resync: token } } };
}
