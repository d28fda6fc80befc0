/**
 * `stacksync emulator`: runs the emulator in the foreground until SIGTERM or SIGINT, then closes
 * cleanly (in-flight requests finish, state is written). The banner goes to stdout, logs to stderr.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { LevelWithSilent, Logger } from 'pino';
import { createLogger, type LogFormat } from '../support/logger.js';
import { logFormatFor, logFormatOption } from './log-format.js';
import type { RunningEmulator } from '../emulator/index.js';
import { PROFILES, type Profile } from '../emulator/model.js';
import { parseDuration } from '../config/duration.js';
import type { CommandFactory } from './exit.js';
import { EXIT_OK } from './exit.js';

export const DEFAULT_EMULATOR_PORT = 4010;
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export interface EmulatorFlags {
  /** Default `seed`. */
  profile?: Profile;
  host: string;
  port: number;
  seed?: string;
  data?: string;
  faults?: string;
  rateLimit?: number;
  /** Milliseconds, from `--rate-window 10s`. */
  rateWindow?: number;
  /** Milliseconds each asynchronous pipe state change takes (current profile), from `--pipe-delay 1s`. */
  pipeDelay?: number;
  /** `--paths pipes=clickpipes,stack=clickstack`, parsed with the emulator (like `--faults`). */
  paths?: string;
  /** From `--settings-prefix clickhouse_`. */
  settingsPrefix?: string;
  logLevel: LevelWithSilent;
  logFormat?: LogFormat;
}

export interface EmulatorIo {
  stdout: { write(text: string): unknown };
  logger?: Logger;
  /** Resolves when the emulator should stop; default: the first SIGTERM or SIGINT. */
  stopped?: Promise<string>;
  /** Called once the emulator listens (tests use it to find the port). */
  onListening?: (emulator: RunningEmulator) => void;
}

function integerIn(min: number, max: number, what: string) {
  return (text: string): number => {
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(value >= min && value <= max))
      throw new InvalidArgumentError(`${what} must be an integer from ${min} to ${max}.`);
    return value;
  };
}

function duration(what: string) {
  return (text: string): number => {
    const ms = parseDuration(text);
    if (ms === undefined || ms <= 0) throw new InvalidArgumentError(`${what} must be a duration like 10s or 500ms.`);
    return ms;
  };
}

/** A duration that may be 0 (`0`, `0s`, `250ms`, `1s`). */
function delay(what: string) {
  return (text: string): number => {
    const ms = text === '0' ? 0 : parseDuration(text);
    if (ms === undefined) throw new InvalidArgumentError(`${what} must be a duration like 1s or 250ms, or 0.`);
    return ms;
  };
}

/** The first of the given signals; its handlers are removed once it arrives. */
export function waitForSignal(signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      for (const name of signals) process.off(name, onSignal);
      resolve(signal);
    };
    for (const name of signals) process.on(name, onSignal);
  });
}

/** Starts the emulator, prints the banner, and resolves after a clean stop. */
export async function runEmulator(flags: EmulatorFlags, io: EmulatorIo): Promise<void> {
  const logger = io.logger ?? createLogger({ level: flags.logLevel, format: logFormatFor('emulator', flags) });
  const stopped = io.stopped ?? waitForSignal();
  const profile = flags.profile ?? 'seed';
  // Loaded here, not with the command list: every other command starts without the emulator.
  const [{ loadSeedFile, parsePathSegments, startEmulator }, { emulatorBanner }] = await Promise.all([
    import('../emulator/index.js'),
    import('../emulator/banner.js'),
  ]);
  const emulator = await startEmulator({
    profile,
    host: flags.host,
    port: flags.port,
    ...(flags.seed !== undefined && { seed: loadSeedFile(flags.seed, profile) }),
    ...(flags.data !== undefined && { dataFile: flags.data }),
    ...(flags.faults !== undefined && { faults: flags.faults }),
    ...(flags.rateLimit !== undefined && { rateLimit: flags.rateLimit }),
    ...(flags.rateWindow !== undefined && { rateWindowMs: flags.rateWindow }),
    ...(flags.pipeDelay !== undefined && { pipeTransitionMs: flags.pipeDelay }),
    ...(flags.paths !== undefined && { paths: parsePathSegments(flags.paths) }),
    ...(flags.settingsPrefix !== undefined && { settingsPrefix: flags.settingsPrefix }),
    logger,
  });
  io.stdout.write(
    emulatorBanner(emulator.url, emulator.state(), emulator.seed, emulator.credentialHash, emulator.paths.pipes),
  );
  io.onListening?.(emulator);
  const signal = await stopped;
  logger.info({ signal }, 'emulator stopping');
  await emulator.close();
}

