/**
 * A target whose manifests failed to load gets no writes at all, pure policy: a broken document
 * may be the one that would have changed what its valid siblings mean (a renamed dashboard, a
 * moved alert), and half an apply is harder to reason about than none. Flux refuses to apply a
 * Kustomization that does not build for the same reason. The plan still shows every change it
 * could compute; `apply --allow-partial` lets the valid ones run (never deletes: prune stays
 * blocked whatever the flag says, see `diff/prune.ts`).
 */
import type { ErrorCode } from '../errors.js';
import { changeRef, isWrite, type Change, type ChangeResult, type PlanError } from '../model/plan.js';

/**
 * The one rule for what holds back writes (docs/apply.md#one-rule-for-what-holds-back-writes): a
 * problem of what a manifest says holds back every write of its target, whatever stage finds it —
 * loading (a typo'd kind, a broken reference between manifests) or planning against the live
 * state (a name no live resource has, a body the server's check
 * refuses). A problem of a live resource itself (two live resources with one name, one that
 * cannot be read, a write the service refuses when it is sent) fails that resource alone, and a
 * secret the run cannot read fails only the write that sends it. A problem of one item of a
 * `metadata.forEach` template holds back only that item, whichever stage finds it: the other
 * items are resources of their own (docs/many-services.md).
 */
export const HOLDS_BACK_TARGET: readonly ErrorCode[] = [
  'E_MANIFEST_PARSE',
  'E_MANIFEST_INVALID',
  'E_MANIFEST_DUPLICATE',
  'E_REF_UNRESOLVED',
  'E_API_VALIDATION',
];

/** Whether the plan of a target holds a manifest problem found while planning it (`HOLDS_BACK_TARGET`) of no tenant. */
export function plannedProblemHoldsBack(changes: readonly Change[]): boolean {
  return changes.some((change) => holdsBack(change) && change.tenant === undefined);
}

/** The tenants whose manifest problems found while planning hold back their writes (a tenant's problem holds back only its own). */
export function plannedTenantsHeldBack(changes: readonly Change[]): Set<string> {
  return new Set(
    changes.flatMap((change) => (holdsBack(change) && change.tenant !== undefined ? [change.tenant] : [])),
  );
}

function holdsBack(change: Change): boolean {
  // An item's error change writes nothing itself, and holds back nothing else.
  return (
    change.action === 'error' &&
    change.item === undefined &&
    change.code !== undefined &&
    HOLDS_BACK_TARGET.includes(change.code)
  );
}

/** The plan of a target held back by a problem found while planning: a prune's deletes become orphans, as a load problem makes them. */
export function withPruneHeldBack(changes: readonly Change[]): Change[] {
  return changes.map((change) => (change.action === 'delete' ? asOrphan(change) : change));
}

function asOrphan(change: Change): Change {
  return { ...change, action: 'orphan', operations: [], dependsOn: [] };
}

/**
 * Whether a change is among what the held-back tenants may not write: one of theirs, or a delete
 * of a resource no tenant is recorded for (it may be theirs). A tenant's problem never holds back
 * another tenant's changes.
 */
export function heldForTenants(change: Pick<Change, 'tenant' | 'action'>, held: ReadonlySet<string>): boolean {
  if (held.size === 0) return false;
  return change.tenant === undefined ? change.action === 'delete' : held.has(change.tenant);
}

/** The plan of a target with the prunes of held-back tenants held back: their deletes become orphans. */
export function withTenantPrunesHeldBack(changes: readonly Change[], held: ReadonlySet<string>): Change[] {
  if (held.size === 0) return [...changes];
  return changes.map((change) =>
    change.action === 'delete' && heldForTenants(change, held) ? asOrphan(change) : change,
  );
}

/** Whether applying `change` would write anything: to the API, or to the inventory (a reclaim). */
export function changeWrites(change: Pick<Change, 'action' | 'reclaimed'>): boolean {
  return isWrite(change.action) || change.reclaimed === true;
}

export interface HoldBackInput {
  target: string;
  changes: readonly Change[];
  /** A manifest problem touches this target (its own, or one no target can be told for). */
  blocked: boolean;
  /** Tenants whose manifest problems hold back their writes to this target; none when absent. */
  heldTenants?: ReadonlySet<string>;
  /** `apply --allow-partial`. */
  allowPartial: boolean;
}

export interface HeldBackWrites {
  /** What may run: everything, or, for a blocked target, only what writes nothing. */
  changes: Change[];
  /** Results of the writes held back, by `changeRef`. */
  held: Map<string, ChangeResult>;
}

/** Holds back every write of a blocked target, or of its held-back tenants, unless partial applies are allowed. */
export function holdBackBlocked(input: HoldBackInput): HeldBackWrites {
  const tenants = input.heldTenants ?? new Set<string>();
  if ((!input.blocked && tenants.size === 0) || input.allowPartial)
    return { changes: [...input.changes], held: new Map() };
  const error = (change: Change): string =>
    input.blocked
      ? `the manifests of target ${input.target} have errors, so nothing is written to it until they are fixed (apply --allow-partial applies the valid ones)`
      : `the manifests of tenant ${change.tenant ?? '(none recorded)'} have errors, so nothing of it is ` +
        `written to target ${input.target} until they are fixed (apply --allow-partial applies the valid ` +
        `ones)`;
  const held = new Map<string, ChangeResult>();
  const changes: Change[] = [];
  for (const change of input.changes) {
    const holds = input.blocked || heldForTenants(change, tenants);
    if (holds && changeWrites(change))
      held.set(changeRef(change), { result: 'skipped', code: 'E_MANIFEST_BLOCKED', error: error(change) });
    else changes.push(change);
  }
  return { changes, held };
}

/** The plan's notice that a blocked target's changes will not be applied; none when nothing is held. */
export function writesHeldBack(
  target: string,
  changes: readonly Change[],
  blocked: boolean,
  allowPartial: boolean,
): PlanError[] {
  if (!blocked || allowPartial) return [];
  const writes = changes.filter(changeWrites).length;
  if (writes === 0) return [];
  const what = `${writes} change${writes === 1 ? '' : 's'}`;
  const message =
    `${what} of target ${target} held back: its manifests have errors, so nothing is applied to it ` +
    `until they are fixed (apply --allow-partial applies the valid ones)`;
  return [{ target, code: 'E_MANIFEST_BLOCKED', message }];
}

/** The plan's notices that held-back tenants' changes will not be applied, one per tenant with writes. */
export function tenantWritesHeldBack(
  target: string,
  changes: readonly Change[],
  held: ReadonlySet<string>,
  allowPartial: boolean,
): PlanError[] {
  if (allowPartial) return [];
  return [...held].sort().flatMap((tenant) => {
    const writes = changes.filter((change) => change.tenant === tenant && changeWrites(change)).length;
    if (writes === 0) return [];
    const what = `${writes} change${writes === 1 ? '' : 's'}`;
    return [
      {
        target,
        code: 'E_MANIFEST_BLOCKED' as const,
        message:
          `${what} of tenant ${tenant} to target ${target} held back: its manifests have errors, so ` +
          `nothing of it is applied until they are fixed (other tenants apply; apply --allow-partial ` +
          `applies its valid ones)`,
      },
    ];
  });
}
