/**
 * Live state → manifest documents, for `stacksync export`. Pure: no I/O, no clock.
 *
 * A manifest holds only what stacksync can manage, so that `plan` on the result shows nothing to
 * change: members the API cannot write (kafka brokers, pipe state, tile ids, timestamps) are
 * left out by walking the manifest schema, and a document that the schema would still refuse is
 * skipped with the reason rather than written broken. Write-only credentials are never returned
 * by the API, so they are left out too (not managed) and offered as `fromEnv` placeholders.
 */
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import type { LiveBase } from '../model/resources.js';
import { API_VERSION } from '../schema/manifest.js';
import { MANAGED_MARK } from '../schema/config.js';
import type { ErrorObject } from 'ajv';
import { toIssues, validatorOf } from '../schema/validate.js';
import { manifestSchemaFor } from '../manifests/validate.js';
import {
  DESCRIPTORS,
  liveOf,
  type AnyKindDescriptor,
  type CredentialPlaceholder,
  type KindAccess,
  type LiveState,
} from '../kinds/index.js';
import { assignKeys } from '../kinds/shared/export-names.js';
import { SENSITIVE } from '../model/plan.js';
import { holdsSecret, redactSecrets } from '../support/redaction.js';

export type { CredentialPlaceholder } from '../kinds/index.js';

export interface ManifestDocument {
  apiVersion: string;
  kind: Kind;
  metadata: { name: string; target?: string };
  spec: Record<string, unknown>;
}

export interface ExportedManifest {
  kind: Kind;
  /** `metadata.name`. */
  key: string;
  /** Live id, recorded in the inventory by `--adopt`. */
  id: string;
  /** Live API name. */
  liveName: string;
  document: ManifestDocument;
  credentials?: CredentialPlaceholder;
}

export interface SkippedResource {
  kind: Kind;
  id: string;
  name?: string;
  reason: string;
}

export interface ExportResult {
  /** In kind order (the registry's `KINDS`), then by key. */
  manifests: ExportedManifest[];
  skipped: SkippedResource[];
}

export interface ExportOptions {
  target: string;
  /** Write `metadata.target`; set when the target is not the config's default. */
  setTarget: boolean;
  /** Kinds to export; default all. */
  kinds?: readonly Kind[];
  /** Live id → `metadata.name` already in the inventory, per kind: those keys are kept. */
  owned?: Partial<Record<Kind, ReadonlyMap<string, string>>>;
  /**
   * The target's secret `vars`: a live value that holds one was written through `${NAME}`, and is
   * written back that way (see {@link withVariables}); never in clear.
   */
  secretVars?: readonly { name: string; value: string }[];
  /**
   * What the target offers of each kind (default: every operation). A kind it only lists (a
   * managed service's connections) is not exported: other kinds name its resources by API name.
   */
  access?: (kind: Kind) => KindAccess;
}

type Outcome = { ok: true; manifest: ExportedManifest } | { ok: false; skip: SkippedResource };

