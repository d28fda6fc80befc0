/** The kinds of resource stacksync manages, the API variants it speaks, and the one kind-order table. */
import { RESOURCE_KINDS, type ResourceKind, type TARGET_VARIANTS } from '../schema/enums.js';

export type Kind = ResourceKind;
export const KINDS: readonly Kind[] = RESOURCE_KINDS;

export type Variant = (typeof TARGET_VARIANTS)[number];

/**
 * The one order table (as Flux's `ssa/sort.go`): writes run in this order, a dashboard before the
 * alerts that watch its tiles; deletes in the reverse order, an alert before its dashboard (whose
 * delete would take the alert along). Plans list their changes in the same order.
 */
export const KIND_ORDER: readonly Kind[] = ['Pipe', 'Dashboard', 'Alert'];

/** A kind's place in {@link KIND_ORDER} for a write, or in the reversed order for a delete. */
export function kindRank(kind: Kind, isDelete: boolean): number {
  const rank = KIND_ORDER.indexOf(kind);
  return isDelete ? KIND_ORDER.length - 1 - rank : rank;
}
