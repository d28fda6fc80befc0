/**
 * All of prune's policy, pure: the deletes of what stacksync created (the inventory) and no
 * manifest names any more; the safety caps and the empty-directory guard checked before running
 * them, with what waits on a refused delete; and the notice when a manifest error holds a prune
 * back. Resources not in the inventory are never deleted, whatever a create intent says (an
 * intent proves only that a create may have happened), nor kinds whose descriptor has no prune
 * policy.
 */
import type { Kind } from '../model/kinds.js';
import { changeRef, operationType, type Change, type ChangeResult, type PlanError } from '../model/plan.js';
import type { TargetState } from '../model/state.js';
import { descriptorOf, kindRank, ORDERED_DESCRIPTORS } from '../kinds/index.js';
import type { Named } from '../kinds/shared/match.js';
import { withDependents } from './graph.js';

/** Kinds prune may delete (their descriptors have a prune policy), in the order their deletes must run. */
export const PRUNABLE_KINDS: readonly Kind[] = ORDERED_DESCRIPTORS.filter(
  (descriptor) => descriptor.prune !== undefined,
)
  .map((descriptor) => descriptor.kind)
  .sort((a, b) => kindRank(a, true) - kindRank(b, true));
export type PrunableKind = Kind;

/**
 * One change per inventory entry of `kind` whose key no manifest has: a `delete` when this run
 * prunes, an `orphan` otherwise, so every plan shows what a prune would delete. An entry whose id
 * is no longer live is left out: there is nothing to delete, and `refreshInventory` forgets it.
 * `desiredKeys` holds every key a manifest names, also those of manifests that failed to load
 * (their resource is an error, never an orphan).
 */
export function planOrphans(
  target: string,
  kind: PrunableKind,
  desiredKeys: ReadonlySet<string>,
  state: TargetState,
  live: readonly Named[],
  prune: boolean,
): Change[] {
  const liveById = new Map(live.map((item) => [item.id, item]));
  const inventory = state.inventory[kind];
  const found = (key: string, current: Named): Change =>
    (prune ? deleteChange : orphanChange)(target, kind, key, current);
  const policy = descriptorOf(kind).prune;
  const fromInventory = Object.entries(inventory)
    .filter(([key, entry]) => !desiredKeys.has(key) && policy?.allowed(entry) === true)
    .flatMap(([key, entry]) => {
      const current = liveById.get(entry.id);
      if (!current) return [];
      return [entry.prune === 'disabled' ? keptChange(target, kind, key, current) : found(key, current)];
    });
  return fromInventory.sort((a, b) => a.name.localeCompare(b.name));
}

/** Why an orphan is not deleted even by a prune. */
export const PRUNE_DISABLED_NOTE = 'stacksync.io/prune: disabled when last applied: prune never deletes it';

function keptChange(target: string, kind: PrunableKind, key: string, current: Named): Change {
  const change = orphanChange(target, kind, key, current);
  change.warnings.push(PRUNE_DISABLED_NOTE);
  return change;
}

function deleteChange(target: string, kind: PrunableKind, key: string, current: Named): Change {
  const change = orphanChange(target, kind, key, current);
  change.action = 'delete';
  change.operations = [{ type: operationType('delete', kind), id: current.id }];
  return change;
}

function orphanChange(target: string, kind: PrunableKind, key: string, current: Named): Change {
  const change: Change = {
    target,
    kind,
    name: key,
    action: 'orphan',
    id: current.id,
    diff: [],
    operations: [],
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
    return {
      ok: false,
      message: `prune refused: ${deletes} deletes exceed maxDeletes (${caps.maxDeletes}); ${FORCE_HINT}`,
    };
  }
  const percent = caps.managedCount > 0 ? (deletes / caps.managedCount) * 100 : 100;
  if (percent > caps.maxDeletePercent) {
    const share = `${deletes} of ${caps.managedCount} managed resources (${formatPercent(percent)}%)`;
    return {
      ok: false,
      message: `prune refused: ${share} exceed maxDeletePercent (${caps.maxDeletePercent}%); ${FORCE_HINT}`,
    };
  }
  return { ok: true };
}

function formatPercent(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

export interface DeleteGuardInput {
  target: string;
  /** The target's planned changes. */
  changes: readonly Change[];
  /** The caps, with the target's managed count as it stands before the run. */
  caps: PruneCaps;
  /** The manifests directory loaded without error and held no resource at all. */
  emptySnapshot: boolean;
}

export interface GuardedChanges {
  /** What may run. */
  changes: Change[];
  /** Refused deletes, and the changes held back because they need one of them first. */
  refused: Change[];
  refusal?: PlanError;
}

/**
 * Drops a target's deletes when the caps refuse them, or when the manifests directory is empty
 * (a checkout gone wrong looks exactly like that), together with every change that waits on them:
 * a change ordered after a delete (a dashboard update removing the tile a pruned alert watches)
 * would make the server delete it anyway.
 */
export function guardDeletes(input: DeleteGuardInput): GuardedChanges {
  const deletes = input.changes.filter((change) => change.action === 'delete');
  const refusal = deletes.length === 0 ? undefined : deleteRefusal(input, deletes.length);
  if (!refusal) return { changes: [...input.changes], refused: [] };
  const refused = withDependents(input.changes, deletes);
  return { changes: input.changes.filter((change) => !refused.includes(change)), refused, refusal };
}

function deleteRefusal(input: DeleteGuardInput, deletes: number): PlanError | undefined {
  const { target } = input;
  if (input.emptySnapshot && !input.caps.force) {
    const message =
      `prune refused: the manifests directory holds no resources, so all ${deletes} managed resources ` +
      `of target ${target} would be deleted; rerun with --force if that is what you want`;
    return { target, code: 'E_PRUNE_REFUSED', message };
  }
  const check = checkPruneCaps(input.changes, input.caps);
  return check.ok ? undefined : { target, code: 'E_PRUNE_REFUSED', message: `target ${target}: ${check.message}` };
}

/** Results of the changes a refusal held back, by `changeRef`. */
export function refusedResults(refused: readonly Change[], refusal: PlanError): Map<string, ChangeResult> {
  const why = (change: Change): string =>
    change.action === 'delete'
      ? refusal.message
      : `held back: it needs a delete the prune caps refused (${refusal.message})`;
  return new Map(
    refused.map((change) => [changeRef(change), { result: 'skipped', code: 'E_PRUNE_REFUSED', error: why(change) }]),
  );
}

/** A requested prune that a manifest problem blocks must be visible, not silently skipped; so must one held back for some tenants. */
export function pruneHeldBack(
  target: string,
  requested: boolean,
  blocked: boolean,
  heldTenants: ReadonlySet<string> = new Set(),
): PlanError[] {
  if (!requested) return [];
  if (blocked)
    return [
      {
        target,
        code: 'E_PRUNE_REFUSED',
        message: `prune held back for target ${target}: its manifests have errors, so nothing of it is deleted until they are fixed`,
      },
    ];
  return [...heldTenants].sort().map((tenant) => ({
    target,
    code: 'E_PRUNE_REFUSED' as const,
    message:
      `prune held back for tenant ${tenant} on target ${target}: its manifests have errors, so nothing ` +
      `it created (nor anything no tenant is recorded for) is deleted until they are fixed`,
  }));
}
