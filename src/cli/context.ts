/**
 * What `plan`, `apply` and `run` share on the command line: where config and manifests are,
 * loading them, opening the state, and printing problems. Exit codes stay in the commands.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Logger } from 'pino';
import { parseDuration } from '../config/duration.js';
import { loadConfig } from '../config/load.js';
import type { Config } from '../model/config.js';
import { chooseConfigPath, chooseManifestsDir, noConfigAnywhere, processEnv, type Env } from '../config/paths.js';
import { createLogger } from '../support/logger.js';
import { logFormatOption, type LogFormat } from './log-format.js';
import { useColor } from './output.js';
import { StacksyncError } from '../errors.js';
import { budgetFilePath, fileBudgetLedger } from './budget-ledger.js';
import { createClientPool, type ClientPool, type ClientPoolOptions } from '../reconcile/clients.js';
import type { ReconcileContext } from '../reconcile/reconcile.js';
import { createStateGuard, readOnlyGuard, type StateGuard } from '../state/guard.js';
import type { StateBackend } from '../state/backend.js';
import { openStateBackend } from './state-backend.js';
import { createSecretHasher, HMAC_KEY_BYTES, type SecretHasher } from '../state/hmac.js';
import { DEFAULT_LOCK_TIMEOUT_MS, type LockHolder, type StateLock } from '../state/lock.js';
import type { StateStore } from '../state/store.js';
import { randomBytes } from 'node:crypto';
import { LEADER_COMMAND } from '../daemon/leader.js';

export interface CommonFlags {
  config?: string;
  manifests?: string;
  logLevel?: string;
  logFormat?: LogFormat;
}

/** Adds `-c`, `-m`, `--log-level` and `--log-format` with their help text. */
export function addCommonOptions(command: Command, defaultLogLevel = 'warn'): Command {
  return command
    .option('-c, --config <file>', 'config file (env STACKSYNC_CONFIG; default config/stacksync.yaml)')
    .option('-m, --manifests <dir>', 'manifests directory (env STACKSYNC_MANIFESTS; default manifests/)')
    .option('--log-level <level>', 'log level on stderr: trace, debug, info, warn, error, silent', defaultLogLevel)
    .addOption(logFormatOption());
}

/** The logger of a command: `--log-level`, in the form `format` says (see log-format.ts). */
export function commandLogger(flags: Pick<CommonFlags, 'logLevel'>, format: LogFormat, defaultLevel = 'warn'): Logger {
  return createLogger({ level: (flags.logLevel ?? defaultLevel) as 'warn', format, color: useColor(process.stderr) });
}

/** `--lock-timeout` of the commands that write the state file. */
export interface LockFlags {
  lockTimeout?: number;
}

/** `--lock-timeout`: how long to wait while another stacksync process writes the same state file. */
export function lockTimeoutOption(): Option {
  return new Option(
    '--lock-timeout <duration>',
    `how long to wait while another stacksync process writes the same state file, e.g. 30s, 2m, 0 ` +
      `(default ${DEFAULT_LOCK_TIMEOUT_MS / 1000}s); then exit 1 naming it`,
  ).argParser(parseLockTimeout);
}

/** Milliseconds of `--lock-timeout`: a duration (`30s`, `2m`) or plain seconds. */
export function parseLockTimeout(text: string): number {
  const ms = /^[0-9]+$/.test(text) ? Number(text) * 1000 : parseDuration(text);
  if (ms === undefined || !Number.isSafeInteger(ms))
    throw new InvalidArgumentError('must be a duration like 30s or 2m, or a number of seconds');
  return ms;
}

/** The lock timeout the flags ask for, or the default (30 s). */
export function lockTimeoutOf(flags: LockFlags): number {
  return flags.lockTimeout ?? DEFAULT_LOCK_TIMEOUT_MS;
}

export interface Session {
  context: ReconcileContext;
  clients: ClientPool;
  logger: Logger;
  configWarnings: { message: string; file: string; line?: number; column?: number }[];
  /** Runs a burst of state writes under the state lock (`guarded` access), from a fresh read of the state. */
  guard: StateGuard;
  /** Where the state is kept. */
  state: StateBackend;
  /** Writes what is left of the state (when this command holds the lock), lets the lock go, closes the clients. */
  close(): Promise<void>;
}

