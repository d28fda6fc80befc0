/** What `stacksync run` does; kept apart from its definition so other commands start without the daemon. */
import { show, showLines } from '../support/terminal.js';
import { chooseConfigPath, processEnv } from '../config/paths.js';
import { loadConfig } from '../config/load.js';
import { pullPlanned } from '../reconcile/pull.js';
import { startDaemon, syncOnce, type Daemon, type DaemonOptions } from '../daemon/daemon.js';
import { createLeaderElection } from '../daemon/leader.js';
import { createStateGuard } from '../state/guard.js';
import { DEFAULT_LEASE_MS } from '../state/lock.js';
import { bindHttpServer, DEFAULT_LISTEN, parseListen, type BoundHttpServer } from '../daemon/http.js';
import { apiHooksFor, createMetrics } from '../daemon/metrics.js';
import { logFormatFor } from './log-format.js';
import { installShutdown } from '../daemon/shutdown.js';
import {
  commandLogger,
  lockTimeoutOf,
  noConfigGiven,
  openSession,
  type CommonFlags,
  type LockFlags,
} from './context.js';
import { rateWaitTeller } from './progress.js';
import { StacksyncError } from '../errors.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_OK } from './exit.js';
import type { Profile } from '../emulator/model.js';

/** `stacksync run`'s flags, as commander gives them. */
export interface RunFlags extends CommonFlags, LockFlags {
  listen?: string;
  embedded?: boolean;
  profile?: Profile;
  once?: boolean;
  dryRun?: boolean;
  detailedExitcode?: boolean;
  leaderElect?: boolean;
  leaseDuration?: number;
}

/** How long a signalled stop may take (in-flight writes, state save) before exiting 1. */
const SHUTDOWN_GRACE_MS = 30_000;

