import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { basic, bearer, call, IDS, SERVICE_PATH, start } from './helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  ({ emulator } = await start());
});
afterAll(() => emulator.close());

const stats = async () => (await call(emulator.url, 'GET', '/_emulator/stats')).json;

describe('body limit', () => {
  const oversized = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);

  it('answers 413 past 10 MB on the managed variant', async () => {
    const response = await call(emulator.url, 'POST', `${SERVICE_PATH}/stack/dashboards`, {
      auth: basic(),
      raw: oversized,
    });
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({
      status: 413,
      error: 'PAYLOAD_TOO_LARGE: request body exceeds 10485760 bytes',
    });
  });

  it('answers 413 past 10 MB on the self-hosted variant, and the connection stays usable', async () => {
    const response = await call(emulator.url, 'POST', '/api/v2/dashboards', { auth: bearer(), raw: oversized });
    expect(response.status).toBe(413);
    expect(response.text).toBe('Payload Too Large');
    expect((await call(emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer() })).status).toBe(200);
  });

  it('reads a body just under the limit (and validates it)', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024 - 20) });
    const response = await call(emulator.url, 'POST', '/api/v2/dashboards', { auth: bearer(), raw: body });
    expect(response.status).toBe(400);
    expect(response.json.message).toBe('Body validation failed: name: must NOT have more than 1024 characters');
  });

  it('answers 413 for a streamed body without Content-Length', async () => {
    const small = await startEmulator({ logger: false, bodyLimit: 1024 });
    try {
      const chunks = [Buffer.alloc(800, 0x20), Buffer.alloc(800, 0x20)];
      const stream = new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      });
      const response = await fetch(`${small.url}/api/v2/dashboards`, {
        method: 'POST',
        headers: { authorization: bearer(), 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(response.status).toBe(413);
    } finally {
      await small.close();
    }
  });
});

describe('routing', () => {
  it('404s unknown paths in the shape of the prefix', async () => {
    const plain = await call(emulator.url, 'GET', '/nope', { auth: bearer() });
    expect([plain.status, plain.text]).toEqual([404, 'Not Found']);
    const selfHosted = await call(emulator.url, 'GET', '/api/v2/saved-searches', { auth: bearer() });
    expect([selfHosted.status, selfHosted.text]).toEqual([404, 'Not Found']);
    const managed = await call(emulator.url, 'GET', `${SERVICE_PATH}/backups`, { auth: basic() });
    expect(managed.status).toBe(404);
    expect(managed.json).toMatchObject({ status: 404, error: expect.stringMatching(/^NOT_FOUND: no route GET /) });
  });

  it('managed answers 405 with Allow for a known path and an unknown method; self-hosted 404', async () => {
    const managed = await call(emulator.url, 'DELETE', `${SERVICE_PATH}/pipes`, { auth: basic() });
    expect(managed.status).toBe(405);
    expect(managed.headers.get('allow')).toBe('GET, POST');
    expect(managed.json.error).toMatch(/^METHOD_NOT_ALLOWED: /);
    const selfHosted = await call(emulator.url, 'PATCH', '/api/v2/dashboards', { auth: bearer(), body: {} });
    expect([selfHosted.status, selfHosted.text]).toEqual([404, 'Not Found']);
  });

  it('under either prefix, unknown routes need credentials too', async () => {
    const managed = await call(emulator.url, 'GET', `${SERVICE_PATH}/backups`);
    expect([managed.status, managed.json.error]).toEqual([401, 'UNAUTHORIZED: missing or malformed Basic credentials']);
    expect((await call(emulator.url, 'DELETE', `${SERVICE_PATH}/pipes`)).status).toBe(401);
    const selfHosted = await call(emulator.url, 'GET', '/api/v2/saved-searches');
    expect([selfHosted.status, selfHosted.text]).toEqual([401, 'Unauthorized']);
    expect((await call(emulator.url, 'GET', '/nope')).status).toBe(404);
  });

  it('unknown /_emulator endpoints 404', async () => {
    expect((await call(emulator.url, 'GET', '/_emulator/nope')).status).toBe(404);
  });
});

