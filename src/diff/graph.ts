/**
 * What waits on what in a plan: the one definition of a change's dependencies, and the one walk
 * over them. The executor orders and skips by it, prune refusal holds back by it.
 */
import type { Change, ChangeKey } from '../model/plan.js';
import { changeKey } from '../model/plan.js';
import { descriptorOf } from '../kinds/index.js';

/**
 * The changes (same target) a change must wait for: its `dependsOn`, and the changes its
 * operations take ids from (an alert's dashboard), as its kind's descriptor reads the refs.
 */
export function requiredChanges(change: Pick<Change, 'kind' | 'dependsOn' | 'operations'>): ChangeKey[] {
  const keys = new Set<ChangeKey>(change.dependsOn);
  const refs = descriptorOf(change.kind).refs;
  for (const operation of change.operations) {
    if (refs && 'refs' in operation && operation.refs) for (const key of refs.changes(operation.refs)) keys.add(key);
  }
  return [...keys];
}

/** `roots` and every change of `changes` that requires one of them, transitively, in plan order. */
export function withDependents(changes: readonly Change[], roots: readonly Change[]): Change[] {
  const held = new Set(roots);
  const keys = new Set(roots.map((change) => changeKey(change.kind, change.name)));
  for (let grown = true; grown; ) {
    grown = false;
    for (const change of changes) {
      if (held.has(change) || !requiredChanges(change).some((key) => keys.has(key))) continue;
      held.add(change);
      keys.add(changeKey(change.kind, change.name));
      grown = true;
    }
  }
  return changes.filter((change) => held.has(change));
}
