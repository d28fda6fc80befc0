/**
 * Loads the manifests directory into the desired model: snapshot → parse → schema → rules →
 * secrets → references → desired model → place. Never throws for bad input: every problem is collected with its location, and the
 * targets it touches are blocked (a tenant's problem: that tenant's writes; one forEach item's:
 * that item) so that nothing is written because a broken manifest looked "missing" or "changed".
 */
import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Config, Tenant } from '../model/config.js';
import type { SecretIo } from '../config/secrets.js';
import { deepFreeze } from '../support/freeze.js';
import { DEFAULT_YAML_LIMITS, type YamlLimits } from '../yaml/safety.js';
import type { LoadProblem } from '../model/desired.js';
import type { LoadedManifests } from '../kinds/index.js';
import { contentKey, type CacheSession, type ParseCache } from './cache.js';
import type { ParseLimits, ParsedText, PointerRequest } from './parse.js';
import { createWorkerParser, defaultThreads, inlineParser, yieldToEventLoop, type ManifestParser } from './parser.js';
import { readSnapshot, type Snapshot, type SnapshotFile } from './read.js';
import {
  expandedTargets,
  identify,
  identifyFor,
  problemAt,
  resolveEntries,
  type Entry,
  type FoundProblem,
  type SourceDocument,
} from './resolve.js';
import { mentionsVariables, substituteVariables } from './vars.js';
import { validateManifest, type ManifestCheck } from './validate.js';
import {
  DEFAULT_MAX_FOREACH_ITEMS,
  hasForEach,
  instantiate,
  instantiateAll,
  listItems,
  matrixItems,
  readForEach,
  type ForEachItem,
  type ForEachProblem,
} from './foreach.js';
import { tuneHeapFor } from '../support/heap.js';
import { fileTenants } from './tenants.js';

export interface ManifestLimits extends YamlLimits {
  /** Most manifest files read per run. */
  maxFiles: number;
  /** Most documents read per run, over all files. */
  maxDocuments: number;
  /** Most items (resources) one `metadata.forEach` manifest may stand for. */
  maxForEachItems: number;
}

/**
 * Far above any real repository (100,000 resources load in well under 1 GiB), low enough that a
 * generator gone wrong stops with a message instead of running out of memory.
 */
export const DEFAULT_MANIFEST_LIMITS: ManifestLimits = {
  ...DEFAULT_YAML_LIMITS,
  maxFiles: 1_000_000,
  maxDocuments: 1_000_000,
  maxForEachItems: DEFAULT_MAX_FOREACH_ITEMS,
};

/**
 * Below this many bytes, starting worker threads costs more than the parse they would share: the
 * fast reader takes about 0.4 s for 9 MiB (10,000 resources) on one thread, and a plan at that
 * size was 0.4 s slower with a worker than without.
 */
export const WORKER_THRESHOLD_BYTES = 32 * 1024 * 1024;

/** The limits that apply to parsing one file. */
export function parseLimitsOf(limits: ManifestLimits): ParseLimits {
  return {
    maxDepth: limits.maxDepth,
    maxAliasCount: limits.maxAliasCount,
    maxNodes: limits.maxNodes,
    maxDocuments: limits.maxDocuments,
  };
}

export interface LoadManifestsOptions {
  /** The validated config; without one (offline validate with no config file) target checks are skipped. */
  config?: Config;
  /** Environment for `fromEnv` secrets; the process environment when left out. */
  env?: SecretIo['env'];
  /** Reads `fromFile` secrets; the file system when left out. */
  readFile?: SecretIo['readFile'];
  /** HMAC of a secret value, under the state's key. */
  hmac: (value: string) => string;
  limits?: Partial<ManifestLimits>;
  /**
   * Where files are parsed. Default: worker threads (made for this load and closed after it)
   * when the snapshot is over {@link WORKER_THRESHOLD_BYTES}, else this thread.
   */
  parser?: ManifestParser;
  /** Parses kept from earlier loads (a daemon's); without one every file is parsed. */
  cache?: ParseCache;
  logger?: Logger;
  /** How locations name `dir` when not as `dir` (see `ReadOptions.shownAs`). */
  shownAs?: string;
}

/** The target every problem without a known target blocks: callers treat it as all of them. */
export const ALL_TARGETS = '*';

