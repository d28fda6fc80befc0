/**
 * Which targets a change of manifest files concerns, so that saving a file syncs the targets whose
 * documents it holds and not every target: each sync reads its target's whole live state, and a
 * target the edit does not touch would only compete with the one it does.
 *
 * A file concerns the targets of its documents before the change and after it (a document moved
 * from one target to another concerns both). Whatever cannot be told exactly concerns every
 * target, as every change did before: a swap of the checkout, a directory, a file whose earlier
 * content is not known (a new file, or one the last load could not read), a file with a problem
 * (which blocks every target's writes), a document with no configured target. A sync, once
 * started, still diffs the target's whole desired set against one fresh live read: this only
 * decides who syncs.
 */
import { readFile, stat } from 'node:fs/promises';
import type { Config } from '../model/config.js';
import type { ParseCache } from '../manifests/cache.js';
import { DEFAULT_MANIFEST_LIMITS, parseLimitsOf } from '../manifests/load.js';
import type { ParsedText } from '../manifests/parse.js';
import type { ManifestParser } from '../manifests/parser.js';
import { expandedTargets, identify } from '../manifests/resolve.js';
import { errnoCode } from '../support/fs.js';
import { MAX_PATHS, type ChangeReason } from './watch.js';

/** The targets one file's documents belong to, or every target. */
type Concern = ReadonlySet<string> | 'all';

export interface AffectedTargets {
  /** The targets to sync for this change; undefined for every target. */
  of(reason: ChangeReason): Promise<string[] | undefined>;
}

export interface AffectedTargetsOptions {
  config: Config;
  parser: ManifestParser;
  /** The daemon's parses: what a file held at the last load, before an edit's first event. */
  cache: ParseCache;
}

const MANIFEST_FILE = /\.ya?ml$/i;

export function trackAffectedTargets(options: AffectedTargetsOptions): AffectedTargets {
  const { config, parser, cache } = options;
  const configured = new Set(config.targets.map((target) => target.name));
  const limits = parseLimitsOf(DEFAULT_MANIFEST_LIMITS);
  /** For each file changed since the last swap of the checkout: what it held after its last change. */
  const known = new Map<string, Concern>();

  const concernOf = (parsed: ParsedText): Concern => {
    if (parsed.problems.length > 0) return 'all';
    const targets = new Set<string>();
    for (const document of parsed.documents) {
      if (document.value === null || document.value === undefined) continue;
      const expanded = expandedTargets(document.value, config);
      const names = expanded ? expanded.targets : [identify(document.value, config).target];
      for (const name of names) {
        if (name === undefined || !configured.has(name)) return 'all';
        targets.add(name);
      }
    }
    return targets;
  };

  /** What the file holds now: nothing when it is gone; every target when it is not a plain file. */
  const now = async (path: string): Promise<Concern> => {
    try {
      if (!(await stat(path)).isFile()) return 'all';
      const [parsed] = await parser.parse([await readFile(path)], limits);
      return parsed ? concernOf(parsed) : 'all';
    } catch (error) {
      return errnoCode(error) === 'ENOENT' ? new Set() : 'all';
    }
  };

  const before = async (path: string): Promise<Concern> => {
    const remembered = known.get(path);
    if (remembered !== undefined) return remembered;
    const parsed = await cache.lastParseOf(path)?.catch(() => undefined);
    return parsed ? concernOf(parsed) : 'all';
  };

  return {
    async of(reason) {
      if (reason.kind === 'checkout-swapped') {
        known.clear();
        return undefined;
      }
      if (reason.paths.length >= MAX_PATHS || reason.paths.some((path) => !MANIFEST_FILE.test(path))) return undefined;
      const targets = new Set<string>();
      let all = false;
      for (const path of reason.paths) {
        const [was, is] = await Promise.all([before(path), now(path)]);
        known.set(path, is);
        if (was === 'all' || is === 'all') all = true;
        else for (const name of [...was, ...is]) targets.add(name);
      }
      return all ? undefined : config.targets.map((target) => target.name).filter((name) => targets.has(name));
    },
  };
}
