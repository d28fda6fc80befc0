/**
 * How a pipe's state moves, as the client sees it (docs/reference/api-behaviour.md, "The real services today: the whole
 * lifecycle"): after a create or a start it settles asynchronously — streaming and object-storage
 * pipes `Running`, database pipes `Running` or `Snapshot` (initial load), snapshot-only pipes
 * `Completed`; a stop ends `Stopped` (streaming) or `Paused` (database). Which state a manifest's
 * `state` needs which command, and whether a refused command was only redundant. Pure; states the
 * service adds later are opaque text, never an error.
 */
import type { ActionVerb } from '../../model/plan.js';
import { PIPE_FAMILY_CLASSES, SNAPSHOT_ONLY_PIPE_FAMILIES, type PipeFamily } from '../../schema/pipe-sources.js';
import type { SettleCheck } from '../descriptor.js';
import { isRecord } from '../shared/values.js';
import type { LivePipe, PipeDesiredState } from './model.js';

/** What an operation on a pipe awaits (`Operation.await`). */
export const RUNNING_GOAL = 'running';
export const STOPPED_GOAL = 'stopped';

/** At rest after a stop. */
export const STOPPED_STATES: readonly string[] = ['Stopped', 'Paused'];
/** On the way to rest. */
export const STOPPING_STATES: readonly string[] = ['Stopping', 'Pausing'];
/** Running, or on its way there on its own: a start would be refused, and is not needed. */
export const RUNNING_STATES: readonly string[] = [
  'Provisioning',
  'Running',
  'Degraded',
  'Snapshot',
  'Setup',
  'Resync',
  'Modifying',
  'Completed',
];
/** Ended badly: provisioning (or a start, or a resync) failed. */
export const FAILED_STATES: readonly string[] = ['Failed', 'InternalError'];

/** Snapshot-only pipes (BigQuery, or a database pipe in `snapshot` mode) end `Completed`, not `Running`. */
export function isSnapshotOnly(family: PipeFamily, block: Record<string, unknown>): boolean {
  if (SNAPSHOT_ONLY_PIPE_FAMILIES.includes(family)) return true;
  const settings = block['settings'];
  return PIPE_FAMILY_CLASSES[family] === 'database' && isRecord(settings) && settings['replicationMode'] === 'snapshot';
}

/** The states a pipe of this family and block has settled in once running. */
export function runningSettled(family: PipeFamily, block: Record<string, unknown>): readonly string[] {
  if (isSnapshotOnly(family, block)) return ['Completed'];
  return PIPE_FAMILY_CLASSES[family] === 'database' ? ['Running', 'Snapshot'] : ['Running'];
}

/** Where a live pipe stands on its way to `goal`. */
export function checkPipe(goal: string, pipe: LivePipe): SettleCheck {
  const state = pipe.state;
  if (state === undefined) return { settled: false };
  if (FAILED_STATES.includes(state))
    return { failed: `pipe ${pipe.id} ended ${state} (its provisioning failed; the service's console says why)` };
  const settled = goal === STOPPED_GOAL ? STOPPED_STATES : runningSettled(pipe.source.kind, pipe.source.block);
  return settled.includes(state) ? { settled: true } : { settled: false, state };
}

/** A command the service refused because its work is done or under way already. */
export function isRedundant(verb: ActionVerb, pipe: LivePipe): boolean {
  const state = pipe.state ?? '';
  if (verb === 'start') return RUNNING_STATES.includes(state);
  if (verb === 'stop') return STOPPED_STATES.includes(state) || STOPPING_STATES.includes(state);
  return false;
}

/** What it takes to bring a pipe in `state` where the manifest wants it. */
export type StateMove = 'none' | 'start' | 'stop' | 'stop-then-start' | 'restart-failed';

export function stateMove(wanted: PipeDesiredState, state: string | undefined): StateMove {
  if (state === undefined) return 'none';
  if (wanted === 'Running') {
    if (STOPPED_STATES.includes(state)) return 'start';
    // A start is taken only at rest: let the stop finish first.
    if (STOPPING_STATES.includes(state)) return 'stop-then-start';
    if (state === 'Failed') return 'restart-failed';
    return 'none';
  }
  // Stopped: at rest or on the way; a failed or completed pipe ingests nothing either.
  if (
    STOPPED_STATES.includes(state) ||
    STOPPING_STATES.includes(state) ||
    FAILED_STATES.includes(state) ||
    state === 'Completed'
  )
    return 'none';
  return 'stop';
}

/** Whether a pipe in this state counts as degraded, given the state its manifest wants (a paused pipe is fine when stopped on purpose). */
export function isDegraded(state: string | undefined, wanted: string | undefined): boolean {
  if (state === undefined) return false;
  if (wanted === 'Stopped' && STOPPED_STATES.includes(state)) return false;
  return ['Failed', 'InternalError', 'Paused'].includes(state);
}
