/**
 * A target's sync, as the scheduler runs it: read the checkout the manifests link names when it
 * starts, plan it against the live state, apply what `sync.drift` lets it write, hand the drift it
 * leaves live to the proposer, and record the outcome everywhere it goes: `/status`, the metrics,
 * the notifier, and (once the scheduler has said what comes next) the console or the log
 * (report.ts). Each sync runs under the state lock, and under the leader's term with
 * `--leader-elect`. What the outcome comes to is sync-result.ts.
 */
import { realpath } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Target } from '../model/config.js';
import { changeRef, isWrite, type Change, type ChangeResult } from '../model/plan.js';
import type { SyncNotice } from '../notify/events.js';
import type { Notifier } from '../notify/notifier.js';
import { proposalBranch } from '../config/propose.js';
import {
  computePlan,
  executePlan,
  planRequestFor,
  recordInSync,
  type ReconcileContext,
  type RunPlan,
  type RunResult,
} from '../reconcile/reconcile.js';
import type { StateGuard } from '../state/guard.js';
import { childForSync, clockTime } from '../support/logger.js';
import {
  describeApplied,
  describePending,
  manifestSource,
  pendingCounts,
  type ManifestSource,
  type NotApplied,
  type PendingCounts,
} from './console.js';
import { rateLimitWaitSeconds, recordApplyEvent, type Metrics } from './metrics.js';
import { proposeOrReport, type DriftProposer } from './drift-proposer.js';
import { createSyncReporter, type FinishedSync } from './report.js';
import { hasUncommittedEdits, readRevision } from './revision.js';
import type { NextSync, Trigger } from './scheduler.js';
import { recordStatusMetrics, type ProposalStatus, type StatusTracker } from './status.js';
import { crashedSync, problemsOf, syncResultOf, type TargetSyncResult } from './sync-result.js';

export interface TargetSyncOptions {
  context: ReconcileContext;
  metrics: Metrics;
  logger: Logger;
  status: StatusTracker;
  /** Plan and report only; never write. */
  dryRun: boolean;
  /** The parse workers and cache kept from sync to sync. */
  manifests: NonNullable<ReconcileContext['manifests']>;
  /** Where a person reads what each sync did; without it, each sync is told as log records. */
  console?: (text: string) => void;
  notifier?: Notifier;
  /** The state lock each sync runs under (`DaemonOptions.stateGuard`). */
  stateGuard?: StateGuard;
  /** `sync.drift: propose`: the proposer of each target that has one. */
  proposers: ReadonlyMap<string, DriftProposer>;
  /** The leader's term under `--leader-elect`: it ends when the lease is lost. */
  term?: () => AbortSignal;
  /** Whether the target is suspended at run time; read when its sync starts, under the lock. */
  suspendedNow: (target: string) => boolean;
  /** Told when a sync starts reading the checkout: the watcher may have missed what it sees. */
  onCheckoutRead?: () => void;
  /** Told when the checkout moved while a sync of `target` read it: it syncs again. */
  onCheckoutMoved: (target: string) => void;
  now: () => number;
}

export interface TargetSync {
  /** One sync of the target; never throws: a crash is a failed sync the scheduler retries. */
  run(target: string, trigger: Trigger, signal: AbortSignal): Promise<TargetSyncResult>;
  /** Tells what the target's last sync did, now that the scheduler has said what comes next. */
  tell(target: string, next: NextSync | undefined): void;
  /** True once the target has had a sync that read its live state and planned (readiness). */
  planned(target: string): boolean;
}

/**
 * The real directory the manifests path names now. Every sync resolves it afresh (level-based):
 * whatever the watcher saw or missed, a sync reads the revision the link names when it starts, so
 * a swap during the read cannot mix two revisions.
 */
export async function checkoutRoot(manifestsDir: string): Promise<string> {
  return realpath(manifestsDir).catch(() => manifestsDir);
}

