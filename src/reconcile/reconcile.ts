/**
 * The orchestrator that `plan`, `apply` and the daemon share. It reads as its stages:
 * load manifests → per target: read live → diff → (apply → record). Pure planning lives in
 * diff/ and plan/; this module only sequences I/O around it and never decides exit codes.
 */
import type { Logger } from 'pino';
import type { Api, ServerCheck } from '../api/port.js';
import { applyPlan, type ApplyResults } from '../apply/schedule.js';
import type { ApplyEvent } from '../apply/events.js';
import type { WaitOptions } from '../apply/await-ready.js';
import type { Config, Target } from '../model/config.js';
import {
  guardDeletes,
  holdBackBlocked,
  markDrift,
  pipeHealthWarnings,
  plannedProblemHoldsBack,
  plannedTenantsHeldBack,
  planTargetAsking,
  pruneHeldBack,
  refusedResults,
  tenantWritesHeldBack,
  withPruneHeldBack,
  withTenantPrunesHeldBack,
  writesHeldBack,
  type PlanTargetInput,
} from '../diff/index.js';
import { StacksyncError, errorCodeOf } from '../errors.js';
import { loadManifests, type LoadManifestsOptions } from '../manifests/load.js';
import type { LoadProblem } from '../model/desired.js';
import {
  deferredKinds,
  deferredKindsInState,
  unreadKindsOf,
  withKindsRead,
  type DesiredResource,
  type LiveState,
  type LoadedManifests,
} from '../kinds/index.js';
import type { Kind } from '../model/kinds.js';
import { buildPlan } from '../plan/build.js';
import {
  addOutcomes,
  changeKey,
  changeRef,
  isWrite,
  noOutcomes,
  outcomeOf,
  withOutcome,
  type Change,
  type ChangeKey,
  type ChangeResult,
  type Operation,
  type OutcomeCounts,
  type Plan,
  type PlanError,
  type WriteBody,
} from '../model/plan.js';
import { inventoryEntry, managedCount, specRecord, staleRecords, type IntentExpiry } from '../state/inventory.js';
import { specDigest } from './spec.js';
import type { StateRecord, TargetState } from '../model/state.js';
import { profileOf } from '../config/profile.js';
import { MANAGED_MARK } from '../schema/config.js';
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
  /**
   * A long-running process's parse workers and cache, kept from load to load (see
   * `manifests/load.ts`), and how files are named when `manifestsDir` is a resolved checkout.
   */
  manifests?: Pick<LoadManifestsOptions, 'parser' | 'cache' | 'shownAs'>;
  /** Milliseconds since the epoch; default `Date.now`. What create intents are judged against. */
  now?: () => number;
}

export interface PlanRequest {
  /** Only these targets (default: every configured target). */
  targets?: readonly string[];
  prune: boolean;
  adopt: boolean;
  /**
   * `apply --allow-partial`: apply the valid manifests of a target even when others of it failed
   * to load (never its deletes). Default false: such a target gets no writes at all.
   */
  allowPartial?: boolean;
  /** Targets suspended at run time (`POST /-/suspend`), on top of those the config suspends. */
  suspendedTargets?: readonly string[];
  /**
   * Ask each target that offers a check route (`dashboards/validate`) about every write it could
   * check, and turn a refused one into an error at its manifest (`plan`; off: `--no-server-validate`).
   */
  serverValidate?: boolean;
}

/** What the command line may override of the config's `sync` settings. */
export interface RunOverrides {
  targets?: readonly string[];
  prune?: boolean;
  adopt?: boolean;
  allowPartial?: boolean;
  serverValidate?: boolean;
}

/** The one place the config's `sync.prune` / `sync.adopt` meet `--prune` / `--adopt`. */
export function planRequestFor(config: Config, overrides: RunOverrides = {}): PlanRequest {
  return {
    ...(overrides.targets ? { targets: overrides.targets } : {}),
    prune: overrides.prune ?? config.sync.prune,
    adopt: overrides.adopt ?? config.sync.adopt,
    ...(overrides.allowPartial ? { allowPartial: true } : {}),
    ...(overrides.serverValidate ? { serverValidate: true } : {}),
  };
}

/** One target's part of a run. */
export interface TargetRun {
  target: Target;
  changes: Change[];
  /** A manifest of this target failed to load: nothing of it is deleted. */
  blocked: boolean;
  /** Tenants whose manifests have problems: none of their writes to this target is applied, nor their deletes. */
  heldTenants: Set<string>;
  /** The live state could not be read; no changes were planned. */
  failed?: PlanError;
  live?: LiveState;
}

