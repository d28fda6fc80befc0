/**
 * Suspension, pure: a resource of a suspended target, or whose manifest carries
 * `stacksync.io/suspend: "true"`, is still read and diffed, so the plan and `/status` show how it
 * stands, but nothing of it is written: no create, update, adoption, heal or delete. A write
 * that waits on a suspended one cannot run either, and is shown as suspended too.
 */
import type { DesiredResource } from '../kinds/index.js';
import { changeKey, isWrite, type Change } from '../model/plan.js';
import { withDependents } from './graph.js';

/** Why a change is suspended, as the plan shows it. */
export const SUSPENDED_BY_ANNOTATION = 'suspended by its stacksync.io/suspend annotation: shown, never written';
export function suspendedByTarget(target: string): string {
  return `target ${target} is suspended: shown, never written`;
}

/**
 * Turns the changes of suspended resources into `suspended` (their operations dropped, their diff
 * kept), and the writes that wait on one of them too. Orphans and errors stay what they are: an
 * orphan is never written, and an error is worth seeing. Returns the same array, changed in place.
 */
export function suspendChanges(
  changes: Change[],
  desired: readonly DesiredResource[],
  targetSuspended: boolean,
): Change[] {
  const annotated = new Set(
    desired.filter((resource) => resource.policy?.suspend).map((resource) => changeKey(resource.kind, resource.key)),
  );
  // Nearly every plan suspends nothing: then no key is made for each of its changes.
  if (!targetSuspended && annotated.size === 0) return changes;
  const roots = changes.filter(
    (change) => isSuspendable(change) && (targetSuspended || annotated.has(changeKey(change.kind, change.name))),
  );
  const waiting = withDependents(
    changes,
    roots.filter((change) => isWrite(change.action)),
  );
  const rootSet = new Set(roots);
  for (const change of roots)
    suspend(change, targetSuspended ? suspendedByTarget(change.target) : SUSPENDED_BY_ANNOTATION);
  for (const change of waiting) {
    if (rootSet.has(change) || !isWrite(change.action)) continue;
    const needs = change.dependsOn.filter((key) => roots.some((root) => changeKey(root.kind, root.name) === key));
    suspend(change, `waits on ${needs.join(', ') || 'a suspended resource'}, which is suspended: not written`);
  }
  return changes;
}

function isSuspendable(change: Change): boolean {
  return isWrite(change.action) || change.action === 'unchanged';
}

function suspend(change: Change, why: string): void {
  change.action = 'suspended';
  change.operations = [];
  delete change.secretHashes;
  change.warnings.push(why);
}
