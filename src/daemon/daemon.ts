/**
 * `stacksync run`: the long-running reconciler. Composition only; each part is its own module:
 * watch (chokidar, git-sync swaps) → scheduler (level-based, per target) → sync (plan, heal,
 * report) → status, metrics, HTTP. Stops cleanly: no new writes, in-flight ones finish, state saved.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type { Logger } from 'pino';
import type { ReconcileContext } from '../reconcile/reconcile.js';
import type { StateGuard } from '../state/guard.js';
import { manifestSource, type ManifestSource, type NotApplied } from './console.js';
import { createSyncReporter, type SyncTold } from './report.js';
import { childForSync, clockTime } from '../support/logger.js';
import { initNotificationMetrics, initTargetMetrics, rateLimitWaitSeconds, type Metrics } from './metrics.js';
import { createNotifier, type Notifier } from '../notify/notifier.js';
import type { SyncAccount } from '../notify/events.js';
import { resolveSecret } from '../config/secrets.js';
import { startHttpServer, type BoundHttpServer, type HttpHandlers, type ListenAddress, type RunningHttpServer, type SuspensionNote } from './http.js';
import type { StateRecord, Suspension } from '../model/state.js';
import { StacksyncError } from '../errors.js';
import { ParseCache } from '../manifests/cache.js';
import { createWorkerParser, defaultThreads, inlineParser, type ManifestParser } from '../manifests/parser.js';
import { hasUncommittedEdits, readRevision } from './revision.js';
import { createScheduler, type Scheduler, type SchedulerTimers, type Trigger } from './scheduler.js';
import { resyncSlots } from './spread.js';
import { credentialFingerprints } from '../config/fingerprint.js';
import { createStatusTracker, recordStatusMetrics, withRateLimitWaits, withSuspended, type StatusDocument, type StatusTracker } from './status.js';
import { createSourceLinker } from './source-links.js';
import { crashedSync, syncTarget, type TargetSyncResult } from './sync.js';
import { trackAffectedTargets } from './affected.js';
import { watchManifests, type ManifestWatcher } from './watch.js';
import { createDriftProposer, proposeOrReport, type DriftProposer, type PullDrift } from './proposal.js';
import { proposalBranch } from '../config/propose.js';
import type { LeaderElection } from './leader.js';

export interface DaemonOptions {
  context: ReconcileContext;
  metrics: Metrics;
  logger: Logger;
  /**
   * Where `/metrics` and friends listen: an address, or a server bound already (what `run` does,
   * so that a port in use stops it before it starts anything); omit to serve nothing.
   */
  listen?: ListenAddress | BoundHttpServer;
  /** Plan and report only; never write. */
  dryRun: boolean;
  /** Watch the manifests directory (default true). */
  watch?: boolean;
  /**
   * Where a person reads what each sync did (plans, results, one line per retry). Without it,
   * each sync is told as log records instead (what a log collector wants): never both.
   */
  console?: (text: string) => void;
  debounceMs?: number;
  /**
   * On stop, how long syncs in flight may take before the API clients are closed under them
   * (default 10 s). A sync whose API is down sits in retry backoff for minutes; closing the
   * clients ends it at once, and a create cut off this way keeps its intent for the next run.
   */
  drainMs?: number;
  /** Closes the API clients (see `drainMs`). */
  closeClients?: () => Promise<void>;
  /** Where manifests are parsed; default worker threads (this thread when the build has none). */
  parser?: ManifestParser;
  /**
   * Each sync runs under it: the state lock, so another stacksync process (a one-off apply) writes
   * between two syncs, never during one, and each sync starts from what that process recorded.
   * Without it the daemon assumes no other process writes its state file.
   */
  stateGuard?: StateGuard;
  /**
   * `run --leader-elect` (leader.ts): syncs run only while this daemon leads, each aborted when
   * its term ends; a standby is ready and names the leader in `/status`. Without it the daemon
   * always reconciles (its `/status` has no `role`).
   */
  leadership?: Pick<LeaderElection, 'role' | 'leader' | 'term'>;
  /** Sends notifications; default one for the config's `notify` entries (none without them). */
  notifier?: Notifier;
  /**
   * `sync.drift: propose`: the pull core, which turns drifted resources into new manifest texts
   * (the seam it plugs into, daemon/proposal.ts); `stacksync run` passes `pullPlanned`
   * (reconcile/pull.ts). Without it the daemon proposes nothing and says so
   * (`E_PROPOSE_UNAVAILABLE`): drift is reported as with `report`.
   */
  pullDrift?: PullDrift;
  timers?: SchedulerTimers;
  now?: () => number;
  random?: () => number;
}

