/**
 * `startEmulator`: a faithful, standalone server of both API variants on one port (docs/emulator.md,
 * "Emulator"). Managed routes live under `/v1/…`, self-hosted under `/api/v2/…`.
 */
import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { pino, type Logger } from 'pino';
import { ApiError } from './errors.js';
import { hasFaults, NO_FAULTS, parseFaults } from './faults.js';
import { BODY_LIMIT_BYTES } from './http.js';
import { DataWriter, readSavedState, type SavedState } from './persistence.js';
import { RateLimiter } from './rate-limit.js';
import { Router } from './router.js';
import { managedRoutes } from './routes-managed.js';
import { selfHostedRoutes } from './routes-selfhosted.js';
import { defaultSeed, parseSeed, type Seed } from './seed.js';
import { closeServer, createPipeline, listen } from './server.js';
import { Stats } from './stats.js';
import { DEFAULT_PIPE_TRANSITION_MS } from './current/pipe-lifecycle.js';
import { resolvePathSegments, withPathSegments, type PathSegments } from './path-segments.js';
import { checkSettingsPrefix } from './settings-prefix.js';
import { DEFAULT_SETTINGS_PREFIX } from '../schema/pipe-sources.js';
import { Store } from './store.js';
import { PROFILES, profileOf, type Profile, type ProfileData } from './model.js';
import { StacksyncError } from '../errors.js';
import { listenError, type AddressFlags } from '../support/listen-error.js';
import { DEFAULT_RATE_LIMITS } from '../schema/enums.js';

export { DEFAULT_CURRENT_IDS, DEFAULT_SEED_IDS, defaultSeed, loadSeedFile, parseSeed } from './seed.js';
export type {
  Seed,
  SeedKey,
  SeedOrganization,
  SeedPipe,
  SeedSavedSearch,
  SeedService,
  SeedSource,
  SeedStack,
  SeedTeam,
  SeedWebhook,
} from './seed.js';
export type { CurrentEmulatorData, EmulatorData, Profile, ProfileData } from './model.js';
export type { CurrentAlertRecord } from './current/alert.js';
export { PROFILES } from './model.js';
export type { StatsSnapshot, RouteStats } from './stats.js';
export { parseFaults, type FaultSpec } from './faults.js';
export { DEFAULT_PATH_SEGMENTS, parsePathSegments, type PathSegments } from './path-segments.js';
export { DEFAULT_PIPE_TRANSITION_MS } from './current/pipe-lifecycle.js';
export { ApiError };

export interface EmulatorOptions {
  /** Whose behaviour to serve: the seed spec's (`seed`, the default) or the real services' of today (`current`). */
  profile?: Profile;
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string;
  /** Port; `0` (the default) picks a free one. */
  port?: number;
  /** The initial state, in the profile's format; default `defaultSeed(profile)`. Ignored when `dataFile` already exists. */
  seed?: Seed;
  /** Persist state here across restarts (atomic, coalesced writes). */
  dataFile?: string;
  /** Fault injection, e.g. `error=0.1,throttle=0.05,latency=20ms,reset=0.02,spike=0.05:200ms`. */
  faults?: string;
  /** Requests per credential per second; past it, 429. Default: unlimited. */
  rateLimit?: number;
  /** With `rateLimit`: count over a sliding window of this many ms instead of the clock's seconds. */
  rateWindowMs?: number;
  /** Request logs (debug) and lifecycle (info); `false` or absent = silent. */
  logger?: Logger | false;
  /** Source of randomness for fault injection; default `Math.random`. */
  random?: () => number;
  /** Clock for timestamps and rate-limit windows, ms since the epoch; default `Date.now`. */
  clock?: () => number;
  /** How injected latency waits; default a real timer. Tests pass a recorder. */
  sleep?: (ms: number) => Promise<void>;
  /** Request body limit in bytes; default 10 MB. */
  bodyLimit?: number;
  /** Coalescing delay of data-file writes; default 100 ms. */
  persistDelayMs?: number;
  /**
   * Current profile: how long each asynchronous pipe state change takes (Provisioning → Running is
   * one, → Snapshot → Running two), in ms; default 1000. With 0 a pipe has settled by the next request.
   */
  pipeTransitionMs?: number;
  /** Names the managed routes use for their product segments instead of the seed's, e.g. `{ pipes: 'clickpipes', stack: 'clickstack' }`. */
  paths?: Partial<PathSegments>;
  /** Prefix of the pipes' engine settings instead of the seed's `engine_`, e.g. `clickhouse_`. */
  settingsPrefix?: string;
}