export function createTargetSync(options: TargetSyncOptions): TargetSync {
  const { context, metrics, logger, status, now } = options;
  const config = context.config;
  const planned = new Set<string>();
  const report = createSyncReporter(options.console ? { console: options.console } : { records: true });
  // Finished syncs not yet told: what each did is told once the scheduler has said what comes next.
  const finished = new Map<string, FinishedSync>();

  const run = async (targetName: string, trigger: Trigger, signal: AbortSignal): Promise<TargetSyncResult> => {
    const target = config.targets.find((candidate) => candidate.name === targetName);
    if (!target) throw new Error(`unknown target ${targetName}`);
    const log = childForSync(logger, targetName);
    status.syncStarted(targetName);
    let result: TargetSyncResult;
    let root: string | undefined;
    let source: ManifestSource = 'working-tree';
    try {
      root = await checkoutRoot(context.manifestsDir);
      options.onCheckoutRead?.();
      const [revision, uncommitted] = await Promise.all([readRevision(root), hasUncommittedEdits(root)]);
      source = manifestSource(revision, uncommitted);
      const dir = root;
      options.notifier?.syncStarted(targetName, revision);
      const proposer = options.proposers.get(targetName);
      // Read from the resolved checkout, named as given (as plan names them), whatever revision it is.
      const syncContext = {
        ...context,
        manifestsDir: dir,
        logger: log,
        manifests: { ...options.manifests, shownAs: context.manifestsDir },
      };
      const sync = (): Promise<TargetSyncResult> =>
        syncTarget({
          context: syncContext,
          target,
          // `propose` applies what comes from Git and leaves drift to the proposer.
          heal: !options.dryRun && config.sync.drift !== 'report',
          ...(proposer
            ? {
                propose: (planRun, drifted) =>
                  proposeOrReport(
                    proposer,
                    {
                      context: syncContext,
                      run: planRun,
                      changes: drifted,
                      checkout: dir,
                      ...(revision ? { revision } : {}),
                      uncommitted: uncommitted === true,
                    },
                    proposalBranch(config.sync.propose?.branch ?? '', targetName),
                  ),
              }
            : {}),
          metrics,
          logger: log,
          // A leader that lost its lease sends nothing more: the term's end aborts the sync.
          signal: options.term ? AbortSignal.any([signal, options.term()]) : signal,
          trigger,
          now,
          source,
          ...(revision ? { revision } : {}),
          // Read when the sync starts: under the state lock, after the state was read again.
          ...(options.suspendedNow(targetName) ? { suspended: true } : {}),
        });
      result = options.stateGuard ? await options.stateGuard.hold(sync, signal) : await sync();
    } catch (error) {
      result = crashedSync(error);
    }
    // The checkout moved while this sync read it: sync again, even if no event says so.
    if (root !== undefined && (await checkoutRoot(context.manifestsDir)) !== root) options.onCheckoutMoved(targetName);
    if (result.planned) planned.add(targetName);
    status.syncFinished(targetName, result.report);
    options.notifier?.syncFinished(accountOf(targetName, result));
    const current = status.target(targetName);
    if (current) recordStatusMetrics(metrics, targetName, current, now());
    const time = clockTime(now());
    const account = result.plan && {
      target: targetName,
      trigger,
      plan: result.plan,
      source,
      time,
      ...(result.results ? { results: result.results } : {}),
      ...notApplied(options.dryRun, config.sync.drift),
    };
    finished.set(targetName, {
      target: targetName,
      trigger,
      ok: result.report.ok,
      time,
      logger: log,
      ...(account ? { account } : {}),
      ...(result.logRecord ? { logRecord: result.logRecord } : {}),
      ...(result.failure ? { failure: result.failure } : {}),
    });
    return result;
  };

  return {
    run,
    tell(target, next) {
      const told = finished.get(target);
      finished.delete(target);
      if (told) report(told, next);
    },
    planned: (target) => planned.has(target),
  };
}

/** One sync of one target, from the checkout it resolved. */
interface SyncInput {
  context: ReconcileContext;
  target: Target;
  /** `report` and dry runs plan and record drift but never write. */
  heal: boolean;
  metrics: Metrics;
  logger: Logger;
  signal: AbortSignal;
  trigger: Trigger;
  /** The checkout revision this sync reads, when known. */
  revision?: string;
  /** Whether the manifests are that revision as committed, or files with uncommitted edits (default). */
  source?: ManifestSource;
  /** Suspended at run time (`POST /-/suspend`): read and reported, never written. */
  suspended?: boolean;
  /**
   * `sync.drift: propose`: drift (writes whose manifest is the one last applied) is never written
   * to the API; it is handed to this, which commits it to a branch, or says why it could not
   * (docs/daemon.md, "Drift proposed as a branch"). Changes from Git are applied as `heal` says.
   */
  propose?: (run: RunPlan, drifted: readonly Change[]) => Promise<ProposalStatus>;
  now: () => number;
}