export interface Daemon {
  /** `http://HOST:PORT` of the metrics/status server, when listening. */
  url?: string;
  status: StatusTracker;
  scheduler: Scheduler;
  /** True once every target has completed a sync that read its live state. */
  ready(): boolean;
  /** Triggers a sync of every target, as `POST /-/reload` does. */
  reload(): void;
  /**
   * Suspends (or resumes) a target at run time, as `POST /-/suspend` (`/-/resume`) does, and
   * syncs it. The suspension is recorded in the state (under its lock) before this resolves, so it
   * holds across restarts until resumed; a target the config suspends stays suspended. False for
   * a target that is not configured; rejects when the state could not be written (nothing changed).
   */
  setSuspended(target: string, suspended: boolean, note?: SuspensionNote): Promise<boolean>;
  /** Told by the election when the role changed: the metric follows, and a new leader syncs every target at once. */
  leadershipChanged(): void;
  /** Stops taking work, waits for syncs in flight, saves the state, closes everything. */
  stop(): Promise<void>;
}

/** Starts watching, serving and syncing; resolves once the HTTP server listens and the initial sync is queued. */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { context, metrics, logger } = options;
  const config = context.config;
  const now = options.now ?? Date.now;
  const targets = config.targets.map((target) => target.name);
  const status = createStatusTracker(targets, now);
  const planned = new Set<string>();
  const leadership = options.leadership;
  const standingBy = (): boolean => leadership?.role() === 'standby';
  metrics.leader.set(standingBy() ? 0 : 1);
  for (const target of config.targets) initTargetMetrics(metrics, target.name, target.variant);
  const notifier = options.notifier ?? defaultNotifier(context, metrics, logger);
  // Suspended at run time: kept in the state, read afresh by each sync; the config's own are in the targets.
  const suspensionOf = (target: string): Suspension | undefined => context.store.get(target).suspension;
  const suspendedTargets = (): Set<string> => new Set(config.targets.filter((target) => target.suspend || suspensionOf(target.name)).map((target) => target.name));
  // Resolved now, so a missing token stops the start instead of leaving the endpoints open or broken.
  const controlToken = config.controlToken === undefined ? undefined : resolveSecret(config.controlToken, { env: context.env });
  const reloadToken = config.reloadToken === undefined ? undefined : resolveSecret(config.reloadToken, { env: context.env });
  // `sync.drift: propose`: one proposer per target, its secrets read now (a dry run proposes nothing).
  const proposers = new Map<string, DriftProposer>();
  for (const target of options.dryRun ? [] : config.targets) {
    const proposer = createDriftProposer(config, target, { env: context.env, ...(options.pullDrift ? { pull: options.pullDrift } : {}) });
    if (proposer) proposers.set(target.name, proposer);
  }

  // 1. The checkout. Every sync resolves it afresh (level-based): whatever the watcher saw or
  // missed, a sync reads the revision the link names when it starts, from the real directory, so
  // a swap during the read cannot mix two revisions. The watcher only says when to look again.
  let watcher: ManifestWatcher | undefined;
  const currentRoot = async (): Promise<string> => realpath(context.manifestsDir).catch(() => context.manifestsDir);
  // Parses are kept from sync to sync (by content) and made off the event loop that serves the probes.
  const ownParser = options.parser ? undefined : createWorkerParser({ threads: Math.min(2, defaultThreads()), ref: false });
  const manifests = { parser: options.parser ?? ownParser ?? inlineParser, cache: new ParseCache() };

  // 2. The per-target sync the scheduler runs. What it did is told once the scheduler has said
  // what comes next (a retry in 2 s, the resync in 5 min): see report.ts.
  const report = createSyncReporter(options.console ? { console: options.console } : { records: true });
  const untold = new Map<string, SyncTold>();
  const runSync = async (targetName: string, trigger: Trigger, signal: AbortSignal): Promise<TargetSyncResult> => {
    const target = config.targets.find((candidate) => candidate.name === targetName);
    if (!target) throw new Error(`unknown target ${targetName}`);
    const log = childForSync(logger, targetName);
    status.syncStarted(targetName);
    let result: TargetSyncResult;
    let root: string | undefined;
    let source: ManifestSource = 'working-tree';
    try {
      root = await currentRoot();
      // The watcher may have missed what this sync sees (a swap whose event was dropped, a parent
      // directory replaced): let it look again, without waiting for it (it logs its own failures).
      void watcher?.refresh();
      const [revision, uncommitted] = await Promise.all([readRevision(root), hasUncommittedEdits(root)]);
      source = manifestSource(revision, uncommitted);
      const dir = root;
      notifier?.syncStarted(targetName, revision);
      const proposer = proposers.get(targetName);
      const syncContext = { ...context, manifestsDir: dir, logger: log, manifests: { ...manifests, shownAs: context.manifestsDir } };
      const sync = (): Promise<TargetSyncResult> =>
        syncTarget({
          // Read from the resolved checkout, named as given (as plan names them), whatever revision it is.
          context: syncContext,
          target,
          // `propose` applies what comes from Git and leaves drift to the proposer.
          heal: !options.dryRun && config.sync.drift !== 'report',
          ...(proposer
            ? {
                propose: (run, drifted) =>
                  proposeOrReport(proposer, { context: syncContext, run, changes: drifted, checkout: dir, ...(revision ? { revision } : {}), uncommitted: uncommitted === true }, proposalBranch(config.sync.propose?.branch ?? '', targetName)),
              }
            : {}),
          metrics,
          logger: log,
          // A leader that lost its lease sends nothing more: the term's end aborts the sync.
          signal: leadership ? AbortSignal.any([signal, leadership.term()]) : signal,
          trigger,
          now,
          source,
          ...(revision ? { revision } : {}),
          // Read when the sync starts: under the state lock, after the state was read again.
          ...(suspensionOf(targetName) ? { suspended: true } : {}),
        });
      result = options.stateGuard ? await options.stateGuard.hold(sync, signal) : await sync();
    } catch (error) {
      result = crashedSync(error);
    }
    // The checkout moved while this sync read it: sync again, even if no event says so.
    if (root !== undefined && (await currentRoot()) !== root) scheduler.trigger('files', [targetName]);
    if (result.planned) planned.add(targetName);
    status.syncFinished(targetName, result.report);
    notifier?.syncFinished(accountOf(targetName, result));
    const current = status.target(targetName);
    if (current) recordStatusMetrics(metrics, targetName, current, now());
    const time = clockTime(now());
    const account = result.plan && { target: targetName, trigger, plan: result.plan, source, time, ...(result.results ? { results: result.results } : {}), ...notApplied(options.dryRun, config.sync.drift) };
    untold.set(targetName, { target: targetName, trigger, ok: result.report.ok, time, logger: log, ...(account ? { account } : {}), ...(result.record ? { record: result.record } : {}), ...(result.failure ? { failure: result.failure } : {}) });
    return result;
  };

  // Targets sharing a rate budget resync one after another, each on its own slot (spread.ts).
  const slots = resyncSlots(config.targets, config.sync.intervalMs, credentialFingerprints(config.targets, context.env));
  if (slots.size > 0) logger.info({ resyncs: Object.fromEntries(slots) }, 'targets share a rate budget: their resyncs are spread over the interval');
  const scheduler = createScheduler({
    targets,
    intervalMs: config.sync.intervalMs,
    resyncSlots: slots,
    // A standby has nothing to do; once elected, it syncs every target (leadershipChanged).
    sync: async (target, trigger, signal) => (standingBy() ? { result: 'ok' } : (await runSync(target, trigger, signal)).outcome),
    onNext: (target, _outcome, next) => {
      const told = untold.get(target);
      untold.delete(target);
      if (told) report(told, next);
    },
    logger,
    ...(options.timers ? { timers: options.timers } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.random ? { random: options.random } : {}),
  });

  // A standby is ready: it serves, and stands in once the leader goes.
  const ready = (): boolean => standingBy() || targets.every((target) => planned.has(target));
  const leadershipChanged = (): void => {
    metrics.leader.set(standingBy() ? 0 : 1);
    if (!standingBy()) scheduler.trigger('reload');
  };
  const reload = (): void => scheduler.trigger('reload');
  const setSuspended = async (target: string, suspend: boolean, note: SuspensionNote = {}): Promise<boolean> => {
    if (!targets.includes(target)) return false;
    if (options.dryRun) throw new StacksyncError('E_USAGE', 'this daemon runs --dry-run: it writes nothing, the state included, so it keeps no suspension');
    const record: StateRecord = suspend ? { type: 'suspended', since: new Date(now()).toISOString(), ...note } : { type: 'resumed' };
    const write = async (): Promise<void> => {
      if (record.type === 'resumed' && !suspensionOf(target)) return;
      context.store.record(target, record);
      await context.store.save();
    };
    await (options.stateGuard ? options.stateGuard.hold(write) : write());
    scheduler.trigger('reload', [target]);
    return true;
  };

  // 3. Serving: metrics, health, readiness, status, reload.
  let http: RunningHttpServer | undefined;
  if (options.listen) {
    // Manifest paths as the repository has them, linked to their lines when a repository URL is set.
    const linked = createSourceLinker(config.daemon?.repositoryUrl === undefined ? {} : { repositoryUrl: config.daemon.repositoryUrl });
    const document = async () =>
      linked(withSuspended(withRateLimitWaits({ ...status.document(), ready: ready(), ...roleOf(leadership) }, await rateLimitWaitSeconds(metrics)), suspendedTargets(), suspensionOf));
    const control = controlToken === undefined ? {} : { control: { token: controlToken, setSuspended } };
    const handlers: HttpHandlers = { registry: metrics.registry, status: document, ready, onReload: reload, logger, ...control, ...(reloadToken === undefined ? {} : { reloadToken }) };
    http = await serveOn(options.listen, handlers).catch(async (error: unknown) => {
      await ownParser?.close();
      throw error;
    });
  }
  // A saved file syncs the targets whose documents it holds (affected.ts).
  const affected = trackAffectedTargets({ config, parser: manifests.parser, cache: manifests.cache });
  if (options.watch !== false) {
    watcher = await watchManifests(context.manifestsDir, {
      ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
      logger,
      onChange: (reason) => {
        void Promise.all([affected.of(reason), currentRoot()]).then(
          ([concerned, root]) => {
            const paths = reason.paths.slice(0, 10).map((path) => shownPath(path, root, context.manifestsDir));
            logger.info({ kind: reason.kind, paths, targets: concerned ?? targets }, 'manifests changed');
            scheduler.trigger('files', concerned);
          },
          (error: unknown) => {
            logger.warn({ err: error }, 'could not tell which targets a change concerns; syncing all of them');
            scheduler.trigger('files');
          },
        );
      },
    });
  }
  scheduler.start();

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await watcher?.close();
      const stopped = scheduler.stop();
      if (!(await settlesWithin(stopped, options.drainMs ?? DEFAULT_DRAIN_MS)) && options.closeClients) {
        logger.warn('syncs still running after the drain time (API retries); closing the API clients');
        await options.closeClients();
      }
      await stopped;
      // What the last syncs had to tell gets a moment to go out; a receiver that hangs does not hold the stop.
      await notifier?.flush(NOTIFY_FLUSH_MS);
      // A standby holds no lease: what it has is not its to write.
      if (!standingBy()) await context.store.save();
      await ownParser?.close();
      await http?.close();
    })());

  return { ...(http ? { url: http.url } : {}), status, scheduler, ready, reload, setSuspended, leadershipChanged, stop };
}