export function exportLiveState(live: LiveState, options: ExportOptions): ExportResult {
  const writable = (kind: Kind): boolean => (options.access?.(kind) ?? 'write') === 'write';
  const kinds = new Set((options.kinds ?? KINDS).filter(writable));
  // How often each live object is named by another (an alert names its dashboard): of twins, the most named is exported.
  const named = countBy(
    DESCRIPTORS.flatMap((descriptor) =>
      liveOf(live, descriptor.kind).flatMap((item) => descriptor.export.namedIds?.(item) ?? []),
    ),
  );
  const plans = new Map(
    DESCRIPTORS.map((descriptor) => [
      descriptor.kind,
      writable(descriptor.kind)
        ? exportPlan(descriptor, liveOf(live, descriptor.kind), options, named)
        : listedPlan(liveOf(live, descriptor.kind)),
    ]),
  );
  // Every kind is named even when not exported: others refer to it by these keys.
  const ctx = { namesOf: (kind: Kind, id: string): unknown => plans.get(kind)?.names.get(id) };
  const outcomes: Outcome[] = [];
  for (const descriptor of DESCRIPTORS.filter((each) => kinds.has(each.kind))) {
    const plan = plans.get(descriptor.kind)!;
    for (const item of liveOf(live, descriptor.kind)) {
      const twin = plan.twins.get(item.id);
      outcomes.push(
        twin !== undefined
          ? skip(descriptor.kind, item, twin)
          : exportOne(descriptor, item, keyOf(plan.keys, item.id), ctx, options),
      );
    }
  }
  const manifests = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.manifest] : []));
  const skipped = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.skip]));
  manifests.sort(
    (a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  return { manifests, skipped };
}

/** One kind's twins (skipped), keys and names, worked out before anything is written. */
interface KindExportPlan {
  twins: Map<string, string>;
  keys: Map<string, string>;
  /** By id: what the kind's `names` made of it, or why its twin is not exported. */
  names: Map<string, unknown>;
}

function exportPlan(
  descriptor: AnyKindDescriptor,
  items: readonly LiveBase[],
  options: ExportOptions,
  named: ReadonlyMap<string, number>,
): KindExportPlan {
  const owned = options.owned?.[descriptor.kind];
  // Kinds matched by id have no twins.
  const twins =
    descriptor.identity === 'name' ? sameNamed(items, owned, (id) => named.get(id) ?? 0) : new Map<string, string>();
  // Twins that cannot be exported get no key, so the one exported gets the plain name.
  const keys = assignKeys(
    items.filter((item) => !twins.has(item.id)),
    descriptor.export.keyPrefix,
    owned,
  );
  const names = new Map<string, unknown>(
    items.map((item) => [
      item.id,
      twins.get(item.id) ??
        (descriptor.export.names ? descriptor.export.names(item, keyOf(keys, item.id)) : keyOf(keys, item.id)),
    ]),
  );
  return { twins, keys, names };
}

/**
 * The names of a kind that is not exported (the target only lists it): other kinds name its
 * resources by API name, where that name is one resource's alone.
 */
function listedPlan(items: readonly LiveBase[]): KindExportPlan {
  const counts = countBy(items.flatMap((item) => (item.name === undefined ? [] : [item.name])));
  const names = new Map<string, unknown>(
    items.map((item) => [
      item.id,
      item.name !== undefined && counts.get(item.name) === 1
        ? { key: item.name }
        : `it has no name of its own (${item.name ?? 'none'})`,
    ]),
  );
  return { twins: new Map(), keys: new Map(), names };
}

/** The live object without `sync.markManaged`'s tag: stacksync's own, never a manifest's (docs/ownership.md, "The managed-by mark"). */
function unmarked(descriptor: AnyKindDescriptor, item: LiveBase): LiveBase {
  const tags = descriptor.tags?.of(item);
  if (!descriptor.tags || !tags?.includes(MANAGED_MARK)) return item;
  return descriptor.tags.withTags(
    item,
    tags.filter((tag) => tag !== MANAGED_MARK),
  );
}

function exportOne(
  descriptor: AnyKindDescriptor,
  item: LiveBase,
  key: string,
  ctx: { namesOf: (kind: Kind, id: string) => unknown },
  options: ExportOptions,
): Outcome {
  const written = descriptor.export.write(unmarked(descriptor, item), key, ctx);
  if ('skip' in written) return skip(descriptor.kind, item, written.skip);
  const outcome = finish(descriptor.kind, item.id, item.name ?? '', key, written.spec, options);
  if (outcome.ok && written.credentials) outcome.manifest.credentials = written.credentials;
  return outcome;
}

/**
 * Kinds matched by API name (dashboards, alerts) cannot have two manifests of one name in a
 * target, so of several live resources sharing a name only one can be exported: the one the
 * inventory owns, else the one most named by others (the dashboard most alerts watch), else the
 * first by id. The others map to the reason they are skipped.
 */
function sameNamed(
  items: readonly { id: string; name?: string }[],
  owned: ReadonlyMap<string, string> | undefined,
  weight: (id: string) => number,
): Map<string, string> {
  const groups = new Map<string, { id: string }[]>();
  for (const item of items) if (item.name) groups.set(item.name, [...(groups.get(item.name) ?? []), item]);
  const losers = new Map<string, string>();
  for (const [name, group] of groups) {
    if (group.length < 2) continue;
    const rank = (id: string): [number, number] => [owned?.has(id) ? 0 : 1, -weight(id)];
    const [winner, ...rest] = [...group].sort((a, b) => compareRanks(rank(a.id), rank(b.id)) || (a.id < b.id ? -1 : 1));
    for (const other of rest) {
      losers.set(
        other.id,
        `${group.length} live resources are named "${name}" and manifests match by name; ` +
          `only ${winner?.id ?? ''} is exported (rename the others in the console, then export again)`,
      );
    }
  }
  return losers;
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

function keyOf(keys: ReadonlyMap<string, string>, id: string): string {
  const key = keys.get(id);
  if (key === undefined) throw new Error(`no key assigned to ${id}`);
  return key;
}

// ---------------------------------------------------------------- documents

function finish(kind: Kind, id: string, liveName: string, key: string, spec: unknown, options: ExportOptions): Outcome {
  const metadata = options.setTarget ? { name: key, target: options.target } : { name: key };
  const written = options.secretVars?.length ? withVariables(spec, options.secretVars) : spec;
  const document: ManifestDocument = {
    apiVersion: API_VERSION,
    kind,
    metadata,
    spec: written as Record<string, unknown>,
  };
  const validate = validatorOf(manifestSchemaFor(document));
  if (!validate(document)) return skip(kind, { id, name: liveName }, unwritable(kind, validate.errors ?? []));
  return { ok: true, manifest: { kind, key, id, liveName, document } };
}

/**
 * Why a live resource cannot be a manifest, in one sentence that says what is missing and what to
 * do: members a manifest needs that the live resource lacks (the schema's alternatives of them
 * joined by "or"), else the first member the schema refuses.
 */
function unwritable(kind: Kind, errors: readonly ErrorObject[]): string {
  const member = (path: string): string => path.replace(/^spec\.?/, '');
  // Members the live resource lacks, and whether the schema asks for nothing else (a oneOf of them).
  const missing = toIssues(errors.filter((error) => error.keyword === 'required')).map((issue) => member(issue.path));
  if (
    missing.length > 0 &&
    errors.every((error) => error.keyword === 'required' || error.keyword === 'oneOf' || error.keyword === 'if')
  ) {
    return `it has no ${missing.join(' or ')}, which a ${kind} manifest needs: give it one in the console, then export again`;
  }
  const first = toIssues([...errors])[0];
  if (first === undefined)
    return `it cannot be written as a ${kind} manifest: fix it in the console, then export again`;
  return `its ${member(first.path) || 'spec'} cannot be written in a ${kind} manifest (${first.message}): fix it in the console, then export again`;
}

function skip(kind: Kind, live: { id: string; name?: string }, reason: string): Outcome {
  return { ok: false, skip: { kind, id: live.id, ...(live.name !== undefined ? { name: live.name } : {}), reason } };
}

/**
 * A spec with every secret var value in its strings written back as the `${NAME}` it came from,
 * so that `plan` on the export sends the same value and the file holds no secret; the string's
 * own `${…}` are escaped (`$${…}`), as the manifest syntax wants for a literal. A form of the value
 * that is not the value itself (escaped inside a JSON string the live resource holds) cannot be
 * a reference and is masked: a plan would then show that member as a change to review.
 */
export function withVariables(value: unknown, secrets: readonly { name: string; value: string }[]): unknown {
  if (typeof value === 'string') return stringWithVariables(value, secrets);
  if (Array.isArray(value)) return value.map((item) => withVariables(item, secrets));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withVariables(item, secrets)]));
  return value;
}

function stringWithVariables(text: string, secrets: readonly { name: string; value: string }[]): string {
  const values = secrets.map((secret) => secret.value);
  if (!holdsSecret(text, values)) return text;
  // Longest first, so a value that contains another is replaced whole; marked, then the string's
  // own references escaped, then the marks made references.
  const ordered = [...secrets].sort((a, b) => b.value.length - a.value.length);
  const marked = ordered.reduce(
    (current, secret) => current.split(secret.value).join(`\u0000${secret.name}\u0001`),
    text,
  );
  const escaped = marked.replace(/\$\{[^}]*\}/g, (reference) => `$${reference}`);
  const referenced = escaped.replace(/\u0000(\w+)\u0001/g, (_whole, name: string) => `\${${name}}`);
  return redactSecrets(referenced, values, SENSITIVE);
}
