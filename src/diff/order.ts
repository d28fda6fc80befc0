/**
 * The order plans list their changes in, from the one kind-order table: writes first, by kind
 * (a dashboard before the alerts that reference it), then deletes in reverse (alerts before their
 * dashboards), by name within a kind; orphans, which prune would delete, sort as deletes. The executor runs by the same table and each change's
 * `dependsOn`; this order makes plans stable and readable.
 */
import { kindRank } from '../kinds/index.js';
import type { Change } from '../model/plan.js';

export function compareChanges(a: Change, b: Change): number {
  const aDelete = a.action === 'delete' || a.action === 'orphan';
  const bDelete = b.action === 'delete' || b.action === 'orphan';
  if (aDelete !== bDelete) return aDelete ? 1 : -1;
  const rank = kindRank(a.kind, aDelete) - kindRank(b.kind, bDelete);
  return rank !== 0 ? rank : a.name.localeCompare(b.name);
}

export function sortChanges(changes: readonly Change[]): Change[] {
  return [...changes].sort(compareChanges);
}
