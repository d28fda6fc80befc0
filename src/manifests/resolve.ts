/**
 * Rules across documents and the resolution of what manifests refer to, each kind's from its
 * descriptor: targets able to hold the kind, names unique per kind and target, names unique within
 * a document, the secret stage, references to other manifests. Then the desired model, built only
 * from documents without any problem.
 */
import type { Kind, Variant } from '../model/kinds.js';
import { profileOf } from '../config/profile.js';
import { API_PROFILES, type ApiProfile } from '../schema/enums.js';
import type { Config, Tenant } from '../model/config.js';
import type { SecretValue } from '../model/desired.js';
import { formatLocation } from '../errors.js';
import { deepFreeze } from '../support/freeze.js';
import type { Pointer } from '../yaml/positions.js';
import type { Manifest } from '../model/manifest.js';
import {
  IGNORE_ANNOTATION,
  PRUNE_ANNOTATION,
  REPLACE_ANNOTATION,
  RESYNC_ANNOTATION,
  SUSPEND_ANNOTATION,
} from '../schema/manifest.js';
import type { ResourcePolicy } from '../model/desired.js';
import {
  accessOf,
  descriptorOf,
  pluralOf,
  type DesiredResource,
  type DocumentProblem,
  type KindAccess,
  type ManifestLookup,
} from '../kinds/index.js';
import type { SecretIo } from '../config/secrets.js';
import { problemAt, UNCONFIGURED_TARGET, type Entry, type FoundProblem } from './entries.js';
import { resolveSecrets } from './secrets.js';
import { tenantProblem } from './tenants.js';

export { expandedTargets, identify, identifyFor, problemAt, subjectOf, UNCONFIGURED_TARGET } from './entries.js';
export type { Entry, FoundProblem, DocumentIdentity, SourceDocument, NodeRef } from './entries.js';

export interface ResolveOptions {
  /** Without a config, target checks are skipped (offline `validate` with no config file). */
  config?: Config;
  /** With tenants configured: each file's tenants (`manifests/tenants.ts`). */
  tenants?: ReadonlyMap<string, readonly Tenant[]>;
  secretIo: Partial<SecretIo>;
  hmac: (value: string) => string;
}

export interface Resolved {
  resources: DesiredResource[];
  problems: FoundProblem[];
  warnings: FoundProblem[];
}

/** Runs every cross-document rule and the secret stage, and builds the desired resources. */
export function resolveEntries(
  entries: readonly Entry[],
  failedBySchema: ReadonlySet<Entry>,
  options: ResolveOptions,
): Resolved {
  const problems: FoundProblem[] = [];
  const warnings: FoundProblem[] = [];
  const failed = new Set(failedBySchema);
  const report = (entry: Entry, problem: FoundProblem): void => {
    problems.push(problem);
    failed.add(entry);
  };
  const reportAll = (entry: Entry, found: readonly DocumentProblem[]): void => {
    for (const each of found) report(entry, problemAt(entry, each.code, each.pointer, each.message));
  };
  // 1. Targets: configured, able to hold the kind, and able to take what the manifest says in their spelling.
  if (options.config) for (const entry of entries) checkTarget(entry, options.config, report);
  if (options.config) for (const entry of entries) reportAll(entry, checkForTarget(entry, options.config));
  // 1b. Tenants: a manifest belongs to one, and names only its targets and kinds.
  const { tenants } = options;
  if (tenants && options.config?.tenants) {
    for (const entry of entries) {
      const problem = tenantProblem(entry, tenants.get(entry.doc.file) ?? [], options.config.tenants);
      if (problem) report(entry, problem);
    }
  }
  // 2. Names: unique per kind per target, and unique within each document; members beyond the seed warned about.
  checkDuplicates(entries, report);
  for (const entry of entries) {
    const manifest = entry.manifest;
    if (!manifest) continue;
    const rules = descriptorOf(manifest.kind).manifests;
    reportAll(entry, rules.check?.(manifest) ?? []);
    for (const each of rules.warnings?.(manifest) ?? [])
      warnings.push(problemAt(entry, each.code, each.pointer, each.message));
  }
  // 3. Secrets resolve; one that cannot be is marked unknown, for the plan to show and apply to refuse.
  const secrets = resolveSecrets(entries, options);
  warnings.push(...secrets.warnings);
  // 4. References to other manifests, once it is known which are sound.
  const lookups = lookupsByTarget(entries, failed);
  for (const entry of entries) {
    const manifest = entry.manifest;
    const lookup = lookups.get(entry.identity.target ?? '');
    // Without a known target the document already has a problem; "no such manifest there" would be noise.
    if (!manifest || !lookup || entry.identity.target === undefined) continue;
    reportAll(entry, descriptorOf(manifest.kind).manifests.checkReferences?.(manifest, lookup) ?? []);
  }
  // 5. The desired model, from documents with no problem at all.
  const resources = entries.filter((e) => !failed.has(e) && e.manifest).map((e) => toDesired(e, secrets.values.get(e)));
  return { resources, problems, warnings };
}

