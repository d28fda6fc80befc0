/** Assembling a Plan from the changes of every target. */
import type { Change, ChangeResult, Plan, PlanError, PlanSummary, PlanWarning } from '../model/plan.js';
import { descriptorOf } from '../kinds/index.js';

/**
 * The plan of one run. `changes` are those of every target, in the order given; `errors` are
 * problems that are not one change (manifest errors, unreachable targets). The summary's
 * `errors` counts both those and the changes whose action is `error`.
 */
export function buildPlan(
  changes: readonly Change[],
  errors: readonly PlanError[],
  warnings: readonly PlanWarning[] = [],
): Plan {
  return {
    version: 1,
    summary: summarize(changes, errors),
    changes: [...changes],
    errors: [...errors],
    warnings: [...warnings],
  };
}

export function summarize(changes: readonly Change[], errors: readonly PlanError[]): PlanSummary {
  const summary: PlanSummary = {
    create: 0,
    update: 0,
    replace: 0,
    delete: 0,
    adopt: 0,
    orphan: 0,
    suspended: 0,
    unchanged: 0,
    errors: errors.length,
  };
  const apart: Partial<Record<Change['kind'], number>> = {};
  for (const change of changes) {
    if (change.action === 'error') summary.errors++;
    // The summary's members are fixed by docs/reference/cli.md; waiting creates are counted by `waitingCount`.
    else if (change.action !== 'waiting') summary[change.action]++;
    if (
      (change.action === 'delete' || change.action === 'replace') &&
      descriptorOf(change.kind).prune?.countApart !== undefined
    )
      apart[change.kind] = (apart[change.kind] ?? 0) + 1;
  }
  if (Object.keys(apart).length > 0) summary.deleteByKind = apart;
  return summary;
}

/**
 * True when applying the plan would write something (`plan --detailed-exitcode` exits 2). Orphans
 * are not: apply leaves them alone unless it prunes, and then they are planned as deletes. Nor are
 * waiting creates (and writes): applying now would write nothing, and what happens to them next (taken back
 * when the late create lands, created once the window is over) is the next run's plan.
 */
export function hasChanges(plan: Plan): boolean {
  const { create, update, replace, delete: deletes, adopt } = plan.summary;
  return create + update + replace + deletes + adopt > 0;
}

/** Changes waiting for an earlier create (or write) that may still land (not a member of the fixed summary). */
export function waitingCount(plan: Pick<Plan, 'changes'>): number {
  return plan.changes.filter((change) => change.action === 'waiting').length;
}

/** Apply results by `changeRef`; renderers add them to the changes they belong to. */
export type ChangeResults = ReadonlyMap<string, ChangeResult>;
