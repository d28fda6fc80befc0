/**
 * What `plan`, `apply` and `run` share on the command line: where config and manifests are,
 * loading them, opening the state, and printing problems. Exit codes stay in the commands.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { loadConfig } from '../config/load.js';
import type { Config } from '../model/config.js';
import { chooseConfigPath, chooseManifestsDir, processEnv, type Env } from '../config/paths.js';
import { createLogger } from '../support/logger.js';
import { StacksyncError } from '../errors.js';
import { createClientPool, type ClientPool, type ClientPoolOptions } from '../reconcile/clients.js';
import type { ReconcileContext } from '../reconcile/reconcile.js';
import { createSecretHasher, keyPathFor, loadOrCreateHmacKey } from '../state/hmac.js';
import { openStateStore } from '../state/store.js';
import { randomBytes } from 'node:crypto';

export interface CommonFlags {
  config?: string;
  manifests?: string;
  logLevel?: string;
}

/** Adds `-c`, `-m` and `--log-level` with their help text. */
export function addCommonOptions(command: Command, defaultLogLevel = 'warn'): Command {
  return command
    .option('-c, --config <file>', 'config file (env STACKSYNC_CONFIG; default config/stacksync.yaml)')
    .option('-m, --manifests <dir>', 'manifests directory (env STACKSYNC_MANIFESTS; default manifests/)')
    .option('--log-level <level>', 'log level on stderr: trace, debug, info, warn, error, silent', defaultLogLevel);
}

export interface Session {
  context: ReconcileContext;
  clients: ClientPool;
  logger: Logger;
  configWarnings: { message: string; file: string; line?: number; column?: number }[];
  close(): Promise<void>;
}

export interface SessionOptions {
  /** Create the HMAC key when missing (apply/run); plan uses a throwaway key instead, writing nothing. */
  writeKey: boolean;
  env?: Env;
  clientOptions?: Omit<ClientPoolOptions, 'logger' | 'secretIo'>;
  logger?: Logger;
  /** An already loaded config (embedded mode). */
  config?: Config;
}

/** Loads the config and opens state and clients for one command. */
export async function openSession(flags: CommonFlags, options: SessionOptions): Promise<Session> {
  const env = options.env ?? processEnv();
  const logger = options.logger ?? createLogger({ level: (flags.logLevel ?? 'warn') as 'warn' });
  const { config, warnings } = options.config ? { config: options.config, warnings: [] } : await loadConfigFrom(flags, env);
  const store = await openStateStore(config.state);
  const hasher = createSecretHasher(await hmacKey(config.state, options.writeKey));
  const clients = createClientPool({ ...options.clientOptions, logger, secretIo: { env } });
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
      await store.close();
    } finally {
      await clients.close();
    }
  };
  return { context, clients, logger, configWarnings, close };
}

/** Neither -c nor STACKSYNC_CONFIG names a config, and none is at the default path: `run` goes embedded, the rest explain. */
export function noConfigGiven(flags: CommonFlags, env: Env): boolean {
  const chosen = chooseConfigPath(flags.config, env);
  return chosen.from === 'default' && !existsSync(chosen.path);
}

async function loadConfigFrom(flags: CommonFlags, env: Env) {
  const chosen = chooseConfigPath(flags.config, env);
  if (noConfigGiven(flags, env)) {
    throw new StacksyncError(
      'E_CONFIG_INVALID',
      `no config file at ${chosen.path}; pass -c FILE, set STACKSYNC_CONFIG, or try 'stacksync run --embedded' to use the built-in emulator (see examples/stacksync.yaml)`,
      { location: { file: chosen.path } },
    );
  }
  return loadConfig(chosen.path);
}

/** The state's HMAC key; without `create`, a missing key means no hashes were ever kept, so any key compares the same. */
async function hmacKey(statePath: string, create: boolean): Promise<Buffer> {
  const path = keyPathFor(statePath);
  if (create || existsSync(path)) return loadOrCreateHmacKey(path);
  return randomBytes(32);
}
