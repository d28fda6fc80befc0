/**
 * The orchestrator that `plan`, `apply` and the daemon share. It reads as its stages:
 * load manifests → per target: read live → diff → (apply → record). Pure planning lives in
 * diff/ and plan/; this module only sequences I/O around it and never decides exit codes.
 */
import type { Logger } from 'pino';
import type { LiveState } from '../model/resources.js';
import type { Api } from '../api/port.js';
import { applyPlan, type ApplyResults } from '../apply/executor.js';
import type { ApplyEvent } from '../apply/events.js';
import type { Config, Target } from '../model/config.js';
import { checkPruneCaps, planTarget } from '../diff/index.js';
import { StacksyncError, isStacksyncError } from '../errors.js';
import { loadManifests } from '../manifests/load.js';
import type { LoadProblem, LoadResult } from '../model/desired.js';
import { buildPlan, changeRef, requiredChanges } from '../plan/build.js';
import type { Change, ChangeResult, Plan, PlanError } from '../model/plan.js';
import { managedCount, refreshInventory } from '../state/inventory.js';
import type { SecretHasher } from '../state/hmac.js';
import type { StateStore } from '../state/store.js';

/** What one run needs; built once by the CLI or the daemon. */
export interface ReconcileContext {
  config: Config;
  manifestsDir: string;
  store: StateStore;
  hasher: SecretHasher;
  /** The client of a target; throws (e.g. `E_SECRET_MISSING`) when it cannot be built. */
  apiFor: (target: Target) => Api;
  /** Environment for secret references in manifests. */
  env: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
}

export interface PlanRequest {
  /** Only these targets (default: every configured target). */
  targets?: readonly string[];
  prune: boolean;
  adopt: boolean;
}

/** One target's part of a run. */
export interface TargetRun {
  target: Target;
  changes: Change[];
  /** A manifest of this target failed to load: nothing of it is deleted. */
  blocked: boolean;
  /** The live state could not be read; no changes were planned. */
  failed?: PlanError;
  live?: LiveState;
}

export interface RunPlan {
  plan: Plan;
  load: LoadResult;
  targets: TargetRun[];
}

/** Plans every requested target. Never throws for a target's API failure: it becomes a plan error. */
export async function computePlan(ctx: ReconcileContext, request: PlanRequest): Promise<RunPlan> {
  const targets = selectTargets(ctx.config, request.targets);

  // 1. One consistent snapshot of the manifests.
  const load = await loadManifests(ctx.manifestsDir, { config: ctx.config, env: ctx.env, hmac: ctx.hasher });

  // 2. Per target, in parallel: live state, then the pure diff.
  const runs = await Promise.all(targets.map((target) => planOneTarget(ctx, target, load, request)));

  // 3. Assemble the plan.
  const errors = [...load.problems.filter((p) => inScope(p, targets)).map(problemToPlanError), ...runs.flatMap((run) => (run.failed ? [run.failed] : []))];
  const warnings = [...load.warnings.map(problemToPlanError), ...runs.flatMap((run) => pruneHeldBack(run, request))];
  const plan = buildPlan(
    runs.flatMap((run) => run.changes),
    errors,
    warnings,
  );
  return { plan, load, targets: runs };
}

async function planOneTarget(ctx: ReconcileContext, target: Target, load: LoadResult, request: PlanRequest): Promise<TargetRun> {
  const blocked = load.blockedTargets.has(target.name) || load.blockedTargets.has('*');
  let live: LiveState;
  try {
    live = await ctx.apiFor(target).readLiveState();
  } catch (error) {
    ctx.logger?.warn({ target: target.name, code: errorCode(error) }, 'cannot read live state');
    return { target, changes: [], blocked, failed: targetError(target.name, error) };
  }
  const changes = planTarget({
    target: { name: target.name, variant: target.variant },
    desired: load.resources,
    live,
    state: ctx.store.get(target.name),
    options: { prune: request.prune, adopt: request.adopt, blocked },
  });
  return { target, changes, blocked, live };
}

export interface ApplyRequest {
  force: boolean;
  adopt: boolean;
  signal?: AbortSignal;
  onEvent?: (target: string, event: ApplyEvent) => void;
}

export interface RunResult {
  /** By `target/Kind/name` (`changeRef`). */
  results: Map<string, ChangeResult>;
  /** Prune refusals and other target-level failures, for the report and the exit code. */
  errors: PlanError[];
}

/** Applies a computed plan, every target independently; a refused prune deletes nothing of its target. */
export async function executePlan(ctx: ReconcileContext, run: RunPlan, request: ApplyRequest): Promise<RunResult> {
  const results = new Map<string, ChangeResult>();
  const errors: PlanError[] = [];
  const emptySnapshot = run.load.resources.length === 0 && run.load.problems.length === 0;
  await Promise.all(
    run.targets.map(async (targetRun) => {
      if (targetRun.failed) return;
      // Forget entries and intents that name nothing live, before the caps count what is managed.
      const live = targetRun.live;
      if (live) ctx.store.update(targetRun.target.name, (state) => refreshInventory(state, live));
      const { changes, refused, refusal } = guardDeletes(ctx, targetRun, request.force, emptySnapshot);
      if (refusal) errors.push(refusal);
      const applied = await applyTarget(ctx, targetRun.target, changes, request);
      for (const [key, result] of applied) results.set(`${targetRun.target.name}/${key}`, result);
      if (refusal) markRefused(refused, results, refusal.message);
    }),
  );
  return { results, errors };
}

