/**
 * The export use case (onboarding): read one target's live state and write one manifest per
 * resource, so that `plan` on the result shows nothing to change; with `adopt`, record them in the
 * inventory so stacksync manages (and may prune) them from then on. What it wrote is then loaded
 * as `validate` loads a directory: a file `validate` would refuse is still written (nothing of
 * the live resource is lost), and each refusal is told with its file, line and member
 * (docs/export.md#what-validate-would-refuse).
 */
import { resolve } from 'node:path';
import { formatLocation } from '../errors.js';
import { loadManifests } from '../manifests/load.js';
import { throwawaySecretHasher } from '../state/hmac.js';
import type { LoadProblem } from '../model/desired.js';
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import { accessOf, descriptorOf, type KindAccess } from '../kinds/index.js';
import { profileOf } from '../config/profile.js';
import {
  exportLiveState,
  placeManifests,
  writeExportFiles,
  type ExportFile,
  type ExportOptions,
  type SkippedResource,
} from '../export/index.js';
import type { Target } from '../model/config.js';
import { ownedRecord } from '../state/inventory.js';
import { secretVars } from '../config/secrets.js';
import type { StateStore } from '../state/store.js';
import { targetNamed, type ReconcileContext } from './reconcile.js';

export interface ExportRequest {
  /** Default: the config's `defaultTarget`. */
  target?: string;
  outDir: string;
  /** Kinds to export; empty means all. */
  kinds: readonly Kind[];
  adopt: boolean;
  /** Overwrite files that exist. */
  force: boolean;
  /** Prefix of the `$schema` line; default a path to the repository's or the package's schemas/. */
  schemaBase?: string;
  /** Told about what the user should know but does not stop the export. */
  warn: (message: string) => void;
}

export interface ExportOutcome {
  target: string;
  files: ExportFile[];
  skipped: SkippedResource[];
  /** What `validate` would refuse in the files written, each at its file and line (the files are written all the same). */
  refused: LoadProblem[];
  adopted: boolean;
}

export async function exportTarget(
  ctx: Pick<ReconcileContext, 'config' | 'store' | 'apiFor' | 'env'>,
  request: ExportRequest,
): Promise<ExportOutcome> {
  const { config, store } = ctx;
  const target = targetNamed(config, request.target ?? config.defaultTarget);
  // 1. Read.
  // Kinds read on demand (a service-wide setting) too: export writes what the target has.
  const live = await ctx.apiFor(target).readLiveState(request.kinds.length > 0 ? request.kinds : KINDS);
  const access = (kind: Kind): KindAccess => accessOf(kind, target.variant, profileOf(target));
  for (const kind of request.kinds) {
    const descriptor = descriptorOf(kind);
    if (access(kind) === 'none')
      request.warn(
        `target ${target.name} (${target.variant}, api profile ${profileOf(target)}) has no ${descriptor.collection}`,
      );
    else if (access(kind) === 'read')
      request.warn(
        `target ${target.name} only lists its ${descriptor.collection}: manifests name them, but none is exported`,
      );
  }
  // 2. Convert (pure), keeping the keys the inventory already knows.
  const result = exportLiveState(live, {
    target: target.name,
    setTarget: target.name !== config.defaultTarget,
    kinds: request.kinds.length > 0 ? request.kinds : KINDS,
    owned: ownedKeys(store, target.name),
    secretVars: secretVars(target, { env: ctx.env }),
    access,
  });
  // 3. Write, then record ownership.
  const files = placeManifests(result.manifests, {
    outDir: request.outDir,
    target: target.name,
    ...(request.schemaBase !== undefined ? { schemaBase: request.schemaBase } : {}),
  });
  await writeExportFiles(files, { force: request.force });
  // 4. Check what was written as validate would; each refusal told, nothing taken back.
  const refused = await refusedByValidate(ctx, request.outDir, files);
  for (const problem of refused)
    request.warn(`${formatLocation(problem.location)}: ${problem.code}: ${problem.message}`);
  if (refused.length > 0) request.warn(refusedAdvice(new Set(refused.map((problem) => problem.location.file)).size));
  if (request.adopt) await adopt(store, target.name, files);
  return { target: target.name, files, skipped: result.skipped, refused, adopted: request.adopt };
}

/**
 * The problems `validate` finds in the files just written: the output directory loaded with the
 * config, as `stacksync validate -m DIR` loads it (so a name or a reference that clashes with a
 * manifest already there counts too), kept to those files. A throwaway HMAC key, as validate's:
 * no hash is kept.
 */
async function refusedByValidate(
  ctx: Pick<ReconcileContext, 'config' | 'env'>,
  outDir: string,
  files: readonly ExportFile[],
): Promise<LoadProblem[]> {
  if (files.length === 0) return [];
  const written = new Set(files.map((file) => resolve(file.path)));
  const loaded = await loadManifests(outDir, { config: ctx.config, env: ctx.env, hmac: throwawaySecretHasher() });
  return loaded.problems.filter((problem) => written.has(resolve(problem.location.file)));
}

/** What to do about files validate would refuse: the live resource carries what a manifest cannot say, or lacks what it must. */
function refusedAdvice(count: number): string {
  const files = count === 1 ? '1 exported file' : `${count} exported files`;
  return (
    `${files} would not pass \`stacksync validate\` (above): written as the live resource has it, which its manifest cannot hold. ` +
    'Fix the member named in the file (or the resource in the console, then export again with --force) before plan or apply'
  );
}

/**
 * How `pull` and `state forget` write one target's live objects in manifest terms: its own
 * keys as the inventory knows them (what other manifests name), `metadata.target` left out.
 */
export function inventoryExportOptions(
  ctx: Pick<ReconcileContext, 'store' | 'env'>,
  target: Target,
  kinds: readonly Kind[],
): ExportOptions {
  return {
    target: target.name,
    setTarget: false,
    kinds,
    owned: ownedKeys(ctx.store, target.name),
    secretVars: secretVars(target, { env: ctx.env }),
    access: (kind) => accessOf(kind, target.variant, profileOf(target)),
  };
}

/** Live id → key for what the inventory already holds, so a re-export keeps those keys. */
function ownedKeys(store: StateStore, target: string): Record<Kind, Map<string, string>> {
  const inventory = store.get(target).inventory;
  return Object.fromEntries(
    KINDS.map((kind) => [kind, new Map(Object.entries(inventory[kind]).map(([key, entry]) => [entry.id, key]))]),
  ) as Record<Kind, Map<string, string>>;
}

/** Records every exported resource as owned, in one durable write. */
async function adopt(store: StateStore, target: string, files: readonly ExportFile[]): Promise<void> {
  store.add(
    target,
    ...files.map(({ manifest }) =>
      ownedRecord(manifest.kind, manifest.key, { id: manifest.id, name: manifest.liveName }),
    ),
  );
  await store.save();
}
