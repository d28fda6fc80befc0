/**
 * What a delete leaves behind: live resources of one kind that still name a resource this plan
 * deletes, and that the plan neither deletes nor moves off it. Each kind that names another says
 * on the delete what the server does to them (deletes them with it, refuses, or leaves them
 * pointing at nothing), so no delete's consequence is a surprise.
 */
import type { Change } from '../../model/plan.js';
import type { LiveBase } from '../../model/resources.js';

export interface Dependents<L extends LiveBase> {
  /** Deletes of the named kind in this plan. */
  deletes: readonly Change[];
  /** Live resources of the naming kind. */
  live: readonly L[];
  /** Ids of the named kind a live resource names. */
  names(live: L): readonly string[];
  /** The naming kind's changes in this plan, and its own deletes. */
  changes: readonly Change[];
}

/** Per delete, the live resources still naming its resource after this plan: not deleted, and not rewritten by it. */
export function leftNaming<L extends LiveBase>(input: Dependents<L>): Map<Change, L[]> {
  const touched = new Set(
    input.changes
      .filter((change) => change.operations.length > 0 || change.action === 'delete')
      .flatMap((change) => (change.id === undefined ? [] : [change.id])),
  );
  const left = new Map<Change, L[]>();
  for (const deletion of input.deletes) {
    const naming = input.live.filter(
      (item) => !touched.has(item.id) && deletion.id !== undefined && input.names(item).includes(deletion.id),
    );
    if (naming.length > 0) left.set(deletion, naming);
  }
  return left;
}

/** `Kind name (id)` of a live resource, as warnings name it. */
export function labelOf(kind: string, live: LiveBase): string {
  return live.name ? `${kind} "${live.name}" (${live.id})` : `${kind} ${live.id}`;
}
