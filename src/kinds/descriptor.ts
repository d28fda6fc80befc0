/**
 * What a kind of resource is, in one place: the shape every descriptor of `kinds/` fills in and
 * every stage reads (Kubernetes registers a kind once in its scheme; a Terraform resource is one
 * file with its schema, CRUD and plan modifiers). The stages — load, resolve, read live, diff,
 * order, apply, prune, record, export, status — are generic over this interface and name no kind.
 *
 * A descriptor holds data where a rule is data (routes, references, create-only members, prune
 * proof, secret members) and small functions where a kind behaves its own way (how a live object
 * is read, how a manifest is diffed against it, how export writes it back).
 */
import type { SourceLocation } from '../errors.js';
import type { Kind, KindTypes, Variant } from '../model/kinds.js';
import type { DesiredBase, SecretValue } from '../model/desired.js';
import type { Manifest } from '../model/manifest.js';
import type { ActionVerb, Change, ChangeKey, OperationRefs, WriteBody } from '../model/plan.js';
import type { LiveBase, UnreadableResource } from '../model/resources.js';
import type { InventoryEntry, TargetState } from '../model/state.js';
import type { ApiProfile } from '../schema/enums.js';
import type { JsonSchema } from '../schema/api.js';
import type { Pointer } from '../yaml/positions.js';
import type { IntentTiming } from './shared/intents.js';

// ---------------------------------------------------------------- routes

/**
 * What a target offers of a kind: every operation; only its list (what manifests of other kinds
 * may name but none may create: a seed-profile service's sources, the platform's connections of
 * a managed service); or nothing.
 */
export type KindAccess = 'write' | 'read' | 'none';

/** Where one kind lives on one variant: route templates as metrics and logs name them. */
export interface KindRoutes {
  /** List (GET) and create (POST). */
  collection: string;
  /** Update and delete, with one trailing `{…}` id placeholder. */
  item: string;
  /** How an update is sent: a full replace (PUT) or a merge (PATCH, a minimal body). */
  update: 'PUT' | 'PATCH';
  /** The list answers in pages (`limit` ≤ 1000, `offset`, a total or none): read every page. */
  paged?: true;
  /**
   * Actions on one resource beside its update, each on a route of its own under `item`
   * (`…/pipes/{pipeId}/state`): the template (with the item's id placeholder) and the method.
   */
  actions?: Partial<Record<ActionVerb, { route: string; method: 'PATCH' | 'PUT' | 'POST' }>>;
  /** What this variant offers under each profile; a profile not named offers every operation. */
  access?: Partial<Record<ApiProfile, KindAccess>>;
  /**
   * A route that checks a create body without storing it (`dashboards/validate`), under the
   * profiles that serve one; it answers `{valid, errors: [{path, message}]}`.
   */
  validate?: Partial<Record<ApiProfile, string>>;
  /**
   * One object per service at `collection`, without an id of its own (a service-wide setting such
   * as the CDC scaling): a GET answers the object itself, or 404 while there is none (an empty
   * list, not a failure); the update goes to `collection` too. `id` is what stacksync calls it
   * (the inventory, the plan). `item` is `collection`.
   */
  singleton?: { id: string };
}

// ---------------------------------------------------------------- load

/** A secret reference a manifest holds, found by its kind's descriptor. */
export interface SecretSite {
  /** Where it is written, for the problem's line. */
  pointer: Pointer;
  /** The reference as written (`{fromEnv}`, `{fromFile}`, or a plain string, which is warned about). */
  ref: unknown;
  /** The key the resolved value is handed to `build` under, and its HMAC recorded under (`source.kafka.credentials.password`). */
  path: string;
}

/** A problem a descriptor finds in one document; the loader gives it the document's place. */
export interface DocumentProblem {
  code: 'E_MANIFEST_INVALID' | 'E_MANIFEST_DUPLICATE' | 'E_REF_UNRESOLVED';
  pointer: Pointer;
  message: string;
}

/** A name a manifest gives for a resource of another kind. */
export interface NamedByName {
  kind: Kind;
  name: string;
  pointer: Pointer;
  /** The spec member that names the same resource by id. */
  idMember: string;
}

/** Another manifest of the same target, as a reference check sees it. */
export interface ReferencedManifest {
  manifest?: Manifest;
  /** It has problems of its own, so what names it cannot be applied either. */
  failed: boolean;
  location: SourceLocation;
}

