/**
 * The kinds, as the stages see them: the registry, and the types derived from it — the union of
 * desired resources, a target's live state (one member per kind's collection) — with the few
 * generic ways to reach into them.
 */
import type { LoadResult } from '../model/desired.js';
import type { Kind, Variant } from '../model/kinds.js';
import type { UnreadableResource } from '../model/resources.js';
import type { TargetState } from '../model/state.js';
import type { JsonSchema } from '../schema/build.js';
import type { ApiProfile } from '../schema/enums.js';
import { publishedSchemas as publishedSchemasOf } from '../schema/manifest.js';
import type { KindTypes, LiveOfKind } from './descriptor.js';
import { accessOf, descriptorOf, DESCRIPTORS, KIND_DESCRIPTORS, KINDS } from './registry.js';

export {
  accessOf,
  countOf,
  pluralOf,
  descriptorOf,
  DESCRIPTORS,
  KIND_DESCRIPTORS,
  KIND_ORDER,
  KINDS,
  kindRank,
  ORDERED_DESCRIPTORS,
  type AnyKindDescriptor,
  type AnyKindPlan,
} from './registry.js';
export type * from './descriptor.js';

type Registered = (typeof KIND_DESCRIPTORS)[number];
// Each descriptor's own types, read back out of the registry: what its reader and its builder give.
type DesiredOf<R> = R extends { manifests: { build(...args: never[]): infer D } } ? D : never;
type LiveOf<R> = R extends { reader: { read(...args: never[]): infer L } } ? L : never;

/**
 * The kinds' folders register their descriptors' types (`KindTypes`, which types what a differ
 * reads of another kind) exactly as the registry holds them: a kind missing there, one too many,
 * or a type that is not its descriptor's fails to compile here.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type RegisteredTypes = { [R in Registered as R['kind']]: R };
type Assert<T extends true> = T;
export type KindTypesAreTheRegistry = Assert<Same<KindTypes, RegisteredTypes>>;

/** What a manifest of any kind becomes once loaded and resolved. */
export type DesiredResource = DesiredOf<Registered>;

/** A load's result with the kinds' desired shapes. */
export type LoadedManifests = LoadResult<DesiredResource>;

/**
 * Everything a plan needs from one target, read in one list call per collection (`pipes`,
 * `dashboards`, …). `liveStateOf` fills every collection, empty where nothing was read; the
 * members are optional because it fills them one descriptor at a time, and an absent one reads as
 * empty (`liveOf`).
 */
export type LiveState = { [R in Registered as R['collection']]?: LiveOf<R>[] } & {
  /** Resources of the lists above that could not be read; absent means none. */
  unreadable?: UnreadableResource[];
  /**
   * Kinds the target offers whose list was not read, because nothing had asked for it yet
   * (`deferredKinds`); their collections above are empty, which proves nothing gone. Absent: every
   * list the target offers was read.
   */
  unread?: Kind[];
};

/** Lists of live objects by kind, each in its own kind's live type: what a live state is built from. */
export type LiveLists = { [K in Kind]?: readonly LiveOfKind<K>[] };

/**
 * What the generic stages reach of one kind with its types kept: its reader (its own live type)
 * and its collection in a live state. Held in a record keyed by the kind, so that a lookup by a
 * kind `K` gives `KindLive<K>` (TypeScript's correlated record, microsoft/TypeScript#47109),
 * where the registry's list gives only the erased descriptor.
 */
interface KindLive<K extends Kind> {
  reader: { read(item: unknown, path: string): LiveOfKind<K> };
  in(live: LiveState): readonly LiveOfKind<K>[] | undefined;
}

// Filled once from the registry's typed list, each entry from its own descriptor.
const KIND_LIVES: { [K in Kind]?: KindLive<K> } = {};
for (const descriptor of KIND_DESCRIPTORS)
  keepByKind(KIND_LIVES, descriptor.kind, {
    reader: descriptor.reader,
    in: (live) => live[descriptor.collection],
  });

/** What `kind` keeps of its types (see {@link KindLive}). */
function kindLive<K extends Kind>(kind: K): KindLive<K> {
  const found = KIND_LIVES[kind];
  if (found === undefined) throw new Error(`kind ${kind} has no descriptor`);
  return found;
}

/** `record` with `value` under `kind`: a write TypeScript checks against that kind's types. */
function keepByKind<K extends Kind>(record: { [P in K]?: KindLive<P> }, kind: K, value: KindLive<K>): void {
  record[kind] = value;
}

/** The reader of `kind`, reading objects of its own live type. */
export function readerOf<K extends Kind>(kind: K): KindLive<K>['reader'] {
  return kindLive(kind).reader;
}