/** Files sent to a parser at once: few round trips, yet work for every worker. */
const BATCH_FILES = 64;
const BATCH_BYTES = 256 * 1024;
/** Documents schema-checked between two yields to the event loop. */
const CHECKS_PER_YIELD = 500;

interface ParsedFile {
  file: SnapshotFile;
  parsed: ParsedText;
}

/** Loads every manifest under `dir`. Locations name files as `dir` (or `shownAs`) joined with their path inside it. */
export async function loadManifests(dir: string, options: LoadManifestsOptions): Promise<LoadedManifests> {
  const started = performance.now();
  options.logger?.debug({ dir }, 'loading manifests');
  const limits = { ...DEFAULT_MANIFEST_LIMITS, ...options.limits };
  const problems: FoundProblem[] = [];
  const warnings: FoundProblem[] = [];
  let owner: ManifestParser | undefined;
  const session = options.cache?.begin();
  try {
    // 1. Snapshot: every file is read (or vouched for by the cache) before any is parsed.
    const shown = options.shownAs === undefined ? {} : { shownAs: options.shownAs };
    const read = (): Promise<Snapshot> =>
      readSnapshot(dir, limits, session ? { known: (real, stats) => session.known(real, stats), ...shown } : shown);
    const snapshot = await (options.cache
      ? options.cache.sharedRead(
          `${dir}\u0000${options.shownAs ?? ''}\u0000${limits.maxFiles}\u0000${limits.maxFileBytes}`,
          read,
        )
      : read());
    problems.push(...snapshot.problems);
    // 2. Parse every file not parsed before; the heap sized for what this load builds.
    tuneHeapFor(sizeOf(snapshot.files), WORKER_THRESHOLD_BYTES);
    const { parsers, owned } = chooseParsers(snapshot.files, options.parser);
    owner = owned;
    const files = await parseFiles(snapshot.files, limits, parsers, session);
    // 3. Documents, within the cap; a forEach template becomes one document per item, and a file
    //    a template takes its items from is data, not manifests.
    const dataFiles = forEachDataFiles(files);
    const templates = collectDocuments(
      files.filter(({ file }) => !dataFiles.has(file.path)),
      limits.maxDocuments,
      problems,
      warnings,
    );
    const documents = expandTemplates(templates, files, limits.maxForEachItems, options.config, problems);
    // 4. Per target: variables substituted, then the schema of each kind.
    const secretIo: Partial<SecretIo> = {};
    if (options.env) secretIo.env = options.env;
    if (options.readFile) secretIo.readFile = options.readFile;
    const { entries, failed } = await checkSchemas(
      documents,
      { ...(options.config ? { config: options.config } : {}), secretIo, hmac: options.hmac },
      problems,
    );
    // 5. Rules across documents (each kind's from its descriptor), the secret stage (manifests/secrets.ts:
    //    every secret reference a descriptor declares, resolved once), references; then the desired model.
    const tenants = options.config?.tenants
      ? fileTenants(
          snapshot.files.map((file) => file.path),
          options.shownAs ?? dir,
          options.config.tenants,
        )
      : undefined;
    const resolved = resolveEntries(entries, failed, {
      ...(options.config ? { config: options.config } : {}),
      ...(tenants ? { tenants } : {}),
      secretIo,
      hmac: options.hmac,
    });
    problems.push(...resolved.problems);
    warnings.push(...resolved.warnings);
    // 6. The line of every problem about a node, from a second parse of only the files that have one.
    const filesByPath = new Map(snapshot.files.map((file) => [file.path, file]));
    const placed = await placeProblems([...problems, ...warnings], filesByPath, parsers[0] ?? inlineParser);
    options.logger?.debug(
      {
        files: snapshot.files.length,
        documents: documents.length,
        ms: Math.round(performance.now() - started),
        cache: options.cache?.stats,
      },
      'manifests loaded',
    );
    const placedProblems = placed.slice(0, problems.length).map((problem) => withTenants(problem, tenants));
    return {
      resources: resolved.resources,
      problems: placedProblems.sort(byLocation),
      warnings: placed.slice(problems.length).sort(byLocation),
      ...heldBy(placedProblems),
      ...(tenants
        ? {
            fileTenants: new Map(
              [...tenants].flatMap(([file, list]) =>
                list.length === 1 ? [[file, (list[0] as Tenant).name] as const] : [],
              ),
            ),
          }
        : {}),
    };
  } finally {
    session?.end();
    await owner?.close();
  }
}

