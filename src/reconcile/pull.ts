/**
 * The pull use case: the plan of each target says which managed resources differ live and in
 * which members; export's conversion gives their live values in manifest terms; `pull/` writes
 * those members into the manifests' own texts (docs/pull.md). Reads the API and the manifests,
 * never writes the API or the state.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Kind } from '../model/kinds.js';
import type { Change, PlanError } from '../model/plan.js';
import type { DesiredResource } from '../kinds/index.js';
import { exportLiveState } from '../export/index.js';
import {
  pullEdits,
  type DeletedResource,
  type PullProblem,
  type PullResult,
  type ResourceEdit,
} from '../pull/index.js';
import { errnoCode, nodeFs, writeFileAtomically } from '../support/fs.js';
import { StacksyncError } from '../errors.js';
import type { StateStore } from '../state/store.js';
import { computePlan, planRequestFor, type ReconcileContext, type RunPlan, type TargetRun } from './reconcile.js';
import { inventoryExportOptions } from './export.js';

export interface PullRequest {
  /** Only these targets (default: every configured target). */
  targets?: readonly string[];
  /** Only these kinds (default: all). */
  kinds?: readonly Kind[];
  /** Only these resources, `{ kind, name }` by `metadata.name` (default: every managed resource). */
  subjects?: readonly { kind: Kind; name: string }[];
}

/** What `pullTargets` found: the new texts (not yet written), and what it could not pull. */
export type PullOutcome = PullResult;

export async function pullTargets(ctx: ReconcileContext, request: PullRequest): Promise<PullOutcome> {
  const run = await computePlan(
    ctx,
    planRequestFor(ctx.config, {
      ...(request.targets ? { targets: request.targets } : {}),
      prune: false,
      adopt: false,
    }),
  );
  return pullPlanned(ctx, run, request);
}

/**
 * The pull of a plan already made: `stacksync pull` plans for it, the daemon's `sync.drift:
 * propose` hands the plan of the sync that found the drift, with `changes` its drifted changes
 * (docs/daemon.md, "Drift proposed as a branch"), so the live state is read and diffed once.
 */
export async function pullPlanned(
  ctx: ReconcileContext,
  run: RunPlan,
  request: PullRequest & { changes?: readonly Change[] },
): Promise<PullOutcome> {
  const errors: PullProblem[] = run.plan.errors.map(problemOf);
  const edits: ResourceEdit[] = [];
  const deleted: DeletedResource[] = [];
  const only = request.changes;
  const wanted = (change: Change): boolean =>
    (request.targets === undefined || request.targets.length === 0 || request.targets.includes(change.target)) &&
    (only === undefined ||
      only.some((each) => each.target === change.target && each.kind === change.kind && each.name === change.name)) &&
    (request.kinds === undefined || request.kinds.length === 0 || request.kinds.includes(change.kind)) &&
    (request.subjects === undefined ||
      request.subjects.length === 0 ||
      request.subjects.some((subject) => subject.kind === change.kind && subject.name === change.name));
  for (const targetRun of run.targets) {
    const changes = targetRun.changes.filter((change) => wanted(change) && isManaged(ctx.store, change));
    const found = collect(ctx, targetRun, changes, run.load.resources);
    edits.push(...found.edits);
    deleted.push(...found.deleted);
    errors.push(...found.errors);
  }
  for (const subject of request.subjects ?? []) {
    if (!run.load.resources.some((resource) => resource.kind === subject.kind && resource.key === subject.name)) {
      errors.push({
        kind: subject.kind,
        key: subject.name,
        message: `no manifest of ${subject.kind} ${subject.name} was loaded`,
      });
    }
  }
  const texts = await readTexts(edits.map((edit) => edit.file));
  const result = pullEdits({ edits, deleted, texts });
  return { ...result, errors: [...errors, ...result.errors] };
}

/** Writes each pulled file atomically, keeping its mode; a symlinked manifest is written where it leads, the link kept. */
export async function writePulledFiles(files: PullResult['files']): Promise<void> {
  for (const file of files) {
    try {
      const real = await realpath(file.path);
      const { mode } = await stat(real);
      await writeFileAtomically(nodeFs, real, file.after, mode & 0o7777);
    } catch (error) {
      throw new StacksyncError('E_USAGE', `cannot write ${file.path} (${errnoCode(error) ?? String(error)})`, {
        subject: file.path,
        cause: error,
      });
    }
  }
}

