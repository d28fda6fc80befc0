/**
 * A loopback HTTP proxy in front of the emulator that lets a test answer chosen requests itself:
 * a delete that fails, a server that echoes request bodies in its errors, or a request held back
 * (the client's connection is cut at once, as a proxy timing out would) and forwarded only when
 * the test says, as a create that lands late. Everything else is passed through unchanged, so
 * the emulator still sees (and counts) it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** Path and query, e.g. `/api/v2/dashboards/65f…`. */
  path: string;
  body: string;
  /** The request's headers (hop-by-hop ones left out), e.g. `authorization`. */
  headers: Record<string, string>;
}

export interface ProxyReply {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/**
 * Returns a reply to answer the request in place of the emulator, `'hold'` to cut the client off
 * and keep the request for {@link RunningProxy.releaseHeld}, or undefined to pass it on.
 */
export type Interceptor = (request: ProxiedRequest) => ProxyReply | 'hold' | undefined;

/** Changes what passes through: the headers sent on to the emulator, and the body of its answer (undefined: as it was). */
export interface Rewriter {
  headers?: (headers: Record<string, string>) => Record<string, string>;
  body?: (request: ProxiedRequest, status: number, body: string) => string | undefined;
}

export interface RunningProxy {
  url: string;
  /** Replaces the interceptor (undefined: pass everything through). */
  intercept(interceptor: Interceptor | undefined): void;
  /** Replaces the rewriter of what passes through (undefined: nothing changed). */
  rewrite(rewriter: Rewriter | undefined): void;
  /** Requests answered (or held) by the interceptor so far. */
  intercepted: ProxiedRequest[];
  /** Forwards every held request to the emulator now, in order; resolves with their statuses. */
  releaseHeld(): Promise<number[]>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

export async function startProxy(upstream: string): Promise<RunningProxy> {
  let interceptor: Interceptor | undefined;
  let rewriter: Rewriter | undefined;
  const intercepted: ProxiedRequest[] = [];
  const held: { request: ProxiedRequest; headers: Record<string, string> }[] = [];
  const forward = (proxied: ProxiedRequest, headers: Record<string, string>): Promise<Response> =>
    fetch(`${upstream}${proxied.path}`, {
      method: proxied.method,
      headers: rewriter?.headers?.(headers) ?? headers,
      ...(proxied.body === '' ? {} : { body: proxied.body }),
    });
  const server: Server = createServer((request, response) => {
    void (async () => {
      const proxied: ProxiedRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        body: await readBody(request),
        headers: forwardHeaders(request),
      };
      const reply = interceptor?.(proxied);
      if (reply === 'hold') {
        intercepted.push(proxied);
        held.push({ request: proxied, headers: forwardHeaders(request) });
        // The whole request was received; the client hears nothing but a cut connection.
        request.socket.destroy();
        return;
      }
      if (reply) {
        intercepted.push(proxied);
        response
          .writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json', ...reply.headers })
          .end(reply.body);
        return;
      }
      const forwarded = await forward(proxied, forwardHeaders(request));
      const headers: Record<string, string> = {};
      forwarded.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name)) headers[name] = value;
      });
      const body = Buffer.from(await forwarded.arrayBuffer());
      const rewritten = rewriter?.body?.(proxied, forwarded.status, body.toString('utf8'));
      response.writeHead(forwarded.status, headers).end(rewritten ?? body);
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    intercept(next) {
      interceptor = next;
    },
    rewrite(next) {
      rewriter = next;
    },
    intercepted,
    async releaseHeld() {
      const statuses: number[] = [];
      for (const { request, headers } of held.splice(0)) statuses.push((await forward(request, headers)).status);
      return statuses;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function forwardHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  return headers;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