/** `/status`'s `role` and `leader` under `--leader-elect`; nothing without it. */
function roleOf(leadership: DaemonOptions['leadership']): Pick<StatusDocument, 'role' | 'leader'> {
  if (!leadership) return {};
  const holder = leadership.leader();
  return { role: leadership.role(), ...(holder ? { leader: { host: holder.host, pid: holder.pid, command: holder.command, since: holder.since } } : {}) };
}

export const DEFAULT_DRAIN_MS = 10_000;

async function serveOn(listen: ListenAddress | BoundHttpServer, handlers: HttpHandlers): Promise<RunningHttpServer> {
  if (!('serve' in listen)) return startHttpServer({ ...listen, ...handlers });
  listen.serve(handlers);
  return listen;
}

/** How long a stop waits for queued notifications. */
export const NOTIFY_FLUSH_MS = 5_000;

/** A notifier for the config's `notify` entries; it masks every secret of the run (support/redaction.ts). */
function defaultNotifier(context: ReconcileContext, metrics: Metrics, logger: Logger): Notifier | undefined {
  const settings = context.config.notify ?? [];
  if (settings.length === 0) return undefined;
  initNotificationMetrics(metrics, settings);
  return createNotifier(settings, { secretIo: { env: context.env }, counter: metrics.notifications, logger });
}