/**
 * How a command uses the state file. One process writes it at a time: another waits for the lock
 * up to `lockTimeoutMs`, then fails with `E_STATE_LOCKED` naming the holder.
 */
export type StateAccess =
  /** Never writes and takes no lock (plan, dry runs, export without --adopt). */
  | { mode: 'read' }
  /** Writes during the whole command (apply): the lock is taken before the state is read, and kept until `close`. */
  | { mode: 'command'; command: string; lockTimeoutMs: number }
  /** Writes in bursts (each sync of the daemon, export --adopt): `session.guard` takes the lock around each. */
  | { mode: 'guarded'; command: string; lockTimeoutMs: number };

export interface SessionOptions {
  /** Create the HMAC key when missing (apply/run); plan uses a throwaway key instead, writing nothing. */
  writeKey: boolean;
  env?: Env;
  clientOptions?: Omit<ClientPoolOptions, 'logger' | 'secretIo'>;
  logger?: Logger;
  /** An already loaded config (embedded mode). */
  config?: Config;
  /** How the state file is used: read only, locked for the whole command, or locked per burst of writes. */
  state: StateAccess;
  /**
   * The key to use when the state has none yet (default: random): `plan --out` derives one for
   * the plan, and the first `apply --plan` of such a plan creates the state key with it
   * (reconcile/plan-key.ts). May throw to refuse, before the key file is created.
   */
  newKey?: (config: Config) => Promise<Buffer>;
  /** The form of the session's log lines (unless `logger` is given); default human. */
  logFormat?: LogFormat;
}

/** Loads the config and opens state and clients for one command. */
export async function openSession(flags: CommonFlags, options: SessionOptions): Promise<Session> {
  const env = options.env ?? processEnv();
  const logger = options.logger ?? commandLogger(flags, options.logFormat ?? 'human');
  const { config, warnings } = options.config
    ? { config: options.config, warnings: [] }
    : await loadConfigFrom(flags, env);
  const backend = await openStateBackend(config.state, { env });
  let state: OpenState;
  try {
    state = await openState(backend, options.state, logger);
  } catch (error) {
    await backend.close();
    throw error;
  }
  const { store } = state;
  let hasher: SecretHasher;
  try {
    const newKey = options.newKey;
    hasher = createSecretHasher(await hmacKey(backend, options.writeKey, newKey && (() => newKey(config))));
  } catch (error) {
    await state.close();
    throw error;
  }
  // What each budget spent carries over to the next command (docs/apply.md#the-budget-across-commands).
  const budgetFile = budgetFilePath(env);
  const clients = createClientPool({
    ...options.clientOptions,
    logger,
    secretIo: { env },
    ...(budgetFile ? { ledger: fileBudgetLedger(budgetFile) } : {}),
  });
  const context: ReconcileContext = {
    config,
    manifestsDir: chooseManifestsDir(flags.manifests, env).path,
    store,
    hasher,
    apiFor: (target) => clients.apiFor(target),
    env,
    logger,
  };
  const configWarnings = warnings.map((warning) => ({ message: warning.message, ...warning.location }));
  const close = async (): Promise<void> => {
    try {
      await state.close();
    } finally {
      await backend.close();
      await clients.close();
    }
  };
  return { context, clients, logger, configWarnings, guard: state.guard, state: backend, close };
}

interface OpenState {
  store: StateStore;
  guard: StateGuard;
  close(): Promise<void>;
}