describe('load', () => {
  it('serves 1,000 concurrent requests without an error', async () => {
    await call(emulator.url, 'POST', '/_emulator/reset');
    const requests = Array.from({ length: 1000 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return call(emulator.url, 'GET', `${SERVICE_PATH}/pipes`, { auth: basic() });
        case 1:
          return call(emulator.url, 'GET', '/api/v2/alerts?limit=10', { auth: bearer() });
        case 2:
          return call(emulator.url, 'POST', '/api/v2/dashboards', { auth: bearer(), body: { name: `load-${i}` } });
        default:
          return call(emulator.url, 'PATCH', `${SERVICE_PATH}/pipes/${IDS.pipes.kinesis}`, {
            auth: basic(),
            body: { settings: { streaming_max_insert_wait_ms: 500 + i } },
          });
      }
    });
    const responses = await Promise.all(requests);
    expect(responses.filter((response) => response.status !== 200)).toEqual([]);
    const after = await stats();
    expect(after).toMatchObject({ total: 1000, writes: 500, throttled: 0 });
    const created = (await call(emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer() })).json.data as {
      name: string;
    }[];
    expect(created.filter((d) => d.name.startsWith('load-'))).toHaveLength(250);
  });
});

describe('stats', () => {
  it('counts by method and route template, counts writes, and resets', async () => {
    const reset = await call(emulator.url, 'POST', '/_emulator/reset');
    expect(reset.json).toEqual({ total: 0, writes: 0, throttled: 0, routes: [] });
    const pipe = `${SERVICE_PATH}/pipes/${IDS.pipes.kinesis}`;
    await call(emulator.url, 'PATCH', pipe, { auth: basic(), body: { name: 'a' } });
    await call(emulator.url, 'PATCH', pipe, { auth: basic(), body: { name: 7 } });
    await call(emulator.url, 'GET', `${SERVICE_PATH}/pipes`, { auth: basic() });
    await call(emulator.url, 'GET', '/api/v2/alerts/65f5e4a3b9e77c001a123456', { auth: bearer() });
    await call(emulator.url, 'GET', '/nope');
    expect(await stats()).toEqual({
      total: 5,
      writes: 2,
      throttled: 0,
      routes: [
        { method: 'GET', route: '(unmatched)', count: 1, statuses: { '404': 1 } },
        { method: 'GET', route: '/api/v2/alerts/{id}', count: 1, statuses: { '404': 1 } },
        {
          method: 'GET',
          route: '/v1/organizations/{organizationId}/services/{serviceId}/pipes',
          count: 1,
          statuses: { '200': 1 },
        },
        {
          method: 'PATCH',
          route: '/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}',
          count: 2,
          statuses: { '200': 1, '400': 1 },
        },
      ],
    });
    // The stats endpoints themselves are not counted.
    expect((await stats()).total).toBe(5);
  });
});

describe('logs', () => {
  it('logs one debug line per request with the route template and never the Authorization header', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const logged = await startEmulator({ logger: pino({ level: 'debug' }, sink) });
    await call(logged.url, 'PATCH', `${SERVICE_PATH}/pipes/${IDS.pipes.kafka}`, {
      auth: basic(),
      body: { source: { kafka: { credentials: { username: 'u', password: 'log-secret' } } } },
    });
    await call(logged.url, 'GET', '/api/v2/dashboards', { auth: bearer() });
    await logged.close();
    const requests = lines.filter((line) => line['msg'] === 'request');
    expect(requests).toEqual([
      expect.objectContaining({
        level: 20,
        method: 'PATCH',
        route: '/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}',
        status: 200,
      }),
      expect.objectContaining({ level: 20, method: 'GET', route: '/api/v2/dashboards', status: 200 }),
    ]);
    const text = JSON.stringify(lines);
    for (const secret of ['log-secret', IDS.keySecret, IDS.token, basic().slice(6)]) expect(text).not.toContain(secret);
    expect(text.toLowerCase()).not.toContain('authorization');
    expect(lines.map((line) => line['msg'])).toEqual(
      expect.arrayContaining(['emulator listening', 'emulator stopped']),
    );
  });
});

describe('lifecycle', () => {
  it('binds 127.0.0.1 on a free port by default; close is idempotent and frees the port', async () => {
    const own = await startEmulator({ logger: false });
    expect(own.url).toBe(`http://127.0.0.1:${own.port}`);
    expect(own.port).toBeGreaterThan(0);
    await call(own.url, 'GET', '/_emulator/stats');
    await Promise.all([own.close(), own.close()]);
    await own.close();
    await expect(fetch(`${own.url}/_emulator/stats`)).rejects.toThrow();
  });
});
