/**
 * Ignore rules, pure: field paths (`spec.ignoreDifferences`, or the
 * `stacksync.io/ignore-differences` annotation) whose live values are kept. The desired resource
 * takes the live value at each such path before it is diffed, so the field never shows as a
 * difference and every write sends back what live has (Argo CD's `ignoreDifferences`, with
 * `RespectIgnoreDifferences`). Paths use the plan's own syntax: members joined by `.`, list
 * items by `[key]` (a tile's or mapping's name, or an index): `tiles[p99].w`, `threshold`.
 * Where live has no value (a resource or tile still to be created) the manifest's value stands:
 * a create must send something.
 */
import { isRecord } from './values.js';

type Segment = { member: string } | { key: string };

/** `tiles[p99].w` → member tiles, key p99, member w. */
export function parseFieldPath(path: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of path.split(/\.(?![^[]*\])/)) {
    const match = /^([^[]+)((?:\[[^\]]+\])*)$/.exec(part);
    if (!match) return [];
    segments.push({ member: match[1] ?? '' });
    for (const key of (match[2] ?? '').matchAll(/\[([^\]]+)\]/g)) segments.push({ key: key[1] ?? '' });
  }
  return segments;
}

/**
 * `desired` with the live value at `path` wherever live has one; untouched elsewhere. Never
 * changes its input. `live` is of `desired`'s own type, so whatever is taken from it at a path is
 * of the type `desired` has there, and the copy keeps that type.
 */
export function keepLiveAt<T>(desired: T, live: T, path: readonly Segment[]): T {
  const [head, ...rest] = path;
  if (head === undefined) return live === undefined ? desired : live;
  if ('member' in head) {
    if (!isRecord(desired) || !isRecord(live) || live[head.member] === undefined) return desired;
    const member = keepLiveAt(memberOf(desired, head.member), memberOf(live, head.member), rest);
    return withMember(desired, head.member, member);
  }
  if (!isList(desired) || !isList(live)) return desired;
  const index = indexOfKey(desired, head.key);
  const liveIndex = indexOfKey(live, head.key);
  if (index < 0 || liveIndex < 0) return desired;
  return withItem(desired, index, keepLiveAt(memberOf(desired, index), memberOf(live, liveIndex), rest));
}

/** `value[member]`, typed as the member of that type (where the index would give `unknown`). */
function memberOf<V, M extends keyof V>(value: V, member: M): V[M] {
  return value[member];
}

/** A copy of `record` with `value`, of the type the member has, as its member `member`. */
function withMember<R extends object, M extends keyof R>(record: R, member: M, value: R[M]): R {
  return { ...record, [member]: value };
}

/** A copy of `list` with `item`, of the list's item type, at `index`. */
function withItem<L extends readonly unknown[]>(list: L, index: number, item: L[number]): L {
  return Object.assign([], list, { [index]: item });
}

function isList(value: unknown): value is readonly unknown[] {
  return Array.isArray(value);
}

/** A list item by the key the plan shows it under: its `name`, else its index. */
function indexOfKey(items: readonly unknown[], key: string): number {
  const named = items.findIndex((item) => isRecord(item) && item['name'] === key);
  if (named >= 0 || !/^\d+$/.test(key)) return named;
  return Number(key) < items.length ? Number(key) : -1;
}

/** `desired` with the live value at each of `paths` (see {@link keepLiveAt}). */
export function keepLive<T>(desired: T, live: T, paths: readonly string[] | undefined): T {
  if (!paths || paths.length === 0) return desired;
  return paths.reduce((current, path) => keepLiveAt(current, live, parseFieldPath(path)), desired);
}

/**
 * What a value of type `D` can be once live values of type `L` were taken at any of its paths:
 * `D` as it was, `L` (the whole value taken), or, for objects and lists, one made of both: at each
 * of `D`'s members (items), again one of those three. A member only `L` has is left out of the
 * type (a member more is still of the type), so nothing reads it.
 */
export type KeptLive<D, L> = D | Exclude<L, undefined> | KeptBoth<D, Exclude<L, undefined>>;

type KeptBoth<D, L> = D extends readonly (infer DItem)[]
  ? L extends readonly (infer LItem)[]
    ? KeptLive<DItem, LItem>[]
    : never
  : D extends object
    ? L extends object
      ? KeptMembers<D, L>
      : never
    : never;

/**
 * An object of type `D` whose members may hold live values of type `L` (see {@link KeptLive}):
 * what an alert's or a dashboard's differ reads once the live values at its ignored paths are
 * kept. Of it, `D` and `D` overlaid by `L` are instances, and taking an overlay's value at a path
 * of another instance gives one again, so {@link keepLive} on this type needs no cast.
 */
export type KeptMembers<D, L> = { [K in keyof D]: K extends keyof L ? KeptLive<D[K], L[K]> : D[K] };
