/**
 * One HTTP exchange with a target, end to end: pacing, the request over undici, classification of
 * the answer, retries with backoff, hooks and logs. Both adapters send everything through here, so
 * these rules hold for every call whatever the variant.
 *
 * Retry policy in one place (`send`): ok → return; transient (429, 5xx, reset, timeout) → wait and
 * try again within the bounds, except a create the server may have acted on (→ E_API_AMBIGUOUS);
 * anything else → throw a classified StacksyncError at once.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { StacksyncError, type ErrorCode } from '../errors.js';
import { jitteredBackoff, serverWaitMs, type HeaderBag, type RetryPolicy } from './backoff.js';
import {
  classifyNetworkError,
  codeForStatus,
  isTransientStatus,
  mayLandLater,
  parseServerError,
  type NetworkFailure,
  type ServerError,
} from './failure.js';
import type { PacerLane, Sleep } from './pacer.js';
import type { ApiHooks, RetryReason } from './port.js';
import type { Redactor } from './redact.js';
import { bodySecrets } from './redact.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Exchange {
  method: Method;
  /** Route template, e.g. `/api/v2/alerts/{id}`: the label of hooks, logs and errors. */
  route: string;
  /** Concrete path with query, relative to the target's base URL. */
  path: string;
  /** JSON body; may hold credentials, so it is never logged or quoted. */
  body?: unknown;
  /** Id of the resource addressed, for error details. */
  resourceId?: string;
  /**
   * The body is not safe to apply twice (a PATCH adding or removing table mappings): a 400 after an
   * attempt the server may have carried out is then reported as ambiguous, not as a validation error.
   */
  notRepeatable?: boolean;
}

export interface Reply {
  status: number;
  headers: HeaderBag;
  /** Parsed JSON; undefined for an empty body. */
  body: unknown;
}

/** Per-attempt timeouts. Defaults in {@link DEFAULT_TIMEOUTS}. */
export interface Timeouts {
  /** TCP/TLS connect; applies to the client's own Agent only (an injected Dispatcher has its own). Default 10 s. */
  connectMs: number;
  /** From sending to the response headers. Default 30 s. */
  headersMs: number;
  /** Longest silence while reading the body. Default 30 s. */
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({
  connectMs: 10_000,
  headersMs: 30_000,
  bodyMs: 30_000,
});

/** Larger answers are refused rather than buffered; 3,000 alerts are well under 10 MiB. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface TransportOptions {
  baseUrl: string;
  /** Value of the Authorization header. */
  authorization: string;
  dispatcher: Dispatcher;
  /** This target's lane of its credential's budget; a 429 pauses the whole budget. */
  pacer: PacerLane;
  retry: RetryPolicy;
  timeouts: Timeouts;
  hooks: ApiHooks;
  logger?: Logger;
  redactor: Redactor;
  now: () => number;
  sleep: Sleep;
  random: () => number;
  userAgent: string;
}

type Outcome =
  | { kind: 'ok'; reply: Reply }
  | { kind: 'transient'; reason: RetryReason; maybeActed: boolean; waitMs?: number; failure: Failure }
  | { kind: 'final'; error: StacksyncError };

/** One attempt of one logical request. */
interface AttemptContext {
  exchange: Exchange;
  /** Knows the target's credentials and those in this request's body. */
  redactor: Redactor;
  /** From 1. */
  attempt: number;
  /** An earlier attempt failed in a way the server may have carried it out. */
  earlierMayHaveActed: boolean;
}

/** What went wrong in one attempt, for messages and details. */
interface Failure {
  status?: number;
  server?: ServerError;
  network?: NetworkFailure;
  /** A status line arrived before the network failed. */
  answered?: boolean;
}

export class Transport {
  private readonly origin: string;
  private readonly prefix: string;
  private readonly abort = new AbortController();

