/**
 * The kinds, as the stages see them: the registry, and the types derived from it — the union of
 * desired resources, a target's live state (one member per kind's collection) — with the few
 * generic ways to reach into them.
 */
import type { LoadResult } from '../model/desired.js';
import type { Kind } from '../model/kinds.js';
import type { LiveBase, UnreadableResource } from '../model/resources.js';
import { descriptorOf, DESCRIPTORS, type KIND_DESCRIPTORS } from './registry.js';

export { accessOf, countOf, pluralOf, descriptorOf, DESCRIPTORS, KIND_DESCRIPTORS, KIND_ORDER, kindRank, ORDERED_DESCRIPTORS, type AnyKindDescriptor } from './registry.js';
export type * from './descriptor.js';

type Registered = (typeof KIND_DESCRIPTORS)[number];
// Each descriptor's own types, read back out of the registry: what its reader and its builder give.
type DesiredOf<R> = R extends { manifests: { build(...args: never[]): infer D } } ? D : never;
type LiveOf<R> = R extends { reader: { read(...args: never[]): infer L } } ? L : never;

/** The live shape of one kind (`LivePipe` for `Pipe`). */
export type LiveOfKind<K extends Kind> = LiveOf<Extract<Registered, { kind: K }>>;

/** What a manifest of any kind becomes once loaded and resolved. */
export type DesiredResource = DesiredOf<Registered>;

/** A load's result with the kinds' desired shapes. */
export type LoadedManifests = LoadResult<DesiredResource>;

/** Everything a plan needs from one target, read in one list call per collection (`pipes`, `dashboards`, …). */
export type LiveState = { [R in Registered as R['collection']]: LiveOf<R>[] } & {
  /** Resources of the lists above that could not be read; absent means none. */
  unreadable?: UnreadableResource[];
};

/** The live objects of `kind` in a live state (none when the state has no such collection, as on a variant without the kind). */
export function liveOf(live: LiveState | undefined, kind: Kind): readonly LiveBase[] {
  const collection = (live as Record<string, readonly LiveBase[] | undefined> | undefined)?.[descriptorOf(kind).collection];
  return collection ?? [];
}

/** A live state from the collections read, by kind; kinds not given are empty. */
export function liveStateOf(byKind: ReadonlyMap<Kind, readonly LiveBase[]>, unreadable?: UnreadableResource[]): LiveState {
  const state: Record<string, unknown> = Object.fromEntries(DESCRIPTORS.map((descriptor) => [descriptor.collection, [...(byKind.get(descriptor.kind) ?? [])]]));
  if (unreadable !== undefined) state['unreadable'] = unreadable;
  return state as LiveState;
}

/** The kinds read only on demand (`reader.onDemand`) that these resources are of: what a plan of them must read besides. */
export function onDemandKindsOf(resources: readonly { kind: Kind }[]): Kind[] {
  return DESCRIPTORS.filter((descriptor) => descriptor.reader.onDemand === true && resources.some((resource) => resource.kind === descriptor.kind)).map((descriptor) => descriptor.kind);
}

/** `base` with the collections of `kinds` as `extra` read them, and the unreadable resources of both. */
export function withKindsRead(base: LiveState, extra: LiveState, kinds: readonly Kind[]): LiveState {
  const byKind = new Map<Kind, readonly LiveBase[]>(DESCRIPTORS.map((descriptor) => [descriptor.kind, kinds.includes(descriptor.kind) ? liveOf(extra, descriptor.kind) : liveOf(base, descriptor.kind)]));
  const unreadable = [...(base.unreadable ?? []), ...(extra.unreadable ?? []).filter((item) => kinds.includes(item.kind))];
  return liveStateOf(byKind, unreadable.length > 0 || base.unreadable !== undefined ? unreadable : undefined);
}
