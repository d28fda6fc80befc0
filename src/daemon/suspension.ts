/**
 * Targets suspended at run time (`POST /-/suspend`, `/-/resume`; docs/daemon.md): kept in the
 * state, so a suspension holds across restarts until resumed, and read afresh by each sync. The
 * config's own suspensions are in its targets; a target the config suspends stays suspended.
 */
import { StacksyncError } from '../errors.js';
import type { StateRecord, Suspension } from '../model/state.js';
import type { ReconcileContext } from '../reconcile/reconcile.js';
import type { StateGuard } from '../state/guard.js';
import type { SuspensionNote } from './http.js';

export interface Suspensions {
  /** The target's run-time suspension, as the state holds it now. */
  of(target: string): Suspension | undefined;
  /** Every suspended target: by the config or at run time. */
  suspended(): Set<string>;
  /**
   * Records a suspension (or a resume) in the state, under its lock, before it resolves. False
   * for a target that is not configured; rejects when the state could not be written (nothing
   * changed) and on a dry run, which writes no state.
   */
  record(target: string, suspend: boolean, note?: SuspensionNote): Promise<boolean>;
}

export function createSuspensions(options: {
  context: ReconcileContext;
  dryRun: boolean;
  stateGuard?: StateGuard;
  now: () => number;
}): Suspensions {
  const { context } = options;
  const config = context.config;
  const of = (target: string): Suspension | undefined => context.store.get(target).suspension;
  return {
    of,
    suspended: () =>
      new Set(config.targets.filter((target) => target.suspend || of(target.name)).map((target) => target.name)),
    async record(target, suspend, note = {}) {
      if (!config.targets.some((candidate) => candidate.name === target)) return false;
      if (options.dryRun)
        throw new StacksyncError(
          'E_USAGE',
          'this daemon runs --dry-run: it writes nothing, the state included, so it keeps no suspension',
        );
      const record: StateRecord = suspend
        ? { type: 'suspended', since: new Date(options.now()).toISOString(), ...note }
        : { type: 'resumed' };
      const write = async (): Promise<void> => {
        if (record.type === 'resumed' && !of(target)) return;
        context.store.add(target, record);
        await context.store.save();
      };
      await (options.stateGuard ? options.stateGuard.hold(write) : write());
      return true;
    },
  };
}