type Report = (entry: Entry, problem: FoundProblem) => void;

function checkTarget(entry: Entry, config: Config, report: Report): void {
  const { declaredTarget, kind } = entry.identity;
  const names = config.targets.map((t) => t.name).join(', ');
  if (declaredTarget !== undefined && entry.identity.target === undefined) {
    report(
      entry,
      problemAt(
        entry,
        'E_REF_UNRESOLVED',
        ['metadata', 'target'],
        `names no target in the config; the targets are ${names}`,
      ),
    );
    return;
  }
  const target = config.targets.find((t) => t.name === entry.identity.target);
  if (!kind || !target) return;
  const profile = profileOf(target);
  const access = accessOf(kind, target.variant, profile);
  if (access !== 'write') {
    const pointer = declaredTarget !== undefined ? ['metadata', 'target'] : ['kind'];
    report(
      entry,
      problemAt(
        entry,
        'E_MANIFEST_INVALID',
        pointer,
        targetProblem(kind, target.name, target.variant, profile, access),
      ),
    );
    return;
  }
  // A name of a kind the target has no list of cannot be resolved there (a managed service's connections).
  const manifest = entry.manifest;
  for (const named of (manifest && descriptorOf(kind).manifests.namedByName?.(manifest)) ?? []) {
    if (accessOf(named.kind, target.variant, profile) !== 'none') continue;
    const why =
      `target ${target.name} (${target.variant}, api profile ${profile}) has no ` +
      `${pluralOf(named.kind)} to look "${named.name}" up in; name it by id with ${named.idMember} ` +
      `instead`;
    report(entry, problemAt(entry, 'E_MANIFEST_INVALID', named.pointer, why));
  }
}

/** What the entry's target cannot take of its manifest, by the kind's rules for the target's variant and profile. */
function checkForTarget(entry: Entry, config: Config): DocumentProblem[] {
  const manifest = entry.manifest;
  const target = config.targets.find((t) => t.name === entry.identity.target);
  const check = manifest ? descriptorOf(manifest.kind).manifests.checkForTarget : undefined;
  if (!manifest || !target || !check) return [];
  return check(manifest, { variant: target.variant, profile: profileOf(target) });
}

/** Why a target cannot hold a manifest of `kind`, and what to write instead. */
function targetProblem(kind: Kind, target: string, variant: Variant, profile: ApiProfile, access: KindAccess): string {
  const descriptor = descriptorOf(kind);
  const where = writableOn(kind);
  if (access === 'read') {
    return (
      `target ${target} (${variant}, api profile ${profile}) lists its ${pluralOf(kind)} but cannot ` +
      `create or change them, so a ${kind} manifest cannot apply there; name an existing one by its ` +
      `name from the manifests that use it instead`
    );
  }
  if (descriptor.routes[variant] === undefined)
    return `a ${kind} needs ${where}, and ${target} is ${variant} (it has no ${pluralOf(kind)})`;
  return `a ${kind} needs ${where}, and ${target} speaks api profile ${profile} (whose ${variant} API has no ${pluralOf(kind)})`;
}

