/** Failure handling through MockAgent: classification, retries, server-driven waits, ambiguous creates. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errors, type MockAgent } from 'undici';
import { createApi, type Api, type ApiOptions } from '../../src/api/index.js';
import { StacksyncError } from '../../src/errors.js';
import type { AlertWrite } from '../../src/kinds/alert/model.js';
import {
  BASE,
  dataOk,
  failure,
  fakeTime,
  hookLog,
  MANAGED_PREFIX,
  managedConnection,
  managedOk,
  mockAgent,
  sampleAlert,
  sampleDashboard,
  selfHostedConnection,
} from './helpers.js';

let agent: MockAgent;
let api: Api | undefined;

afterEach(async () => {
  vi.useRealTimers();
  await api?.close();
  api = undefined;
  agent.assertNoPendingInterceptors();
  await agent.close();
});

const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000, maxElapsedMs: 60_000 };

function setup(variant: 'managed' | 'self-hosted', options: ApiOptions = {}) {
  agent = mockAgent();
  const log = hookLog();
  const time = fakeTime();
  const connection = variant === 'managed' ? managedConnection() : selfHostedConnection();
  api = createApi(connection, {
    dispatcher: agent,
    hooks: log.hooks,
    now: time.now,
    sleep: time.sleep,
    random: () => 0.5,
    retry: FAST_RETRY,
    ...options,
  });
  return { api, log, time, pool: agent.get(BASE) };
}

const ALERT_BODY: AlertWrite = {
  name: 'slow',
  threshold: 500,
  thresholdType: 'above' as const,
  interval: '5m',
  source: 'tile' as const,
  channel: { type: 'webhook', webhookId: 'hook-1' },
  dashboardId: 'd1',
  tileId: 't1',
};

function socketReset(): Error {
  return new errors.SocketError('other side closed');
}

describe('error classification', () => {
  it.each([
    { status: 400, code: 'E_API_VALIDATION', attempts: 1 },
    { status: 401, code: 'E_API_AUTH', attempts: 1 },
    { status: 403, code: 'E_API_AUTH', attempts: 1 },
    { status: 404, code: 'E_API_NOT_FOUND', attempts: 1 },
    { status: 405, code: 'E_API_PROTOCOL', attempts: 1 },
    { status: 409, code: 'E_API_VALIDATION', attempts: 1 },
    { status: 413, code: 'E_API_VALIDATION', attempts: 1 },
    { status: 422, code: 'E_API_VALIDATION', attempts: 1 },
    { status: 424, code: 'E_API_DEPENDENCY', attempts: 1 },
    { status: 429, code: 'E_API_THROTTLED', attempts: 3 },
    { status: 500, code: 'E_API_UNAVAILABLE', attempts: 3 },
    { status: 502, code: 'E_API_UNAVAILABLE', attempts: 3 },
    { status: 503, code: 'E_API_UNAVAILABLE', attempts: 3 },
  ])('GET answered $status → $code after $attempts attempt(s)', async ({ status, code, attempts }) => {
    const { api, log } = setup('managed');
    const route = '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards';
    agent
      .get(BASE)
      .intercept({ path: `${MANAGED_PREFIX}/stack/dashboards` })
      .reply(status, JSON.stringify({ status, error: 'SOME_CODE: it went wrong', requestId: 'req-1' }))
      .times(attempts);
    const error = await failure(api.list('Dashboard'));
    expect(error).toBeInstanceOf(StacksyncError);
    expect(error).toMatchObject({
      code,
      status,
      subject: `GET ${route}`,
      details: {
        method: 'GET',
        route,
        attempts,
        serverMessage: 'it went wrong',
        serverCode: 'SOME_CODE',
        requestId: 'req-1',
      },
    });
    expect((error as Error).message).toContain('it went wrong');
    expect(log.requests).toHaveLength(attempts);
    expect(log.retries).toHaveLength(attempts - 1);
  });

  it.each([
    {
      name: 'managed 400',
      variant: 'managed',
      status: 400,
      body: JSON.stringify({ status: 400, error: 'BAD_REQUEST: threshold must be a number', requestId: 'r' }),
      message: 'threshold must be a number',
      serverCode: 'BAD_REQUEST',
    },
    {
      name: 'self-hosted 400',
      variant: 'self-hosted',
      status: 400,
      body: JSON.stringify({ message: 'Body validation failed: threshold: must be number' }),
      message: 'Body validation failed: threshold: must be number',
      serverCode: undefined,
    },
    {
      name: 'self-hosted 401 plain text',
      variant: 'self-hosted',
      status: 401,
      body: 'Unauthorized',
      message: 'Unauthorized',
      serverCode: undefined,
    },
    {
      name: 'self-hosted 404 plain text',
      variant: 'self-hosted',
      status: 404,
      body: 'Not Found',
      message: 'Not Found',
      serverCode: undefined,
    },
  ] as const)('reads the server message of a $name', async ({ variant, status, body, message, serverCode }) => {
    const { api, pool } = setup(variant);
    const path = variant === 'managed' ? `${MANAGED_PREFIX}/stack/alerts/a1` : '/api/v2/alerts/a1';
    pool.intercept({ path, method: 'PUT' }).reply(status, body);
    const error = await failure(api.update('Alert', 'a1', ALERT_BODY));
    expect(error.details?.['serverMessage']).toBe(message);
    expect(error.details?.['serverCode']).toBe(serverCode);
    expect(error.details?.['resourceId']).toBe('a1');
    expect(error.message).toContain(`HTTP ${status}: ${message}`);
  });

  it.each([
    {
      name: 'connection refused',
      error: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      reason: 'connection',
    },
    { name: 'socket reset', error: socketReset, reason: 'connection' },
    { name: 'headers timeout', error: () => new errors.HeadersTimeoutError(), reason: 'timeout' },
    { name: 'connect timeout', error: () => new errors.ConnectTimeoutError(), reason: 'timeout' },
  ])('retries a GET after $name, then succeeds', async ({ error, reason }) => {
    const { api, log, pool } = setup('self-hosted');
    pool.intercept({ path: '/api/v2/dashboards' }).replyWithError(error());
    pool.intercept({ path: '/api/v2/dashboards' }).reply(200, dataOk([sampleDashboard()]));
    expect(await api.list('Dashboard')).toHaveLength(1);
    expect(log.requests.map((request) => request.status)).toEqual(['error', 200]);
    expect(log.retries).toMatchObject([{ method: 'GET', route: '/api/v2/dashboards', reason, attempt: 1 }]);
  });

  it('gives up on network failures as E_API_UNAVAILABLE with the undici code', async () => {
    const { api, pool } = setup('self-hosted');
    pool.intercept({ path: '/api/v2/dashboards' }).replyWithError(socketReset()).times(3);
    await expect(api.list('Dashboard')).rejects.toMatchObject({
      code: 'E_API_UNAVAILABLE',
      details: { networkCode: 'UND_ERR_SOCKET', attempts: 3 },
    });
  });

  it('counts the attempts a final answer took', async () => {
    const { api, pool } = setup('self-hosted');
    pool.intercept({ path: '/api/v2/alerts/a1', method: 'PUT' }).reply(503, 'busy');
    pool.intercept({ path: '/api/v2/alerts/a1', method: 'PUT' }).reply(404, 'Not Found');
    await expect(api.update('Alert', 'a1', ALERT_BODY)).rejects.toMatchObject({
      code: 'E_API_NOT_FOUND',
      details: { attempts: 2 },
    });
  });

  it('does not retry errors that are not transient', async () => {
    const { api, log, pool } = setup('self-hosted');
    pool.intercept({ path: '/api/v2/dashboards' }).replyWithError(new errors.InvalidArgumentError('bad'));
    await expect(api.list('Dashboard')).rejects.toMatchObject({ code: 'E_API_UNAVAILABLE' });
    expect(log.requests).toHaveLength(1);
  });
});

describe('backoff and server-driven waits', () => {
  it('backs off exponentially with full jitter between 5xx retries', async () => {
    const { api, pool, time } = setup('managed', { retry: { ...FAST_RETRY, maxAttempts: 4 } });
    pool
      .intercept({ path: `${MANAGED_PREFIX}/stack/alerts` })
      .reply(503, 'busy')
      .times(3);
    pool.intercept({ path: `${MANAGED_PREFIX}/stack/alerts` }).reply(200, managedOk([]));
    await api.list('Alert');
    expect(time.sleeps).toEqual([50, 100, 200]);
  });

  it.each([
    { name: 'Retry-After', headers: { 'retry-after': '3' }, wait: 3_000 },
    { name: 'X-RateLimit-Reset', headers: { 'x-ratelimit-reset': '7' }, wait: 7_000 },
    {
      name: 'RateLimit-Reset',
      headers: { 'ratelimit-reset': '2', 'ratelimit-limit': '100', 'ratelimit-remaining': '0' },
      wait: 2_000,
    },
    { name: 'no header (backoff)', headers: {}, wait: 50 },
  ])('on 429 waits exactly as long as $name says', async ({ headers, wait }) => {
    const { api, log, pool, time } = setup('self-hosted');
    pool.intercept({ path: '/api/v2/dashboards' }).reply(429, 'Too Many Requests', { headers });
    pool.intercept({ path: '/api/v2/dashboards' }).reply(200, dataOk([]));
    await api.list('Dashboard');
    expect(time.sleeps).toEqual([wait]);
    expect(log.retries).toEqual([
      {
        method: 'GET',
        route: '/api/v2/dashboards',
        reason: 'throttled',
        attempt: 1,
        maxAttempts: 3,
        delayMs: wait,
        why: 'HTTP 429: Too Many Requests',
      },
    ]);
  });

  it('gives up at once when the server asks for a wait past the time budget', async () => {
    const { api, log, pool, time } = setup('self-hosted');
    pool
      .intercept({ path: '/api/v2/dashboards' })
      .reply(429, 'Too Many Requests', { headers: { 'retry-after': '3600' } });
    await expect(api.list('Dashboard')).rejects.toMatchObject({
      code: 'E_API_THROTTLED',
      status: 429,
      details: { attempts: 1 },
    });
    expect(time.sleeps).toEqual([]);
    expect(log.requests).toHaveLength(1);
  });

  it('pauses the whole target after a 429: a request started during the wait waits too (fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    agent = mockAgent();
    const log = hookLog();
    api = createApi(selfHostedConnection(), {
      dispatcher: agent,
      hooks: log.hooks,
      random: () => 0.5,
      retry: FAST_RETRY,
    });
    const pool = agent.get(BASE);
    pool.intercept({ path: '/api/v2/dashboards' }).reply(429, 'Too Many Requests', { headers: { 'retry-after': '5' } });
    pool.intercept({ path: '/api/v2/dashboards' }).reply(200, dataOk([]));
    pool.intercept({ path: '/api/v2/alerts?limit=1000&offset=0' }).reply(200, dataOk([]));

    let dashboardsDone = false;
    let alertsDone = false;
    const dashboards = api.list('Dashboard').then(() => (dashboardsDone = true));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log.requests).toHaveLength(1);
    const alerts = api.list('Alert').then(() => (alertsDone = true));
    await vi.advanceTimersByTimeAsync(3_999);
    expect([dashboardsDone, alertsDone, log.requests.length]).toEqual([false, false, 1]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all([dashboards, alerts]);
    expect(log.requests).toHaveLength(3);
    expect(log.waits).toEqual([4]);
  });
});

describe('creates that may have happened', () => {
  it.each([
    {
      name: '500',
      reply: (pool: ReturnType<typeof setup>['pool'], path: string) =>
        pool.intercept({ path, method: 'POST' }).reply(500, 'boom'),
    },
    {
      name: 'a reset',
      reply: (pool: ReturnType<typeof setup>['pool'], path: string) =>
        pool.intercept({ path, method: 'POST' }).replyWithError(socketReset()),
    },
    {
      name: 'a headers timeout',
      reply: (pool: ReturnType<typeof setup>['pool'], path: string) =>
        pool.intercept({ path, method: 'POST' }).replyWithError(new errors.HeadersTimeoutError()),
    },
    {
      name: 'a body timeout',
      reply: (pool: ReturnType<typeof setup>['pool'], path: string) =>
        pool.intercept({ path, method: 'POST' }).replyWithError(new errors.BodyTimeoutError()),
    },
  ])('a POST failing with $name is E_API_AMBIGUOUS, not retried', async ({ reply }) => {
    const { api, log, pool } = setup('self-hosted');
    reply(pool, '/api/v2/alerts');
    const error = await failure(api.create('Alert', ALERT_BODY));
    expect(error.code).toBe('E_API_AMBIGUOUS');
    expect(error.subject).toBe('POST /api/v2/alerts');
    expect(error.message).toMatch(/look it up by name/);
    expect(log.requests).toHaveLength(1);
    expect(log.retries).toEqual([]);
  });

  it.each([
    {
      name: 'a headers timeout (a proxy may hold it past our time limit)',
      error: () => new errors.HeadersTimeoutError(),
      later: true,
    },
    { name: 'a close without an answer (a proxy giving up on us)', error: () => socketReset(), later: true },
    {
      name: 'a reset (the peer aborted the exchange)',
      error: () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      later: false,
    },
    {
      name: 'a body timeout (the answer had begun: the server handled it)',
      error: () => new errors.BodyTimeoutError(),
      later: false,
    },
  ])('after $name, says whether the create may still land later: $later', async ({ error, later }) => {
    const { api, pool } = setup('self-hosted');
    pool.intercept({ path: '/api/v2/alerts', method: 'POST' }).replyWithError(error());
    expect((await failure(api.create('Alert', ALERT_BODY))).details).toMatchObject({ mayLandLater: later });
  });

  it.each([
    { status: 502, later: true },
    { status: 504, later: true },
    { status: 500, later: false },
    { status: 503, later: false },
  ])(
    'after a $status, says whether the create may still land later: $later (a gateway gave up, or the service answered)',
    async ({ status, later }) => {
      const { api, pool } = setup('managed');
      pool.intercept({ path: `${MANAGED_PREFIX}/stack/alerts`, method: 'POST' }).reply(status, 'upstream');
      const error = await failure(api.create('Alert', ALERT_BODY));
      expect(error.code).toBe('E_API_AMBIGUOUS');
      expect(error.details).toMatchObject({ mayLandLater: later });
    },
  );

  it.each([
    {
      name: '429',
      reply: (pool: ReturnType<typeof setup>['pool']) =>
        pool
          .intercept({ path: '/api/v2/dashboards', method: 'POST' })
          .reply(429, '', { headers: { 'retry-after': '1' } }),
    },
    {
      name: 'connection refused',
      reply: (pool: ReturnType<typeof setup>['pool']) =>
        pool
          .intercept({ path: '/api/v2/dashboards', method: 'POST' })
          .replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })),
    },
    {
      name: 'connect timeout',
      reply: (pool: ReturnType<typeof setup>['pool']) =>
        pool.intercept({ path: '/api/v2/dashboards', method: 'POST' }).replyWithError(new errors.ConnectTimeoutError()),
    },
  ])('a POST refused before it was handled ($name) is retried', async ({ reply }) => {
    const { api, log, pool } = setup('self-hosted');
    reply(pool);
    pool.intercept({ path: '/api/v2/dashboards', method: 'POST' }).reply(200, dataOk(sampleDashboard('d-9')));
    expect((await api.create('Dashboard', { name: 'x', tiles: [] })).id).toBe('d-9');
    expect(log.requests).toHaveLength(2);
  });

  it('retries PUT after 5xx and a reset', async () => {
    const { api, log, pool } = setup('self-hosted');
    pool.intercept({ path: '/api/v2/alerts/a1', method: 'PUT' }).reply(502, 'bad gateway');
    pool.intercept({ path: '/api/v2/alerts/a1', method: 'PUT' }).replyWithError(socketReset());
    pool.intercept({ path: '/api/v2/alerts/a1', method: 'PUT' }).reply(200, dataOk(sampleAlert('a1')));
    expect((await api.update('Alert', 'a1', ALERT_BODY)).id).toBe('a1');
    expect(log.retries.map((retry) => retry.reason)).toEqual(['server_error', 'connection']);
  });

  it('a DELETE retried after a reset that finds the resource gone has succeeded', async () => {
    const { api, pool } = setup('self-hosted');
    pool.intercept({ path: '/api/v2/alerts/a1', method: 'DELETE' }).replyWithError(socketReset());
    pool.intercept({ path: '/api/v2/alerts/a1', method: 'DELETE' }).reply(404, 'Not Found');
    await expect(api.remove('Alert', 'a1')).resolves.toBeUndefined();
  });

  it('a DELETE of an unknown alert on the first attempt is E_API_NOT_FOUND', async () => {
    const { api, pool } = setup('self-hosted');
    pool.intercept({ path: '/api/v2/alerts/a1', method: 'DELETE' }).reply(404, 'Not Found');
    await expect(api.remove('Alert', 'a1')).rejects.toMatchObject({
      code: 'E_API_NOT_FOUND',
      details: { resourceId: 'a1' },
    });
  });

  it('a PATCH adding table mappings that got 400 after a 5xx is ambiguous (the first may have applied)', async () => {
    const { api, pool } = setup('managed');
    const path = `${MANAGED_PREFIX}/pipes/p1`;
    pool
      .intercept({ path, method: 'PATCH' })
      .reply(500, JSON.stringify({ status: 500, error: 'INTERNAL: oops', requestId: 'r' }));
    pool
      .intercept({ path, method: 'PATCH' })
      .reply(400, JSON.stringify({ status: 400, error: 'BAD_REQUEST: mapping public.x exists', requestId: 'r' }));
    const patch = {
      source: {
        postgres: { tableMappingsToAdd: [{ sourceSchemaName: 'public', sourceTable: 'x', targetTable: 'x' }] },
      },
    };
    await expect(api.update('Pipe', 'p1', patch)).rejects.toMatchObject({ code: 'E_API_AMBIGUOUS', status: 400 });
  });

  it('a PATCH without mapping changes is simply retried after a 5xx', async () => {
    const { api, pool } = setup('managed');
    const path = `${MANAGED_PREFIX}/pipes/p1`;
    pool.intercept({ path, method: 'PATCH' }).reply(500, '{}');
    pool
      .intercept({ path, method: 'PATCH' })
      .reply(200, managedOk({ id: 'p1', name: 'n', source: { kinesis: { streamName: 's' } } }));
    expect((await api.update('Pipe', 'p1', { name: 'n' })).source.kind).toBe('kinesis');
  });
});

describe('hooks and close', () => {
  it('a throwing hook does not fail the request', async () => {
    const { pool } = setup('self-hosted');
    await api?.close();
    api = createApi(selfHostedConnection(), {
      dispatcher: agent,
      hooks: {
        onRequest: () => {
          throw new Error('metrics broke');
        },
      },
    });
    pool.intercept({ path: '/api/v2/dashboards' }).reply(200, dataOk([]));
    await expect(api.list('Dashboard')).resolves.toEqual([]);
  });

  it('a closed client refuses requests', async () => {
    const { api } = setup('self-hosted');
    await api.close();
    await expect(api.list('Dashboard')).rejects.toMatchObject({ code: 'E_API_UNAVAILABLE' });
  });
});
