/**
 * The daemon's HTTP endpoints (docs/daemon.md, "HTTP endpoints"): the status page, Prometheus
 * metrics, liveness, readiness, the status document and a reload hook that git-sync's
 * `--webhook-url` can call. node:http only: a few fixed routes need no framework. Who may call
 * them is http-guard.ts.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { StacksyncError } from '../errors.js';
import { suspensionNoteProblem } from '../model/state.js';
import { listenError, type AddressFlags } from '../support/listen-error.js';
import { bearerOf, crossSite, misdirected, reloadRefusal, sameSecret, type Refusal } from './http-guard.js';
import { runSecrets } from '../support/redaction.js';
import type { StatusDocument } from './status.js';

/** `--listen` default (docs/reference/cli.md). */
export const DEFAULT_LISTEN = '0.0.0.0:9464';

export interface ListenAddress {
  host: string;
  port: number;
}

export interface HttpServerOptions extends ListenAddress, HttpHandlers {}

/** What the server answers with. */
export interface HttpHandlers {
  /** The process's metrics registry, served on `/metrics`. */
  registry: Registry;
  /** The current `/status` document. */
  status: () => StatusDocument | Promise<StatusDocument>;
  /** Whether `/readyz` answers 200 (after the first complete sync). */
  ready: () => boolean;
  /** Called on `POST /-/reload`; should trigger a sync of every target and return at once. */
  onReload: () => void;
  /**
   * The token `POST /-/reload` requires (`control.reloadToken`; the control token is taken too);
   * absent: a reload needs the control token or a header no web page can send.
   */
  reloadToken?: string;
  /** `POST /-/suspend?target=T` and `/-/resume?target=T`; absent: those endpoints answer 404. */
  control?: ControlOptions;
  logger?: Logger;
}

export interface ControlOptions {
  /** The bearer token a request must carry. */
  token: string;
  /**
   * Suspends or resumes a target (and syncs it), recording it in the state first; resolves false
   * for a target that is not configured, rejects when it could not be recorded.
   */
  setSuspended: (target: string, suspended: boolean, note: SuspensionNote) => Promise<boolean>;
}

/** What an operator may say with a suspend: `?reason=…&by=…`. */
export interface SuspensionNote {
  reason?: string;
  by?: string;
}

export interface RunningHttpServer {
  /** `http://HOST:PORT`, IPv6 hosts in brackets. */
  url: string;
  /** The bound port (the free one picked when asked for 0). */
  port: number;
  /** Stops accepting connections, closes idle keep-alive ones and waits for requests in flight; again, waits for the first. */
  close(): Promise<void>;
}

interface Reply extends Refusal {
  type?: string;
}

/**
 * A server that listens already and answers 503 until `serve` hands it the daemon's handlers: `run`
 * takes its port before it starts anything else, so a port in use stops it before it has touched
 * the state or started an emulator.
 */
export interface BoundHttpServer extends RunningHttpServer {
  serve(handlers: HttpHandlers): void;
}

type Handler = (options: HttpHandlers, request: IncomingMessage, url: URL) => Reply | Promise<Reply>;

const TEXT = 'text/plain; charset=utf-8';

/** Route table: path → method → handler. A known path with another method is a 405. */
const ROUTES: Record<string, Partial<Record<'GET' | 'POST', Handler>>> = {
  // Loaded on first use: every command imports this module for --listen, and the page needs the metrics module.
  '/': {
    GET: async ({ status }, _request, url) => (await import('./page/serve.js')).statusPageReply(await status(), url),
  },
  '/metrics': {
    GET: async ({ registry }) => ({ status: 200, body: await registry.metrics(), type: registry.contentType }),
  },
  '/healthz': { GET: () => ({ status: 200, body: 'ok\n' }) },
  '/readyz': {
    GET: ({ ready }) =>
      ready() ? { status: 200, body: 'ok\n' } : { status: 503, body: 'not ready: the first sync has not completed\n' },
  },
  '/status': {
    GET: async ({ status }) => ({
      status: 200,
      body: `${JSON.stringify(await status(), null, 2)}\n`,
      type: 'application/json; charset=utf-8',
    }),
  },
  '/-/reload': {
    POST: ({ onReload, reloadToken, control }, request, url) => {
      const refused = reloadRefusal(request.headers, url.searchParams, {
        ...(reloadToken === undefined ? {} : { required: reloadToken }),
        ...(control === undefined ? {} : { control: control.token }),
      });
      if (refused) return refused;
      onReload();
      return { status: 202, body: 'reload triggered\n' };
    },
  },
  '/-/suspend': { POST: (options, request, url) => control(options, request, url, true) },
  '/-/resume': { POST: (options, request, url) => control(options, request, url, false) },
};

