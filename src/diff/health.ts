/**
 * Health, pure: a resource of a kind with a live state (a managed pipe) whose state its
 * descriptor calls degraded (Failed, InternalError, Paused). The plan warns about it whatever its
 * manifest asks (an unchanged pipe can be down); states stacksync does not know are shown as they
 * are, never an error.
 */
import type { Change, PlanWarning } from '../model/plan.js';
import { descriptorOf } from '../kinds/index.js';

/** Whether a change's resource is degraded, by its kind's health rule. */
export function isDegraded(change: Pick<Change, 'kind' | 'liveState' | 'wantedState'>): boolean {
  return descriptorOf(change.kind).health?.degraded(change.liveState, change.wantedState) === true;
}

/** One warning per degraded resource among a target's changes. */
export function pipeHealthWarnings(changes: readonly Change[]): PlanWarning[] {
  return changes.filter(isDegraded).map((change) => {
    const warning: PlanWarning = {
      target: change.target,
      code: 'W_PIPE_DEGRADED',
      message: `${change.kind}/${change.name} is degraded: its live state is ${change.liveState ?? ''} (${change.kind.toLowerCase()} ${change.id ?? ''})`,
    };
    if (change.file !== undefined) warning.file = change.file;
    if (change.line !== undefined) warning.line = change.line;
    return warning;
  });
}
