/**
 * Loads the manifests directory into the desired model: snapshot → parse → schema → resolve.
 * Never throws for bad input: every problem is collected with its location, and the targets it
 * touches are blocked so that nothing is pruned because a broken manifest looked "missing".
 */
import type { Config } from '../model/config.js';
import type { SecretIo } from '../config/secrets.js';
import { DEFAULT_YAML_LIMITS, type YamlLimits } from '../yaml/safety.js';
import type { LoadProblem, LoadResult } from '../model/desired.js';
import { parseManifestFile, type DocumentBudget, type ParsedDocument } from './parse.js';
import { readSnapshot } from './read.js';
import { identify, problemAt, resolveEntries, type Entry } from './resolve.js';
import { validateManifest } from './validate.js';

export interface ManifestLimits extends YamlLimits {
  /** Most manifest files read per run. */
  maxFiles: number;
  /** Most documents read per run, over all files. */
  maxDocuments: number;
}

export const DEFAULT_MANIFEST_LIMITS: ManifestLimits = {
  ...DEFAULT_YAML_LIMITS,
  maxFiles: 10_000,
  maxDocuments: 10_000,
};

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
}

/** The target every problem without a known target blocks: callers treat it as all of them. */
export const ALL_TARGETS = '*';

/** Loads every manifest under `dir`. Locations name files as `dir` joined with their path inside it. */
export async function loadManifests(dir: string, options: LoadManifestsOptions): Promise<LoadResult> {
  const limits = { ...DEFAULT_MANIFEST_LIMITS, ...options.limits };
  const problems: LoadProblem[] = [];
  const warnings: LoadProblem[] = [];
  // 1. Snapshot: every file is read before any is parsed.
  const snapshot = await readSnapshot(dir, limits);
  problems.push(...snapshot.problems);
  // 2. Parse every document.
  const documents: ParsedDocument[] = [];
  const budget: DocumentBudget = { remaining: limits.maxDocuments, max: limits.maxDocuments };
  for (const file of snapshot.files) {
    const parsed = parseManifestFile(file, limits, budget);
    documents.push(...parsed.documents);
    problems.push(...parsed.problems);
    warnings.push(...parsed.warnings);
  }
  // 3. Schema of each kind.
  const { entries, failed } = checkSchemas(documents, options.config, problems);
  // 4. Rules across documents, references and secrets; then the desired model.
  const secretIo: Partial<SecretIo> = {};
  if (options.env) secretIo.env = options.env;
  if (options.readFile) secretIo.readFile = options.readFile;
  const resolved = resolveEntries(entries, failed, { ...(options.config ? { config: options.config } : {}), secretIo, hmac: options.hmac });
  problems.push(...resolved.problems);
  warnings.push(...resolved.warnings);
  return {
    resources: resolved.resources,
    problems: problems.sort(byLocation),
    warnings: warnings.sort(byLocation),
    blockedTargets: new Set(problems.map((p) => p.target ?? ALL_TARGETS)),
  };
}

function checkSchemas(documents: readonly ParsedDocument[], config: Config | undefined, problems: LoadProblem[]): { entries: Entry[]; failed: Set<Entry> } {
  const entries: Entry[] = [];
  const failed = new Set<Entry>();
  for (const doc of documents) {
    const entry: Entry = { doc, identity: identify(doc.value, config) };
    entries.push(entry);
    const check = validateManifest(doc);
    if (check.ok) {
      entry.manifest = check.manifest;
      continue;
    }
    failed.add(entry);
    for (const issue of check.issues) {
      const problem = problemAt(entry, 'E_MANIFEST_INVALID', [], `${issue.path || '(document)'}: ${issue.message}`);
      problems.push({ ...problem, location: { file: doc.file, line: issue.line, column: issue.column } });
    }
  }
  return { entries, failed };
}

function byLocation(a: LoadProblem, b: LoadProblem): number {
  const fa = a.location.file;
  const fb = b.location.file;
  if (fa !== fb) return fa < fb ? -1 : 1;
  return (a.location.line ?? 0) - (b.location.line ?? 0) || (a.location.column ?? 0) - (b.location.column ?? 0);
}