  constructor(private readonly options: TransportOptions) {
    // One signal serves every request and wait of the client; each adds a listener while pending.
    setMaxListeners(0, this.abort.signal);
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/+$/, '');
  }

  /** Sends one logical request, retrying as the policy allows; throws a classified StacksyncError. */
  async send(exchange: Exchange): Promise<Reply> {
    const { retry, now, random } = this.options;
    const redactor = this.options.redactor.with(bodySecrets(exchange.body));
    const payload = exchange.body === undefined ? undefined : JSON.stringify(exchange.body);
    const started = now();
    let earlierMayHaveActed = false;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt({ exchange, redactor, attempt, earlierMayHaveActed }, payload);
      if (outcome.kind === 'ok') return outcome.reply;
      if (outcome.kind === 'final') throw outcome.error;
      if (exchange.method === 'POST' && outcome.maybeActed)
        throw this.ambiguous({ exchange, redactor, attempt, earlierMayHaveActed }, outcome.failure);
      earlierMayHaveActed ||= outcome.maybeActed;
      const delay = outcome.waitMs ?? jitteredBackoff(retry, attempt, random);
      if (attempt >= retry.maxAttempts || now() + delay - started > retry.maxElapsedMs) {
        throw this.exhausted({ exchange, redactor, attempt, earlierMayHaveActed }, outcome);
      }
      if (outcome.reason === 'throttled') this.options.pacer.pauseUntil(now() + delay);
      this.noteRetry(
        exchange,
        outcome,
        { attempt, maxAttempts: retry.maxAttempts, why: describeFailure(outcome.failure, redactor) },
        delay,
      );
      await this.wait(delay);
    }
  }

  /** Aborts requests in flight and retry waits. */
  close(): void {
    this.abort.abort();
  }

  private async attempt(context: AttemptContext, payload: string | undefined): Promise<Outcome> {
    const { exchange } = context;
    let release: () => void;
    const asked = this.options.now();
    try {
      release = await this.options.pacer.acquire(
        context.attempt > 1 ? 'retry' : exchange.method === 'GET' ? 'read' : 'write',
      );
    } catch (error) {
      return { kind: 'final', error: this.error('E_API_UNAVAILABLE', context, 'the client was closed', {}, error) };
    }
    const started = this.options.now();
    let status: number | 'error' = 'error';
    let headersArrived = false;
    try {
      const response = await this.request(exchange, payload);
      headersArrived = true;
      const text = await readText(response.body, MAX_BODY_BYTES);
      status = response.statusCode;
      return this.judge(context, response.statusCode, response.headers, text);
    } catch (error) {
      return this.judgeNetwork(context, error, headersArrived);
    } finally {
      release();
      this.observe(exchange, status, started, started - asked);
    }
  }

  private request(exchange: Exchange, payload: string | undefined): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = {
      authorization: this.options.authorization,
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    return this.options.dispatcher.request({
      origin: this.origin,
      path: this.prefix + exchange.path,
      method: exchange.method,
      headers,
      body: payload ?? null,
      headersTimeout: this.options.timeouts.headersMs,
      bodyTimeout: this.options.timeouts.bodyMs,
      signal: this.abort.signal,
    });
  }

  /** The answer to a request that got a status line. */
  private judge(context: AttemptContext, status: number, headers: HeaderBag, text: string | undefined): Outcome {
    const { exchange, redactor, earlierMayHaveActed } = context;
    if (text === undefined) {
      return {
        kind: 'final',
        error: this.error('E_API_PROTOCOL', context, `answer larger than ${MAX_BODY_BYTES} bytes`, { status }),
      };
    }
    if (status >= 200 && status < 300) return this.success(context, status, headers, text);
    // A DELETE retried after an attempt that may have worked finds the resource gone: that is success.
    if (status === 404 && exchange.method === 'DELETE' && earlierMayHaveActed)
      return { kind: 'ok', reply: { status, headers, body: undefined } };
    const server = parseServerError(text, (message) => redactor.redact(message));
    if (isTransientStatus(status)) {
      const throttled = status === 429;
      const waitMs = throttled ? serverWaitMs(headers, this.options.now()) : undefined;
      return {
        kind: 'transient',
        reason: throttled ? 'throttled' : 'server_error',
        maybeActed: !throttled,
        ...(waitMs === undefined ? {} : { waitMs }),
        failure: { status, server },
      };
    }
    if (status === 400 && exchange.notRepeatable && earlierMayHaveActed) {
      return {
        kind: 'final',
        error: this.error(
          'E_API_AMBIGUOUS',
          context,
          `HTTP 400 after an attempt that may have been applied${suffix(server.message, redactor)}`,
          { status, server },
        ),
      };
    }
    return {
      kind: 'final',
      error: this.error(codeForStatus(status), context, `HTTP ${status}${suffix(server.message, redactor)}`, {
        status,
        server,
      }),
    };
  }

  private success(context: AttemptContext, status: number, headers: HeaderBag, text: string): Outcome {
    if (text.trim() === '') return { kind: 'ok', reply: { status, headers, body: undefined } };
    try {
      return { kind: 'ok', reply: { status, headers, body: JSON.parse(text) as unknown } };
    } catch {
      return {
        kind: 'final',
        error: this.error('E_API_PROTOCOL', context, `HTTP ${status} with a body that is not JSON`, { status }),
      };
    }
  }

  private judgeNetwork(context: AttemptContext, error: unknown, gotStatus: boolean): Outcome {
    if (error instanceof StacksyncError) return { kind: 'final', error };
    const network = classifyNetworkError(error);
    if (network.reason === undefined || this.abort.signal.aborted) {
      const what = this.abort.signal.aborted ? 'the client was closed' : `${network.code}: ${network.message}`;
      return { kind: 'final', error: this.error('E_API_UNAVAILABLE', context, what, { network }) };
    }
    // Once a status line arrived the server has handled the request, whatever happened to the body.
    return {
      kind: 'transient',
      reason: network.reason,
      maybeActed: network.maybeSent || gotStatus,
      failure: { network, answered: gotStatus },
    };
  }

  /** `details.mayLandLater` says whether the create may still be carried out later (see `mayLandLater`). */
  private ambiguous(context: AttemptContext, failure: Failure): StacksyncError {
    const what = describeFailure(failure, context.redactor);
    return this.error(
      'E_API_AMBIGUOUS',
      context,
      `${what}; the server may have created it, look it up by name before creating it again`,
      failure,
    );
  }

  private exhausted(context: AttemptContext, outcome: Extract<Outcome, { kind: 'transient' }>): StacksyncError {
    const code: ErrorCode = outcome.reason === 'throttled' ? 'E_API_THROTTLED' : 'E_API_UNAVAILABLE';
    const attempts = context.attempt;
    const what = `${describeFailure(outcome.failure, context.redactor)} (gave up after ${attempts} attempt${attempts === 1 ? '' : 's'})`;
    return this.error(code, context, what, outcome.failure);
  }

  /** Builds the error; everything quoted from outside passes the redactor, and no undici error is kept as `cause`. */
  private error(
    code: ErrorCode,
    context: AttemptContext,
    what: string,
    failure: Failure,
    cause?: unknown,
  ): StacksyncError {
    const { exchange, redactor, attempt: attempts } = context;
    const subject = `${exchange.method} ${exchange.route}`;
    const details: Record<string, unknown> = { method: exchange.method, route: exchange.route, attempts };
    if (exchange.resourceId !== undefined) details['resourceId'] = exchange.resourceId;
    if (failure.server?.message !== undefined) details['serverMessage'] = redactor.redact(failure.server.message);
    if (failure.server?.serverCode !== undefined) details['serverCode'] = failure.server.serverCode;
    if (failure.server?.requestId !== undefined) details['requestId'] = failure.server.requestId;
    if (failure.network !== undefined) details['networkCode'] = failure.network.code;
    if (code === 'E_API_AMBIGUOUS') details['mayLandLater'] = mayLandLater(failure);
    return new StacksyncError(code, `${subject}: ${redactor.redact(what)}`, {
      subject,
      ...(failure.status === undefined ? {} : { status: failure.status }),
      details,
      ...(cause instanceof StacksyncError ? { cause } : {}),
    });
  }

  private noteRetry(
    exchange: Exchange,
    outcome: Extract<Outcome, { kind: 'transient' }>,
    tried: { attempt: number; maxAttempts: number; why: string },
    delayMs: number,
  ): void {
    const { method, route } = exchange;
    const { attempt } = tried;
    callHook(() => this.options.hooks.onRetry?.({ method, route, reason: outcome.reason, ...tried, delayMs }));
    // Debug, not warn: an unreachable API fails every attempt of every parallel read, and a line per
    // attempt buried the one message that matters (the final error) under dozens. Retries are counted
    // in api_retries_total; the error that ends them says how many attempts it took.
    this.options.logger?.debug(
      {
        method,
        route,
        reason: outcome.reason,
        attempt,
        delayMs,
        status: outcome.failure.status,
        networkCode: outcome.failure.network?.code,
      },
      'retrying API request',
    );
  }

  /** `waitedMs`: how long the request waited for its rate budget before it was sent. */
  private observe(exchange: Exchange, status: number | 'error', startedMs: number, waitedMs: number): void {
    const { method, route } = exchange;
    const durationSeconds = Math.max(0, this.options.now() - startedMs) / 1000;
    callHook(() => this.options.hooks.onRequest?.({ method, route, status, durationSeconds }));
    this.options.logger?.debug(
      { method, route, status, durationMs: Math.round(durationSeconds * 1000), waitedMs },
      'API request',
    );
  }

  private async wait(ms: number): Promise<void> {
    try {
      await this.options.sleep(ms, this.abort.signal);
    } catch {
      // Closed while waiting: the next attempt's acquire reports it.
    }
  }
}

function suffix(message: string | undefined, redactor: Redactor): string {
  return message ? `: ${redactor.redact(message)}` : '';
}

function describeFailure(failure: Failure, redactor: Redactor): string {
  if (failure.status !== undefined) return `HTTP ${failure.status}${suffix(failure.server?.message, redactor)}`;
  const network = failure.network;
  if (network === undefined) return 'failed';
  const kind = network.reason === 'timeout' ? 'timed out' : 'connection failed';
  return `${kind} (${network.code}: ${redactor.redact(network.message)})`;
}

/** A metrics hook that throws must not fail the request it observes. */
function callHook(call: () => void): void {
  try {
    call();
  } catch {
    // Observability is best effort.
  }
}

/** The body as text, or undefined when it grows past `max` bytes. */
async function readText(body: Dispatcher.ResponseData['body'], max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