export interface RunPlan {
  plan: Plan;
  load: LoadedManifests;
  targets: TargetRun[];
  /** What was asked for; applying the plan follows the same choices. */
  request: PlanRequest;
}

/** Plans every requested target. Never throws for a target's API failure: it becomes a plan error. */
export async function computePlan(ctx: ReconcileContext, request: PlanRequest): Promise<RunPlan> {
  const targets = selectTargets(ctx.config, request.targets);

  // 1. The live state of each target, read while the manifests load: neither needs the other.
  const reads = new Map(targets.map((target) => [target.name, readLive(ctx, target)]));

  // 2. One consistent snapshot of the manifests.
  const load = await loadManifests(ctx.manifestsDir, {
    config: ctx.config,
    env: ctx.env,
    hmac: ctx.hasher,
    ...ctx.manifests,
    ...(ctx.logger ? { logger: ctx.logger } : {}),
  });

  // 3. Per target: the pure diff.
  const runs = await Promise.all(
    targets.map((target) => planOneTarget(ctx, target, load, request, reads.get(target.name) as Promise<LiveRead>)),
  );

  // 4. Assemble the plan.
  const errors = [
    ...load.problems.filter((p) => inScope(p, targets)).map(problemToPlanError),
    ...runs.flatMap((run) => (run.failed ? [run.failed] : [])),
  ];
  const warnings = [
    ...load.warnings.map(problemToPlanError),
    ...runs.flatMap((run) =>
      run.failed ? [] : pruneHeldBack(run.target.name, request.prune, run.blocked, run.heldTenants),
    ),
    ...runs.flatMap((run) =>
      run.failed ? [] : writesHeldBack(run.target.name, run.changes, run.blocked, request.allowPartial === true),
    ),
    ...runs.flatMap((run) =>
      run.failed || run.blocked
        ? []
        : tenantWritesHeldBack(run.target.name, run.changes, run.heldTenants, request.allowPartial === true),
    ),
    ...runs.flatMap((run) => pipeHealthWarnings(run.changes)),
  ];
  const plan = buildPlan(
    runs.flatMap((run) => run.changes),
    errors,
    warnings,
  );
  return { plan, load, targets: runs, request };
}

type LiveRead = { live: LiveState } | { error: unknown };

/** Every list the target offers but the kinds it reads only when asked (`deferredKinds`), unless the state holds one of theirs. */
function readLive(ctx: ReconcileContext, target: Target): Promise<LiveRead> {
  const inState = deferredKindsInState(deferredKinds(target.variant, profileOf(target)), ctx.store.get(target.name));
  return (async () => ({ live: await ctx.apiFor(target).readLiveState(inState) }))().catch((error: unknown) => ({
    error,
  }));
}

/** What was read, with the unread kinds in `kinds` read too: a plan of a target that never asks for them makes no call for them. */
async function readAlso(
  ctx: ReconcileContext,
  target: Target,
  read: LiveRead,
  kinds: readonly Kind[],
): Promise<LiveRead> {
  if ('error' in read || kinds.length === 0) return read;
  try {
    return { live: withKindsRead(read.live, await ctx.apiFor(target).readKinds(kinds), kinds) };
  } catch (error) {
    return { error };
  }
}

/**
 * The pure plan of one target, and what it was made from. A kind left unread that the plan looks
 * at across kinds (a name to resolve, evidence of hidden tiles) is read, and the target planned
 * again: at most once per deferred kind, since each read leaves fewer unread.
 */
async function planReading(
  ctx: ReconcileContext,
  target: Target,
  read: LiveRead,
  input: Omit<PlanTargetInput, 'live'>,
): Promise<{ live: LiveState; changes: Change[] } | { error: unknown }> {
  let outcome = read;
  for (;;) {
    if ('error' in outcome) return outcome;
    const planned = planTargetAsking({ ...input, live: outcome.live });
    if (planned.asked.length === 0) return { live: outcome.live, changes: planned.changes };
    outcome = await readAlso(ctx, target, outcome, planned.asked);
  }
}

