import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isStacksyncError } from '../../src/errors.js';
import { createLogger } from '../../src/support/logger.js';
import { createMetrics, initTargetMetrics } from '../../src/daemon/metrics.js';
import type { HttpServerOptions, RunningHttpServer } from '../../src/daemon/http.js';
import { bindHttpServer, DEFAULT_LISTEN, parseListen, startHttpServer } from '../../src/daemon/http.js';
import { createStatusTracker } from '../../src/daemon/status.js';

let server: RunningHttpServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function setup(overrides: Partial<HttpServerOptions> = {}) {
  const metrics = createMetrics({ defaultMetrics: false });
  initTargetMetrics(metrics, 'prod', 'managed');
  const tracker = createStatusTracker(['prod'], () => Date.parse('2026-03-15T10:00:00.000Z'));
  const onReload = vi.fn();
  const options: HttpServerOptions = {
    host: '127.0.0.1',
    port: 0,
    registry: metrics.registry,
    status: () => tracker.document(),
    ready: () => tracker.ready(),
    onReload,
    ...overrides,
  };
  return { metrics, tracker, onReload, options };
}

async function start(overrides: Partial<HttpServerOptions> = {}) {
  const context = setup(overrides);
  server = await startHttpServer(context.options);
  return { ...context, url: server.url };
}

describe('startHttpServer', () => {
  it('listens on a free loopback port and reports its url', async () => {
    const { url } = await start();
    expect(server?.port).toBeGreaterThan(0);
    expect(url).toBe(`http://127.0.0.1:${server?.port}`);
  });

  it('serves Prometheus text with the registry content type', async () => {
    const { url, metrics } = await start();
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(metrics.registry.contentType);
    const body = await response.text();
    expect(body).toContain('# TYPE stacksync_reconcile_total counter');
    expect(body).toContain('stacksync_reconcile_total{target="prod",result="success"} 0');
  });

  it('answers /healthz while alive', async () => {
    const { url } = await start();
    const response = await fetch(`${url}/healthz`);
    expect([response.status, await response.text()]).toEqual([200, 'ok\n']);
  });

  it('answers /readyz 503 until the first sync, then 200', async () => {
    const { url, tracker } = await start();
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    tracker.syncFinished('prod', { ok: true, resources: [] });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });

  it('serves the status document as JSON', async () => {
    const { url, tracker } = await start();
    tracker.syncFinished('prod', {
      ok: true,
      revision: 'abc',
      resources: [{ kind: 'Pipe', name: 'orders', status: 'in_sync' }],
    });
    const response = await fetch(`${url}/status`);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual(tracker.document());
  });

  it('serves the status page on /, with its filter from the query and a strict Content-Security-Policy', async () => {
    const { url, tracker } = await start();
    tracker.syncFinished('prod', { ok: true, resources: [{ kind: 'Pipe', name: 'orders', status: 'in_sync' }] });
    const response = await fetch(`${url}/?status=error`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'sha256-/);
    const html = await response.text();
    expect(html).toContain(
      '<tr data-key="prod/Pipe/orders" data-target="prod" data-kind="Pipe" data-status="in_sync" hidden>',
    );
  });

  it('triggers a reload on POST /-/reload and answers 202', async () => {
    const { url, onReload } = await start();
    const response = await fetch(`${url}/-/reload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"hash":"abc"}',
    });
    expect(response.status).toBe(202);
    expect(onReload).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['GET', '/-/reload', 405, 'POST'],
    ['POST', '/metrics', 405, 'GET, HEAD'],
    ['DELETE', '/status', 405, 'GET, HEAD'],
    ['GET', '/nope', 404, null],
    ['GET', '/index.html', 404, null],
    ['POST', '/', 405, 'GET, HEAD'],
  ])('answers %s %s with %i', async (method, path, status, allow) => {
    const { url, onReload } = await start();
    const response = await fetch(`${url}${path}`, { method });
    expect(response.status).toBe(status);
    expect(response.headers.get('allow')).toBe(allow);
    expect(onReload).not.toHaveBeenCalled();
  });

  it('ignores the query string', async () => {
    const { url } = await start();
    expect((await fetch(`${url}/healthz?verbose=1`)).status).toBe(200);
  });

  it('answers HEAD without a body', async () => {
    const { url } = await start();
    const response = await fetch(`${url}/status`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('answers 500 and logs when a handler fails', async () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) }, isTty: false });
    const { url } = await start({
      logger,
      status: () => {
        throw new Error('boom');
      },
    });
    expect((await fetch(`${url}/status`)).status).toBe(500);
    expect(lines.join('')).toContain('HTTP handler failed');
  });

  it('refuses a port in use with E_USAGE naming the address and --listen', async () => {
    await start();
    const { options } = setup({ port: server!.port });
    const failure = await startHttpServer(options).catch((error: unknown) => error);
    expect(isStacksyncError(failure, 'E_USAGE')).toBe(true);
    expect(String(failure)).toContain(
      `127.0.0.1:${server!.port}: the port is already in use (stop what holds it, or pick another with --listen; port 0 picks a free one)`,
    );
  });

  it('bound before it serves: 503 until the handlers come, then theirs; closing twice is fine', async () => {
    const bound = await bindHttpServer({ host: '127.0.0.1', port: 0 });
    server = bound;
    const before = await fetch(`${bound.url}/healthz`);
    expect([before.status, await before.text()]).toEqual([503, 'starting\n']);
    bound.serve(setup().options);
    expect((await fetch(`${bound.url}/healthz`)).status).toBe(200);
    await bound.close();
    await bound.close();
  });

  it('closes while a keep-alive connection is open', async () => {
    const { url } = await start();
    const agentResponse = await new Promise<number>((resolve) => {
      request(`${url}/healthz`, { headers: { connection: 'keep-alive' } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      }).end();
    });
    expect(agentResponse).toBe(200);
    await server?.close();
    server = undefined;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});

describe('parseListen', () => {
  it.each([
    [DEFAULT_LISTEN, { host: '0.0.0.0', port: 9464 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['localhost:8080', { host: 'localhost', port: 8080 }],
    ['[::1]:9464', { host: '::1', port: 9464 }],
    ['[::]:9464', { host: '::', port: 9464 }],
    [':9464', { host: '0.0.0.0', port: 9464 }],
    [' 10.0.0.1:80 ', { host: '10.0.0.1', port: 80 }],
  ])('parses %j', (text, want) => {
    expect(parseListen(text)).toEqual(want);
  });

  it.each([
    '9464',
    '0.0.0.0',
    '0.0.0.0:',
    '0.0.0.0:65536',
    '0.0.0.0:http',
    '::1:9464',
    '[::1]',
    '[nope]:80',
    '[::1]:80:1',
    'a:b:1',
  ])('refuses %j with E_USAGE', (text) => {
    let failure: unknown;
    try {
      parseListen(text);
    } catch (error) {
      failure = error;
    }
    expect(isStacksyncError(failure, 'E_USAGE')).toBe(true);
    expect(String(failure)).toContain('--listen');
  });
});
