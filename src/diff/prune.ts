/**
 * Prune: deletes of what stacksync created (the inventory) and no manifest names any more, and
 * the safety caps apply checks before running them. Resources not in the inventory are never
 * deleted; pipes are never deleted.
 */
import type { Kind } from '../api/model.js';
import type { Change } from '../plan/model.js';
import type { TargetState } from '../state/model.js';
import type { Named } from './match.js';

/** Kinds prune may delete, in the order their deletes must run (alerts before their dashboards). */
export const PRUNABLE_KINDS = ['Alert', 'Dashboard'] as const satisfies readonly Kind[];
export type PrunableKind = (typeof PRUNABLE_KINDS)[number];

/**
 * One `delete` per inventory entry of `kind` whose key no manifest has. An entry whose id is no
 * longer live is left out: there is nothing to delete, and the executor's inventory refresh
 * (which keeps only ids that exist) forgets it.
 */
export function planDeletes(
  target: string,
  kind: PrunableKind,
  desiredKeys: ReadonlySet<string>,
  state: TargetState,
  live: readonly Named[],
): Change[] {
  const liveById = new Map(live.map((item) => [item.id, item]));
  return Object.entries(state.inventory[kind])
    .filter(([key]) => !desiredKeys.has(key))
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([key, entry]) => {
      const current = liveById.get(entry.id);
      if (!current) return [];
      const change: Change = {
        target,
        kind,
        name: key,
        action: 'delete',
        id: entry.id,
        diff: [],
        operations: [{ type: kind === 'Alert' ? 'deleteAlert' : 'deleteDashboard', id: entry.id }],
        dependsOn: [],
        warnings: [],
      };
      if (current.name !== undefined) change.liveName = current.name;
      return [change];
    });
}

export interface PruneCaps {
  /** Resources stacksync manages in this target (`managedCount` of `state/inventory.ts`). */
  managedCount: number;
  /** `sync.maxDeletes`: refuse more deletes than this. */
  maxDeletes: number;
  /** `sync.maxDeletePercent`: refuse deleting more than this share of `managedCount`. */
  maxDeletePercent: number;
  /** `--force`: the caps do not apply. */
  force: boolean;
}

const FORCE_HINT = 'rerun with --force to delete them anyway';

export type PruneCheck = { ok: true } | { ok: false; message: string };

/**
 * Whether the deletes among `changes` (one target's) stay within the caps. Pure; apply refuses
 * the plan with `E_PRUNE_REFUSED` and this message when it does not.
 */
export function checkPruneCaps(changes: readonly Change[], caps: PruneCaps): PruneCheck {
  const deletes = changes.filter((change) => change.action === 'delete').length;
  if (deletes === 0 || caps.force) return { ok: true };
  if (deletes > caps.maxDeletes) {
    return { ok: false, message: `prune refused: ${deletes} deletes exceed maxDeletes (${caps.maxDeletes}); ${FORCE_HINT}` };
  }
  const percent = caps.managedCount > 0 ? (deletes / caps.managedCount) * 100 : 100;
  if (percent > caps.maxDeletePercent) {
    const share = `${deletes} of ${caps.managedCount} managed resources (${formatPercent(percent)}%)`;
    return { ok: false, message: `prune refused: ${share} exceed maxDeletePercent (${caps.maxDeletePercent}%); ${FORCE_HINT}` };
  }
  return { ok: true };
}

function formatPercent(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