/** What a reference check may look up: the manifests of the document's target, by kind and `metadata.name`. */
export interface ManifestLookup {
  /** Names of the manifests of `kind` in the target (at most the first of a repeated name). */
  names(kind: Kind): string[];
  find(kind: Kind, name: string): ReferencedManifest | undefined;
  /** How the target is named in messages: `target prod`, or `the default target`. */
  targetLabel: string;
}

/** Everything that goes into a desired resource besides its spec. */
export type DesiredBaseOf = Omit<DesiredBase, 'kind'>;

export interface KindManifests<D extends DesiredBase, M extends Manifest = Manifest> {
  /** The API name two manifests of one target must not share (a live resource is matched by it), with the pointer and what to call it. */
  uniqueName?(manifest: M): { value: string; pointer: Pointer; what: (value: string) => string } | undefined;
  /** Problems inside one document: names that must be unique within it. */
  check?(manifest: M): DocumentProblem[];
  /** References to other manifests of the same target (an alert's dashboard and tile). */
  checkReferences?(manifest: M, lookup: ManifestLookup): DocumentProblem[];
  /**
   * The resources of other kinds the manifest names by name, where it writes each and the member
   * that would name it by id instead: a target without that kind (a managed service has no
   * connection list) cannot resolve the name, so it is a problem at its line.
   */
  namedByName?(manifest: M): NamedByName[];
  /**
   * What the target the manifest goes to cannot take, by the spelling it speaks (a tile form its
   * servers refuse): found by the loader with a config, at the member's line, before any plan.
   */
  checkForTarget?(manifest: M, target: { variant: Variant; profile: ApiProfile }): DocumentProblem[];
  /** Members the real service takes beyond the seed's list: warned about, sent as written. */
  warnings?(manifest: M): DocumentProblem[];
  /** The secret references the manifest holds; the secret stage resolves them. */
  secrets?(manifest: M): SecretSite[];
  /** The desired resource of a sound manifest, its secrets resolved (by `SecretSite.path`). */
  build(manifest: M, base: DesiredBaseOf, secrets: ReadonlyMap<string, SecretValue>): D;
  /** The spec as its digest is taken, where it holds secret values of its own: their HMACs instead (default: as it is). */
  specView?(spec: Omit<D, 'location' | 'sensitive'>): unknown;
}

// ---------------------------------------------------------------- read

/** How the live objects of a kind are read from an API answer. */
export interface KindReader<L extends LiveBase> {
  /** One live object; a wrong shape throws `ShapeError` (an unreadable resource, never a failed list). */
  read(item: unknown, path: string): L;
  /** Members the service changes on its own (a pipe pausing, an alert firing): a saved plan is not stale for them. */
  statusMembers: readonly string[];
  /** The live state the service reports, for kinds that have one (a pipe's). */
  liveState?(live: L): string | undefined;
  /**
   * Read only for a target with a manifest of this kind, and by export, never by every plan (a
   * service-wide setting: its read would cost each plan of every target a call for nothing).
   */
  onDemand?: true;
}

/** How bodies of a kind are sent: the hooks a variant or a service needs. */
export interface KindWrites {
  /** The body of a create, from what the differ built (a dashboard's tile ids dropped: the service assigns them). */
  createBody?(body: WriteBody): WriteBody;
  /** The body in the target's spelling (an alert's saved-search source). */
  spell?(body: WriteBody, profile: ApiProfile): WriteBody;
  /** An update that must not be repeated blindly after an ambiguous answer (a pipe's mapping add). */
  notRepeatable?(body: WriteBody): boolean;
  /**
   * Renames the members a server spells with a prefix of its own (a pipe's `engine_*` settings,
   * `clickhouse_*` on the real service): a body on its way out, an answer on its way in.
   */
  respell?(value: unknown, from: string, to: string): unknown;
}

// ---------------------------------------------------------------- plan

/**
 * What a name a manifest gives for a resource of another kind stands for: a live resource (its id
 * is known now), one this run creates (its id is known once that change is written), or nothing
 * it can be (why, for the manifest's error row).
 */
export type Reference = { id: string } | { after: ChangeKey } | { error: string };

