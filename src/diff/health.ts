/**
 * Pipe health, pure: a managed pipe whose live state is Failed, InternalError or Paused is
 * degraded. The plan warns about it whatever its manifest asks (an unchanged pipe can be down);
 * states stacksync does not know are shown as they are, never an error.
 */
import type { Change, PlanWarning } from '../model/plan.js';
import { isDegradedPipeState } from '../model/resources.js';

/** One warning per degraded pipe among a target's changes. */
export function pipeHealthWarnings(changes: readonly Change[]): PlanWarning[] {
  return changes
    .filter((change) => change.kind === 'Pipe' && isDegradedPipeState(change.liveState))
    .map((change) => {
      const warning: PlanWarning = {
        target: change.target,
        code: 'W_PIPE_DEGRADED',
        message: `Pipe/${change.name} is degraded: its live state is ${change.liveState ?? ''} (pipe ${change.id ?? ''})`,
      };
      if (change.file !== undefined) warning.file = change.file;
      if (change.line !== undefined) warning.line = change.line;
      return warning;
    });
}