export interface RunningEmulator {
  /** `http://127.0.0.1:PORT`, the base URL of both variants. */
  url: string;
  port: number;
  profile: Profile;
  /** The seed the emulator started from (its credentials work unless the data file says otherwise). */
  seed: Seed;
  /** The product path segments the managed routes are served under. */
  paths: PathSegments;
  /** The prefix of the pipes' engine settings as served. */
  settingsPrefix: string;
  /** True when the state came from an existing data file rather than the seed. */
  restored: boolean;
  /** The current state, as `GET /_emulator/dump` returns it (no secret in clear). */
  state(): ProfileData;
  /** The salted hash the state holds for a secret or token (to tell whether a known secret still works). */
  credentialHash(secret: string): string;
  /** Stops the server, then writes any pending state. Safe to call twice. */
  close(): Promise<void>;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function checkRateLimit(rateLimit: number | undefined, windowMs: number | undefined): void {
  if (rateLimit !== undefined && !(Number.isInteger(rateLimit) && rateLimit > 0)) {
    throw new StacksyncError('E_USAGE', `rate limit must be a positive integer, got ${rateLimit}`);
  }
  if (windowMs !== undefined && (rateLimit === undefined || !(Number.isInteger(windowMs) && windowMs > 0))) {
    throw new StacksyncError(
      'E_USAGE',
      `a rate window needs a rate limit and a positive whole number of ms, got ${windowMs}`,
    );
  }
}

function checkTransitionMs(ms: number | undefined): number {
  if (ms === undefined) return DEFAULT_PIPE_TRANSITION_MS;
  if (!(Number.isInteger(ms) && ms >= 0))
    throw new StacksyncError('E_USAGE', `pipe transition delay must be a whole number of ms, 0 or more, got ${ms}`);
  return ms;
}

/** The real self-hosted budget (100 requests per 60 s per token), counted for the `RateLimit-*` headers only. */
function selfHostedMeter(clock: () => number): RateLimiter {
  const { requests, perSeconds } = DEFAULT_RATE_LIMITS['self-hosted'];
  return new RateLimiter(requests, clock, perSeconds * 1000);
}

function checkProfile(profile: Profile): void {
  if (!PROFILES.includes(profile))
    throw new StacksyncError('E_USAGE', `profile must be one of ${PROFILES.join(', ')}, got ${String(profile)}`);
}

/** A data file serves the profile that wrote it: the other's rules cannot read its dashboards and alerts. */
function checkSavedProfile(saved: SavedState | undefined, profile: Profile, dataFile: string | undefined): void {
  if (!saved || profileOf(saved.state) === profile) return;
  const found = profileOf(saved.state);
  throw new StacksyncError(
    'E_EMULATOR_DATA',
    `emulator data file ${dataFile} holds state of the ${found} profile, not ${profile}; start with --profile ${found}, or use another --data file`,
    {
      subject: dataFile,
    },
  );
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const logger = options.logger || pino({ enabled: false });
  const clock = options.clock ?? Date.now;
  const profile = options.profile ?? 'seed';
  checkProfile(profile);
  const origin = options.seed ? 'seed option' : 'built-in seed';
  const seed = parseSeed(options.seed ?? defaultSeed(profile), origin, profile);
  const faults = options.faults ? parseFaults(options.faults) : NO_FAULTS;
  checkRateLimit(options.rateLimit, options.rateWindowMs);
  const paths = resolvePathSegments(options.paths);
  const settingsPrefix = checkSettingsPrefix(options.settingsPrefix ?? DEFAULT_SETTINGS_PREFIX);
  const random = options.random ?? Math.random;
  const pipes = {
    behaviour: { transitionMs: checkTransitionMs(options.pipeTransitionMs), failShare: faults.pipeFail, random },
    settingsPrefix,
  };

  // State: the data file when it exists, else the seed.
  const saved = options.dataFile ? readSavedState(options.dataFile) : undefined;
  checkSavedProfile(saved, profile, options.dataFile);
  const store = saved
    ? Store.fromData(saved.state, clock, saved.credentialSalt)
    : Store.fromSeed(seed, clock, profile, origin);
  if (saved && options.seed) logger.warn({ dataFile: options.dataFile }, 'data file exists; the seed is ignored');
  const writer = options.dataFile
    ? new DataWriter(options.dataFile, () => store.toData(), {
        delayMs: options.persistDelayMs ?? 100,
        credentialSalt: store.credentials.saltHex(),
        onError: (error) =>
          logger.error({ err: error, dataFile: options.dataFile }, 'could not write emulator data file'),
      })
    : undefined;
  if (writer) {
    store.onChange = () => writer.schedule();
    // A fresh data file is written at once, so a path that cannot be written fails the start;
    // a file from before salting is rewritten with its hashes salted.
    if (!saved || saved.credentialSalt === undefined) {
      writer.schedule();
      await writer.flush();
    }
  }

  const pipeline = createPipeline({
    store,
    router: new Router(withPathSegments([...managedRoutes(profile, pipes), ...selfHostedRoutes(profile)], paths)),
    stats: new Stats(),
    faults,
    limiter: options.rateLimit ? new RateLimiter(options.rateLimit, clock, options.rateWindowMs) : undefined,
    random,
    sleep: options.sleep ?? ((ms) => delay(ms)),
    logger,
    bodyLimit: options.bodyLimit ?? BODY_LIMIT_BYTES,
    rateHeadersOnEveryAnswer: profile === 'current',
    rateMeter: profile === 'current' && !options.rateLimit ? selfHostedMeter(clock) : undefined,
  });
  const host = options.host ?? '127.0.0.1';
  let server: Server;
  try {
    server = await listen(pipeline, host, options.port ?? 0);
  } catch (error) {
    await writer?.close();
    throw listenError(error, `${host}:${options.port ?? 0}`, EMULATOR_ADDRESS_FLAGS);
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const url = `http://${urlHost(host)}:${port}`;
  logger.info(
    {
      url,
      profile,
      paths,
      settingsPrefix,
      faults: hasFaults(faults) ? options.faults : undefined,
      rateLimit: options.rateLimit,
      rateWindowMs: options.rateWindowMs,
      dataFile: options.dataFile,
      restored: Boolean(saved),
    },
    'emulator listening',
  );

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await closeServer(server);
      await writer?.close();
      logger.info({ url }, 'emulator stopped');
    })());
  return {
    url,
    port,
    profile,
    seed,
    paths,
    settingsPrefix,
    restored: Boolean(saved),
    state: () => store.toData(),
    credentialHash: (secret) => store.credentials.hash(secret),
    close,
  };
}

/** The emulator command's flags for its address. */
const EMULATOR_ADDRESS_FLAGS: AddressFlags = { port: '--port; 0 picks a free one', host: '--host' };