/** Suspend or resume: only with the configured bearer token, and only for a configured target. */
async function control(options: HttpHandlers, request: IncomingMessage, url: URL, suspend: boolean): Promise<Reply> {
  if (!options.control)
    return { status: 404, body: 'not found: set control.token in the config to enable this endpoint\n' };
  if (!bearerMatches(request.headers.authorization, options.control.token)) {
    return {
      status: 401,
      body: 'unauthorized: a bearer token is required\n',
      headers: { 'www-authenticate': 'Bearer realm="stacksync"' },
    };
  }
  const target = url.searchParams.get('target');
  if (!target) return { status: 400, body: 'the target query parameter is required, e.g. ?target=prod\n' };
  const note = suspensionNote(url.searchParams);
  if ('problem' in note) return { status: 400, body: `${note.problem}\n` };
  let known: boolean;
  try {
    known = await options.control.setSuspended(target, suspend, note);
  } catch (error) {
    options.logger?.error(
      { err: error, target },
      suspend ? 'could not record a suspension' : 'could not record a resume',
    );
    return {
      status: 503,
      body:
        `the ${suspend ? 'suspension' : 'resume'} of target ${target} could not be recorded in the state ` +
        `file: ${error instanceof Error ? error.message : String(error)}\n`,
    };
  }
  if (!known) return { status: 404, body: `target ${target} is not configured\n` };
  options.logger?.info(
    { target, ...note },
    suspend ? 'target suspended through POST /-/suspend' : 'target resumed through POST /-/resume',
  );
  return {
    status: 202,
    body: `target ${target} ${suspend ? 'suspended until POST /-/resume' : 'resumed'}; it syncs now\n`,
  };
}

/** `reason` and `by` from the query, each one line of bounded length when given. */
function suspensionNote(query: URLSearchParams): SuspensionNote | { problem: string } {
  const note: SuspensionNote = {};
  for (const name of ['reason', 'by'] as const) {
    const value = query.get(name);
    if (value === null) continue;
    const problem = suspensionNoteProblem(value);
    if (problem !== undefined) return { problem: `the ${name} query parameter ${problem}` };
    note[name] = value;
  }
  return note;
}

function bearerMatches(header: string | undefined, token: string): boolean {
  return sameSecret(bearerOf(header) ?? '', token);
}

/** Starts the server and resolves once it listens. */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const bound = await bindHttpServer(options);
  bound.serve(options);
  return bound;
}

/**
 * Listens on `address`, answering 503 until `serve` is called.
 * @throws StacksyncError `E_USAGE` naming the address and `--listen` when it cannot listen.
 */
export async function bindHttpServer(address: ListenAddress): Promise<BoundHttpServer> {
  let handlers: HttpHandlers | undefined;
  const server = createServer((request, response) => {
    // Every answer, errors included: a browser must never read one as a script or a page.
    response.setHeader('x-content-type-options', 'nosniff');
    const refused = misdirected(request.headers, address.host);
    if (refused) answer(request, response, refused);
    else if (handlers) void handle(handlers, request, response);
    else answer(request, response, { status: 503, body: 'starting\n' });
  });
  // Nothing here is slow: bound every exchange so a stuck client cannot hold a socket forever.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await listen(server, address);
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= closeServer(server));
  return { url: `http://${formatHost(address.host)}:${port}`, port, close, serve: (given) => void (handlers = given) };
}

function answer(request: IncomingMessage, response: ServerResponse, reply: Reply): void {
  request.resume(); // bodies are ignored; drain them so keep-alive works
  response.writeHead(reply.status, {
    'content-type': reply.type ?? TEXT,
    'cache-control': 'no-store',
    ...reply.headers,
  });
  // Every answer (/status, the page, /metrics, a message) is masked of the run's secrets (docs/security.md).
  response.end(runSecrets.redact(reply.body)); // node drops the body of a HEAD reply itself
}

async function handle(options: HttpHandlers, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let reply: Reply;
  try {
    reply = await route(options, request);
  } catch (error) {
    // The path only: a query may hold the reload token.
    options.logger?.error(
      { err: error, path: new URL(request.url ?? '/', 'http://localhost').pathname },
      'HTTP handler failed',
    );
    reply = { status: 500, body: 'internal error\n' };
  }
  answer(request, response, reply);
}

function route(options: HttpHandlers, request: IncomingMessage): Reply | Promise<Reply> {
  const refused = crossSite(request.method, request.headers);
  if (refused) return refused;
  const url = new URL(request.url ?? '/', 'http://localhost');
  const path = url.pathname;
  const methods = ROUTES[path];
  if (methods === undefined) return { status: 404, body: 'not found\n' };
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const handler = method === 'GET' || method === 'POST' ? methods[method] : undefined;
  if (handler === undefined) return { status: 405, body: 'method not allowed\n', headers: { allow: allowed(methods) } };
  return handler(options, request, url);
}

function allowed(methods: Partial<Record<'GET' | 'POST', Handler>>): string {
  return Object.keys(methods)
    .flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))
    .join(', ');
}

/** The flag that picks the daemon's address. */
const LISTEN_FLAGS: AddressFlags = { port: '--listen; port 0 picks a free one', host: '--listen' };

function listen(server: Server, { host, port }: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const address = `${formatHost(host)}:${port}`;
      const known = listenError(error, address, LISTEN_FLAGS);
      reject(
        known instanceof StacksyncError
          ? known
          : new StacksyncError('E_USAGE', `cannot listen on ${address} (--listen): ${error.code ?? error.message}`, {
              subject: address,
              cause: error,
            }),
      );
    });
    server.listen(port, host, () => resolve());
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });
}

function formatHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/**
 * Parses `--listen`: `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (all interfaces).
 * @throws StacksyncError `E_USAGE` naming the bad value.
 */
export function parseListen(text: string): ListenAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (match === null || host === undefined || port > 65535) {
    throw new StacksyncError(
      'E_USAGE',
      `--listen must be HOST:PORT, [IPv6]:PORT or :PORT with a port 0-65535, got ${JSON.stringify(text)}`,
    );
  }
  if (match[1] !== undefined && isIP(host) !== 6)
    throw new StacksyncError('E_USAGE', `--listen: ${JSON.stringify(host)} is not an IPv6 address`);
  return { host: host === '' ? '0.0.0.0' : host, port };
}
