/** `stacksync run`: the daemon, or with `--embedded` (default without a config) a self-contained demo. */
import { relative } from 'node:path';
import { Command, Option } from 'commander';
import { processEnv } from '../config/paths.js';
import { startDaemon, syncOnce, type DaemonOptions } from '../daemon/daemon.js';
import { EMBEDDED_TOKEN, startEmbedded, type Embedded } from '../daemon/embedded.js';
import { DEFAULT_LISTEN, parseListen } from '../daemon/http.js';
import { createLogger } from '../support/logger.js';
import { apiHooksFor, createMetrics } from '../daemon/metrics.js';
import { installShutdown } from '../daemon/shutdown.js';
import { DEFAULT_SEED_IDS, PROFILES, type Profile } from '../emulator/index.js';
import { addCommonOptions, lockTimeoutOf, lockTimeoutOption, noConfigGiven, openSession, type CommonFlags, type LockFlags } from './context.js';
import { StacksyncError } from '../errors.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';

interface RunFlags extends CommonFlags, LockFlags {
  listen?: string;
  embedded?: boolean;
  profile?: Profile;
  once?: boolean;
  dryRun?: boolean;
  detailedExitcode?: boolean;
}

/** How long a signalled stop may take (in-flight writes, state save) before exiting 1. */
const SHUTDOWN_GRACE_MS = 30_000;

export const runCommand: CommandFactory = (setExitCode) =>
  addCommonOptions(
    new Command('run')
      .summary('reconcile continuously: watch manifests, resync, heal drift, serve metrics')
      .description(
        'Sync every target, then again whenever a manifest changes (debounced, following git-sync symlink swaps), on POST /-/reload, and every sync.interval (with jitter) to catch console edits. ' +
          'sync.drift heal repairs drift; report only reports it. Serves /metrics, /healthz, /readyz, /status and POST /-/reload on --listen.\n' +
          'Without a config file (or with --embedded) it starts the built-in emulator and reconciles manifests/ into it: the quickest way to see stacksync work.\n' +
          'Console and logs say "changes to apply" for manifest changes from Git and "drift" only for live edits made outside stacksync.\n' +
          'Exit codes: 0 after a clean SIGTERM/SIGINT (or --once with everything applied), 1 on errors, 2 with --once --detailed-exitcode when changes were found and not applied (--dry-run, sync.drift report).',
      ),
    'info',
  )
    .option('--listen <host:port>', `address of /metrics, /healthz, /readyz, /status, /-/reload (default ${DEFAULT_LISTEN}; 127.0.0.1:9464 embedded)`)
    .option('--embedded', 'run against the built-in emulator (default when no config file exists)')
    .addOption(
      new Option('--profile <profile>', 'with --embedded: whose behaviour the built-in emulator serves, the seed spec (seed) or the real services of today (current); the targets write its spelling')
        .choices(PROFILES)
        .default('seed'),
    )
    .option('--once', "sync every target once and exit with apply's exit codes")
    .option('--dry-run', 'plan and report changes to apply and drift, never write')
    .option('--detailed-exitcode', 'with --once: exit 2 when changes were found and not applied, like plan --detailed-exitcode')
    .addOption(lockTimeoutOption())
    .action(async (flags: RunFlags) => {
      if (flags.detailedExitcode && !flags.once) throw new StacksyncError('E_USAGE', '--detailed-exitcode needs --once: a daemon has no exit code to report changes with');
      const env = processEnv();
      const embedded = flags.embedded === true || noConfigGiven(flags, env);
      const logger = createLogger({ level: (flags.logLevel ?? 'info') as 'info' });
      const metrics = createMetrics();
      const demo = embedded ? await startEmbedded({ profile: flags.profile ?? 'seed' }) : undefined;
      const session = await openSession(flags, {
        writeKey: flags.dryRun !== true,
        // Each sync takes the state lock, so a one-off apply can run between two syncs.
        state: flags.dryRun === true ? { mode: 'read' } : { mode: 'guarded', command: 'run', lockTimeoutMs: lockTimeoutOf(flags) },
        logger,
        env,
        ...(demo ? { config: demo.config } : {}),
        clientOptions: { hooksFor: (target) => apiHooksFor(metrics, target) },
      });
      const closeAll = async (): Promise<void> => {
        await session.close();
        await demo?.emulator.close();
      };
      const options: DaemonOptions = {
        context: session.context,
        metrics,
        logger,
        dryRun: flags.dryRun === true,
        console: (text) => process.stdout.write(text),
        closeClients: () => session.clients.close(),
        stateGuard: session.guard,
      };
      if (demo) process.stdout.write(embeddedBanner(demo, session.context.manifestsDir));

      if (flags.once) {
        const once = await syncOnce(options);
        await closeAll();
        setExitCode(!once.ok ? EXIT_ERROR : flags.detailedExitcode && once.pending > 0 ? EXIT_CHANGES : EXIT_OK);
        return;
      }
      const listen = parseListen(flags.listen ?? (demo ? '127.0.0.1:9464' : DEFAULT_LISTEN));
      const daemon = await startDaemon({ ...options, listen });
      logger.info({ url: daemon.url, targets: session.context.config.targets.map((target) => target.name), dryRun: options.dryRun }, 'listening: /metrics /healthz /readyz /status, POST /-/reload');
      installShutdown({
        graceMs: SHUTDOWN_GRACE_MS,
        logger,
        exit: (code) => process.exit(code),
        onFirstSignal: async () => {
          logger.info('stopping: no new work; waiting for writes in flight, then saving the state');
          await daemon.stop();
          await closeAll();
        },
      });
      if (demo) void whenReady(daemon.ready).then(() => process.stdout.write(embeddedTips(daemon.url ?? '', demo.emulator.url, session.context.manifestsDir)));
    });

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

function embeddedBanner(demo: Embedded, manifestsDir: string): string {
  const url = demo.emulator.url;
  return [
    '',
    `stacksync: no config file found, so running against the built-in emulator at ${url}`,
    `  managed target "local":              org ${DEFAULT_SEED_IDS.organizationId}, key ${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`,
    `  self-hosted target "local-selfhosted": bearer token ${EMBEDDED_TOKEN}`,
    `  reconciling ${manifestsDir}/ into it; state in ${relative(process.cwd(), demo.dir) || '.'}/`,
    '',
  ].join('\n');
}

function embeddedTips(httpUrl: string, emulatorUrl: string, manifestsDir: string): string {
  return [
    '',
    'First sync done. Things to try (this keeps running; Ctrl-C stops it cleanly):',
    `  - edit a file in ${manifestsDir}/ (say, a tile's "w" in a dashboard) and watch it applied within a second`,
    `  - delete an alert manifest: embedded mode prunes, so the alert is deleted`,
    `  - change something behind stacksync's back and see it healed at the next resync (30s):`,
    `      curl -s -H 'Authorization: Bearer ${EMBEDDED_TOKEN}' ${emulatorUrl}/api/v2/dashboards`,
    `  - ${httpUrl}/status   per-resource state      ${httpUrl}/metrics   Prometheus metrics`,
    `  - curl -XPOST ${httpUrl}/-/reload               sync now`,
    '  - npx stacksync plan -c examples/stacksync.yaml  against a separately started `stacksync emulator`',
    '',
  ].join('\n');
}