export async function runAction(flags: RunFlags, setExitCode: (code: number) => void): Promise<void> {
  if (flags.leaderElect && (flags.once || flags.dryRun))
    throw new StacksyncError(
      'E_USAGE',
      `--leader-elect is for a daemon that writes: ${flags.once ? '--once runs once and exits' : '--dry-run writes nothing'}, so it needs no lease`,
    );
  if (flags.leaseDuration !== undefined && !flags.leaderElect)
    throw new StacksyncError('E_USAGE', '--lease-duration needs --leader-elect');
  if (flags.detailedExitcode && !flags.once)
    throw new StacksyncError(
      'E_USAGE',
      '--detailed-exitcode needs --once: a daemon has no exit code to report changes with',
    );
  const env = processEnv();
  const embedded = flags.embedded === true || noConfigGiven(flags, env);
  // The port first: a daemon that cannot serve stops before it has started an emulator or touched the state.
  const server = flags.once
    ? undefined
    : await bindHttpServer(
        parseListen(
          flags.listen ?? (embedded ? EMBEDDED_LISTEN : ((await configuredListen(flags, env)) ?? DEFAULT_LISTEN)),
        ),
      );
  const opened: (() => Promise<void>)[] = server ? [() => server.close()] : [];
  // Whatever was opened is closed again, last first, when the start fails: nothing may keep a
  // process alive that has nothing to serve.
  const closeAll = async (): Promise<void> => {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    opened.length = 0;
  };
  try {
    await startRun(flags, setExitCode, { env, embedded, opened, closeAll, ...(server ? { server } : {}) });
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** The config's `daemon.listen`, read before anything is opened (the port is taken first). */
async function configuredListen(flags: RunFlags, env: ReturnType<typeof processEnv>): Promise<string | undefined> {
  return (await loadConfig(chooseConfigPath(flags.config, env).path)).config.daemon?.listen;
}

/** The daemon's address with `--embedded` (the demo's; a real daemon listens on all interfaces). */
const EMBEDDED_LISTEN = '127.0.0.1:9464';

interface RunStart {
  env: ReturnType<typeof processEnv>;
  embedded: boolean;
  /** How to close what has been opened so far; each step adds its own. */
  opened: (() => Promise<void>)[];
  closeAll: () => Promise<void>;
  /** The bound HTTP server (absent with `--once`). */
  server?: BoundHttpServer;
}

async function startRun(flags: RunFlags, setExitCode: (code: number) => void, start: RunStart): Promise<void> {
  const { env, opened, closeAll, embedded } = start;
  // A person reads the embedded demo and --once; a pod's log collector reads the daemon.
  const logFormat = logFormatFor('run', { ...flags, embedded });
  const logger = commandLogger(flags, logFormat, 'info');
  const metrics = createMetrics();
  // The emulator is loaded only when it runs: a daemon against real services never pays for it.
  const demo = start.embedded
    ? await (await import('../daemon/embedded.js')).startEmbedded({ profile: flags.profile ?? 'seed' })
    : undefined;
  if (demo) opened.push(() => demo.emulator.close());
  const tellWait = rateWaitTeller((line, fields) => logger.info(fields, line));
  const session = await openSession(flags, {
    writeKey: flags.dryRun !== true,
    // Each sync takes the state lock, so a one-off apply can run between two syncs.
    state:
      flags.dryRun === true
        ? { mode: 'read' }
        : { mode: 'guarded', command: 'run', lockTimeoutMs: lockTimeoutOf(flags) },
    logger,
    env,
    ...(demo ? { config: demo.config } : {}),
    clientOptions: {
      hooksFor: (target) => ({
        ...apiHooksFor(metrics, target),
        onRateLimitDelay: (delay) => tellWait(target, delay),
      }),
    },
  });
  opened.push(() => session.close());
  const options: DaemonOptions = {
    context: session.context,
    metrics,
    logger,
    dryRun: flags.dryRun === true,
    // Human lines: the account of each sync on stdout. JSON: the same as records, and nothing else.
    ...(logFormat === 'human' ? { console: (text: string) => void process.stdout.write(showLines(text)) } : {}),
    closeClients: () => session.clients.close(),
    stateGuard: session.guard,
    // `sync.drift: propose`: the drift a sync found is pulled into the manifests from that sync's own plan.
    pullDrift: ({ context, run, changes }) => pullPlanned(context, run, { changes }),
  };
  if (demo && logFormat === 'human') process.stdout.write(demo.banner(session.context.manifestsDir));
  else if (demo)
    logger.info(
      { emulator: demo.emulator.url, manifests: session.context.manifestsDir, state: demo.dir },
      'no config file found, so running against the built-in emulator',
    );

  if (!start.server) {
    const once = await syncOnce(options);
    await closeAll();
    // A one-off run that failed says why where a one-off command does: on stderr, last.
    for (const { target, error } of once.failed) {
      if (logFormat === 'json') logger.error({ target }, error);
      else process.stderr.write(`stacksync: target ${show(target)}: ${showLines(error)}\n`);
    }
    setExitCode(!once.ok ? EXIT_ERROR : flags.detailedExitcode && once.pending > 0 ? EXIT_CHANGES : EXIT_OK);
    return;
  }
  // --leader-elect: the state lock becomes a lease held for as long as this daemon leads (leader.ts).
  let daemon: Daemon | undefined;
  const election = flags.leaderElect
    ? createLeaderElection({
        backend: session.state,
        leaseMs: flags.leaseDuration ?? DEFAULT_LEASE_MS,
        logger,
        onChange: () => daemon?.leadershipChanged(),
      })
    : undefined;
  if (election) {
    // Stopped (the lease let go) after the daemon has stopped writing, before the state is closed.
    opened.push(() => election.stop());
    options.leadership = election;
    options.stateGuard = createStateGuard(session.context.store, () => election.borrow());
  }
  daemon = await startDaemon({ ...options, listen: start.server });
  election?.start();
  logger.info(
    {
      url: daemon.url,
      ...(election ? { role: election.role() } : {}),
      targets: session.context.config.targets.map((target) => target.name),
      dryRun: options.dryRun,
    },
    'listening: /metrics /healthz /readyz /status, POST /-/reload',
  );
  installShutdown({
    graceMs: SHUTDOWN_GRACE_MS,
    logger,
    exit: (code) => process.exit(code),
    onFirstSignal: async () => {
      logger.info('stopping: no new work; waiting for writes in flight, then saving the state');
      await daemon?.stop();
      await closeAll();
    },
  });
  if (demo && logFormat === 'human')
    void whenReady(daemon.ready).then(() =>
      process.stdout.write(demo.tips(daemon.url ?? '', session.context.manifestsDir)),
    );
}

function whenReady(ready: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (!ready()) return;
      clearInterval(poll);
      resolve();
    }, 100);
    poll.unref();
  });
}