/** The live objects of `kind` in a live state (none when the state has no such collection, as on a variant without the kind). */
export function liveOf<K extends Kind>(live: LiveState | undefined, kind: K): readonly LiveOfKind<K>[] {
  return (live === undefined ? undefined : kindLive(kind).in(live)) ?? [];
}

/** `lists` with `items` as the list of `kind`. */
export function withList<K extends Kind>(lists: LiveLists, kind: K, items: readonly LiveOfKind<K>[]): LiveLists {
  const next: LiveLists = { ...lists };
  keepListOf(next, kind, items);
  return next;
}

/** `lists` with `items` under `kind`: a write TypeScript checks against that kind's live type. */
function keepListOf<K extends Kind>(
  lists: { [P in K]?: readonly LiveOfKind<P>[] },
  kind: K,
  items: readonly LiveOfKind<K>[],
): void {
  lists[kind] = items;
}

/** A live state from the collections read, by kind; kinds not given are empty. */
export function liveStateOf(lists: LiveLists, unreadable?: UnreadableResource[]): LiveState {
  const state: LiveState = {};
  for (const descriptor of KIND_DESCRIPTORS) keepList(state, descriptor.collection, listOf(lists, descriptor.kind));
  return unreadable === undefined ? state : { ...state, unreadable };
}

/** The list of `kind` in `lists`. */
function listOf<K extends Kind>(lists: LiveLists, kind: K): readonly LiveOfKind<K>[] | undefined {
  return lists[kind];
}

/** `state` with a copy of `items` (none when absent) as its collection `collection`. */
function keepList<C extends string, L>(
  state: NoInfer<{ [P in C]?: L[] }>,
  collection: C,
  items: readonly L[] | undefined,
): void {
  state[collection] = [...(items ?? [])];
}

/**
 * Kinds whose list a plan of this target reads only when asked, of those it offers: kinds read on
 * demand (`reader.onDemand`), and kinds the target lists but cannot write (`access: 'read'`, the
 * seed's managed sources), whose lists only resolve names and tell of hidden tiles. Every plan of
 * every target would otherwise pay a call for each, for nothing in most plans.
 */
export function deferredKinds(variant: Variant, profile: ApiProfile): Kind[] {
  return DESCRIPTORS.filter((descriptor) => {
    const access = accessOf(descriptor.kind, variant, profile);
    return access === 'read' || (access === 'write' && descriptor.reader.onDemand === true);
  }).map((descriptor) => descriptor.kind);
}

/** Of the deferred kinds, those the state holds a record of (an entry, an intent): read with the rest, so nothing of theirs is judged on an empty list. */
export function deferredKindsInState(deferred: readonly Kind[], state: TargetState): Kind[] {
  return deferred.filter(
    (kind) =>
      Object.keys(state.inventory[kind] ?? {}).length > 0 || state.intents.some((intent) => intent.kind === kind),
  );
}

/** Of the kinds not read yet, those these resources are of: what a plan of them must read before it plans. */
export function unreadKindsOf(live: LiveState, resources: readonly { kind: Kind }[]): Kind[] {
  return (live.unread ?? []).filter((kind) => resources.some((resource) => resource.kind === kind));
}

/** `base` with the collections of `kinds` as `extra` read them, and the unreadable resources of both. */
export function withKindsRead(base: LiveState, extra: LiveState, kinds: readonly Kind[]): LiveState {
  const lists = DESCRIPTORS.reduce<LiveLists>(
    (each, { kind }) => withList(each, kind, liveOf(kinds.includes(kind) ? extra : base, kind)),
    {},
  );
  const unreadable = [
    ...(base.unreadable ?? []),
    ...(extra.unreadable ?? []).filter((item) => kinds.includes(item.kind)),
  ];
  return withUnread(
    liveStateOf(lists, unreadable.length > 0 || base.unreadable !== undefined ? unreadable : undefined),
    (base.unread ?? []).filter((kind) => !kinds.includes(kind)),
  );
}

/** `live` saying which of the lists it offers were not read (`LiveState.unread`). */
export function withUnread(live: LiveState, unread: readonly Kind[]): LiveState {
  const { unread: _before, ...rest } = live;
  return unread.length === 0 ? rest : { ...rest, unread: [...unread] };
}

/**
 * The files of `schemas/`, by file name: every registered kind's manifest document, one file each
 * and all of them in `manifest.json`, and the config's (`scripts/write-schemas.mjs` writes them).
 */
export function publishedSchemas(): Record<string, JsonSchema> {
  return publishedSchemasOf(KINDS, (kind) => descriptorOf(kind).schema);
}