/** What a kind's differ gets: its manifests and live objects, and what the kinds it names planned. */
export interface KindPlanInput<D extends DesiredBase, L extends LiveBase> {
  target: string;
  variant: Variant;
  /** Whose spelling the target speaks (`api.profile`): what a body is written in. */
  profile: ApiProfile;
  desired: readonly D[];
  live: readonly L[];
  /** Live objects of this kind that could not be read; a manifest matching one gets an error row. */
  unreadable: readonly UnreadableResource[];
  state: TargetState;
  /** The plan's time and the settle window, against which create intents are judged. */
  timing: IntentTiming;
  adopt: boolean;
  /** What the kinds planned before this one made of their manifests (the kinds it names among them), each with its own outcome's type. */
  planned: PlannedKinds;
  /** The deletes of every kind in this plan (prune). */
  deletes: ReadonlyMap<Kind, readonly Change[]>;
  /** The live objects of any kind, for a differ that looks across (an alert's dashboard labels), in that kind's live shape. */
  liveOf<K extends Kind>(kind: K): readonly LiveOfKind<K>[];
  /**
   * What a manifest's name for a resource of `kind` (one of the kinds this one `references`)
   * stands for: a manifest of that kind in the target (by `metadata.name`), else exactly one
   * live resource with that API name, never one this plan deletes.
   */
  refer(kind: Kind, name: string): Reference;
  /** What the target offers of `kind` under its variant and profile. */
  access(kind: Kind): KindAccess;
}

/** What a kind's differ made: its changes, and what the kinds that name it need to know (`outcome`). */
export interface KindPlan<O = unknown> {
  changes: Change[];
  /** Kind-specific, read by the descriptors of the kinds that reference this one (typed for them by {@link OutcomeOfKind}). */
  outcome?: O;
}

/** The plans made so far, by kind, each typed as its kind's descriptor makes it. */
export interface PlannedKinds {
  get<K extends Kind>(kind: K): KindPlan<OutcomeOfKind<K>> | undefined;
}

/** How a kind matches live objects to manifests. */
export type Identity =
  /** By the inventory's id, then the API `name` (`spec.name`); same-named live twins are conflicts. */
  | 'name'
  /** By an id the manifest holds (`spec.pipeId` of an existing pipe). */
  | 'id';

/** Ids an operation takes from a change written earlier in the run. */
export interface KindRefs {
  /** The changes `refs` names (they must succeed first). */
  changes(refs: OperationRefs): ChangeKey[];
  /** The body with the ids filled in from what those changes wrote; throws `E_REF_UNRESOLVED` when they are not there. */
  fill(body: WriteBody, refs: OperationRefs, written: (key: ChangeKey) => LiveBase | undefined): WriteBody;
}

// ---------------------------------------------------------------- prune, export, health

/** Whether prune may delete a resource of this kind whose manifest is gone, and on what proof. */
export interface PrunePolicy {
  /** The proof: stacksync's own inventory says it made or took over this resource (`entry`). */
  allowed(entry: InventoryEntry): boolean;
  /** An inventory entry whose id is no longer live is forgotten (deleted elsewhere, or by a cascade). */
  forgetWhenGone: boolean;
  /**
   * Only what stacksync created may be deleted, never what it adopted: its creates (and creates
   * taken back through their intent) record `created` in the inventory entry, the proof `allowed` reads.
   */
  createdOnly?: true;
  /**
   * Its deletes (and replaces) are counted on their own in the plan's summary, so a reviewer sees
   * them: what such a delete stops, as the summary says it (`its ingestion stops`).
   */
  countApart?: string;
}

/** What export knows while it writes one resource. */
export interface ExportContext {
  /** What a kind's `names` made of a live object of that kind, by its id (a dashboard's key and tile names). */
  namesOf(kind: Kind, id: string): unknown;
}

/** A live object as a manifest spec, or why it cannot be one. */
export type ExportedSpec = { spec: Record<string, unknown>; credentials?: CredentialPlaceholder } | { skip: string };

/** Credentials a resource takes, written as placeholders the user fills in to manage them. */
export interface CredentialPlaceholder {
  /** Where they go: `spec.source.kafka`. */
  path: string;
  member: string;
  /** The member's fields, each a reference (`credentials: {username: …, password: …}`). */
  fields?: Record<string, { fromEnv: string }>;
  /** The member itself as one reference (`url: {fromEnv: …}`), instead of fields. */
  value?: { fromEnv: string };
}

export interface KindExport<L extends LiveBase> {
  /** Prefix of keys made up for live objects without a usable name (`pipe-1`). */
  keyPrefix: string;
  /** Ids of live objects of other kinds this one names: export keeps, of same-named twins, the one most named. */
  namedIds?(live: L): string[];
  /** What referencing kinds need of an exported object (its key, tile names), or why it cannot be exported. */
  names?(live: L, key: string): unknown;
  write(live: L, key: string, ctx: ExportContext): ExportedSpec;
}