/** What a finished sync tells the notifier. */
function accountOf(target: string, result: TargetSyncResult): SyncAccount {
  const account: SyncAccount = { target, ok: result.report.ok };
  if (result.report.revision !== undefined) account.revision = result.report.revision;
  if (result.report.error !== undefined) account.error = result.report.error;
  if (result.plan) account.plan = result.plan;
  if (result.results) account.results = result.results;
  if (result.refusals) account.refusals = result.refusals;
  const proposal = result.report.proposal;
  if (proposal?.commit !== undefined) account.proposal = { branch: proposal.branch, ...(proposal.pullRequest === undefined ? {} : { pullRequest: proposal.pullRequest }) };
  return account;
}

/** Whether `promise` settles within `ms`; never rejects. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([promise.then(() => true, () => true), timeout]).finally(() => clearTimeout(timer));
}

/** A watcher's path named as the daemon names files: under the manifests directory as given. */
function shownPath(path: string, root: string, shownDir: string): string {
  const inside = relative(root, path);
  if (inside === '') return shownDir;
  return inside.startsWith('..') || isAbsolute(inside) ? path : join(shownDir, inside);
}

/** Why this daemon never applies what it finds, if it does not. */
function notApplied(dryRun: boolean, drift: 'heal' | 'report' | 'propose'): { notApplied?: NotApplied } {
  if (dryRun) return { notApplied: 'dry-run' };
  return drift === 'heal' ? {} : { notApplied: drift };
}

export interface OnceOutcome {
  /** Every target synced without error. */
  ok: boolean;
  /** Writes found and not applied (a dry run, `sync.drift: report`): changes to apply and drift. */
  pending: number;
  /** The targets whose sync failed, with the error each ended with. */
  failed: { target: string; error: string }[];
}

/** `--once`: one sync of every target, then stop. */
export async function syncOnce(options: DaemonOptions): Promise<OnceOutcome> {
  const daemon = await startDaemon({ ...options, watch: false });
  await daemon.scheduler.idle();
  const statuses = options.context.config.targets.map((target) => daemon.status.target(target.name));
  await daemon.stop();
  const pending = statuses.flatMap((status) => status?.resources ?? []).filter((resource) => resource.status === 'drifted').length;
  const failed = options.context.config.targets.flatMap((target, index) => {
    const status = statuses[index];
    return status?.lastResult === 'success' ? [] : [{ target: target.name, error: status?.lastError ?? 'the sync did not finish' }];
  });
  return { ok: failed.length === 0, pending, failed };
}
