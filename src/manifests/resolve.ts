/**
 * Rules across documents and the resolution of what manifests refer to: targets, duplicate
 * names, dashboard and tile references of alerts, secrets. Then the desired model, built only
 * from documents without any problem.
 */
import { KINDS, type Kind } from '../model/kinds.js';
import type { Config, SecretRef } from '../model/config.js';
import { anchorSecret, resolveSecret, secretBaseDir, type SecretIo } from '../config/secrets.js';
import type { Pointer } from '../yaml/positions.js';
import { formatLocation, type SourceLocation } from '../errors.js';
import { deepFreeze } from '../support/freeze.js';
import { PIPE_SOURCE_KINDS, type PipeSourceKind } from '../schema/enums.js';
import { formatPath } from '../schema/validate.js';
import { pipePatchBeyondSeedMembers } from '../schema/api.js';
import { uuidKey } from '../model/resources.js';
import type { DesiredAlert, DesiredDashboard, DesiredPipe, DesiredResource, DesiredTile, LoadProblem, ResourcePolicy, SecretValue } from '../model/desired.js';
import { IGNORE_ANNOTATION, PRUNE_ANNOTATION, SUSPEND_ANNOTATION } from '../schema/manifest.js';
import type { AlertSpec, DashboardSpec, Manifest, ManifestTile, PipeSpec } from '../model/manifest.js';

/** The target given to documents when validating without a config. */
export const UNCONFIGURED_TARGET = '(default)';

/** What could be told about a document even if it failed its schema. */
export interface Identity {
  kind?: Kind;
  name?: string;
  /** `metadata.target` as written. */
  declaredTarget?: string;
  /** The target the document belongs to, when it is known (configured, or declared/default without a config). */
  target?: string;
}

/** One document of a manifest file, as the checks see it. */
export interface ManifestDocument {
  file: string;
  /** 0-based index of the document in its file, empty documents counted. */
  index: number;
  value: unknown;
  /** Where the document's content starts. */
  location: SourceLocation;
}

/** The node a problem is about; its line is found once all checks are done (see `load.ts`). */
export interface NodeRef {
  doc: ManifestDocument;
  pointer: Pointer;
  at: 'key' | 'value';
}

/** A problem whose location is, for now, its document's start; `node` says where it belongs. */
export interface FoundProblem extends LoadProblem {
  node?: NodeRef;
}

export interface Entry {
  doc: ManifestDocument;
  identity: Identity;
  /** Present when the document passed the schema of its kind. */
  manifest?: Manifest;
  /** Secret values its `${NAME}` references took (see `vars.ts`); masked in every output. */
  sensitive?: SecretValue[];
}

/**
 * The targets a document names beyond one: a `metadata.target` list, or every configured target
 * for `metadata.targets: all`. Undefined for a document of one target (or none), which
 * `identify` handles.
 */
export function expandedTargets(value: unknown, config: Config | undefined): { targets: string[]; declared: boolean } | undefined {
  const metadata = asRecord(asRecord(value)?.['metadata']);
  if (metadata?.['targets'] === 'all' && metadata['target'] === undefined) {
    return { targets: config ? config.targets.map((target) => target.name) : [UNCONFIGURED_TARGET], declared: false };
  }
  const list = metadata?.['target'];
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string')) return undefined;
  return { targets: [...new Set(list as string[])], declared: true };
}

/** The identity of one expansion of a document to `target`. */
export function identifyFor(value: unknown, config: Config | undefined, target: string, declared: boolean): Identity {
  const identity = identify(value, config);
  delete identity.target;
  if (declared) identity.declaredTarget = target;
  if (!config || config.targets.some((t) => t.name === target)) identity.target = target;
  return identity;
}

export interface ResolveOptions {
  /** Without a config, target checks are skipped (offline `validate` with no config file). */
  config?: Config;
  secretIo: Partial<SecretIo>;
  hmac: (value: string) => string;
}