async function planOneTarget(
  ctx: ReconcileContext,
  target: Target,
  load: LoadedManifests,
  request: PlanRequest,
  read: Promise<LiveRead>,
): Promise<TargetRun> {
  const blocked = load.blockedTargets.has(target.name) || load.blockedTargets.has('*');
  const heldTenants = new Set([...(load.heldTenants.get(target.name) ?? []), ...(load.heldTenants.get('*') ?? [])]);
  const desired = load.resources.filter((resource) => resource.target === target.name);
  // The deferred kinds of the target's own manifests are read before the plan.
  const first = await read;
  const outcome = await planReading(
    ctx,
    target,
    await readAlso(ctx, target, first, 'error' in first ? [] : unreadKindsOf(first.live, desired)),
    {
      target: { name: target.name, variant: target.variant, profile: profileOf(target) },
      desired,
      state: ctx.store.get(target.name),
      options: {
        prune: request.prune,
        adopt: request.adopt,
        blocked,
        suspended: isSuspended(target, request),
        lateCreateWindowMs: ctx.config.sync.lateCreateWindowMs,
        ...(ctx.config.sync.markManaged ? { mark: MANAGED_MARK } : {}),
      },
      nowMs: nowOf(ctx),
      broken: brokenSubjects(load, target.name),
    },
  );
  if ('error' in outcome) {
    // The plan carries the error itself; this line is for a daemon's log, not a second copy on a CLI's stderr.
    ctx.logger?.info({ target: target.name, code: errorCodeOf(outcome.error) }, 'cannot read live state');
    return { target, changes: [], blocked, heldTenants, failed: targetError(target.name, outcome.error) };
  }
  const { live } = outcome;
  let { changes } = outcome;
  const state = ctx.store.get(target.name);
  if (request.serverValidate) await checkWithServer(ctx.apiFor(target), changes);
  if (load.fileTenants) withTenants(changes, load.fileTenants, state);
  // One rule, whatever stage finds a manifest's problem: one found while planning holds back the target (or its tenant) as a load problem does.
  const heldByPlan = !blocked && plannedProblemHoldsBack(changes);
  if (heldByPlan) changes = withPruneHeldBack(changes);
  for (const tenant of plannedTenantsHeldBack(changes)) heldTenants.add(tenant);
  changes = withTenantPrunesHeldBack(changes, heldTenants);
  return {
    target,
    changes: markDrift(withSpecs(changes, desired), state),
    blocked: blocked || heldByPlan,
    heldTenants,
    live,
  };
}

/**
 * The writes the target can check without storing anything (a dashboard's create body, on a
 * server that offers `dashboards/validate`), asked together and paced by the target's budget:
 * one it refuses becomes an error at its manifest, with the server's reasons, and is not written.
 */
async function checkWithServer(api: Api, changes: Change[]): Promise<void> {
  await Promise.all(changes.map((change) => checkOne(api, change)));
}

async function checkOne(api: Api, change: Change): Promise<void> {
  if (!isWrite(change.action)) return;
  const operation = change.operations.find(hasBody);
  if (!operation) return;
  if (operation.refs !== undefined && Object.keys(operation.refs).length > 0) return;
  let check: ServerCheck | undefined;
  try {
    check = await api.validate(change.kind, operation.body);
  } catch (error) {
    change.warnings.push(
      `the target could not check it before apply (${error instanceof Error ? error.message : String(error)})`,
    );
    return;
  }
  if (!check || check.valid) return;
  const reasons = check.errors
    .map((problem) => (problem.path ? `${problem.path}: ${problem.message}` : problem.message))
    .join('; ');
  change.action = 'error';
  change.code = 'E_API_VALIDATION';
  change.error = `the target refuses it (its validate check: ${reasons || 'no reason given'}); nothing is written`;
  change.operations = [];
  delete change.secretHashes;
}

function hasBody(operation: Operation): operation is Extract<Operation, { body: WriteBody }> {
  return 'body' in operation;
}

function nowOf(ctx: ReconcileContext): number {
  return (ctx.now ?? Date.now)();
}

function isSuspended(target: Target, request: PlanRequest): boolean {
  return target.suspend === true || (request.suspendedTargets?.includes(target.name) ?? false);
}

/**
 * Each change names its tenant (docs/many-services.md#tenants): its manifest's, or for what no
 * manifest names any more, the one the inventory recorded it for.
 */
function withTenants(changes: Change[], fileTenants: ReadonlyMap<string, string>, state: TargetState): void {
  for (const change of changes) {
    const tenant =
      change.file !== undefined
        ? fileTenants.get(change.file)
        : inventoryEntry(state, change.kind, change.name)?.tenant;
    if (tenant !== undefined) change.tenant = tenant;
  }
}

/**
 * Each change of a manifest carries the digest of its spec (as written, names unresolved):
 * recorded once applied, compared to tell drift. `desired`: the target's resources.
 */
