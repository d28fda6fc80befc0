/**
 * The secret stage: the secret references each manifest holds — where its kind's descriptor says
 * they are — resolved once each, between the checks and the desired model. Values are held with
 * their HMACs only in memory; what leaves this stage for any output is the HMAC. A reference that
 * cannot be resolved here is no problem of the manifest: a pull-request job validates and plans
 * without production secrets. It becomes a value marked `unknown` (with why), which the plan shows
 * as unknown and only the write that would send it refuses (docs/secrets.md).
 */
import type { SecretRef } from '../model/config.js';
import type { SecretValue } from '../model/desired.js';
import { anchorSecret, resolveSecret, secretBaseDir, type SecretIo } from '../config/secrets.js';
import { isStacksyncError } from '../errors.js';
import { CREDENTIAL_PAIRS, runSecrets } from '../support/redaction.js';
import { descriptorOf } from '../kinds/index.js';
import { problemAt, type Entry, type FoundProblem } from './entries.js';

export interface SecretStageOptions {
  secretIo: Partial<SecretIo>;
  hmac: (value: string) => string;
}

export interface ResolvedSecrets {
  /** Per sound entry, its values by the descriptor's secret path. */
  values: Map<Entry, Map<string, SecretValue>>;
  warnings: FoundProblem[];
}

/** What a reference that cannot be resolved here means for the plan and the apply (docs/secrets.md). */
export const UNKNOWN_SECRET_NOTE =
  'unknown in this plan; the plan shows no change it cannot know, and apply refuses only a write that would send it';

const PLAIN_SECRET_WARNING =
  'is a plain string in the manifest; use {fromEnv: NAME} or {fromFile: PATH} to keep secrets out of Git';

/** Resolves the secret references of every entry that passed its schema. */
export function resolveSecrets(entries: readonly Entry[], options: SecretStageOptions): ResolvedSecrets {
  const result: ResolvedSecrets = { values: new Map(), warnings: [] };
  for (const entry of entries) {
    const manifest = entry.manifest;
    if (!manifest) continue;
    const sites = descriptorOf(manifest.kind).manifests.secrets?.(manifest) ?? [];
    if (sites.length === 0) continue;
    const values = new Map<string, SecretValue>();
    const baseDir = secretBaseDir(entry.doc.file);
    for (const site of sites) {
      if (typeof site.ref === 'string')
        result.warnings.push(problemAt(entry, 'E_MANIFEST_INVALID', site.pointer, PLAIN_SECRET_WARNING));
      const value = resolveOne(anchorSecret(site.ref as SecretRef, baseDir), options.secretIo);
      if (typeof value === 'string') values.set(site.path, { value, hmac: options.hmac(value) });
      else {
        values.set(site.path, { value: '', hmac: '', unknown: value.message });
        result.warnings.push(
          problemAt(entry, 'E_SECRET_MISSING', site.pointer, `${value.message}: ${UNKNOWN_SECRET_NOTE}`),
        );
      }
    }
    registerPairs(values);
    result.values.set(entry, values);
  }
  return result;
}

/**
 * Each value is registered with the run's secrets as it is resolved (config/secrets.ts); a
 * `username` and `password` side by side are also sent as one `user:pass` (SASL PLAIN, Basic),
 * whose base64 holds neither part's, so the pair is registered too.
 */
function registerPairs(values: ReadonlyMap<string, SecretValue>): void {
  for (const [path, first] of values) {
    const dot = path.lastIndexOf('.');
    const parent = path.slice(0, dot + 1);
    for (const [left, right] of CREDENTIAL_PAIRS) {
      const second = path.slice(dot + 1) === left ? values.get(`${parent}${right}`) : undefined;
      if (second !== undefined) runSecrets.register([`${first.value}:${second.value}`]);
    }
  }
}

function resolveOne(ref: SecretRef, io: Partial<SecretIo>): string | { message: string } {
  try {
    return resolveSecret(ref, io);
  } catch (error) {
    if (isStacksyncError(error, 'E_SECRET_MISSING')) return { message: error.message };
    throw error;
  }
}
