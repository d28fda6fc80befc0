/**
 * The export use case (onboarding): read one target's live state and write one manifest per
 * resource, so that `plan` on the result shows nothing to change; with `adopt`, record them in the
 * inventory so stacksync manages (and may prune) them from then on.
 */
import { KINDS, type Kind } from '../model/kinds.js';
import { accessOf, descriptorOf, type KindAccess } from '../kinds/index.js';
import { profileOf } from '../config/profile.js';
import { exportLiveState, placeManifests, writeExportFiles, type ExportFile, type SkippedResource } from '../export/index.js';
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
  adopted: boolean;
}

export async function exportTarget(ctx: Pick<ReconcileContext, 'config' | 'store' | 'apiFor' | 'env'>, request: ExportRequest): Promise<ExportOutcome> {
  const { config, store } = ctx;
  const target = targetNamed(config, request.target ?? config.defaultTarget);
  // 1. Read.
  // Kinds read on demand (a service-wide setting) too: export writes what the target has.
  const live = await ctx.apiFor(target).readLiveState(request.kinds.length > 0 ? request.kinds : KINDS);
  const access = (kind: Kind): KindAccess => accessOf(kind, target.variant, profileOf(target));
  for (const kind of request.kinds) {
    const descriptor = descriptorOf(kind);
    if (access(kind) === 'none') request.warn(`target ${target.name} (${target.variant}, api profile ${profileOf(target)}) has no ${descriptor.collection}`);
    else if (access(kind) === 'read') request.warn(`target ${target.name} only lists its ${descriptor.collection}: manifests name them, but none is exported`);
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
  if (request.adopt) await adopt(store, target.name, files);
  return { target: target.name, files, skipped: result.skipped, adopted: request.adopt };
}

/** Live id → key for what the inventory already holds, so a re-export keeps those keys. */
function ownedKeys(store: StateStore, target: string): Record<Kind, Map<string, string>> {
  const inventory = store.get(target).inventory;
  return Object.fromEntries(KINDS.map((kind) => [kind, new Map(Object.entries(inventory[kind]).map(([key, entry]) => [entry.id, key]))])) as Record<Kind, Map<string, string>>;
}

/** Records every exported resource as owned, in one durable write. */
async function adopt(store: StateStore, target: string, files: readonly ExportFile[]): Promise<void> {
  store.add(target, ...files.map(({ manifest }) => ownedRecord(manifest.kind, manifest.key, { id: manifest.id, name: manifest.liveName })));
  await store.save();
}
