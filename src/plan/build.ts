/** Assembling a Plan from the changes of every target, and keying apply results to changes. */
import type { Change, ChangeKey, ChangeResult, Plan, PlanError, PlanSummary } from '../model/plan.js';

/**
 * The plan of one run. `changes` are those of every target, in the order given; `errors` are
 * problems that are not one change (manifest errors, unreachable targets). The summary's
 * `errors` counts both those and the changes whose action is `error`.
 */
export function buildPlan(changes: readonly Change[], errors: readonly PlanError[], warnings: readonly PlanError[] = []): Plan {
  return { version: 1, summary: summarize(changes, errors), changes: [...changes], errors: [...errors], warnings: [...warnings] };
}

export function summarize(changes: readonly Change[], errors: readonly PlanError[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0, adopt: 0, unchanged: 0, errors: errors.length };
  for (const change of changes) {
    if (change.action === 'error') summary.errors++;
    else summary[change.action]++;
  }
  return summary;
}

/** True when applying the plan would write something (`plan --detailed-exitcode` exits 2). */
export function hasChanges(plan: Plan): boolean {
  const { create, update, delete: deletes, adopt } = plan.summary;
  return create + update + deletes + adopt > 0;
}

/** The key apply results are given under: `target/Kind/name`, unique within a plan. */
export function changeRef(change: Pick<Change, 'target' | 'kind' | 'name'>): string {
  return `${change.target}/${change.kind}/${change.name}`;
}

/**
 * The changes (same target) a change must wait for: its `dependsOn`, and the dashboards its alert
 * operations take ids from. Apply ordering, prune refusal and exit codes all follow this one rule.
 */
export function requiredChanges(change: Pick<Change, 'dependsOn' | 'operations'>): ChangeKey[] {
  const keys = new Set<ChangeKey>(change.dependsOn);
  for (const operation of change.operations) {
    if ((operation.type === 'createAlert' || operation.type === 'updateAlert') && operation.refs) keys.add(operation.refs.dashboard);
  }
  return [...keys];
}

/** Apply results by `changeRef`; renderers add them to the changes they belong to. */
export type ChangeResults = ReadonlyMap<string, ChangeResult>;
