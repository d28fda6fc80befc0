/**
 * The request pipeline on plain `node:http`. For each API request, in order: credentials (from
 * the headers alone) → rate limit of that credential → injected faults → route → body → rules
 * (in the route) → reply in the variant's shape. A request without valid credentials is answered
 * 401 before anything else, its body never read; throttled and faulted requests are answered
 * before any handler runs, so they never change state. A client that hangs up mid-request is a
 * debug line, not a failure. `/_emulator/*` skips auth, limits, faults and stats.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Variant } from '../model/kinds.js';
import { DEFAULT_RATE_LIMITS } from '../schema/enums.js';
import { authenticate, parseAuthorization, rateKey } from './auth.js';
import { errorReply, jsonReply, type Reply } from './envelope.js';
import { ApiError, notFound } from './errors.js';
import { decideFault, type FaultSpec } from './faults.js';
import { discardBody, parseJsonBody, readBody, resetConnection, sendReply } from './http.js';
import type { RateDecision, RateLimiter } from './rate-limit.js';
import type { Match, Router } from './router.js';
import type { Stats } from './stats.js';
import type { Store } from './store.js';

export interface PipelineDeps {
  store: Store;
  router: Router;
  stats: Stats;
  faults: FaultSpec;
  limiter: RateLimiter | undefined;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
  logger: Logger;
  bodyLimit: number;
  /**
   * Under the current profile, every self-hosted answer carries `RateLimit-*` (the real routers
   * sit behind express-rate-limit with `standardHeaders`, which sends them before auth runs).
   * Without `--rate-limit` the numbers come from this meter of the real budget, which never refuses.
   */
  rateHeadersOnEveryAnswer: boolean;
  rateMeter: RateLimiter | undefined;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const UNMATCHED = '(unmatched)';

/** The variant whose prefix a path is under, if any. */
function prefixOf(path: string): Variant | undefined {
  if (path.startsWith('/v1/')) return 'managed';
  if (path.startsWith('/api/v2/')) return 'self-hosted';
  return undefined;
}

interface Exchange {
  method: string;
  path: string;
  query: URLSearchParams;
  match: Match;
  variant: Variant;
  template: string;
  requestId: string;
  /** Whose budget the request spends, once its credentials are known. */
  rateKey?: string;
  /** The limiter's decision, when a limiter ran. */
  rate?: RateDecision;
}

function describe(request: IncomingMessage, router: Router): Exchange {
  const method = request.method ?? 'GET';
  const [path = '/', search = ''] = (request.url ?? '/').split('?', 2);
  const match = router.match(method, path);
  return {
    method,
    path,
    query: new URLSearchParams(search),
    match,
    // Paths outside both prefixes answer like the self-hosted server (plain-text 404).
    variant: match.kind === 'route' ? match.route.variant : (prefixOf(path) ?? 'self-hosted'),
    template: match.kind === 'route' ? match.route.template : match.kind === 'method' ? match.template : UNMATCHED,
    requestId: randomUUID(),
  };
}

/** How a request ended: a reply, a connection cut by fault injection, or a client that left first. */
type Outcome = Reply | 'reset' | 'gone';

export function createPipeline(deps: PipelineDeps): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    handle(deps, request, response).catch((error: unknown) => {
      deps.logger.error({ err: error }, 'emulator request failed');
      sendReply(response, jsonReply(500, { message: 'Internal Server Error' }));
    });
  };
}

async function handle(deps: PipelineDeps, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const started = performance.now();
  if ((request.url ?? '').startsWith('/_emulator/')) {
    sendReply(response, admin(deps, request.method ?? 'GET', (request.url ?? '').split('?')[0] ?? ''));
    return;
  }
  const exchange = describe(request, deps.router);
  let outcome: Outcome;
  try {
    outcome = await respond(deps, request, exchange);
  } catch (error) {
    outcome = errorReply(exchange.variant, toApiError(error, deps.logger), exchange.requestId);
  }
  if (outcome !== 'gone' && response.destroyed) outcome = 'gone';
  const ms = Math.round(performance.now() - started);
  // Never the Authorization header, never a body: they may hold secrets.
  const line = { method: exchange.method, route: exchange.template, ms, requestId: exchange.requestId };
  if (outcome === 'gone') {
    deps.logger.debug(line, 'client disconnected before the answer');
    return;
  }
  if (outcome === 'reset') resetConnection(request);
  else {
    addRateHeaders(deps, exchange, outcome);
    // Answered from the headers (401, 404, 429, a fault): the body is dropped, never buffered.
    if (!request.readableEnded) discardBody(request, deps.bodyLimit);
    sendReply(response, outcome);
  }
  const status = outcome === 'reset' ? 'reset' : outcome.status;
  deps.stats.record(exchange.method, exchange.template, status);
  deps.logger.debug({ ...line, status }, 'request');
}

function toApiError(error: unknown, logger: Logger): ApiError {
  if (error instanceof ApiError) return error;
  logger.error({ err: error }, 'emulator handler failed');
  return new ApiError('internal', 'unexpected emulator error');
}