const HELP_AFTER = `
Serves both API variants on one port: managed under /v1/organizations/{org}/services/{svc}/…
(HTTP Basic: key id and secret) and self-hosted under /api/v2/… (Bearer token).
Without --seed it uses the built-in seed (key emulator-key / emulator-secret, token emulator-token).
Unauthenticated helpers: GET /_emulator/stats, POST /_emulator/reset, GET /_emulator/dump.

Profiles (--profile):
  seed     the API exactly as docs/reference/api-seed.md and docs/reference/api-behaviour.md describe it (default)
  current  the real services as they are today: tiles answered as \`config\`, tiles required,
           sourceId checked against the team's sources, saved_search alerts, eight threshold
           types, webhooks that must exist, alerts with dashboardId/teamId and state OK,
           24-hex ids on the managed stack routes, unknown members dropped, richer sources,
           pipe states as open text; the seed file may add sources, webhooks, savedSearches,
           dashboards and alerts to services and teams
           Pipes live their whole lifecycle: create of every source family, Provisioning →
           Running (or Snapshot, Completed, Failed) after --pipe-delay, start/stop/resync,
           settings, scaling and pipesCdcScaling; a seed service's failPipes (names or globs)
           and --faults pipefail=P make provisionings fail

Other spellings (both profiles): --paths renames the managed product segments, e.g.
pipes=clickpipes,stack=clickstack (…/clickpipes, …/clickpipesCdcScaling, …/clickstack/…);
--settings-prefix serves engine_* pipe settings under another prefix, e.g. clickhouse_.

Examples:
  stacksync emulator
  stacksync emulator --profile current
  stacksync emulator --port 0 --seed emulator.yaml --data .emulator/state.json
  stacksync emulator --faults "error=0.1,throttle=0.05,latency=20ms,reset=0.02,spike=0.05:200ms"
  stacksync emulator --rate-limit 10 --log-level debug
  stacksync emulator --rate-limit 10 --rate-window 10s   # the managed service's budget, a sliding window
  stacksync emulator --profile current --pipe-delay 0 --faults pipefail=0.1
  stacksync emulator --paths pipes=clickpipes,stack=clickstack --settings-prefix clickhouse_
`;

export const emulatorCommand: CommandFactory = (setExitCode) =>
  new Command('emulator')
    .description('Run a local, faithful server of the whole API (both variants) for trying stacksync and for tests')
    .addOption(
      new Option(
        '--profile <profile>',
        'whose behaviour to serve: the seed spec (seed) or the real services of today (current)',
      )
        .choices(PROFILES)
        .default('seed'),
    )
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option(
      '--port <port>',
      'port to listen on (0 = any free port)',
      integerIn(0, 65535, 'port'),
      DEFAULT_EMULATOR_PORT,
    )
    .option(
      '--seed <file>',
      "seed file, YAML or JSON (organizations, keys, services, pipes, teams, and stacks in the profile's format); default: built-in seed",
    )
    .option(
      '--data <file>',
      'keep state in this JSON file across restarts (written atomically); the seed only fills a new file',
    )
    .option(
      '--faults <spec>',
      'inject failures: error=P,throttle=P,reset=P,latency=D,spike=P:D,pipefail=P (P a share 0..1, D like 20ms)',
    )
    .option(
      '--rate-limit <n>',
      'answer 429 past N requests per second per credential',
      integerIn(1, 1_000_000, 'rate limit'),
    )
    .option(
      '--rate-window <d>',
      'with --rate-limit: N per sliding window D (e.g. 10s), not per clock second',
      duration('rate window'),
    )
    .option(
      '--pipe-delay <d>',
      'current profile: time each asynchronous pipe state change takes (default 1s; 0 = settled by the next request)',
      delay('pipe delay'),
    )
    .option('--paths <spec>', 'serve the managed product segments under other names: pipes=NAME,stack=NAME')
    .option('--settings-prefix <p>', "serve the pipes' engine_ settings under another prefix (e.g. clickhouse_)")
    .addOption(
      new Option('--log-level <level>', 'log level on stderr (debug logs one line per request)')
        .choices(LOG_LEVELS)
        .default('info'),
    )
    .addOption(logFormatOption())
    .addHelpText('after', HELP_AFTER)
    .action(async (flags: EmulatorFlags) => {
      await runEmulator(flags, { stdout: process.stdout });
      setExitCode(EXIT_OK);
    });
