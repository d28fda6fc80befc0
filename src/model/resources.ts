/**
 * What every live resource shares, whatever its kind, variant or service version: an id, mostly a
 * name, members the model does not name kept as read, and the stand-in of one that could not be
 * read. The shapes of each kind live with its descriptor (`kinds/<kind>/model.ts`); the live
 * state of a target is keyed by the kinds' collections (`kinds/index.ts`). Optional members are
 * absent (never `undefined`-valued) when the service did not send them.
 */
import type { Kind } from './kinds.js';

/** A live resource as every stage may see it: its id and, for most kinds, its API name. */
export interface LiveBase {
  id: string;
  name?: string;
}

/**
 * Members of a live resource that the model does not name, exactly as read (server-set members
 * such as timestamps and owners left out). An update sends them back unchanged, so a member added
 * by a newer server, or one stacksync does not manage, is never dropped or reset.
 */
export type Extra = Record<string, unknown>;

/**
 * A live resource of a list that could not be read (a shape stacksync cannot understand). It is
 * an error on that resource only: a manifest that manages it gets an `error` row, and nothing
 * else notices it.
 */
export interface UnreadableResource {
  kind: Kind;
  id: string;
  /** Its API name, when that much could be read. */
  name?: string;
  /** What is wrong, like `data[3].threshold: is not a number`. */
  problem: string;
}

/**
 * The live resources of one kind a plan or the inventory must account for: those that were read,
 * then those that could not be (still live, with an id; a prune deletes them by it).
 */
export function withUnreadable<T, U extends { kind: Kind }>(
  kind: Kind,
  read: readonly T[],
  unreadable: readonly U[] = [],
): (T | U)[] {
  return [...read, ...unreadable.filter((item) => item.kind === kind)];
}
