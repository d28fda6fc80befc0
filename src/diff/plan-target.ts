/**
 * The differ's entry: one target's manifests against its live state and state file, as the
 * changes that would bring live in line. Generic over the kinds: each kind's descriptor plans its
 * own manifests, in the order of the references (a kind after the kinds it names, which it can
 * see the plans of). Pure: no I/O, no clock, no environment.
 */
import type { Kind, Variant } from '../model/kinds.js';
import type { Change } from '../model/plan.js';
import type { TargetState } from '../model/state.js';
import { withUnreadable } from '../model/resources.js';
import { DEFAULT_API_PROFILE, type ApiProfile } from '../schema/enums.js';
import {
  accessOf,
  liveOf,
  ORDERED_DESCRIPTORS,
  type AnyKindPlan,
  type DesiredResource,
  type LiveOfKind,
  type LiveState,
} from '../kinds/index.js';
import { sortChanges } from './order.js';
import { planOrphans, PRUNABLE_KINDS } from './prune.js';
import { referenceResolver } from './references.js';
import { awaitLateCreates } from './late-creates.js';
import { kindMarking } from './mark.js';
import { maskSensitive } from './sensitive.js';
import { suspendChanges } from './suspend.js';
import { planTwins } from './live-twins.js';

export interface PlanOptions {
  /** Delete inventory resources no manifest names any more (`--prune`, `sync.prune`). */
  prune: boolean;
  /** Take over same-named live resources stacksync did not create (`--adopt`, `sync.adopt`). */
  adopt: boolean;
  /** A manifest of this target failed to load or validate: never prune. */
  blocked: boolean;
  /** The target is suspended (config `suspend`, or `POST /-/suspend`): nothing of it is written. Default false. */
  suspended?: boolean;
  /** `sync.settleWindow` in milliseconds: how long a create may land after it was sent. */
  lateCreateWindowMs: number;
  /** `sync.markManaged`: the tag added to what is written of kinds with tags, never a difference (`mark.ts`). */
  mark?: string;
}

export interface PlanTargetInput {
  /** `profile`: whose spelling the target speaks (`api.profile`, default `seed`). */
  target: { name: string; variant: Variant; profile?: ApiProfile };
  /** Desired resources; those of other targets are ignored. */
  desired: readonly DesiredResource[];
  live: LiveState;
  state: TargetState;
  options: PlanOptions;
  /** When the plan is made, milliseconds since the epoch: create intents are judged against it. */
  nowMs: number;
  /**
   * `Kind/key` of this target's manifests that failed to load but whose kind and name could be
   * read. Their resources are still named by a manifest: the load problem is their one row (an
   * error at its line), never an orphan or a delete.
   */
  broken?: ReadonlySet<string>;
}

export function planTarget(input: PlanTargetInput): Change[] {
  return planTargetAsking(input).changes;
}

/**
 * The plan, and the kinds it looked at across kinds that `live.unread` says were not read (a
 * name to resolve, evidence of hidden tiles). When any are, the changes were made without them:
 * read those lists and plan again.
 */
export function planTargetAsking(input: PlanTargetInput): { changes: Change[]; asked: Kind[] } {
  const { target, live, state, options } = input;
  const asked = new Set<Kind>();
  const unread = new Set(live.unread ?? []);
  const lookAt = <K extends Kind>(kind: K): readonly LiveOfKind<K>[] => {
    if (unread.has(kind)) asked.add(kind);
    return liveOf(live, kind);
  };
  const desired = input.desired.filter((resource) => resource.target === target.name);
  const unreadable = live.unreadable ?? [];
  const desiredOf = (kind: Kind): DesiredResource[] => desired.filter((resource) => resource.kind === kind);
  // Unreadable resources are live too: a prune deletes them by id, which needs no shape.
  const named = (kind: Kind): ReturnType<typeof liveOf>[number][] =>
    withUnreadable(kind, liveOf(live, kind), unreadable);

  const timing = { nowMs: input.nowMs, lateCreateWindowMs: options.lateCreateWindowMs };

  // 1. What the inventory holds and no manifest names: deletes when pruning, orphans otherwise.
  const prune = options.prune && !options.blocked && options.suspended !== true;
  // A manifest that failed to load still names its resource: never an orphan, never pruned.
  const keysOf = (kind: Kind): Set<string> => {
    const keys = new Set(desiredOf(kind).map((r) => r.key));
    for (const key of input.broken ?? []) if (key.startsWith(`${kind}/`)) keys.add(key.slice(kind.length + 1));
    return keys;
  };
  const orphans = new Map<Kind, Change[]>();
  for (const kind of PRUNABLE_KINDS)
    orphans.set(kind, planOrphans(target.name, kind, keysOf(kind), state, named(kind), prune));
  const deletes = new Map(
    [...orphans].map(([kind, changes]) => [kind, changes.filter((change) => change.action === 'delete')] as const),
  );

  // 2. Each kind's manifests, in write order: a kind sees the plans of the kinds it names, and
  //    resolves the names it gives them against those plans and the live state.
  const profile = target.profile ?? DEFAULT_API_PROFILE;
  const planned = new Map<Kind, AnyKindPlan>();
  const refer = referenceResolver({
    target: target.name,
    variant: target.variant,
    profile,
    planned,
    liveOf: lookAt,
    deletes,
    gone: orphans,
  });
  for (const descriptor of ORDERED_DESCRIPTORS) {
    const marking = kindMarking(descriptor, liveOf(live, descriptor.kind), options.mark);
    const plan = descriptor.plan({
      target: target.name,
      variant: target.variant,
      profile,
      desired: desiredOf(descriptor.kind),
      live: marking?.live ?? liveOf(live, descriptor.kind),
      unreadable: unreadable.filter((item) => item.kind === descriptor.kind),
      state,
      timing,
      adopt: options.adopt,
      planned,
      deletes,
      liveOf: lookAt,
      refer,
      access: (kind: Kind) => accessOf(kind, target.variant, profile),
    });
    marking?.mark(plan.changes);
    planned.set(descriptor.kind, plan);
  }

  // 3. Live twins of managed resources: shown as conflicts, never hidden behind the one matched by id.
  // Pruning, only what prune may not delete (`stacksync.io/prune: disabled`) is left an orphan.
  const kept = [...orphans.values()].flat().filter((change) => change.action === 'orphan');
  const written = [...planned.values()].flatMap((plan) => plan.changes);
  const twins = ORDERED_DESCRIPTORS.filter((descriptor) => descriptor.identity === 'name').flatMap((descriptor) =>
    planTwins({
      target: target.name,
      kind: descriptor.kind,
      changes: [...written, ...(deletes.get(descriptor.kind) ?? []), ...kept],
      live: named(descriptor.kind),
      state,
    }),
  );

  // 4. A create whose earlier create may still land waits for it; what is suspended is shown, never written.
  const changes = [...written, ...[...deletes.values()].flat(), ...kept, ...twins];
  awaitLateCreates(changes, state, timing);
  suspendChanges(changes, desired, options.suspended === true);
  // Secret values of variables never leave the differ.
  maskSensitive(changes, desired);

  // 5. A stable order; orphans (no deletes when pruning) join it untouched.
  return { changes: sortChanges(changes), asked: [...asked] };
}