async function respond(deps: PipelineDeps, request: IncomingMessage, exchange: Exchange): Promise<Outcome> {
  const prefix = prefixOf(exchange.path);
  // Under a variant's prefix nothing answers without credentials, not even a 404 or 405.
  if (prefix === undefined) throw notFound(`no route ${exchange.method} ${exchange.path}`);
  const principal = authenticate(deps.store, prefix, parseAuthorization(request.headers.authorization));
  exchange.rateKey = rateKey(principal);

  // Only an authenticated credential spends its budget: a wrong secret cannot throttle the real key.
  const rate = deps.limiter?.take(exchange.rateKey);
  if (rate) exchange.rate = rate;
  if (rate && !rate.allowed)
    throw throttled(exchange.variant, rate, `rate limit of ${deps.limiter?.describe()} exceeded`);

  const fault = decideFault(deps.faults, deps.random);
  if (fault.delayMs > 0) await deps.sleep(fault.delayMs);
  if (fault.outcome === 'reset') return 'reset';
  if (fault.outcome === 'error500') throw new ApiError('internal', 'injected fault');
  if (fault.outcome === 'error503') throw new ApiError('unavailable', 'injected fault');
  if (fault.outcome === 'throttle') throw throttled(exchange.variant, throttleOf(deps.limiter), 'injected throttle');

  const { match } = exchange;
  if (match.kind === 'none') throw notFound(`no route ${exchange.method} ${exchange.path}`);
  if (match.kind === 'method') {
    if (exchange.variant === 'self-hosted') throw notFound('Not Found');
    throw new ApiError('method_not_allowed', `${exchange.method} is not allowed on ${match.template}`, {
      headers: { Allow: match.allowed.join(', ') },
    });
  }
  let body: unknown;
  if (BODY_METHODS.has(exchange.method)) {
    const read = await readBody(request, deps.bodyLimit);
    if (read.kind === 'gone') return 'gone';
    body = parseJsonBody(read.bytes);
  }
  const reply = match.route.handle({
    params: match.params,
    query: exchange.query,
    body,
    principal,
    requestId: exchange.requestId,
    store: deps.store,
  });
  if (rate && exchange.variant === 'self-hosted') Object.assign(reply.headers, selfHostedRateHeaders(rate));
  return reply;
}

/** A fault-injected 429 looks like a rate-limited one: the configured limit, or the real service's. */
function throttleOf(limiter: RateLimiter | undefined): RateDecision {
  return {
    allowed: false,
    limit: limiter?.limit ?? DEFAULT_RATE_LIMITS['self-hosted'].requests,
    remaining: 0,
    resetSeconds: 1,
  };
}

/** `RateLimit-*` on an answer of the self-hosted v2 routes that has none yet, when the profile wants them on every answer. */
function addRateHeaders(deps: PipelineDeps, exchange: Exchange, reply: Reply): void {
  if (
    !deps.rateHeadersOnEveryAnswer ||
    exchange.variant !== 'self-hosted' ||
    !exchange.path.startsWith('/api/v2/') ||
    'RateLimit-Limit' in reply.headers
  )
    return;
  const rate = exchange.rate ?? (deps.rateMeter ?? deps.limiter)?.take(exchange.rateKey ?? 'unauthenticated');
  if (rate) Object.assign(reply.headers, selfHostedRateHeaders(rate));
}

function selfHostedRateHeaders(rate: RateDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(rate.limit),
    'RateLimit-Remaining': String(rate.remaining),
    'RateLimit-Reset': String(rate.resetSeconds),
  };
}

/** 429 with `Retry-After` plus the variant's own headers (managed `X-RateLimit-Reset`, self-hosted `RateLimit-*`). */
function throttled(variant: Variant, rate: RateDecision, message: string): ApiError {
  const variantHeaders =
    variant === 'managed' ? { 'X-RateLimit-Reset': String(rate.resetSeconds) } : selfHostedRateHeaders(rate);
  return new ApiError('too_many_requests', message, {
    headers: { 'Retry-After': String(rate.resetSeconds), ...variantHeaders },
  });
}

function admin(deps: PipelineDeps, method: string, path: string): Reply {
  if (method === 'GET' && path === '/_emulator/stats') return jsonReply(200, deps.stats.snapshot());
  if (method === 'POST' && path === '/_emulator/reset') {
    deps.stats.reset();
    return jsonReply(200, deps.stats.snapshot());
  }
  if (method === 'GET' && path === '/_emulator/dump') return jsonReply(200, deps.store.toData());
  return jsonReply(404, { message: `no emulator endpoint ${method} ${path}` });
}

/** Listens on `host:port` with a backlog deep enough for a thousand simultaneous connections. */
export async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  host: string,
  port: number,
): Promise<Server> {
  const server = createServer({ keepAliveTimeout: 5_000 }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/** Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts the rest. */
export async function closeServer(server: Server, graceMs = 2_000): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  timer.unref();
  await closed;
  clearTimeout(timer);
}