/** Plans, applies and proposes; never throws for API or manifest trouble, it reports it. */
async function syncTarget(options: SyncInput): Promise<TargetSyncResult> {
  const { context, target, metrics, logger } = options;
  const started = options.now();
  const waitedBefore = (await rateLimitWaitSeconds(metrics))[target.name] ?? 0;
  const config = context.config;

  // 1. Plan against the snapshot and the live state.
  const run = await computePlan(context, {
    ...planRequestFor(config, { targets: [target.name] }),
    ...(options.suspended ? { suspendedTargets: [target.name] } : {}),
  });
  const targetRun = run.targets[0];
  metrics.manifestErrors.set({ target: target.name }, problemsOf(run, target.name).length);
  if (run.plan.warnings.length > 0 && options.trigger !== 'resync')
    logger.warn({ warnings: run.plan.warnings.map((w) => w.message) }, 'manifest warnings');

  // 2. Heal: apply what the plan found (never in report mode or a dry run); what `propose` leaves live is not applied.
  const drifted =
    options.propose && targetRun && !targetRun.failed
      ? targetRun.changes.filter((change) => change.drift === true)
      : [];
  const applying = drifted.length === 0 ? run : withoutChanges(run, new Set(drifted.map(changeRef)));
  let applied: RunResult | undefined;
  if (options.heal && targetRun && !targetRun.failed) {
    if (hasWrites(applying.targets[0]?.changes ?? [])) {
      applied = await executePlan(context, applying, {
        force: false,
        signal: options.signal,
        onEvent: (_target, event) => recordApplyEvent(metrics, target.name, event),
      });
    } else if (recordInSync(context, target.name, targetRun.changes)) {
      // Nothing to write, but what is in sync is now known as applied (how drift is told).
      await context.store.save();
    }
  }

  // 3. Propose: the drift left live, committed to a branch for review.
  const proposal = options.propose && drifted.length > 0 ? await options.propose(run, drifted) : undefined;

  // 4. Report: status, metrics, and what the scheduler should do next.
  const result = syncResultOf(
    run,
    applied,
    {
      target: target.name,
      heal: options.heal,
      proposes: options.propose !== undefined,
      ...(options.revision === undefined ? {} : { revision: options.revision }),
      ...(options.source === undefined ? {} : { source: options.source }),
      // Ids assigned by this sync's creates are in the inventory the apply recorded.
      inventory: context.store.get(target.name).inventory,
      intervalMs: config.sync.intervalMs,
    },
    proposal,
  );
  const seconds = (options.now() - started) / 1000;
  metrics.reconcileDuration.observe({ target: target.name }, seconds);
  metrics.reconcileTotal.inc({ target: target.name, result: result.report.ok ? 'success' : 'failure' });
  if (result.report.ok) metrics.lastSuccessfulSync.set({ target: target.name }, options.now() / 1000);
  // The part of the sync spent waiting for the rate budget (shared with the targets on the same credential).
  const waitedSeconds = ((await rateLimitWaitSeconds(metrics))[target.name] ?? 0) - waitedBefore;
  result.report.seconds = Math.round(seconds * 1000) / 1000;
  result.report.rateLimitWaitSeconds = Math.round(waitedSeconds * 1000) / 1000;
  const pending = pendingCounts(run.plan.changes);
  const fields = {
    trigger: options.trigger,
    ok: result.report.ok,
    seconds,
    rateLimitWaitSeconds: Math.round(waitedSeconds * 1000) / 1000,
    summary: run.plan.summary,
    // Only the counts there are: a healed drift is not "toApply: 0".
    ...nonZero(pending),
    ...(options.revision === undefined ? {} : { revision: options.revision }),
    source: options.source ?? 'working-tree',
    ...(result.failure === undefined ? {} : { code: result.failure.code, error: result.report.error }),
  };
  const ok = result.report.ok;
  const msg = syncMessage(
    run.plan.changes,
    pending,
    result.results,
    options.source,
    ok ? 'sync finished' : 'sync failed',
  );
  return { ...result, logRecord: { level: ok ? 'info' : 'error', msg, fields } };
}

/** The run with some of its single target's changes left out (what `propose` leaves live). */
function withoutChanges(run: RunPlan, left: ReadonlySet<string>): RunPlan {
  return {
    ...run,
    targets: run.targets.map((targetRun) => ({
      ...targetRun,
      changes: targetRun.changes.filter((change) => !left.has(changeRef(change))),
    })),
  };
}

/** `sync finished: found 3 changes to apply and 1 drift (…)`, or what became of them when it applied them. */
function syncMessage(
  changes: readonly Change[],
  pending: PendingCounts,
  results: ReadonlyMap<string, ChangeResult> | undefined,
  source: ManifestSource | undefined,
  lead = 'sync finished',
): string {
  if (pending.toApply + pending.drift === 0) return lead;
  return `${lead}: ${results ? describeApplied(changes, results, source) : `found ${describePending(pending)}`}`;
}

function nonZero(counts: PendingCounts): Partial<PendingCounts> {
  return Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
}

function hasWrites(changes: readonly Change[]): boolean {
  return changes.some((change) => isWrite(change.action));
}

/** Why this daemon never applies what it finds, if it does not. */
function notApplied(dryRun: boolean, drift: 'heal' | 'report' | 'propose'): { notApplied?: NotApplied } {
  if (dryRun) return { notApplied: 'dry-run' };
  return drift === 'heal' ? {} : { notApplied: drift };
}

/** What a finished sync tells the notifier. */
function accountOf(target: string, result: TargetSyncResult): SyncNotice {
  const account: SyncNotice = { target, ok: result.report.ok };
  if (result.report.revision !== undefined) account.revision = result.report.revision;
  if (result.report.error !== undefined) account.error = result.report.error;
  if (result.plan) account.plan = result.plan;
  if (result.results) account.results = result.results;
  if (result.refusals) account.refusals = result.refusals;
  const proposal = result.report.proposal;
  if (proposal?.commit !== undefined)
    account.proposal = {
      branch: proposal.branch,
      ...(proposal.pullRequest === undefined ? {} : { pullRequest: proposal.pullRequest }),
    };
  return account;
}