export interface Resolved {
  resources: DesiredResource[];
  problems: FoundProblem[];
  warnings: FoundProblem[];
}

/** Kind, name and target of a document, read leniently from its plain value. */
export function identify(value: unknown, config: Config | undefined): Identity {
  const record = asRecord(value);
  const metadata = asRecord(record?.['metadata']);
  const identity: Identity = {};
  const kind = record?.['kind'];
  if (typeof kind === 'string' && (KINDS as readonly string[]).includes(kind)) identity.kind = kind as Kind;
  if (typeof metadata?.['name'] === 'string') identity.name = metadata['name'];
  if (typeof metadata?.['target'] === 'string') identity.declaredTarget = metadata['target'];
  // Without metadata there is no telling whose document this was meant to be.
  if (!metadata) return identity;
  const target = identity.declaredTarget ?? config?.defaultTarget ?? UNCONFIGURED_TARGET;
  if (!config || config.targets.some((t) => t.name === target)) identity.target = target;
  return identity;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function subjectOf(identity: Identity): string | undefined {
  return identity.kind && identity.name ? `${identity.kind}/${identity.name}` : undefined;
}

/** A problem about the node a pointer names, attributed to the document's target. */
export function problemAt(entry: Entry, code: LoadProblem['code'], pointer: Pointer, message: string, at: 'key' | 'value' = 'value'): FoundProblem {
  const path = formatPath(pointer);
  const problem: FoundProblem = { code, message: path ? `${path}: ${message}` : message, location: { ...entry.doc.location }, node: { doc: entry.doc, pointer, at } };
  if (entry.identity.target !== undefined) problem.target = entry.identity.target;
  const subject = subjectOf(entry.identity);
  if (subject) problem.subject = subject;
  return problem;
}

/** Runs every cross-document rule, resolves secrets, and builds the desired resources. */
export function resolveEntries(entries: readonly Entry[], failedBySchema: ReadonlySet<Entry>, options: ResolveOptions): Resolved {
  const problems: FoundProblem[] = [];
  const warnings: FoundProblem[] = [];
  const failed = new Set(failedBySchema);
  const report = (entry: Entry, problem: FoundProblem): void => {
    problems.push(problem);
    failed.add(entry);
  };
  // 1. Targets: configured, and able to hold the kind.
  if (options.config) for (const entry of entries) checkTarget(entry, options.config, report);
  // 2. Names: unique per kind per target; tile names unique per dashboard; mappings unique per pipe.
  checkDuplicates(entries, report);
  for (const entry of entries) checkWithinDocument(entry, report);
  // 3. Secrets resolve, so a missing one is found here and not in the middle of an apply.
  const secrets = new Map<Entry, Map<string, SecretValue>>();
  for (const entry of entries) {
    if (entry.manifest?.kind === 'Pipe') secrets.set(entry, resolvePipeSecrets(entry, options, report, warnings));
  }
  // 4. Alert references, once it is known which dashboards are sound.
  const dashboards = dashboardsByTarget(entries);
  for (const entry of entries) checkAlertRefs(entry, dashboards.get(entry.identity.target ?? ''), failed, report);
  // 5. The desired model, from documents with no problem at all.
  const resources = entries.filter((e) => !failed.has(e) && e.manifest).map((e) => toDesired(e, secrets.get(e)));
  return { resources, problems, warnings };
}

type Report = (entry: Entry, problem: FoundProblem) => void;

function checkTarget(entry: Entry, config: Config, report: Report): void {
  const { declaredTarget, kind } = entry.identity;
  const names = config.targets.map((t) => t.name).join(', ');
  if (declaredTarget !== undefined && entry.identity.target === undefined) {
    report(entry, problemAt(entry, 'E_REF_UNRESOLVED', ['metadata', 'target'], `names no target in the config; the targets are ${names}`));
    return;
  }
  const target = config.targets.find((t) => t.name === entry.identity.target);
  if (kind === 'Pipe' && target?.variant === 'self-hosted') {
    const pointer = declaredTarget !== undefined ? ['metadata', 'target'] : ['kind'];
    report(entry, problemAt(entry, 'E_MANIFEST_INVALID', pointer, `a Pipe needs a managed target, and ${target.name} is self-hosted (it has no pipes)`));
  }
}

function checkDuplicates(entries: readonly Entry[], report: Report): void {
  const sameKey = reportRepeats(entries, report, {
    valueOf: (entry) => entry.identity.name,
    pointer: ['metadata', 'name'],
    what: (kind, name) => `${kind} ${name}`,
  });
  // Live dashboards and alerts are found by their API name: two manifests with one name would fight over one resource.
  // A copy already reported for its metadata.name needs no second problem.
  const fresh = entries.filter((entry) => !sameKey.has(entry));
  reportRepeats(fresh, report, {
    valueOf: (entry) => (entry.manifest?.kind === 'Dashboard' || entry.manifest?.kind === 'Alert' ? entry.manifest.spec.name : undefined),
    pointer: ['spec', 'name'],
    what: (kind, name) => `a ${kind} named "${name}"`,
  });
  // Two manifests of one pipe would send it conflicting PATCHes; an id's case does not make it another pipe.
  reportRepeats(fresh, report, {
    valueOf: (entry) => (entry.manifest?.kind === 'Pipe' ? uuidKey(entry.manifest.spec.pipeId) : undefined),
    pointer: ['spec', 'pipeId'],
    what: (_kind, id) => `pipe ${id}`,
  });
}

interface UniqueKey {
  valueOf: (entry: Entry) => string | undefined;
  pointer: Pointer;
  what: (kind: Kind, value: string) => string;
}

/** Reports every entry whose value repeats one of the same kind and target (neither copy is applied); returns them. */
function reportRepeats(entries: readonly Entry[], report: Report, key: UniqueKey): Set<Entry> {
  const first = new Map<string, Entry>();
  const flagged = new Set<Entry>();
  for (const entry of entries) {
    const { kind, target } = entry.identity;
    const value = key.valueOf(entry);
    if (!kind || value === undefined || target === undefined) continue;
    const id = `${target}\u0000${kind}\u0000${value}`;
    const earlier = first.get(id);
    if (!earlier) {
      first.set(id, entry);
      continue;
    }
    const what = key.what(kind, value);
    report(entry, problemAt(entry, 'E_MANIFEST_DUPLICATE', key.pointer, `${what} is already defined for target ${target} at ${formatLocation(earlier.doc.location)}`));
    flagged.add(entry);
    // Which copy was meant cannot be told.
    if (flagged.has(earlier)) continue;
    flagged.add(earlier);
    report(earlier, problemAt(earlier, 'E_MANIFEST_DUPLICATE', key.pointer, `${what} is defined again for target ${target} at ${formatLocation(entry.doc.location)}`));
  }
  return flagged;
}

function checkWithinDocument(entry: Entry, report: Report): void {
  const manifest = entry.manifest;
  if (manifest?.kind === 'Dashboard') {
    duplicatesIn(manifest.spec.tiles ?? [], (tile) => tile.name).forEach(([index, earlier]) => {
      report(entry, problemAt(entry, 'E_MANIFEST_DUPLICATE', ['spec', 'tiles', index, 'name'], `tile name ${manifest.spec.tiles?.[index]?.name} is already used by tiles[${earlier}]; tile names must be unique in a dashboard`));
    });
  }
  const postgres = manifest?.kind === 'Pipe' ? asRecord(manifest.spec.source?.['postgres']) : undefined;
  const mappings = (postgres?.['tableMappings'] ?? []) as { sourceSchemaName: string; sourceTable: string }[];
  duplicatesIn(mappings, (m) => `${m.sourceSchemaName}.${m.sourceTable}`).forEach(([index, earlier]) => {
    const mapping = mappings[index];
    report(entry, problemAt(entry, 'E_MANIFEST_DUPLICATE', ['spec', 'source', 'postgres', 'tableMappings', index], `source table ${mapping?.sourceSchemaName}.${mapping?.sourceTable} is already mapped by tableMappings[${earlier}]`));
  });
}

/** `[index, index of the first with the same key]` for every repeat. */
function duplicatesIn<T>(items: readonly T[], keyOf: (item: T) => string): [number, number][] {
  const seen = new Map<string, number>();
  const repeats: [number, number][] = [];
  items.forEach((item, index) => {
    const earlier = seen.get(keyOf(item));
    if (earlier === undefined) seen.set(keyOf(item), index);
    else repeats.push([index, earlier]);
  });
  return repeats;
}

/** The Dashboard documents of a target by manifest name (the first of a repeated name), so an alert finds its own at once. */
interface TargetDashboards {
  byName: Map<string, Entry>;
}

function dashboardsByTarget(entries: readonly Entry[]): Map<string, TargetDashboards> {
  const byTarget = new Map<string, TargetDashboards>();
  for (const entry of entries) {
    if (entry.identity.kind !== 'Dashboard' || entry.identity.target === undefined) continue;
    let dashboards = byTarget.get(entry.identity.target);
    if (!dashboards) byTarget.set(entry.identity.target, (dashboards = { byName: new Map() }));
    const name = entry.identity.name;
    if (name !== undefined && !dashboards.byName.has(name)) dashboards.byName.set(name, entry);
  }
  return byTarget;
}

/** `candidates`: the Dashboard documents of the alert's target. */
function checkAlertRefs(entry: Entry, candidates: TargetDashboards | undefined, failed: ReadonlySet<Entry>, report: Report): void {
  // Without a known target the document already has a problem; "no dashboard there" would be noise.
  if (entry.manifest?.kind !== 'Alert' || entry.manifest.spec.source !== 'tile' || entry.identity.target === undefined) return;
  const { dashboard, tile } = entry.manifest.spec;
  const target = entry.identity.target === UNCONFIGURED_TARGET ? 'the default target' : `target ${entry.identity.target}`;
  const found = dashboard === undefined ? undefined : candidates?.byName.get(dashboard);
  if (!found) {
    const known = candidates?.byName.size ?? 0;
    const hint = known > 0 && known <= 20 ? `; its dashboards are ${[...(candidates?.byName.keys() ?? [])].join(', ')}` : '';
    report(entry, problemAt(entry, 'E_REF_UNRESOLVED', ['spec', 'dashboard'], `names no Dashboard manifest of ${target}${hint}`));
    return;
  }
  if (failed.has(found) || found.manifest?.kind !== 'Dashboard') {
    report(entry, problemAt(entry, 'E_REF_UNRESOLVED', ['spec', 'dashboard'], `Dashboard ${dashboard} has errors (${formatLocation(found.doc.location)}), so this alert cannot be applied`));
    return;
  }
  const tiles = (found.manifest.spec.tiles ?? []).map((t) => t.name);
  if (!tiles.includes(tile ?? '')) {
    const hint = tiles.length > 0 ? `its tiles are ${tiles.join(', ')}` : 'it has no tiles';
    report(entry, problemAt(entry, 'E_REF_UNRESOLVED', ['spec', 'tile'], `Dashboard ${dashboard} has no tile named ${tile}; ${hint}`));
  }
}

// ---------------------------------------------------------------- secrets

const SECRET_MEMBERS = ['credentials', 'accessKey'] as const;

const BEYOND_SEED_WARNING =
  "is not in the seed's Update pipe list; it is sent as written (the real service takes it, a service that follows the seed refuses it)";

/** Resolves a pipe's secret references; keyed by `source.<kind>.<member>.<field>`. */
function resolvePipeSecrets(entry: Entry, options: ResolveOptions, report: Report, warnings: FoundProblem[]): Map<string, SecretValue> {
  const values = new Map<string, SecretValue>();
  const source = entry.manifest?.kind === 'Pipe' ? entry.manifest.spec.source : undefined;
  const kind = source ? sourceKind(source) : undefined;
  if (!source || !kind) return values;
  const block = asRecord(source[kind]) ?? {};
  for (const member of Object.keys(block).filter((name) => Object.hasOwn(pipePatchBeyondSeedMembers[kind], name))) {
    warnings.push(problemAt(entry, 'E_MANIFEST_INVALID', ['spec', 'source', kind, member], BEYOND_SEED_WARNING));
  }
  const baseDir = secretBaseDir(entry.doc.file);
  for (const member of SECRET_MEMBERS) {
    for (const [field, ref] of Object.entries(asRecord(block[member]) ?? {})) {
      const pointer = ['spec', 'source', kind, member, field];
      if (typeof ref === 'string') {
        warnings.push(problemAt(entry, 'E_MANIFEST_INVALID', pointer, 'is a plain string in the manifest; use {fromEnv: NAME} or {fromFile: PATH} to keep secrets out of Git'));
      }
      const value = resolveOne(anchorSecret(ref as SecretRef, baseDir), options.secretIo);
      if (typeof value === 'string') values.set(`source.${kind}.${member}.${field}`, { value, hmac: options.hmac(value) });
      else report(entry, problemAt(entry, 'E_SECRET_MISSING', pointer, value.message));
    }
  }
  return values;
}

function resolveOne(ref: SecretRef, io: Partial<SecretIo>): string | { message: string } {
  try {
    return resolveSecret(ref, io);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'E_SECRET_MISSING') return { message: error.message };
    throw error;
  }
}