function withSpecs(changes: Change[], desired: readonly DesiredResource[]): Change[] {
  const specs = new Map(desired.map((resource) => [changeKey(resource.kind, resource.key), resource]));
  for (const change of changes) {
    const resource = change.action === 'error' ? undefined : specs.get(changeKey(change.kind, change.name));
    if (resource && change.file !== undefined) change.spec = specDigest(resource);
    if (resource?.policy?.noPrune && change.file !== undefined) change.pruneDisabled = true;
  }
  return changes;
}

/**
 * Unchanged resources match their manifests, so their spec digests count as applied (what drift
 * is told by). Returns whether the state changed (it then needs a save).
 */
export function recordInSync(ctx: ReconcileContext, target: string, changes: readonly Change[]): boolean {
  const state = ctx.store.get(target);
  const records: StateRecord[] = [];
  for (const change of changes) {
    const record =
      change.action === 'unchanged' && change.spec !== undefined
        ? specRecord(state, change.kind, change.name, change.spec, change.pruneDisabled === true, change.tenant)
        : undefined;
    if (record) records.push(record);
  }
  if (records.length > 0) ctx.store.add(target, ...records);
  return records.length > 0;
}

export interface ApplyRequest {
  force: boolean;
  signal?: AbortSignal;
  onEvent?: (target: string, event: ApplyEvent) => void;
  /** `--allow-replace`: changes of create-only members delete and create the resource again. Default false. */
  allowReplace?: boolean;
  /**
   * How resources that settle asynchronously are waited for (`apply --wait`). Default: only where
   * a later operation of a change needs it (the daemon, which never blocks a sync on provisioning).
   */
  settle?: WaitOptions;
}

export interface RunResult {
  /** By `target/Kind/name` (`changeRef`). */
  results: Map<string, ChangeResult>;
  /** Prune refusals and other target-level failures, for the report and the exit code. */
  errors: PlanError[];
}

/**
 * Applies a computed plan, every target independently; a refused prune deletes nothing of its
 * target, and a target with manifest errors gets no writes (unless `allowPartial`).
 */
export async function executePlan(ctx: ReconcileContext, run: RunPlan, request: ApplyRequest): Promise<RunResult> {
  const results = new Map<string, ChangeResult>();
  const errors: PlanError[] = [];
  const emptySnapshot = run.load.resources.length === 0 && run.load.problems.length === 0;
  await Promise.all(
    run.targets.map(async (targetRun) => {
      if (targetRun.failed) return;
      const name = targetRun.target.name;
      // 1. Forget entries (and expired intents) that name nothing live, before the caps count what is
      //    managed; what is in sync counts as applied.
      const live = targetRun.live;
      if (live)
        ctx.store.add(
          name,
          ...staleRecords(ctx.store.get(name), live, nowOf(ctx), intentExpiry(ctx.config, run.load, targetRun)),
        );
      recordInSync(ctx, name, targetRun.changes);
      // 2. Prune's guard: refused deletes, and what waits on them, do not run.
      const { sync } = ctx.config;
      const caps = {
        managedCount: managedCount(ctx.store.get(name)),
        maxDeletes: sync.maxDeletes,
        maxDeletePercent: sync.maxDeletePercent,
        force: request.force,
      };
      const guarded = guardDeletes({ target: name, changes: targetRun.changes, caps, emptySnapshot });
      if (guarded.refusal) errors.push(guarded.refusal);
      // 3. A target with manifest errors gets no writes, unless partial applies are allowed.
      const held = holdBackBlocked({
        target: name,
        changes: guarded.changes,
        blocked: targetRun.blocked,
        heldTenants: targetRun.heldTenants,
        allowPartial: run.request.allowPartial === true,
      });
      // 4. Apply the rest; an orphan, a suspended resource or a waiting create is shown, never applied.
      const applicable = held.changes.filter(
        (change) => change.action !== 'orphan' && change.action !== 'suspended' && change.action !== 'waiting',
      );
      // The target's closing line counts every change the apply did not run too (held back, refused, waiting): one summary that adds up.
      const notRun = new Map([
        ...held.held,
        ...(guarded.refusal ? refusedResults(guarded.refused, guarded.refusal) : []),
      ]);
      const outside = targetRun.changes.filter(
        (change) => change.action === 'waiting' || notRun.has(changeRef(change)),
      );
      const extra = outside.reduce(
        (counts, change) => withOutcome(counts, outcomeOf(change, notRun.get(changeRef(change)))),
        noOutcomes(),
      );
      const applied = await applyTarget(ctx, targetRun.target, applicable, run.request.adopt, {
        ...request,
        ...withExtra(request, extra),
      });
      for (const [key, result] of applied) results.set(`${name}/${key}`, result);
      for (const [ref, result] of held.held) results.set(ref, result);
      if (guarded.refusal)
        for (const [ref, result] of refusedResults(guarded.refused, guarded.refusal)) results.set(ref, result);
    }),
  );
  return { results, errors };
}

