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

/** `desired` with the live value at `path` wherever live has one; untouched elsewhere. Never changes its input. */
export function keepLiveAt(desired: unknown, live: unknown, path: readonly Segment[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return live === undefined ? desired : live;
  if ('member' in head) {
    if (!isRecord(desired) || !isRecord(live) || live[head.member] === undefined) return desired;
    return { ...desired, [head.member]: keepLiveAt(desired[head.member], live[head.member], rest) };
  }
  if (!Array.isArray(desired) || !Array.isArray(live)) return desired;
  const index = indexOfKey(desired, head.key);
  const liveIndex = indexOfKey(live, head.key);
  if (index < 0 || liveIndex < 0) return desired;
  const copy = [...desired];
  copy[index] = keepLiveAt(desired[index], live[liveIndex], rest);
  return copy;
}

/** A list item by the key the plan shows it under: its `name`, else its index. */
function indexOfKey(items: readonly unknown[], key: string): number {
  const named = items.findIndex((item) => isRecord(item) && item['name'] === key);
  if (named >= 0 || !/^\d+$/.test(key)) return named;
  return Number(key) < items.length ? Number(key) : -1;
}

/** `desired` with the live value at each of `paths` (see {@link keepLiveAt}). */
export function keepLive<T>(desired: T, live: unknown, paths: readonly string[] | undefined): T {
  if (!paths || paths.length === 0) return desired;
  return paths.reduce((current, path) => keepLiveAt(current, live, parseFieldPath(path)) as T, desired);
}