function sourceKind(source: NonNullable<PipeSpec['source']>): PipeSourceKind | undefined {
  return PIPE_SOURCE_KINDS.find((kind) => kind in source);
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
function toDesired(entry: Entry, secrets: Map<string, SecretValue> | undefined): DesiredResource {
  const manifest = entry.manifest as Manifest;
  const { file, line, column } = entry.doc.location;
  const made = [
    entry.identity.target,
    file,
    line,
    column,
    ...[...(secrets ?? [])].map(([path, secret]) => `${path}=${secret.hmac}`),
    ...(entry.sensitive ?? []).map((secret) => secret.hmac),
  ].join('\u0000');
  const known = Object.isFrozen(manifest) ? built.get(manifest) : undefined;
  if (known?.made === made) return known.resource;
  const resource = deepFreeze(buildDesired(entry, manifest, secrets));
  if (Object.isFrozen(manifest)) built.set(manifest, { made, resource });
  return resource;
}

function buildDesired(entry: Entry, manifest: Manifest, secrets: Map<string, SecretValue> | undefined): DesiredResource {
  const policy = policyOf(manifest);
  const sensitive = entry.sensitive && entry.sensitive.length > 0 ? { sensitive: entry.sensitive } : {};
  const base = { key: manifest.metadata.name, target: entry.identity.target ?? '', location: entry.doc.location, ...(policy ? { policy } : {}), ...sensitive };
  switch (manifest.kind) {
    case 'Pipe':
      return toDesiredPipe(manifest.spec, base, secrets ?? new Map());
    case 'Dashboard':
      return toDesiredDashboard(manifest.spec, base);
    case 'Alert':
      return toDesiredAlert(manifest.spec, base);
  }
}

type Base = Pick<DesiredPipe, 'key' | 'target' | 'location' | 'policy' | 'sensitive'>;

/** What the annotations ask beyond the spec; undefined when nothing. */
function policyOf(manifest: Manifest): ResourcePolicy | undefined {
  const annotations = manifest.metadata.annotations ?? {};
  const policy: ResourcePolicy = {};
  if (annotations[SUSPEND_ANNOTATION] === 'true') policy.suspend = true;
  if (annotations[PRUNE_ANNOTATION] === 'disabled') policy.noPrune = true;
  const fromAnnotation = (annotations[IGNORE_ANNOTATION] ?? '').split(',').map((path) => path.trim()).filter(Boolean);
  const ignore = [...new Set([...fromAnnotation, ...(manifest.spec.ignoreDifferences ?? [])])];
  if (ignore.length > 0) policy.ignore = ignore;
  return Object.keys(policy).length > 0 ? policy : undefined;
}

function toDesiredPipe(spec: PipeSpec, base: Base, secrets: Map<string, SecretValue>): DesiredPipe {
  const pipe: DesiredPipe = { kind: 'Pipe', ...base, pipeId: spec.pipeId };
  if (spec.name !== undefined) pipe.name = spec.name;
  const kind = spec.source ? sourceKind(spec.source) : undefined;
  if (spec.source && kind) pipe.source = toDesiredSource(spec.source, kind, secrets);
  if (spec.destination?.columns !== undefined) pipe.columns = spec.destination.columns;
  if (spec.fieldMappings !== undefined) pipe.fieldMappings = spec.fieldMappings;
  if (spec.settings !== undefined) pipe.settings = spec.settings;
  return pipe;
}

function toDesiredSource(source: NonNullable<PipeSpec['source']>, kind: PipeSourceKind, secrets: Map<string, SecretValue>): NonNullable<DesiredPipe['source']> {
  const { credentials, accessKey, tableMappings, ...block } = asRecord(source[kind]) ?? {};
  const desired: NonNullable<DesiredPipe['source']> = { kind, block };
  const member = credentials !== undefined ? 'credentials' : accessKey !== undefined ? 'accessKey' : undefined;
  if (member) {
    const prefix = `source.${kind}.${member}.`;
    const fields = Object.fromEntries([...secrets].filter(([path]) => path.startsWith(prefix)).map(([path, value]) => [path.slice(prefix.length), value]));
    desired.secrets = { member, fields };
  }
  if (tableMappings !== undefined) desired.tableMappings = tableMappings as NonNullable<typeof desired.tableMappings>;
  if (typeof source['validateSamples'] === 'boolean') desired.validateSamples = source['validateSamples'];
  return desired;
}

function toDesiredDashboard(spec: DashboardSpec, base: Base): DesiredDashboard {
  const dashboard: DesiredDashboard = { kind: 'Dashboard', ...base, name: spec.name, tiles: [] };
  if (spec.tags !== undefined) dashboard.tags = spec.tags;
  dashboard.tiles = (spec.tiles ?? []).map(toDesiredTile);
  return dashboard;
}

function toDesiredTile(tile: ManifestTile): DesiredTile {
  const desired: DesiredTile = { name: tile.name, x: tile.x, y: tile.y, w: tile.w, h: tile.h };
  // A tile without series or config leaves its live chart alone: neither member is set.
  if (tile.series !== undefined) desired.series = tile.series;
  if (tile.config !== undefined) desired.config = tile.config;
  if (tile.asRatio !== undefined) desired.asRatio = tile.asRatio;
  return desired;
}

function toDesiredAlert(spec: AlertSpec, base: Base): DesiredAlert {
  const alert: DesiredAlert = {
    kind: 'Alert',
    ...base,
    name: spec.name,
    threshold: spec.threshold,
    thresholdType: spec.thresholdType,
    interval: spec.interval,
    source: spec.source,
  };
  for (const member of ['message', 'groupBy', 'dashboard', 'tile', 'savedSearchId'] as const) {
    if (spec[member] !== undefined) alert[member] = spec[member];
  }
  if (spec.thresholdMax !== undefined) alert.thresholdMax = spec.thresholdMax;
  if (spec.channel !== undefined) alert.channel = spec.channel;
  return alert;
}
