/**
 * The registry: every kind's descriptor, once, and what is derived from them — the one order
 * table (a kind is written after the kinds its manifests name, and deleted before them) and the
 * lookups every stage uses. A new kind is one descriptor file and one line in `KIND_DESCRIPTORS`.
 */
import type { Kind, Variant } from '../model/kinds.js';
import type { ApiProfile } from '../schema/enums.js';
import type { KindAccess, KindDescriptor } from './descriptor.js';
import { alertKind } from './alert/descriptor.js';
import { connectionKind } from './connection/descriptor.js';
import { dashboardKind } from './dashboard/descriptor.js';
import { pipeKind } from './pipe/descriptor.js';
import { pipeCdcScalingKind } from './pipe-cdc-scaling/descriptor.js';
import { roleKind } from './role/descriptor.js';
import { savedSearchKind } from './saved-search/descriptor.js';
import { sourceKind } from './source/descriptor.js';
import { webhookKind } from './webhook/descriptor.js';

/** Every kind stacksync manages, one descriptor each. Ties in the order table keep this order. */
// The CDC scaling last: an apply may wait for it, and nothing waits on it.
export const KIND_DESCRIPTORS = [
  pipeKind,
  connectionKind,
  sourceKind,
  dashboardKind,
  savedSearchKind,
  webhookKind,
  alertKind,
  roleKind,
  pipeCdcScalingKind,
] as const;

/** Any registered descriptor, its own types erased: what the generic stages hold. */
// Each descriptor's own types are erased here: stages see its resources through the base types.
// biome-ignore lint/suspicious/noExplicitAny: the erased form accepts every descriptor, whatever its type parameters
export type AnyKindDescriptor = KindDescriptor<any, any, any, any>;

/** A plan of any kind, its outcome's type erased as the descriptors' own types are. */
export type AnyKindPlan = ReturnType<AnyKindDescriptor['plan']>;

/** The registry as the generic stages walk it, in registry order. */
export const DESCRIPTORS: readonly AnyKindDescriptor[] = KIND_DESCRIPTORS;

/** The kinds stacksync manages, in registry order: the one runtime list of them. */
export const KINDS: readonly Kind[] = DESCRIPTORS.map((descriptor) => descriptor.kind);

const byKind = new Map<Kind, AnyKindDescriptor>(DESCRIPTORS.map((descriptor) => [descriptor.kind, descriptor]));
assertComplete();

/** The descriptor of `kind`. */
export function descriptorOf(kind: Kind): AnyKindDescriptor {
  const descriptor = byKind.get(kind);
  if (!descriptor) throw new Error(`kind ${kind} has no descriptor`);
  return descriptor;
}

/**
 * The one order table (as Flux's `ssa/sort.go`), derived from the references: writes run in this
 * order, a kind after every kind it names (a dashboard before the alerts that watch its tiles);
 * deletes in the reverse order (an alert before its dashboard, whose delete would take it along).
 * Plans list their changes in the same order.
 */
export const KIND_ORDER: readonly Kind[] = writeOrder(DESCRIPTORS);

/** The descriptors in write order. */
export const ORDERED_DESCRIPTORS: readonly AnyKindDescriptor[] = KIND_ORDER.map(descriptorOf);

/**
 * What a target of `variant` speaking `profile` offers of `kind`: every operation, its list only,
 * or nothing (no routes on that variant, or none under that profile).
 */
export function accessOf(kind: Kind, variant: Variant, profile: ApiProfile): KindAccess {
  const routes = descriptorOf(kind).routes[variant];
  return routes === undefined ? 'none' : (routes.access?.[profile] ?? 'write');
}

/** `count` resources of a kind in words: `1 dashboard`, `2 saved searches`. */
export function countOf(kind: Kind, count: number): string {
  return `${count} ${count === 1 ? nounOf(kind) : pluralOf(kind)}`;
}

/** A kind's resources in words: `dashboards`, `saved searches`. */
export function pluralOf(kind: Kind): string {
  const noun = nounOf(kind);
  return `${noun}${/(s|sh|ch)$/.test(noun) ? 'es' : 's'}`;
}

function nounOf(kind: Kind): string {
  return kind.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** A kind's place in {@link KIND_ORDER} for a write, or in the reversed order for a delete. */
export function kindRank(kind: Kind, isDelete: boolean): number {
  const rank = KIND_ORDER.indexOf(kind);
  return isDelete ? KIND_ORDER.length - 1 - rank : rank;
}

/** A topological order of the reference graph, ties in registry order; a cycle is a bug in the descriptors. */
function writeOrder(descriptors: readonly AnyKindDescriptor[]): Kind[] {
  const order: Kind[] = [];
  while (order.length < descriptors.length) {
    const next = descriptors.find(
      (d) => !order.includes(d.kind) && d.references.every((named: Kind) => order.includes(named)),
    );
    if (!next)
      throw new Error(
        `the kinds' references form a cycle among ${descriptors
          .filter((d) => !order.includes(d.kind))
          .map((d) => d.kind)
          .join(', ')}`,
      );
    order.push(next.kind);
  }
  return order;
}

/**
 * Every kind has exactly one descriptor (that every kind `KindTypes` names is registered is checked
 * at compile time, in `kinds/index.ts`), and every reference names a registered kind.
 */
function assertComplete(): void {
  const twice = KINDS.filter((kind, index) => KINDS.indexOf(kind) !== index);
  if (twice.length > 0) throw new Error(`kinds with more than one descriptor: ${twice.join(', ')}`);
  for (const descriptor of DESCRIPTORS) {
    for (const named of descriptor.references)
      if (!byKind.has(named)) throw new Error(`${descriptor.kind} names unknown kind ${named}`);
  }
}
