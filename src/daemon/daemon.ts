/**
 * `stacksync run`: the long-running reconciler. Composition only; each part is its own module:
 * watch (chokidar, git-sync swaps) → scheduler (level-based, per target) → a target's sync
 * (target-sync.ts: plan, apply, propose, report) → status, metrics, HTTP; run-time suspensions
 * (suspension.ts) and leader election (leader.ts) plug in. Stops cleanly: no new writes,
 * in-flight ones finish, state saved.
 */
import { isAbsolute, join, relative } from 'node:path';
import type { Logger } from 'pino';
import type { ReconcileContext } from '../reconcile/reconcile.js';
import type { StateGuard } from '../state/guard.js';
import { initNotificationMetrics, initTargetMetrics, rateLimitWaitSeconds, type Metrics } from './metrics.js';
import { createNotifier, type Notifier } from '../notify/notifier.js';
import { resolveSecret } from '../config/secrets.js';
import {
  startHttpServer,
  type BoundHttpServer,
  type HttpHandlers,
  type ListenAddress,
  type RunningHttpServer,
  type SuspensionNote,
} from './http.js';
import { ParseCache } from '../manifests/cache.js';
import { createWorkerParser, defaultThreads, inlineParser, type ManifestParser } from '../manifests/parser.js';
import { createScheduler, type Scheduler, type SchedulerTimers } from './scheduler.js';
import { resyncSlots } from './resync-slots.js';
import { credentialFingerprints } from '../config/credential-fingerprints.js';
import {
  createStatusTracker,
  withRateLimitWaits,
  withSuspended,
  type StatusDocument,
  type StatusTracker,
} from './status.js';
import { createSourceLinker } from './source-links.js';
import { checkoutRoot, createTargetSync } from './target-sync.js';
import { createSuspensions } from './suspension.js';
import { trackAffectedTargets } from './affected.js';
import { watchManifests, type ManifestWatcher } from './watch.js';
import { createDriftProposers, type PullDrift } from './drift-proposer.js';
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
   * (the seam it plugs into, daemon/drift-proposer.ts); `stacksync run` passes `pullPlanned`
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
  const leadership = options.leadership;
  const standingBy = (): boolean => leadership?.role() === 'standby';
  metrics.leader.set(standingBy() ? 0 : 1);
  for (const target of config.targets) initTargetMetrics(metrics, target.name, target.variant);
  const notifier = options.notifier ?? defaultNotifier(context, metrics, logger);
  const suspensions = createSuspensions({
    context,
    dryRun: options.dryRun,
    now,
    ...(options.stateGuard ? { stateGuard: options.stateGuard } : {}),
  });
  // Resolved now, so a missing token stops the start instead of leaving the endpoints open or broken.
  const controlToken =
    config.controlToken === undefined ? undefined : resolveSecret(config.controlToken, { env: context.env });
  const reloadToken =
    config.reloadToken === undefined ? undefined : resolveSecret(config.reloadToken, { env: context.env });
  // `sync.drift: propose`: their secrets are read now too.
  const proposers = createDriftProposers(config, {
    dryRun: options.dryRun,
    env: context.env,
    ...(options.pullDrift ? { pull: options.pullDrift } : {}),
  });

  // 1. The checkout: the watcher only says when to look again; each sync resolves it (target-sync.ts).
  let watcher: ManifestWatcher | undefined;
  // Parses are kept from sync to sync (by content) and made off the event loop that serves the probes.
  const ownParser = options.parser
    ? undefined
    : createWorkerParser({ threads: Math.min(2, defaultThreads()), ref: false });
  const manifests = { parser: options.parser ?? ownParser ?? inlineParser, cache: new ParseCache() };

  // 2. A target's sync (target-sync.ts), run by the scheduler; a standby has nothing to do.
  const targetSync = createTargetSync({
    context,
    metrics,
    logger,
    status,
    dryRun: options.dryRun,
    manifests,
    proposers,
    suspendedNow: (target) => suspensions.of(target) !== undefined,
    // The watcher may have missed what a sync sees (a swap whose event was dropped, a parent
    // directory replaced): let it look again, without waiting for it.
    onCheckoutRead: () => watcher?.refresh(),
    onCheckoutMoved: (target) => scheduler.trigger('files', [target]),
    now,
    ...(options.console ? { console: options.console } : {}),
    ...(notifier ? { notifier } : {}),
    ...(options.stateGuard ? { stateGuard: options.stateGuard } : {}),
    ...(leadership ? { term: () => leadership.term() } : {}),
  });
  // Targets sharing a rate budget resync one after another, each on its own slot (resync-slots.ts).
  const slots = resyncSlots(
    config.targets,
    config.sync.intervalMs,
    credentialFingerprints(config.targets, context.env),
  );
  if (slots.size > 0)
    logger.info(
      { resyncs: Object.fromEntries(slots) },
      'targets share a rate budget: their resyncs are spread over the interval',
    );
  const scheduler = createScheduler({
    targets,
    intervalMs: config.sync.intervalMs,
    resyncSlots: slots,
    // Once elected, a standby syncs every target (leadershipChanged).
    sync: async (target, trigger, signal) =>
      standingBy() ? { result: 'ok' } : (await targetSync.run(target, trigger, signal)).outcome,
    // What a sync did is told once the scheduler has said what comes next (a retry in 2 s, the resync in 5 min).
    onNext: (target, _outcome, next) => targetSync.tell(target, next),
    logger,
    ...(options.timers ? { timers: options.timers } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.random ? { random: options.random } : {}),
  });

  // A standby is ready: it serves, and stands in once the leader goes.
  const ready = (): boolean => standingBy() || targets.every((target) => targetSync.planned(target));
  const leadershipChanged = (): void => {
    metrics.leader.set(standingBy() ? 0 : 1);
    if (!standingBy()) scheduler.trigger('reload');
  };
  const reload = (): void => scheduler.trigger('reload');
  const setSuspended = async (target: string, suspend: boolean, note?: SuspensionNote): Promise<boolean> => {
    const recorded = await suspensions.record(target, suspend, note);
    if (recorded) scheduler.trigger('reload', [target]);
    return recorded;
  };

  // 3. Serving: metrics, health, readiness, status, reload.
  let http: RunningHttpServer | undefined;
  if (options.listen) {
    // Manifest paths as the repository has them, linked to their lines when a repository URL is set.
    const linked = createSourceLinker(
      config.daemon?.repositoryUrl === undefined ? {} : { repositoryUrl: config.daemon.repositoryUrl },
    );
    const document = async (): Promise<StatusDocument> =>
      linked(
        withSuspended(
          withRateLimitWaits(
            { ...status.document(), ready: ready(), ...roleOf(leadership) },
            await rateLimitWaitSeconds(metrics),
          ),
          suspensions.suspended(),
          suspensions.of,
        ),
      );
    const control = controlToken === undefined ? {} : { control: { token: controlToken, setSuspended } };
    const handlers: HttpHandlers = {
      registry: metrics.registry,
      status: document,
      ready,
      onReload: reload,
      logger,
      ...control,
      ...(reloadToken === undefined ? {} : { reloadToken }),
    };
    http = await serveOn(options.listen, handlers).catch(async (error: unknown) => {
      await ownParser?.close();
      throw error;
    });
  }
  // 4. Watching: a saved file syncs the targets whose documents it holds (affected.ts).
  if (options.watch !== false) {
    watcher = await watchForSyncs(context, manifests, (concerned) => scheduler.trigger('files', concerned), {
      logger,
      ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
    });
  }
  scheduler.start();

  // 5. Stopping: no new work, syncs in flight drain, the state saved.
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await watcher?.close();
      const stopped = scheduler.stop();
      if (!(await endsWithin(stopped, options.drainMs ?? DEFAULT_DRAIN_MS)) && options.closeClients) {
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

  return {
    ...(http ? { url: http.url } : {}),
    status,
    scheduler,
    ready,
    reload,
    setSuspended,
    leadershipChanged,
    stop,
  };
}