/** Only what the inventory holds is pulled: a same-named live resource nobody adopted is export's business. */
function isManaged(store: StateStore, change: Change): boolean {
  return store.get(change.target).inventory[change.kind][change.name] !== undefined;
}

function collect(
  ctx: ReconcileContext,
  targetRun: TargetRun,
  changes: readonly Change[],
  resources: readonly DesiredResource[],
): { edits: ResourceEdit[]; deleted: DeletedResource[]; errors: PullProblem[] } {
  const result = { edits: [] as ResourceEdit[], deleted: [] as DeletedResource[], errors: [] as PullProblem[] };
  const { target, live } = targetRun;
  if (!live || changes.length === 0) return result;
  // The live values as export writes them, keys as the inventory knows them (what alerts name).
  const exported = exportLiveState(
    live,
    inventoryExportOptions(ctx, target, [...new Set(changes.map((change) => change.kind))]),
  );
  for (const change of changes) {
    const resource = resources.find(
      (each) => each.target === target.name && each.kind === change.kind && each.key === change.name,
    );
    const at = {
      file: change.file ?? resource?.location.file,
      ...(change.line !== undefined ? { line: change.line } : {}),
      kind: change.kind,
      key: change.name,
    };
    if (change.action === 'create' && resource) {
      result.deleted.push({
        kind: change.kind,
        key: change.name,
        file: fileOf(ctx, resource.location.file),
        ...(resource.location.line !== undefined ? { line: resource.location.line } : {}),
      });
    } else if (change.action === 'error') {
      result.errors.push({ ...at, message: `${change.kind} ${change.name}: ${change.error ?? 'cannot be planned'}` });
    } else if (change.action === 'update' && resource && change.id !== undefined) {
      const manifest = exported.manifests.find((each) => each.kind === change.kind && each.id === change.id);
      if (!manifest) {
        const skipped = exported.skipped.find((each) => each.kind === change.kind && each.id === change.id);
        result.errors.push({
          ...at,
          message: `${change.kind} ${change.name}: its live value cannot be written as a manifest (${skipped?.reason ?? 'export skips it'})`,
        });
        continue;
      }
      // One document applied to several targets stands for each: none of them alone decides it.
      const shared = resources
        .filter(
          (each) =>
            each.kind === resource.kind &&
            each.location.file === resource.location.file &&
            each.location.line === resource.location.line &&
            each.location.item === resource.location.item,
        )
        .map((each) => each.target);
      result.edits.push({
        kind: change.kind,
        key: change.name,
        file: fileOf(ctx, resource.location.file),
        line: resource.location.line ?? 1,
        ...(resource.location.item !== undefined ? { item: resource.location.item } : {}),
        paths: change.diff.map((diff) => diff.path),
        live: manifest.document.spec,
        ...(resource.policy?.ignore ? { ignore: resource.policy.ignore } : {}),
        ...(shared.length > 1 ? { targets: shared } : {}),
      });
    }
  }
  return result;
}

/**
 * The file a location names: a daemon loads a checkout and names its files as the manifests
 * directory it was given (`shownAs`), so the path inside it is joined to where it was loaded from.
 */
function fileOf(ctx: ReconcileContext, shown: string): string {
  const shownAs = ctx.manifests?.shownAs;
  if (shownAs === undefined) return shown;
  const inside = relative(shownAs, shown);
  return inside.startsWith('..') ? shown : join(ctx.manifestsDir, inside);
}

async function readTexts(files: readonly string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const file of new Set(files)) {
    try {
      texts.set(file, await readFile(file, 'utf8'));
    } catch {
      // Missing from the map: pullEdits reports the file as unreadable.
    }
  }
  return texts;
}

function problemOf(error: PlanError): PullProblem {
  return {
    ...(error.file !== undefined ? { file: error.file } : {}),
    ...(error.line !== undefined ? { line: error.line } : {}),
    message: error.target !== undefined && error.file === undefined ? error.message : `${error.code}: ${error.message}`,
  };
}
