/**
 * Prune: deletes of what stacksync created (the inventory) and no manifest names any more, and
 * the safety caps apply checks before running them. Resources not in the inventory are never
 * deleted; pipes are never deleted.
 */
import type { Kind } from '../model/kinds.js';
import type { Change } from '../model/plan.js';
import type { TargetState } from '../model/state.js';
import type { Named } from './match.js';

/** Kinds prune may delete, in the order their deletes must run (alerts before their dashboards). */
export const PRUNABLE_KINDS = ['Alert', 'Dashboard'] as const satisfies readonly Kind[];
export type PrunableKind = (typeof PRUNABLE_KINDS)[number];

/**
 * One `delete` per inventory entry of `kind` whose key no manifest has, and per live resource
 * named by a pending create intent whose manifest is gone (a create that happened just before a
 * crash: ours, though the inventory never recorded it). An entry whose id is no longer live is
 * left out: there is nothing to delete, and `refreshInventory` forgets it.
 */
export function planDeletes(
  target: string,
  kind: PrunableKind,
  desiredKeys: ReadonlySet<string>,
  state: TargetState,
  live: readonly Named[],
): Change[] {
  const liveById = new Map(live.map((item) => [item.id, item]));
  const inventory = state.inventory[kind];
  const fromInventory = Object.entries(inventory)
    .filter(([key]) => !desiredKeys.has(key))
    .flatMap(([key, entry]) => {
      const current = liveById.get(entry.id);
      return current ? [deleteChange(target, kind, key, current)] : [];
    });
  const owned = new Set(Object.values(inventory).map((entry) => entry.id));
  const fromIntents = state.intents
    .filter((intent) => intent.kind === kind && !desiredKeys.has(intent.key) && inventory[intent.key] === undefined)
    .flatMap((intent) => {
      const matches = live.filter((item) => item.name === intent.name && !owned.has(item.id));
      // Two unowned resources with the name: which one the crashed create made cannot be told.
      return matches.length === 1 && matches[0] ? [deleteChange(target, kind, intent.key, matches[0])] : [];
    });
  return [...fromInventory, ...fromIntents].sort((a, b) => a.name.localeCompare(b.name));
}

function deleteChange(target: string, kind: PrunableKind, key: string, current: Named): Change {
  const change: Change = {
    target,
    kind,
    name: key,
    action: 'delete',
    id: current.id,
    diff: [],
    operations: [{ type: kind === 'Alert' ? 'deleteAlert' : 'deleteDashboard', id: current.id }],
    dependsOn: [],
    warnings: [],
  };
  if (current.name !== undefined) change.liveName = current.name;
  return change;
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