/** `/status`'s `role` and `leader` under `--leader-elect`; nothing without it. */
function roleOf(leadership: DaemonOptions['leadership']): Pick<StatusDocument, 'role' | 'leader'> {
  if (!leadership) return {};
  const holder = leadership.leader();
  return {
    role: leadership.role(),
    ...(holder ? { leader: { host: holder.host, pid: holder.pid, command: holder.command, since: holder.since } } : {}),
  };
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

/**
 * Watches the manifests and asks for a sync of the targets a change concerns (affected.ts), or of
 * every target when that cannot be told.
 */
async function watchForSyncs(
  context: ReconcileContext,
  manifests: { parser: ManifestParser; cache: ParseCache },
  sync: (targets: string[] | undefined) => void,
  options: { logger: Logger; debounceMs?: number },
): Promise<ManifestWatcher> {
  const { logger } = options;
  const targets = context.config.targets.map((target) => target.name);
  const affected = trackAffectedTargets({ config: context.config, parser: manifests.parser, cache: manifests.cache });
  return watchManifests(context.manifestsDir, {
    ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
    logger,
    onChange: (reason) => {
      void Promise.all([affected.of(reason), checkoutRoot(context.manifestsDir)]).then(
        ([concerned, root]) => {
          const paths = reason.paths.slice(0, 10).map((path) => shownPath(path, root, context.manifestsDir));
          logger.info({ kind: reason.kind, paths, targets: concerned ?? targets }, 'manifests changed');
          sync(concerned);
        },
        (error: unknown) => {
          logger.warn({ err: error }, 'could not tell which targets a change concerns; syncing all of them');
          sync(undefined);
        },
      );
    },
  });
}

/** Whether `promise` resolves or rejects within `ms`; never rejects. */
function endsWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/** A watcher's path named as the daemon names files: under the manifests directory as given. */
function shownPath(path: string, root: string, shownDir: string): string {
  const inside = relative(root, path);
  if (inside === '') return shownDir;
  return inside.startsWith('..') || isAbsolute(inside) ? path : join(shownDir, inside);
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
  const pending = statuses
    .flatMap((status) => status?.resources ?? [])
    .filter((resource) => resource.status === 'drifted').length;
  const failed = options.context.config.targets.flatMap((target, index) => {
    const status = statuses[index];
    return status?.lastResult === 'success'
      ? []
      : [{ target: target.name, error: status?.lastError ?? 'the sync did not finish' }];
  });
  return { ok: failed.length === 0, pending, failed };
}