/** A problem in a tenant's file names its tenant (the tenants of a file in several). */
function withTenants(problem: LoadProblem, tenants: ReadonlyMap<string, readonly Tenant[]> | undefined): LoadProblem {
  if (!tenants || problem.tenants !== undefined) return problem;
  const list = tenants.get(problem.location.file) ?? [];
  return list.length === 0 ? problem : { ...problem, tenants: list.map((tenant) => tenant.name) };
}

/**
 * What the problems hold back (docs/many-services.md#what-a-problem-holds-back): a problem of one
 * forEach item whose resource is known, only that item (it is not loaded, and its resource stays
 * wanted: neither written nor pruned); a problem in a tenant's file, that tenant's writes to its
 * target (every target when it has none); any other, every write of its target.
 */
function heldBy(problems: readonly LoadProblem[]): {
  blockedTargets: Set<string>;
  heldTenants: Map<string, Set<string>>;
} {
  const blockedTargets = new Set<string>();
  const heldTenants = new Map<string, Set<string>>();
  for (const problem of problems) {
    const target = problem.target ?? ALL_TARGETS;
    const itemOnly =
      problem.location.item !== undefined &&
      problem.subject !== undefined &&
      target !== ALL_TARGETS &&
      problem.code !== 'E_TENANT_VIOLATION';
    if (itemOnly) continue;
    if (problem.tenants && problem.tenants.length > 0) {
      const held = heldTenants.get(target) ?? new Set<string>();
      for (const tenant of problem.tenants) held.add(tenant);
      heldTenants.set(target, held);
    } else blockedTargets.add(target);
  }
  return { blockedTargets, heldTenants };
}

/**
 * Who parses: the given parser (a daemon's workers, which keep its event loop free), or, for a
 * one-off command with enough to parse, this thread and a worker per other core.
 */
function chooseParsers(
  files: readonly SnapshotFile[],
  given: ManifestParser | undefined,
): { parsers: ManifestParser[]; owned?: ManifestParser } {
  if (given) return { parsers: [given] };
  const bytes = sizeOf(files);
  const threads = defaultThreads() - 1;
  const workers = bytes >= WORKER_THRESHOLD_BYTES && threads > 0 ? createWorkerParser({ threads }) : undefined;
  return workers ? { parsers: [workers, inlineParser], owned: workers } : { parsers: [inlineParser] };
}

/** Bytes read of a snapshot (what the cache vouched for without reading counts nothing). */
function sizeOf(files: readonly SnapshotFile[]): number {
  return files.reduce((sum, file) => sum + (file.bytes?.length ?? 0), 0);
}

/** The parse of every file, in snapshot order: from the cache, or in batches shared out to the parsers. */
async function parseFiles(
  files: readonly SnapshotFile[],
  limits: ManifestLimits,
  parsers: readonly ManifestParser[],
  session: CacheSession | undefined,
): Promise<ParsedFile[]> {
  const parseLimits = parseLimitsOf(limits);
  const results: Promise<ParsedText>[] = [];
  const misses: { bytes: Uint8Array; result: Deferred }[] = [];
  for (const file of files) {
    const key = file.key ?? (session && file.bytes ? contentKey(file.bytes) : undefined);
    if (key !== undefined && file.bytes && file.stats) session?.remember(file.real, file.stats, key);
    const known = key === undefined ? undefined : session?.get(key);
    if (known !== undefined) {
      results.push(known);
      continue;
    }
    // Vouched for by the cache, yet gone from it: only a bug could get here, but read it then.
    const bytes = file.bytes ?? (await readFile(file.real));
    const pending = deferred();
    results.push(pending.promise);
    if (key !== undefined) session?.set(key, pending.promise);
    misses.push({ bytes, result: pending });
  }
  const queue = batches(misses);
  let next = 0;
  // Each parser takes the next batch as soon as it has room: a fast one is never left idle.
  const drain = async (parser: ManifestParser): Promise<void> => {
    for (let batch = queue[next++]; batch; batch = queue[next++]) await parseBatch(batch, parseLimits, parser);
  };
  await Promise.all(parsers.flatMap((parser) => Array.from({ length: parser.capacity }, () => drain(parser))));
  const parsed = await Promise.all(results);
  return files.map((file, index) => ({ file, parsed: parsed[index] as ParsedText }));
}