/** The targets that can hold a kind, in words: `a managed target`, `a target with api profile current`. */
function writableOn(kind: Kind): string {
  const places = (Object.keys(descriptorOf(kind).routes) as Variant[]).flatMap((variant) =>
    API_PROFILES.filter((profile) => accessOf(kind, variant, profile) === 'write').map((profile) => ({
      variant,
      profile,
    })),
  );
  const variants = [...new Set(places.map((place) => place.variant))];
  const profiles = [...new Set(places.map((place) => place.profile))];
  const variantText = variants.length === 1 ? `a ${variants[0]} target` : 'a target';
  return profiles.length === API_PROFILES.length
    ? variantText
    : `${variantText} with api profile ${profiles.join(' or ')}`;
}

function checkDuplicates(entries: readonly Entry[], report: Report): void {
  const sameKey = reportRepeats(entries, report, (entry) => {
    const name = entry.identity.name;
    return name === undefined
      ? undefined
      : { value: name, pointer: ['metadata', 'name'], what: (value) => `${entry.identity.kind ?? ''} ${value}` };
  });
  // Live resources are found by their API name (or id): two manifests with one would fight over one resource.
  // A copy already reported for its metadata.name needs no second problem.
  const fresh = entries.filter((entry) => !sameKey.has(entry));
  reportRepeats(fresh, report, (entry) =>
    entry.manifest ? descriptorOf(entry.manifest.kind).manifests.uniqueName?.(entry.manifest) : undefined,
  );
}

interface UniqueKey {
  value: string;
  pointer: Pointer;
  what: (value: string) => string;
}

/** Reports every entry whose value repeats one of the same kind and target (neither copy is applied); returns them. */
function reportRepeats(
  entries: readonly Entry[],
  report: Report,
  keyOf: (entry: Entry) => UniqueKey | undefined,
): Set<Entry> {
  const first = new Map<string, Entry>();
  const flagged = new Set<Entry>();
  for (const entry of entries) {
    const { kind, target } = entry.identity;
    const key = keyOf(entry);
    if (!kind || key === undefined || target === undefined) continue;
    const id = `${target}\u0000${kind}\u0000${key.value}`;
    const earlier = first.get(id);
    if (!earlier) {
      first.set(id, entry);
      continue;
    }
    const what = key.what(key.value);
    report(
      entry,
      problemAt(
        entry,
        'E_MANIFEST_DUPLICATE',
        key.pointer,
        `${what} is already defined for target ${target} at ${formatLocation(earlier.doc.location)}`,
      ),
    );
    flagged.add(entry);
    // Which copy was meant cannot be told.
    if (flagged.has(earlier)) continue;
    flagged.add(earlier);
    report(
      earlier,
      problemAt(
        earlier,
        'E_MANIFEST_DUPLICATE',
        key.pointer,
        `${what} is defined again for target ${target} at ${formatLocation(entry.doc.location)}`,
      ),
    );
  }
  return flagged;
}

/** Per target, the manifests a reference may name, by kind and `metadata.name` (the first of a repeated name). */
function lookupsByTarget(entries: readonly Entry[], failed: ReadonlySet<Entry>): Map<string, ManifestLookup> {
  const byTarget = new Map<string, Map<Kind, Map<string, Entry>>>();
  for (const entry of entries) {
    const { kind, name, target } = entry.identity;
    if (kind === undefined || name === undefined || target === undefined) continue;
    const kinds = byTarget.get(target) ?? byTarget.set(target, new Map()).get(target)!;
    const names = kinds.get(kind) ?? kinds.set(kind, new Map()).get(kind)!;
    if (!names.has(name)) names.set(name, entry);
  }
  return new Map(
    [...byTarget].map(([target, kinds]): [string, ManifestLookup] => [
      target,
      {
        targetLabel: target === UNCONFIGURED_TARGET ? 'the default target' : `target ${target}`,
        names: (kind) => [...(kinds.get(kind)?.keys() ?? [])],
        find: (kind, name) => {
          const entry = kinds.get(kind)?.get(name);
          return (
            entry && {
              ...(entry.manifest ? { manifest: entry.manifest } : {}),
              failed: failed.has(entry),
              location: entry.doc.location,
            }
          );
        },
      },
    ]),
  );
}

