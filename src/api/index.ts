/**
 * The API client: `createApi(connection, options)` gives the {@link Api} of one target, managed or
 * self-hosted, over undici, with its retries and keep-alive pool, paced by the rate budget of its
 * credential (shared with every client given the same {@link SharedPacers}).
 */
import type { Logger } from 'pino';
import { Agent, type Dispatcher } from 'undici';
import type { Credentials, TargetConnection } from '../model/config.js';
import { StacksyncError } from '../errors.js';
import { DEFAULT_API_PROFILE } from '../schema/enums.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './backoff.js';
import { ManagedAdapter } from './managed.js';
import { defaultSleep, type Sleep } from './pacer.js';
import type { Api, ApiHooks } from './port.js';
import { credentialStrings, Redactor } from './redact.js';
import { SelfHostedAdapter } from './self-hosted.js';
import { SharedPacers } from './shared-pacers.js';
import { DEFAULT_TIMEOUTS, Transport, type Timeouts } from './transport.js';

export type { Api, ApiHooks, RetryReason, ServerCheck } from './port.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './backoff.js';
export { DEFAULT_TIMEOUTS, type Timeouts } from './transport.js';
export { Pacer, safetyMarginMs, type PacerLane, type PacerOptions, type RateBudget, type Sleep } from './pacer.js';
export { SharedPacers, type BudgetLedger, type BudgetClient, type SharedPacersOptions } from './shared-pacers.js';

/** Everything optional; defaults are production settings. */
export interface ApiOptions {
  /** HTTP layer; default an Agent owned (and closed) by the client. Tests pass a MockAgent. */
  dispatcher?: Dispatcher;
  /** Metrics observers. */
  hooks?: ApiHooks;
  /** Gets a debug line per request and per retry; never headers or bodies. */
  logger?: Logger;
  /** Defaults in {@link DEFAULT_TIMEOUTS}. */
  timeouts?: Partial<Timeouts>;
  /** Defaults in {@link DEFAULT_RETRY_POLICY}. */
  retry?: Partial<RetryPolicy>;
  /** Milliseconds clock; default `Date.now`. */
  now?: () => number;
  /** Default: a global `setTimeout`, so fake timers control it. */
  sleep?: Sleep;
  /** Jitter source in [0, 1); default `Math.random`. */
  random?: () => number;
  /** Default `stacksync`. */
  userAgent?: string;
  /**
   * Secrets the client sends besides its credentials and the secret members of bodies (a target's
   * secret `vars`, which `${NAME}` puts anywhere in a body): masked in everything it lets out.
   * Called when a failure is redacted.
   */
  secrets?: () => Iterable<string>;
  /**
   * Where the client takes its lane of its credential's budget. Clients given the same instance
   * share one budget per origin and credential; default a registry of the client's own.
   */
  pacers?: SharedPacers;
}

export function createApi(connection: TargetConnection, options: ApiOptions = {}): Api {
  const credentials = checkedCredentials(connection);
  const baseUrl = checkedBaseUrl(connection);
  const ids = connection.variant === 'managed' ? managedIds(connection) : undefined;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const hooks = options.hooks ?? {};
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  // Defaults are filled once, when the config is loaded.
  const { rateLimit } = connection;
  const ownAgent = options.dispatcher
    ? undefined
    : new Agent({ connect: { timeout: timeouts.connectMs }, connections: rateLimit.concurrency });
  const authorizationValue = authorization(credentials);
  const pacers = options.pacers ?? new SharedPacers({ now, sleep });
  const member = {
    target: connection.name,
    origin: new URL(baseUrl).origin,
    authorization: authorizationValue,
    rateLimit,
  };
  const pacer = pacers.join(member, {
    onWait: (waitedMs) => bestEffort(() => hooks.onRateLimitWait?.({ waitedSeconds: waitedMs / 1000 })),
    onDelay: (delayMs) =>
      bestEffort(() =>
        hooks.onRateLimitDelay?.({
          waitSeconds: delayMs / 1000,
          budget: { requests: rateLimit.requests, perSeconds: rateLimit.perSeconds },
        }),
      ),
  });
  const transport = new Transport({
    baseUrl,
    authorization: authorizationValue,
    dispatcher: options.dispatcher ?? (ownAgent as Agent),
    pacer,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    timeouts,
    hooks,
    ...(options.logger ? { logger: options.logger.child({ component: 'api', target: connection.name }) } : {}),
    redactor: new Redactor(credentialStrings(credentials), options.secrets),
    now,
    sleep,
    random: options.random ?? Math.random,
    userAgent: options.userAgent ?? 'stacksync',
  });
  const close = async (): Promise<void> => {
    transport.close();
    pacer.close();
    await ownAgent?.close();
  };
  const profile = connection.api?.profile ?? DEFAULT_API_PROFILE;
  const server = {
    ...(connection.api?.paths ? { paths: connection.api.paths } : {}),
    ...(connection.api?.settingsPrefix !== undefined ? { settingsPrefix: connection.api.settingsPrefix } : {}),
  };
  return ids
    ? new ManagedAdapter(transport, ids, close, profile, server)
    : new SelfHostedAdapter(transport, close, profile);
}

/** Observability is best effort: a hook that throws never fails a request. */
function bestEffort(call: () => void): void {
  try {
    call();
  } catch {
    // ignored on purpose
  }
}

function authorization(credentials: Credentials): string {
  if (credentials.variant === 'self-hosted') return `Bearer ${credentials.token}`;
  return `Basic ${Buffer.from(`${credentials.keyId}:${credentials.keySecret}`).toString('base64')}`;
}

function checkedCredentials(connection: TargetConnection): Credentials {
  if (connection.credentials.variant !== connection.variant) {
    throw configError(connection, `credentials are for a ${connection.credentials.variant} target`);
  }
  return connection.credentials;
}

function managedIds(connection: TargetConnection): { organizationId: string; serviceId: string } {
  const { organizationId, serviceId } = connection;
  if (!organizationId || !serviceId)
    throw configError(connection, 'a managed target needs organizationId and serviceId');
  return { organizationId, serviceId };
}

/** The base URL without any user-info part, which would otherwise put a credential in URLs. */
function checkedBaseUrl(connection: TargetConnection): string {
  let url: URL;
  try {
    url = new URL(connection.baseUrl);
  } catch {
    throw configError(connection, 'baseUrl is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw configError(connection, 'baseUrl must be http or https');
  url.username = '';
  url.password = '';
  return url.toString();
}

function configError(connection: TargetConnection, message: string): StacksyncError {
  return new StacksyncError('E_CONFIG_INVALID', `target ${connection.name}: ${message}`, {
    subject: `target ${connection.name}`,
  });
}