async function parseBatch(
  batch: readonly { bytes: Uint8Array; result: Deferred }[],
  limits: ParseLimits,
  parser: ManifestParser,
): Promise<void> {
  let texts: ParsedText[];
  try {
    texts = await parser
      .parse(
        batch.map((miss) => miss.bytes),
        limits,
      )
      .catch(() =>
        // A worker that died (out of memory, killed) takes only its batch with it: parse it here.
        inlineParser.parse(
          batch.map((miss) => miss.bytes),
          limits,
        ),
      );
  } catch (error) {
    for (const miss of batch) miss.result.reject(error);
    return;
  }
  batch.forEach((miss, index) => {
    miss.result.resolve(freeze(texts[index] as ParsedText));
  });
}

function batches<T extends { bytes: Uint8Array }>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (current.length > 0 && (current.length >= BATCH_FILES || bytes + item.bytes.length > BATCH_BYTES)) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += item.bytes.length;
  }
  if (current.length > 0) result.push(current);
  return result;
}

interface Deferred {
  promise: Promise<ParsedText>;
  resolve: (value: ParsedText) => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: (value: ParsedText) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<ParsedText>((done, fail) => {
    resolve = done;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/**
 * A parse may be shared between loads, and its values become the desired resources' nested
 * values without a copy: frozen, so no stage can change what another reads (a mutation throws).
 */
function freeze(parsed: ParsedText): ParsedText {
  for (const document of parsed.documents) deepFreeze(document.value);
  return Object.freeze(parsed);
}

/** The documents of every file in order, up to `max` in all; the file's own problems and warnings. */
function collectDocuments(
  files: readonly ParsedFile[],
  max: number,
  problems: FoundProblem[],
  warnings: FoundProblem[],
): SourceDocument[] {
  const documents: SourceDocument[] = [];
  for (const { file, parsed } of files) {
    for (const problem of parsed.problems) problems.push(textProblem(file.path, problem));
    for (const warning of parsed.warnings) warnings.push(textProblem(file.path, warning));
    for (const document of parsed.documents) {
      const location = { file: file.path, line: document.line, column: document.column };
      if (documents.length >= max) {
        problems.push({
          code: 'E_MANIFEST_PARSE',
          message: `more than ${max} manifest documents; this one and the rest were not read`,
          location,
        });
        return documents;
      }
      documents.push({ file: file.path, index: document.index, value: document.value, location });
    }
  }
  return documents;
}

function textProblem(file: string, problem: ParsedText['problems'][number]): FoundProblem {
  const location: LoadProblem['location'] = { file };
  if (problem.line !== undefined) location.line = problem.line;
  if (problem.column !== undefined) location.column = problem.column;
  return { code: 'E_MANIFEST_PARSE', message: problem.message, location };
}

/** How a `fromFile` is named in the snapshot: its path joined to the manifest's directory. */
function fromFilePath(manifest: string, fromFile: string): string {
  return posix.normalize(posix.join(posix.dirname(manifest.split('\\').join('/')), fromFile));
}

/**
 * The files some forEach template takes its items from (by their shown path), when they hold a
 * list: a file of manifests named by mistake stays manifests (the template gets the error), since
 * its resources, silently gone, would be pruned.
 */
function forEachDataFiles(files: readonly ParsedFile[]): Set<string> {
  const named = new Set<string>();
  for (const { file, parsed } of files) {
    for (const document of parsed.documents) {
      if (!hasForEach(document.value)) continue;
      const read = readForEach(document.value);
      if ('spec' in read && 'fromFile' in read.spec) named.add(fromFilePath(file.path, read.spec.fromFile));
    }
  }
  if (named.size === 0) return named;
  const isList = (parsed: ParsedText): boolean =>
    parsed.documents.length === 1 && Array.isArray(parsed.documents[0]?.value);
  return new Set(
    files
      .filter(({ file, parsed }) => named.has(normalizedPath(file.path)) && isList(parsed))
      .map(({ file }) => file.path),
  );
}

/**
 * Every document, with each forEach template replaced by one document per item: same file, index
 * and line (problems are placed at the template), the item named in its location. A template
 * whose forEach is unusable yields nothing and a problem at its line; an item that repeats another's
 * name is left out with a problem naming both.
 */
function expandTemplates(
  documents: readonly SourceDocument[],
  files: readonly ParsedFile[],
  max: number,
  config: Config | undefined,
  problems: FoundProblem[],
): SourceDocument[] {
  if (!documents.some((doc) => hasForEach(doc.value))) return [...documents];
  const byPath = new Map(files.map(({ file, parsed }) => [normalizedPath(file.path), parsed]));
  const result: SourceDocument[] = [];
  for (const doc of documents) {
    if (!hasForEach(doc.value)) {
      result.push(doc);
      continue;
    }
    const report = (problem: ForEachProblem, item?: ForEachItem): void => {
      // An item's problem is about the item's resource (its name, its target), placed at the template.
      const at = item ? { ...doc, location: { ...doc.location, item: item.label } } : doc;
      const identity = identify(item ? instantiate(doc.value, item) : doc.value, config);
      problems.push(problemAt({ doc: at, identity }, 'E_MANIFEST_INVALID', problem.pointer, problem.message));
    };
    const items = itemsOf(doc, byPath, max);
    if ('problem' in items) {
      report(items.problem);
      continue;
    }
    const expanded = instantiateAll(doc.value, items.items);
    for (const { item, problem } of expanded.problems) report(problem, item);
    for (const { item, value } of expanded.instances)
      result.push({
        ...doc,
        value: deepFreeze(value),
        location: { ...doc.location, item: item.label },
        itemVars: Object.keys(item.vars),
      });
  }
  return result;
}

function normalizedPath(path: string): string {
  return posix.normalize(path.split('\\').join('/'));
}

/** A template's items: its matrix, or the list in the file it names (which must be in the manifests directory). */
function itemsOf(
  doc: SourceDocument,
  files: ReadonlyMap<string, ParsedText>,
  max: number,
): { items: ForEachItem[] } | { problem: ForEachProblem } {
  const read = readForEach(doc.value);
  if ('problem' in read) return read;
  if ('matrix' in read.spec) return matrixItems(read.spec.matrix, max);
  const path = fromFilePath(doc.file, read.spec.fromFile);
  const parsed = files.get(path);
  const pointer = ['metadata', 'forEach', 'fromFile'];
  if (!parsed)
    return {
      problem: {
        pointer,
        message: `${read.spec.fromFile} is not a .yaml or .yml file in the manifests directory (looked for ${path})`,
      },
    };
  if (parsed.problems.length > 0)
    return { problem: { pointer, message: `${path} could not be read (see its own error)` } };
  if (parsed.documents.length !== 1)
    return { problem: { pointer, message: `${path} must hold one YAML document: a list of mappings, one per item` } };
  return listItems(parsed.documents[0]?.value, path, max);
}

/**
 * A document's schema check, by its value. Values are frozen and shared by every load that reads
 * the same bytes, so a daemon checks a document once, not once per sync per target.
 */
const checks = new WeakMap<object, ManifestCheck>();

function checkOnce(value: unknown): ManifestCheck {
  if (value === null || typeof value !== 'object' || !Object.isFrozen(value)) return validateManifest(value);
  let check = checks.get(value);
  if (!check) {
    check = validateManifest(value);
    checks.set(value, check);
  }
  return check;
}

interface CheckOptions {
  config?: Config;
  secretIo: Partial<SecretIo>;
  hmac: (value: string) => string;
}

async function checkSchemas(
  documents: readonly SourceDocument[],
  options: CheckOptions,
  problems: FoundProblem[],
): Promise<{ entries: Entry[]; failed: Set<Entry> }> {
  const entries: Entry[] = [];
  const failed = new Set<Entry>();
  // A document of several targets reports a problem once per target: each of them is blocked by it.
  const report = (problem: FoundProblem): void => void problems.push(problem);
  for (const [index, doc] of documents.entries()) {
    // Thousands of documents take a while; probes and other syncs get their turn.
    if (index > 0 && index % CHECKS_PER_YIELD === 0) await yieldToEventLoop();
    for (const entry of expand(doc, options, report)) {
      entries.push(entry);
      if (entry.manifest === undefined) failed.add(entry);
    }
  }
  return { entries, failed };
}

/**
 * The entries of one document: one per target it names, each with that target's variables
 * substituted and checked against the schema of its kind.
 */
function expand(doc: SourceDocument, options: CheckOptions, report: (problem: FoundProblem) => void): Entry[] {
  const { config } = options;
  const expanded = expandedTargets(doc.value, config);
  const identities = expanded
    ? expanded.targets.map((target) => identifyFor(doc.value, config, target, expanded.declared))
    : [identify(doc.value, config)];
  return identities.map((identity) => {
    const entry: Entry = { doc, identity };
    const target = config?.targets.find((candidate) => candidate.name === identity.target);
    let value = doc.value;
    if (target && mentionsVariables(value)) {
      const substituted = substituteVariables(value, {
        target: target.name,
        vars: target.vars ?? {},
        secretIo: options.secretIo,
        hmac: options.hmac,
        ...(doc.itemVars ? { itemVars: doc.itemVars } : {}),
      });
      value = deepFreeze(substituted.value);
      entry.doc = { ...doc, value };
      if (substituted.sensitive.length > 0) entry.sensitive = substituted.sensitive;
      for (const problem of substituted.problems)
        report(problemAt(entry, problem.code, problem.pointer, problem.message));
      if (substituted.problems.length > 0) return entry;
    }
    const check = checkOnce(value);
    if (check.ok) {
      entry.manifest = check.manifest;
      return entry;
    }
    for (const issue of check.issues) {
      const problem = problemAt(entry, 'E_MANIFEST_INVALID', [], `${issue.path || '(document)'}: ${issue.message}`);
      report({ ...problem, node: { doc, pointer: issue.pointer, at: issue.at } });
    }
    return entry;
  });
}

/** Problems with the line and column of the node each is about, and without that node. */
async function placeProblems(
  found: readonly FoundProblem[],
  files: ReadonlyMap<string, SnapshotFile>,
  parser: ManifestParser,
): Promise<LoadProblem[]> {
  const byFile = new Map<string, number[]>();
  found.forEach((problem, index) => {
    if (!problem.node) return;
    const list = byFile.get(problem.node.doc.file) ?? [];
    list.push(index);
    byFile.set(problem.node.doc.file, list);
  });
  const positions = new Map<number, { line: number; column: number }>();
  await Promise.all(
    [...byFile].map(async ([file, indexes]) => {
      const bytes = await bytesOf(files.get(file));
      if (!bytes) return;
      const requests: PointerRequest[] = indexes.map((index) => {
        const node = found[index]?.node as NonNullable<FoundProblem['node']>;
        return { index: node.doc.index, pointer: node.pointer, at: node.at };
      });
      const located = await locateSafely(parser, bytes, requests);
      located.forEach((position, i) => {
        if (position) positions.set(indexes[i] as number, position);
      });
    }),
  );
  return found.map(({ node: _node, ...problem }, index) => {
    const position = positions.get(index);
    const item = problem.location.item === undefined ? {} : { item: problem.location.item };
    return position ? { ...problem, location: { file: problem.location.file, ...position, ...item } } : problem;
  });
}

/**
 * The bytes a file had in this snapshot. A file the cache vouched for was not read: read it now,
 * and use it only if it still has the content it was parsed from (else the lines would lie).
 */
async function bytesOf(file: SnapshotFile | undefined): Promise<Uint8Array | undefined> {
  if (!file || file.bytes) return file?.bytes;
  const bytes = await readFile(file.real).catch(() => undefined);
  return bytes && contentKey(bytes) === file.key ? bytes : undefined;
}

async function locateSafely(
  parser: ManifestParser,
  bytes: Uint8Array,
  requests: PointerRequest[],
): Promise<({ line: number; column: number } | undefined)[]> {
  try {
    return await parser.locate(bytes, requests);
  } catch {
    return inlineParser.locate(bytes, requests);
  }
}

function byLocation(a: LoadProblem, b: LoadProblem): number {
  const fa = a.location.file;
  const fb = b.location.file;
  if (fa !== fb) return fa < fb ? -1 : 1;
  return (a.location.line ?? 0) - (b.location.line ?? 0) || (a.location.column ?? 0) - (b.location.column ?? 0);
}