// ---------------------------------------------------------------- desired model

/**
 * Desired resources by the (frozen) manifest value they were built from, with what else went into
 * them. A daemon resolves every document at every sync; an unchanged one gets the very same frozen
 * resource back, so what is derived from it (its spec digest, see `reconcile/spec.ts`) is worked
 * out once, not once per sync.
 */
const built = new WeakMap<object, { made: string; resource: DesiredResource }>();

/**
 * The desired resource of a sound document, frozen. Its nested values are the parsed document's
 * own, not copies: parses are frozen too (see `load.ts`), so no stage can change what another reads.
 */
function toDesired(entry: Entry, secrets: ReadonlyMap<string, SecretValue> | undefined): DesiredResource {
  const manifest = entry.manifest as Manifest;
  const { file, line, column } = entry.doc.location;
  const made = [
    entry.identity.target,
    file,
    line,
    column,
    ...[...(secrets ?? [])].map(
      ([path, secret]) => `${path}=${secret.unknown === undefined ? secret.hmac : `?${secret.unknown}`}`,
    ),
    ...(entry.sensitive ?? []).map((secret) => secret.hmac),
  ].join('\u0000');
  const known = Object.isFrozen(manifest) ? built.get(manifest) : undefined;
  if (known?.made === made) return known.resource;
  const resource = deepFreeze(buildDesired(entry, manifest, secrets ?? new Map()));
  if (Object.isFrozen(manifest)) built.set(manifest, { made, resource });
  return resource;
}

function buildDesired(entry: Entry, manifest: Manifest, secrets: ReadonlyMap<string, SecretValue>): DesiredResource {
  const policy = policyOf(manifest);
  const sensitive = entry.sensitive && entry.sensitive.length > 0 ? { sensitive: entry.sensitive } : {};
  const base = {
    key: manifest.metadata.name,
    target: entry.identity.target ?? '',
    location: entry.doc.location,
    ...(policy ? { policy } : {}),
    ...sensitive,
  };
  return descriptorOf(manifest.kind).manifests.build(manifest, base, secrets) as DesiredResource;
}

/** What the annotations ask beyond the spec; undefined when nothing. */
function policyOf(manifest: Manifest): ResourcePolicy | undefined {
  const annotations = manifest.metadata.annotations ?? {};
  const policy: ResourcePolicy = {};
  if (annotations[SUSPEND_ANNOTATION] === 'true') policy.suspend = true;
  if (annotations[PRUNE_ANNOTATION] === 'disabled') policy.noPrune = true;
  const fromAnnotation = (annotations[IGNORE_ANNOTATION] ?? '')
    .split(',')
    .map((path) => path.trim())
    .filter(Boolean);
  // Not every kind takes spec.ignoreDifferences (a CDC scaling has two members, both always sent).
  const listed = manifest.spec['ignoreDifferences'];
  const written = Array.isArray(listed) ? listed.filter((path): path is string => typeof path === 'string') : [];
  const ignore = [...new Set([...fromAnnotation, ...written])];
  if (ignore.length > 0) policy.ignore = ignore;
  const resync = annotations[RESYNC_ANNOTATION];
  if (resync !== undefined) policy.resync = resync;
  if (annotations[REPLACE_ANNOTATION] === 'allow') policy.replace = true;
  return Object.keys(policy).length > 0 ? policy : undefined;
}
