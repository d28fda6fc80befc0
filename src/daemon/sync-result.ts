/**
 * What one sync of a target comes to, pure: from its plan, what the apply did and the drift
 * proposal, the status observation of each resource, the scheduler outcome (retry, wait for the
 * resync, look again soon), and the failure a one-line retry account names.
 */
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import type { LoadProblem } from '../model/desired.js';
import type { TargetState } from '../model/state.js';
import { errorCodeOf, isTerminal, type ErrorCode } from '../errors.js';
import { changeRef, type Change, type ChangeResult, type Plan, type PlanError } from '../model/plan.js';
import { isDegraded } from '../diff/index.js';
import type { RunPlan, RunResult } from '../reconcile/reconcile.js';
import type { ManifestSource } from './console.js';
import type { SyncOutcome } from './scheduler.js';
import { STATUS_DIFF_LIMIT, type ProposalStatus, type ResourceObservation, type SyncReport } from './status.js';

/**
 * The log record of one sync: what a log collector is told (a person reads the same on the
 * console). The daemon writes it once the scheduler has said what comes next.
 */
export interface SyncLogRecord {
  /** A sync that failed is an error, whatever else it did. */
  level: 'info' | 'error';
  msg: string;
  fields: Record<string, unknown>;
}

/** Why a sync failed, for a one-line account of it (`retrying Alert/x in 2 s: E_…: …`). */
export interface SyncFailure {
  code: ErrorCode;
  /** `Kind/name` of each resource that failed; empty when the target as a whole did. */
  subjects: string[];
  /** The first failure's message. */
  error: string;
}

export interface TargetSyncResult {
  outcome: SyncOutcome;
  report: SyncReport;
  /** The sync's log record (for a sync that threw, {@link crashedSync} words it). */
  logRecord?: SyncLogRecord;
  failure?: SyncFailure;
  /** True when the live state was read and a plan made (what readiness waits for). */
  planned: boolean;
  plan?: Plan;
  results?: ReadonlyMap<string, ChangeResult>;
  /** Deletes the prune caps refused in this sync (what `pruneRefused` notifications tell). */
  refusals?: readonly PlanError[];
}

/** A proposal that did not get the drift onto its branch, for a reason worth retrying. */
function proposalFailed(
  proposal: ProposalStatus | undefined,
): proposal is ProposalStatus & { code: ErrorCode; error: string } {
  return (
    proposal !== undefined &&
    proposal.commit === undefined &&
    proposal.code !== undefined &&
    proposal.error !== undefined &&
    proposal.code !== 'E_PROPOSE_UNAVAILABLE'
  );
}

/** What the sync of one target knew besides its run: what it read, and what it may do. */
export interface SyncFacts {
  target: string;
  /** `report` and dry runs plan and record drift but never write. */
  heal: boolean;
  /** `sync.drift: propose`: drift is left live and proposed on a branch. */
  proposes: boolean;
  /** The checkout revision the sync read, when known. */
  revision?: string;
  source?: ManifestSource;
  /** The target's inventory once the apply recorded it (ids assigned by this sync's creates). */
  inventory: TargetState['inventory'];
  /** `sync.interval`: a follow-up sooner than the resync is worth arranging. */
  intervalMs: number;
}

