/**
 * Write order as plain data: creates and updates by ascending kind rank (a dashboard before the
 * alerts that reference it), deletes in reverse (alerts before their dashboards). The executor
 * still follows each change's `dependsOn`; this order makes plans stable and readable.
 */
import type { Kind } from '../model/kinds.js';
import type { Change } from '../model/plan.js';

export const KIND_RANK: Readonly<Record<Kind, number>> = { Pipe: 0, Dashboard: 1, Alert: 2 };

/** Orders changes: non-deletes by kind rank then name, then deletes by reverse kind rank then name. */
export function compareChanges(a: Change, b: Change): number {
  const aDelete = a.action === 'delete';
  const bDelete = b.action === 'delete';
  if (aDelete !== bDelete) return aDelete ? 1 : -1;
  const rank = aDelete ? KIND_RANK[b.kind] - KIND_RANK[a.kind] : KIND_RANK[a.kind] - KIND_RANK[b.kind];
  return rank !== 0 ? rank : a.name.localeCompare(b.name);
}

export function sortChanges(changes: readonly Change[]): Change[] {
  return [...changes].sort(compareChanges);
}