/** `request` whose events of the target's closing line add `extra` to what the executor counted. */
function withExtra(request: ApplyRequest, extra: OutcomeCounts): Pick<ApplyRequest, 'onEvent'> {
  const onEvent = request.onEvent;
  if (!onEvent) return {};
  return {
    onEvent: (target, event) =>
      onEvent(
        target,
        event.type === 'apply-finished' ? { ...event, summary: addOutcomes(event.summary, extra) } : event,
      ),
  };
}

/**
 * What tells the intents of manifests that are gone: every manifest of the target, broken ones
 * included. None while a manifest of the target failed to load without its name being known:
 * it may be the one an intent belongs to.
 */
function intentExpiry(config: Config, load: LoadedManifests, run: TargetRun): IntentExpiry | undefined {
  const target = run.target.name;
  const unknown = (problem: LoadProblem): boolean =>
    problem.target === target ? problem.subject === undefined : problem.target === undefined || problem.target === '*';
  if (load.problems.some(unknown)) return undefined;
  const broken = brokenSubjects(load, target);
  const wanted = new Set<string>([
    ...load.resources
      .filter((resource) => resource.target === target)
      .map((resource) => changeKey(resource.kind, resource.key)),
    ...broken,
  ]);
  return { wanted, lateCreateWindowMs: config.sync.lateCreateWindowMs };
}

async function applyTarget(
  ctx: ReconcileContext,
  target: Target,
  changes: Change[],
  adopt: boolean,
  request: ApplyRequest,
): Promise<ApplyResults> {
  return applyPlan(changes, {
    api: ctx.apiFor(target),
    store: ctx.store,
    target: target.name,
    requestSlots: target.rateLimit.concurrency,
    adopt,
    lateCreateWindowMs: ctx.config.sync.lateCreateWindowMs,
    allowReplace: request.allowReplace === true,
    ...(request.settle ? { wait: request.settle } : {}),
    ...(ctx.now ? { clock: ctx.now } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.onEvent ? { onEvent: (event: ApplyEvent) => request.onEvent?.(target.name, event) } : {}),
  });
}

function selectTargets(config: Config, names: readonly string[] | undefined): Target[] {
  if (!names || names.length === 0) return config.targets;
  return names.map((name) => targetNamed(config, name));
}

/** The configured target of that name; `E_USAGE` naming the configured ones otherwise. */
export function targetNamed(config: Config, name: string): Target {
  const target = config.targets.find((candidate) => candidate.name === name);
  if (target) return target;
  const known = config.targets.map((candidate) => candidate.name).join(', ');
  throw new StacksyncError('E_USAGE', `target ${name} is not configured (configured: ${known})`);
}

/**
 * `Kind/key` of the manifests of `target` that failed to load but whose kind and name could be
 * read: their resources are still wanted (an error on each, never an orphan to prune).
 */
export function brokenSubjects(load: LoadedManifests, target: string): Set<ChangeKey> {
  return new Set(
    load.problems.flatMap((problem) =>
      problem.target === target && problem.subject !== undefined ? [problem.subject as ChangeKey] : [],
    ),
  );
}

/** Problems of targets outside the run are not this run's business, but unattributed ones are. */
function inScope(problem: LoadProblem, targets: readonly Target[]): boolean {
  return (
    problem.target === undefined || problem.target === '*' || targets.some((target) => target.name === problem.target)
  );
}

export function problemToPlanError(problem: LoadProblem): PlanError {
  // A forEach template's problem names its item: the file and line alone are every item's.
  const message =
    problem.location.item === undefined ? problem.message : `(${problem.location.item}) ${problem.message}`;
  const error: PlanError = { file: problem.location.file, code: problem.code, message };
  if (problem.location.line !== undefined) error.line = problem.location.line;
  if (problem.location.column !== undefined) error.column = problem.location.column;
  if (problem.target !== undefined) error.target = problem.target;
  return error;
}

function targetError(target: string, error: unknown): PlanError {
  const message = error instanceof Error ? error.message : String(error);
  const subject = error instanceof StacksyncError ? error.subject : undefined;
  // Errors from resolving a target's credentials or checking its URL already name it.
  const named = subject === `target ${target}`;
  return { target, code: errorCodeOf(error), message: named ? message : `target ${target}: ${message}` };
}