/** The result of a sync that ran to its end (one that threw is {@link crashedSync}). */
export function syncResultOf(
  run: RunPlan,
  applied: RunResult | undefined,
  facts: SyncFacts,
  proposal?: ProposalStatus,
): TargetSyncResult {
  const name = facts.target;
  const targetRun = run.targets[0];
  // A revision is what the files are only when they hold no uncommitted edits.
  const revision =
    facts.revision === undefined ? {} : { revision: facts.revision, uncommitted: facts.source !== 'git' };
  if (!targetRun || targetRun.failed) {
    const error = targetRun?.failed?.message ?? 'target was not planned';
    const code = targetRun?.failed?.code ?? 'E_INTERNAL';
    return {
      outcome: outcomeOf([code], error),
      report: { ok: false, error, ...revision },
      failure: { code, subjects: [], error },
      planned: false,
      plan: run.plan,
    };
  }
  const results = applied?.results;
  const inventory = facts.inventory;
  const idOf = (change: Change): string | undefined => change.id ?? inventory[change.kind][change.name]?.id;
  const left = facts.proposes ? { proposed: proposal?.commit === undefined ? undefined : proposal.branch } : undefined;
  const resources = [
    ...observeChanges(targetRun.changes, results, facts.heal, idOf, left),
    ...observeProblems(run, name, inventory),
  ];
  const failures = resources.filter((resource) => resource.status === 'error');
  const refusals = [
    ...(applied?.errors ?? []),
    ...(proposalFailed(proposal)
      ? [{ code: proposal.code, message: `drift proposal on ${proposal.branch}: ${proposal.error}` }]
      : []),
  ];
  const problems = problemsOf(run, name);
  const ok = failures.length === 0 && refusals.length === 0 && problems.length === 0;
  const proposed = proposal === undefined ? {} : { proposal };
  if (ok)
    return {
      outcome: followUpOf(targetRun.changes, results, facts.intervalMs),
      report: { ok, resources, ...revision, ...proposed },
      planned: true,
      plan: run.plan,
      ...(results ? { results } : {}),
    };
  const error = describeFailure(
    failures,
    refusals.map((r) => r.message),
    problems.length,
  );
  const codes = [
    ...failures.map((failure) => failure.code ?? 'E_INTERNAL'),
    ...refusals.map((r) => r.code),
    ...problems.map((p) => p.code),
  ];
  const report: SyncReport = { ok, resources, ...revision, error, ...proposed };
  const failure = failureOf(failures, refusals, problems);
  const pruneRefusals = applied?.errors ?? [];
  return {
    outcome: outcomeOf(codes, error),
    report,
    failure,
    planned: true,
    plan: run.plan,
    ...(results ? { results } : {}),
    ...(pruneRefusals.length > 0 ? { refusals: pruneRefusals } : {}),
  };
}

/** The first failure's code and message, and every resource that failed. */
function failureOf(
  failures: readonly ResourceObservation[],
  refusals: readonly Pick<PlanError, 'code' | 'message'>[],
  problems: readonly LoadProblem[],
): SyncFailure {
  const subjects = failures.map((failure) => `${failure.kind}/${failure.name}`);
  const first = failures[0];
  if (first) return { code: first.code ?? 'E_INTERNAL', subjects, error: first.error ?? 'failed' };
  const refusal = refusals[0];
  if (refusal) return { code: refusal.code, subjects, error: refusal.message };
  const problem = problems[0];
  return {
    code: problem?.code ?? 'E_INTERNAL',
    subjects,
    error: problem ? `${problem.location.file}: ${problem.message}` : 'failed',
  };
}

/**
 * How soon to look again after a sync that started something the service finishes on its own (a pipe
 * created or started provisions asynchronously): the daemon does not wait for it, it syncs again
 * shortly, so `/status` and the pipe-state gauge show where it got to.
 */
export const PROVISIONING_FOLLOW_UP_MS = 15_000;

function followUpOf(
  changes: readonly Change[],
  results: ReadonlyMap<string, ChangeResult> | undefined,
  intervalMs: number,
): SyncOutcome {
  const started = changes.some(
    (change) =>
      results?.get(changeRef(change))?.result === 'ok' &&
      change.operations.some((operation) => operation.await !== undefined),
  );
  return started && PROVISIONING_FOLLOW_UP_MS < intervalMs
    ? { result: 'requeue', afterMs: PROVISIONING_FOLLOW_UP_MS }
    : { result: 'ok' };
}

/** Terminal when every failure is: nothing changes until someone does; otherwise retry with backoff. */
function outcomeOf(codes: readonly ErrorCode[], error: unknown): SyncOutcome {
  return codes.every(isTerminal) ? { result: 'terminal', error } : { result: 'transient', error };
}

/**
 * What the sync found about each change. A change applied now is `in_sync`, with the id a create
 * got; a delete applied now is gone, so it is not listed (nor counted by the resources gauge).
 */