/**
 * A kind whose resources carry tags people see in the UI: where they are, so `sync.markManaged`
 * can add its mark to what stacksync writes and keep it out of every comparison
 * (docs/ownership.md, "The managed-by mark").
 */
export interface KindTags<L extends LiveBase> {
  /** The member of a create or update body (and of the spec) that holds them. */
  member: string;
  /** The live object's tags; undefined when it has none. */
  of(live: L): readonly string[] | undefined;
  /** The live object with these tags instead. */
  withTags(live: L, tags: readonly string[]): L;
}

/** A kind whose live state can be unhealthy (a pipe that failed). */
export interface KindHealth {
  /** `wanted`: the state the manifest asks for, where it asks for one (a pipe stopped on purpose is not degraded). */
  degraded(state: string | undefined, wanted?: string): boolean;
}

/** Where a live resource stands on its way to a goal an operation awaits (`Operation.await`). */
export type SettleCheck =
  /** It got there. */
  | { settled: true }
  /** Not yet; `state` says where it is, for progress. */
  | { settled: false; state?: string }
  /** It will not get there: why, with the state it is in. */
  | { failed: string };

/**
 * A kind whose resources settle asynchronously after a write (a pipe provisions after its create
 * or start, pauses after its stop): how the executor, polling the kind's list, tells where each
 * one stands.
 */
export interface KindSettle<L extends LiveBase> {
  check(goal: string, live: L): SettleCheck;
  /**
   * Whether an action the API refused (400) was refused only because its work is done or under
   * way already (a start of a pipe that already runs, after the service resumed it by itself).
   */
  redundant(verb: ActionVerb, live: L): boolean;
}

// ---------------------------------------------------------------- the descriptor

export interface KindDescriptor<
  D extends DesiredBase = DesiredBase,
  L extends LiveBase = LiveBase,
  M extends Manifest = Manifest,
  O = unknown,
> {
  kind: Kind;
  /** The member of a target's live state that holds this kind's objects (`dashboards`). */
  collection: string;
  /** The manifest document's JSON Schema. */
  schema: JsonSchema;
  /** Where it lives on each variant that has it; a variant without an entry has no such kind. */
  routes: Partial<Record<Variant, KindRoutes>>;
  identity: Identity;
  /** Kinds its manifests name; the order table is derived from these (a kind is written after what it names). */
  references: readonly Kind[];
  /** Spec members that cannot change once created (a change means delete and create again). */
  createOnly: readonly string[];
  manifests: KindManifests<D, M>;
  reader: KindReader<L>;
  writes?: KindWrites;
  refs?: KindRefs;
  plan(input: KindPlanInput<D, L>): KindPlan<O>;
  /** Absent: prune never deletes this kind (an existing pipe named by id). */
  prune?: PrunePolicy;
  export: KindExport<L>;
  /** Absent: its resources have no tags, and `sync.markManaged` leaves them alone. */
  tags?: KindTags<L>;
  health?: KindHealth;
  settle?: KindSettle<L>;
}

/**
 * A descriptor, typed: its kind and collection stay literal, so the live state and the union of
 * desired resources can be derived from the registry (`kinds/index.ts`).
 */
export function defineKind<
  D extends DesiredBase,
  L extends LiveBase,
  M extends Manifest,
  K extends Kind,
  C extends string,
  O = undefined,
>(
  descriptor: KindDescriptor<D, L, M, O> & { kind: K; collection: C },
): KindDescriptor<D, L, M, O> & { kind: K; collection: C } {
  return descriptor;
}

// ---------------------------------------------------------------- the types of each kind

/** Each registered descriptor's type, by its kind (declared in `model/kinds.ts`, filled in by the kinds' folders). */
export type { KindTypes };

/** The descriptor type of `K`, as its folder registers it. */
type TypesOf<K extends Kind> = K extends keyof KindTypes ? KindTypes[K] : KindDescriptor;

/** The live shape of one kind (`LivePipe` for `Pipe`); of several kinds, any of theirs. */
// Distributed over a union of kinds, so a list of any of them is a list of any of their shapes (not the last one's).
export type LiveOfKind<K extends Kind> = K extends Kind
  ? TypesOf<K> extends { reader: { read(...args: never[]): infer L } }
    ? L
    : LiveBase
  : never;

/** What the plan of one kind tells the kinds that name it (`KindPlan.outcome`); `undefined` for a kind that tells nothing. */
export type OutcomeOfKind<K extends Kind> =
  TypesOf<K> extends { plan(...args: never[]): { outcome?: infer O } } ? O : unknown;
