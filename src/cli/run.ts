/** `stacksync run`: the daemon, or with `--embedded` (default without a config) a self-contained demo. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_LISTEN } from '../daemon/http.js';
import { PROFILES } from '../emulator/model.js';
import { addCommonOptions, lockTimeoutOption, parseLockTimeout } from './context.js';
import { DEFAULT_LEASE_MS } from '../state/lock.js';
import type { RunFlags } from './run-action.js';
import type { CommandFactory } from './exit.js';

/** `--lease-duration`: a duration of at least one second. */
function parseLeaseDuration(text: string): number {
  const ms = parseLockTimeout(text);
  if (ms < 1_000) throw new InvalidArgumentError('must be at least 1s');
  return ms;
}

export const runCommand: CommandFactory = (setExitCode) =>
  addCommonOptions(
    new Command('run')
      .summary('reconcile continuously: watch manifests, resync, heal drift, serve metrics')
      .description(
        'Sync every target, then again whenever a manifest changes (debounced, following git-sync ' +
          'symlink swaps), on POST /-/reload, and every sync.interval (with jitter) to catch console ' +
          'edits. ' +
          'sync.drift heal repairs drift; report only reports it; propose leaves it live and commits it to ' +
          'a branch of the manifests repository for review (as stacksync pull writes it). Serves /metrics, ' +
          '/healthz, /readyz, /status and POST /-/reload on --listen.\n' +
          'Without a config file (or with --embedded) it starts the built-in emulator and reconciles ' +
          'manifests/ into it: the quickest way to see stacksync work.\n' +
          'Console and logs say "changes to apply" for manifest changes (applied "from Git" at a commit, ' +
          '"from the working tree" with uncommitted edits) and "drift" only for live edits made outside ' +
          'stacksync. ' +
          'A sync that fails as the one before it is one line ("retrying Alert/x in 2 s: …"). On a ' +
          'terminal, --once and embedded: human lines; otherwise JSON records on stderr only ' +
          '(--log-format).\n' +
          'Exit codes: 0 after a clean SIGTERM/SIGINT (or --once with everything applied), 1 on errors, 2 ' +
          'with --once --detailed-exitcode when changes were found and not applied (--dry-run, sync.drift ' +
          'report).',
      ),
    'info',
  )
    .option(
      '--listen <host:port>',
      `address of /metrics, /healthz, /readyz, /status, /-/reload (default ${DEFAULT_LISTEN}; 127.0.0.1:9464 embedded)`,
    )
    .option('--embedded', 'run against the built-in emulator (default when no config file exists)')
    .addOption(
      new Option(
        '--profile <profile>',
        'with --embedded: whose behaviour the built-in emulator serves, the seed spec (seed) or the real ' +
          'services of today (current); the targets write its spelling',
      )
        .choices(PROFILES)
        .default('seed'),
    )
    .option('--once', "sync every target once and exit with apply's exit codes")
    .option('--dry-run', 'plan and report changes to apply and drift, never write')
    .option(
      '--detailed-exitcode',
      'with --once: exit 2 when changes were found and not applied, like plan --detailed-exitcode',
    )
    .addOption(lockTimeoutOption())
    .option(
      '--leader-elect',
      'run as one of several replicas on one shared state: the holder of the state lease reconciles, ' +
        'the others stand by (ready, /status role standby) and take over when it goes',
    )
    .addOption(
      new Option(
        '--lease-duration <duration>',
        `with --leader-elect: how long the lease lasts unrenewed, e.g. 15s (default ${DEFAULT_LEASE_MS / 1000}s); standbys try to take it every fifth of it`,
      ).argParser(parseLeaseDuration),
    )
    .action(async (flags: RunFlags) => {
      // The daemon, its metrics and the emulator load only for this command.
      const { runAction } = await import('./run-action.js');
      await runAction(flags, setExitCode);
    });