function observeChanges(
  changes: readonly Change[],
  results: ReadonlyMap<string, ChangeResult> | undefined,
  heal: boolean,
  idOf: (change: Change) => string | undefined,
  /** `sync.drift: propose`: drift is left live, proposed on this branch when a commit holds it. */
  left?: { proposed: string | undefined },
): ResourceObservation[] {
  return changes.flatMap((change): ResourceObservation[] => {
    const base: ResourceObservation = { kind: change.kind, name: change.name, status: 'in_sync' };
    if (change.id !== undefined) base.id = change.id;
    if (change.liveState !== undefined) {
      base.state = change.liveState;
      base.health = isDegraded(change) ? 'degraded' : 'healthy';
    }
    if (change.file !== undefined) base.file = change.file;
    if (change.line !== undefined) base.line = change.line;
    if (change.action === 'unchanged') return [base];
    if (change.action === 'orphan') return [{ ...base, status: 'orphan' }];
    // Drifted or not, it is left as it is.
    if (change.action === 'suspended') return [withDiff({ ...base, status: 'suspended' }, change)];
    // Not as the manifest wants it yet, and not an error: an earlier create may still land.
    if (change.action === 'waiting')
      return [
        withDiff(
          {
            ...base,
            status: 'drifted',
            cause: 'git',
            ...(change.waitUntil === undefined ? {} : { waitUntil: change.waitUntil }),
          },
          change,
        ),
      ];
    if (change.action === 'error')
      return [
        { ...base, status: 'error', error: change.error ?? 'cannot be planned', code: change.code ?? 'E_INTERNAL' },
      ];
    if (left && change.drift)
      return [
        withDiff(
          {
            ...base,
            status: 'drifted',
            cause: 'live',
            ...(left.proposed === undefined ? {} : { proposed: left.proposed }),
          },
          change,
        ),
      ];
    if (!heal || !results)
      return [withDiff({ ...base, status: 'drifted', cause: change.drift ? 'live' : 'git' }, change)];
    const result = results.get(changeRef(change));
    if (result && result.result !== 'ok') return [{ ...base, status: 'error', error: result.error, code: result.code }];
    if (!result) return [base];
    if (change.action === 'delete') return [];
    const id = idOf(change);
    return [id === undefined ? base : { ...base, id }];
  });
}

/**
 * The observation with the first fields of the change's difference, when it has one. Not for a
 * create: its difference is the whole manifest, which says no more than "not created yet", and a
 * dry run over thousands of creates would make the status (copied whole on every read) heavy.
 */
function withDiff(observation: ResourceObservation, change: Change): ResourceObservation {
  if (change.diff.length === 0 || change.id === undefined) return observation;
  const omitted = change.diff.length - STATUS_DIFF_LIMIT;
  return {
    ...observation,
    diff: change.diff.slice(0, STATUS_DIFF_LIMIT),
    ...(omitted > 0 ? { diffOmitted: omitted } : {}),
  };
}

/**
 * Resources whose manifest failed to load: `error`, with the manifest's message and line, and the
 * live id stacksync owns for it. The plan names such a resource nowhere else (it is not an orphan),
 * so this is its one entry.
 */
function observeProblems(run: RunPlan, target: string, inventory: TargetState['inventory']): ResourceObservation[] {
  const observations: ResourceObservation[] = [];
  const seen = new Set<string>();
  for (const problem of run.load.problems) {
    if (problem.target !== target || !problem.subject || seen.has(problem.subject)) continue;
    seen.add(problem.subject);
    const [kind, name] = problem.subject.split('/', 2) as [string, string | undefined];
    if (!name || !KINDS.includes(kind as Kind)) continue;
    const observation: ResourceObservation = {
      kind: kind as Kind,
      name,
      status: 'error',
      error: `manifest: ${problem.location.item === undefined ? '' : `(${problem.location.item}) `}${problem.message}`,
      code: problem.code,
      file: problem.location.file,
    };
    if (problem.location.line !== undefined) observation.line = problem.location.line;
    const owned = Object.hasOwn(inventory[kind as Kind], name) ? inventory[kind as Kind][name]?.id : undefined;
    if (owned !== undefined) observation.id = owned;
    observations.push(observation);
  }
  return observations;
}

export function problemsOf(run: RunPlan, target: string): LoadProblem[] {
  return run.load.problems.filter(
    (problem) => problem.target === target || problem.target === '*' || problem.target === undefined,
  );
}

function describeFailure(
  failures: readonly ResourceObservation[],
  refusals: readonly string[],
  problems: number,
): string {
  const parts: string[] = [];
  if (problems > 0) parts.push(`${problems} manifest problem${problems === 1 ? '' : 's'}`);
  for (const failure of failures.slice(0, 3))
    parts.push(`${failure.kind}/${failure.name}: ${failure.error ?? 'failed'}`);
  if (failures.length > 3) parts.push(`and ${failures.length - 3} more`);
  parts.push(...refusals);
  return parts.join('; ');
}

/** A thrown error (a bug, a corrupt state file) as a failed sync the scheduler retries. */
export function crashedSync(error: unknown): TargetSyncResult {
  const message = error instanceof Error ? error.message : String(error);
  const code = errorCodeOf(error);
  const logRecord: SyncLogRecord = {
    level: 'error',
    msg: `sync failed: ${code}: ${message}`,
    fields: { ok: false, code, err: error },
  };
  return {
    outcome: outcomeOf([code], error),
    report: { ok: false, error: `${code}: ${message}` },
    logRecord,
    failure: { code, subjects: [], error: message },
    planned: false,
  };
}