interface Guarded {
  /** What may run. */
  changes: Change[];
  /** Refused deletes, and the changes held back because they need one of them first. */
  refused: Change[];
  refusal?: PlanError;
}

/** Drops the deletes of a target when the safety caps refuse them, with whatever waits on them. */
function guardDeletes(ctx: ReconcileContext, run: TargetRun, force: boolean, emptySnapshot: boolean): Guarded {
  const deletes = run.changes.filter((change) => change.action === 'delete');
  const refusal = deletes.length === 0 ? undefined : pruneRefusal(ctx, run, deletes.length, force, emptySnapshot);
  if (!refusal) return { changes: run.changes, refused: [] };
  // A change ordered after a delete (a dashboard update removing the tile a pruned alert watches)
  // would make the server delete it anyway, so it is held back with the delete.
  const refused = withDependents(run.changes, deletes);
  return { changes: run.changes.filter((change) => !refused.includes(change)), refused, refusal };
}

function pruneRefusal(ctx: ReconcileContext, run: TargetRun, deletes: number, force: boolean, emptySnapshot: boolean): PlanError | undefined {
  if (emptySnapshot && !force) {
    const message = `prune refused: the manifests directory holds no resources, so all ${deletes} managed resources of target ${run.target.name} would be deleted; rerun with --force if that is what you want`;
    return { target: run.target.name, code: 'E_PRUNE_REFUSED', message };
  }
  const check = checkPruneCaps(run.changes, {
    managedCount: managedCount(ctx.store.get(run.target.name)),
    maxDeletes: ctx.config.sync.maxDeletes,
    maxDeletePercent: ctx.config.sync.maxDeletePercent,
    force,
  });
  return check.ok ? undefined : { target: run.target.name, code: 'E_PRUNE_REFUSED', message: `target ${run.target.name}: ${check.message}` };
}

/** `roots` plus every change that requires one of them, transitively (dependsOn and alert refs). */
function withDependents(changes: readonly Change[], roots: readonly Change[]): Change[] {
  const held = new Set(roots);
  const keys = new Set(roots.map((change) => `${change.kind}/${change.name}`));
  for (let grown = true; grown; ) {
    grown = false;
    for (const change of changes) {
      if (held.has(change) || !requiredChanges(change).some((key) => keys.has(key))) continue;
      held.add(change);
      keys.add(`${change.kind}/${change.name}`);
      grown = true;
    }
  }
  return changes.filter((change) => held.has(change));
}


function markRefused(refused: readonly Change[], results: Map<string, ChangeResult>, message: string): void {
  for (const change of refused) {
    const why = change.action === 'delete' ? message : `held back: it needs a delete the prune caps refused (${message})`;
    results.set(changeRef(change), { result: 'skipped', error: why });
  }
}

async function applyTarget(ctx: ReconcileContext, target: Target, changes: Change[], request: ApplyRequest): Promise<ApplyResults> {
  return applyPlan(changes, {
    api: ctx.apiFor(target),
    store: ctx.store,
    target: target.name,
    concurrency: target.rateLimit.concurrency,
    adopt: request.adopt,
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.onEvent ? { onEvent: (event: ApplyEvent) => request.onEvent?.(target.name, event) } : {}),
  });
}

/** A requested prune that a manifest problem blocks must be visible, not silently skipped. */
function pruneHeldBack(run: TargetRun, request: PlanRequest): PlanError[] {
  if (!request.prune || !run.blocked || run.failed) return [];
  const message = `prune held back for target ${run.target.name}: its manifests have errors, so nothing of it is deleted until they are fixed`;
  return [{ target: run.target.name, code: 'E_PRUNE_REFUSED', message }];
}

function selectTargets(config: Config, names: readonly string[] | undefined): Target[] {
  if (!names || names.length === 0) return config.targets;
  return names.map((name) => {
    const target = config.targets.find((candidate) => candidate.name === name);
    if (!target) throw unknownTarget(config, name);
    return target;
  });
}

function unknownTarget(config: Config, name: string): StacksyncError {
  const known = config.targets.map((target) => target.name).join(', ');
  return new StacksyncError('E_USAGE', `target ${name} is not configured (configured: ${known})`);
}

/** Problems of targets outside the run are not this run's business, but unattributed ones are. */
function inScope(problem: LoadProblem, targets: readonly Target[]): boolean {
  return problem.target === undefined || problem.target === '*' || targets.some((target) => target.name === problem.target);
}

export function problemToPlanError(problem: LoadProblem): PlanError {
  const error: PlanError = { file: problem.location.file, code: problem.code, message: problem.message };
  if (problem.location.line !== undefined) error.line = problem.location.line;
  if (problem.location.column !== undefined) error.column = problem.location.column;
  if (problem.target !== undefined) error.target = problem.target;
  return error;
}

function targetError(target: string, error: unknown): PlanError {
  const message = error instanceof Error ? error.message : String(error);
  // Errors from resolving a target's credentials already name it.
  const prefix = `target ${target}: `;
  return { target, code: errorCode(error), message: message.startsWith(prefix) ? message : `${prefix}${message}` };
}

function errorCode(error: unknown): string {
  return isStacksyncError(error) ? error.code : 'E_INTERNAL';
}