/** Opens the state the way `access` says; for a command that writes throughout, the lock comes first. */
async function openState(backend: StateBackend, access: StateAccess, logger: Logger): Promise<OpenState> {
  if (access.mode === 'read') {
    const store = await backend.open({ readOnly: true });
    return { store, guard: readOnlyGuard(store), close: () => store.close() };
  }
  const lock = (signal?: AbortSignal): Promise<StateLock> =>
    backend.lock({
      command: access.command,
      timeoutMs: access.lockTimeoutMs,
      ...(signal ? { signal } : {}),
      onWait: (holder) =>
        logger.warn(
          { holder: describeHolder(holder) },
          `the state (${backend.location}) is locked by ${describeHolder(holder)}; waiting up to ${access.lockTimeoutMs / 1000} s (--lock-timeout)`,
        ),
      onStale: (holder) =>
        logger.warn({ holder: describeHolder(holder) }, 'took over the state lock of a stacksync process that is gone'),
    });
  if (access.mode === 'guarded') {
    // No lock yet: what a crashed run left in the journal is compacted by the first holder.
    const store = await backend.open({ compactOnOpen: false });
    return { store, guard: createStateGuard(store, lock), close: async () => undefined };
  }
  const held = await lock().catch((error: unknown) => {
    throw heldByLeader(error);
  });
  let store: StateStore;
  try {
    store = await backend.open();
  } catch (error) {
    await held.release();
    throw error;
  }
  // A second signal exits at once: leave a complete state file and no lock behind even then.
  const onExit = (): void => {
    try {
      store.compactSync();
    } catch {
      // The journal is still there: the next run replays it.
    }
    held.releaseSync();
  };
  process.once('exit', onExit);
  const close = async (): Promise<void> => {
    process.off('exit', onExit);
    try {
      await store.close();
    } finally {
      await held.release();
    }
  };
  return { store, guard: { hold: (body) => body() }, close };
}

/**
 * A daemon elected leader (`run --leader-elect`) holds the state for as long as it leads, so no
 * timeout is long enough: say what to do instead (docs/daemon.md, "Two replicas, one writer").
 */
function heldByLeader(error: unknown): unknown {
  if (
    !(error instanceof StacksyncError) ||
    error.code !== 'E_STATE_LOCKED' ||
    error.details?.['command'] !== LEADER_COMMAND
  )
    return error;
  return new StacksyncError(
    'E_STATE_LOCKED',
    `${error.message}. That is a daemon elected leader: it holds the state for as long as it runs, ` +
      `so waiting longer will not help. Commit the change and let the daemon apply it (POST /-/reload ` +
      `to do it now), or stop the daemon's replicas for the time of this apply`,
    { ...(error.subject === undefined ? {} : { subject: error.subject }), details: error.details, cause: error },
  );
}

function describeHolder(holder: LockHolder): string {
  return `stacksync ${holder.command}, pid ${holder.pid} on ${holder.host}, since ${holder.since}`;
}

/** Neither -c nor STACKSYNC_CONFIG names a config, and none is at the default path: `run` goes embedded, the rest explain. */
export function noConfigGiven(flags: CommonFlags, env: Env): boolean {
  return noConfigAnywhere(flags.config, env);
}

async function loadConfigFrom(flags: CommonFlags, env: Env) {
  const chosen = chooseConfigPath(flags.config, env);
  if (noConfigGiven(flags, env)) {
    throw new StacksyncError(
      'E_CONFIG_INVALID',
      `no config file at ${chosen.path}; pass -c FILE, set STACKSYNC_CONFIG, or try 'stacksync run ` +
        `--embedded' to use the built-in emulator (config/ holds configs to start from: ` +
        `config/emulator.yaml for a local 'stacksync emulator', config/production.yaml, config/ci.yaml)`,
      { location: { file: chosen.path } },
    );
  }
  return loadConfig(chosen.path);
}

/**
 * The state's HMAC key, or when there is none yet, `newKey`'s (random by default): created as the
 * state key with `create`, else only used (no hashes were ever kept, so any key compares the same).
 */
async function hmacKey(backend: StateBackend, create: boolean, newKey?: () => Promise<Buffer>): Promise<Buffer> {
  const existing = await backend.hmacKey();
  if (existing) return existing;
  const fresh = (newKey ? await newKey() : undefined) ?? randomBytes(HMAC_KEY_BYTES);
  if (create) return (await backend.hmacKey(fresh)) ?? fresh;
  return fresh;
}
