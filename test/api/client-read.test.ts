/** Reads and writes through MockAgent: envelopes, request shapes, normalisation, paging, bad shapes. */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { createApi, type Api } from '../../src/api/index.js';
import type { AlertWrite } from '../../src/kinds/alert/model.js';
import type { Tile } from '../../src/kinds/dashboard/model.js';
import {
  BASE,
  BASIC,
  dataOk,
  failure,
  hookLog,
  JSON_HEADERS,
  MANAGED_PREFIX,
  managedConnection,
  managedOk,
  mockAgent,
  sampleAlert,
  sampleDashboard,
  selfHostedConnection,
  TOKEN,
} from './helpers.js';

let agent: MockAgent;
let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
  agent.assertNoPendingInterceptors();
  await agent.close();
});

function managed(): { api: Api; log: ReturnType<typeof hookLog> } {
  agent = mockAgent();
  const log = hookLog();
  api = createApi(managedConnection(), { dispatcher: agent, hooks: log.hooks });
  return { api, log };
}

function selfHosted(): { api: Api; log: ReturnType<typeof hookLog> } {
  agent = mockAgent();
  const log = hookLog();
  api = createApi(selfHostedConnection(), { dispatcher: agent, hooks: log.hooks });
  return { api, log };
}

const kafkaPipe = {
  id: '7a0e1f2c-0001-4b3a-9c4d-5e6f7a8b9c01',
  serviceId: '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01',
  name: 'orders-kafka',
  state: 'Running',
  scaling: { replicas: 1, concurrency: 1 },
  source: { kafka: { brokers: 'b:9092', topics: 'orders', consumerGroup: 'g' } },
  destination: { database: 'default', table: 'orders', managedTable: true, columns: [{ name: 'id', type: 'UInt64' }] },
  fieldMappings: [{ sourceField: 'id', destinationField: 'id' }],
  settings: { streaming_max_insert_wait_ms: 5000, engine_parallel_view_processing: false },
  createdAt: '2026-03-15T10:20:30.000Z',
  updatedAt: '2026-03-15T10:20:30.000Z',
};

describe('managed adapter', () => {
  it('reads the whole live state in three calls with Basic auth, and unwraps {status, requestId, result}; its sources, which it cannot write, only when asked', async () => {
    const { api, log } = managed();
    const pool = agent.get(BASE);
    pool
      .intercept({ path: `${MANAGED_PREFIX}/pipes`, headers: { authorization: BASIC } })
      .reply(200, managedOk([kafkaPipe]), { headers: JSON_HEADERS });
    pool
      .intercept({ path: `${MANAGED_PREFIX}/stack/dashboards`, headers: { authorization: BASIC } })
      .reply(200, managedOk([sampleDashboard()]), { headers: JSON_HEADERS });
    pool
      .intercept({ path: `${MANAGED_PREFIX}/stack/alerts`, headers: { authorization: BASIC } })
      .reply(200, managedOk([sampleAlert()]), { headers: JSON_HEADERS });

    const live = await api.readLiveState();

    expect(live.pipes).toEqual([
      {
        id: kafkaPipe.id,
        name: 'orders-kafka',
        state: 'Running',
        source: { kind: 'kafka', block: { brokers: 'b:9092', topics: 'orders', consumerGroup: 'g' } },
        destination: kafkaPipe.destination,
        fieldMappings: kafkaPipe.fieldMappings,
        settings: kafkaPipe.settings,
        // Read for pipes born in Git: scaling converges through its own operation; createdAt tells a create that landed late (kit/intents.ts).
        scaling: kafkaPipe.scaling,
        createdAt: kafkaPipe.createdAt,
      },
    ]);
    expect(live.dashboards?.[0]?.tiles[0]?.id).toBe('65f5e4a3b9e77c001a000001-t1');
    expect(live.alerts?.[0]).toMatchObject({
      dashboardId: '65f5e4a3b9e77c001a000001',
      source: 'tile',
      state: 'inactive',
    });
    expect(log.requests.map((request) => `${request.method} ${request.route} ${request.status}`).sort()).toEqual([
      'GET /v1/organizations/{organizationId}/services/{serviceId}/pipes 200',
      'GET /v1/organizations/{organizationId}/services/{serviceId}/stack/alerts 200',
      'GET /v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards 200',
    ]);
    expect(live.unread).toEqual(['Source']);
    expect(live.sources).toEqual([]);

    // Asked for, they are read with the rest.
    for (const [path, body] of [
      ['pipes', [kafkaPipe]],
      ['stack/dashboards', [sampleDashboard()]],
      ['stack/alerts', [sampleAlert()]],
      ['stack/sources', [{ id: 's1', name: 'Logs', kind: 'log' }]],
    ] as const) {
      pool
        .intercept({ path: `${MANAGED_PREFIX}/${path}`, headers: { authorization: BASIC } })
        .reply(200, managedOk(body), { headers: JSON_HEADERS });
    }
    const asked = await api.readLiveState(['Source']);
    expect(asked.unread).toBeUndefined();
    expect(asked.sources).toEqual([{ id: 's1', name: 'Logs', members: { name: 'Logs', kind: 'log' } }]);
  });

  it('sends a PATCH body as given and reads back the updated pipe', async () => {
    const { api, log } = managed();
    let sent: unknown;
    agent
      .get(BASE)
      .intercept({
        path: `${MANAGED_PREFIX}/pipes/${kafkaPipe.id}`,
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
      })
      .reply((request) => {
        sent = JSON.parse(String(request.body));
        return {
          statusCode: 200,
          data: managedOk({ ...kafkaPipe, name: 'renamed' }),
          responseOptions: { headers: JSON_HEADERS },
        };
      });
    const pipe = await api.update('Pipe', kafkaPipe.id, { name: 'renamed', settings: { engine_max_threads: 4 } });
    expect(sent).toEqual({ name: 'renamed', settings: { engine_max_threads: 4 } });
    expect(pipe.name).toBe('renamed');
    expect(log.requests).toEqual([
      { method: 'PATCH', route: '/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}', status: 200 },
    ]);
  });

  it('creates a dashboard without tile ids, updates it with them, deletes it', async () => {
    const { api, log } = managed();
    const bodies: unknown[] = [];
    const pool = agent.get(BASE);
    const capture = (data: string) => (request: { body?: unknown }) => {
      if (request.body !== undefined && request.body !== null) bodies.push(JSON.parse(String(request.body)));
      return { statusCode: 200, data, responseOptions: { headers: JSON_HEADERS } };
    };
    pool
      .intercept({ path: `${MANAGED_PREFIX}/stack/dashboards`, method: 'POST' })
      .reply(capture(managedOk(sampleDashboard('d-1'))));
    pool
      .intercept({ path: `${MANAGED_PREFIX}/stack/dashboards/d-1`, method: 'PUT' })
      .reply(capture(managedOk(sampleDashboard('d-1', 'renamed'))));
    pool.intercept({ path: `${MANAGED_PREFIX}/stack/dashboards/d-1`, method: 'DELETE' }).reply(capture(managedOk({})));

    const tile: Tile = { id: 'stale', name: 'p99', x: 0, y: 0, w: 6, h: 4, series: [{ type: 'time', aggFn: 'avg' }] };
    const created = await api.create('Dashboard', { name: 'api-latency', tags: ['api'], tiles: [tile] });
    const updated = await api.update('Dashboard', created.id, { name: 'renamed', tiles: [{ ...tile, id: 'd-1-t1' }] });
    await api.remove('Dashboard', created.id);

    expect(bodies).toEqual([
      {
        name: 'api-latency',
        tags: ['api'],
        tiles: [{ name: 'p99', x: 0, y: 0, w: 6, h: 4, series: [{ type: 'time', aggFn: 'avg' }] }],
      },
      { name: 'renamed', tiles: [{ ...tile, id: 'd-1-t1' }] },
    ]);
    expect(updated.name).toBe('renamed');
    expect(log.requests.map((request) => request.route)).toEqual([
      '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards',
      '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards/{dashboardId}',
      '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards/{dashboardId}',
    ]);
  });

  it('lists data sources (the seed lists them on managed targets, read only)', async () => {
    const { api } = managed();
    agent
      .get(BASE)
      .intercept({ path: `${MANAGED_PREFIX}/stack/sources` })
      .reply(200, managedOk([{ id: 's1', name: 'Logs', kind: 'log' }]));
    expect(await api.list('Source')).toEqual([{ id: 's1', name: 'Logs', members: { name: 'Logs', kind: 'log' } }]);
    await expect(api.create('Source', { name: 'x' })).rejects.toMatchObject({ code: 'E_API_NOT_FOUND' });
  });

  it('encodes ids into the path', async () => {
    const { api } = managed();
    agent
      .get(BASE)
      .intercept({ path: `${MANAGED_PREFIX}/stack/alerts/a%2F..%2Fb`, method: 'DELETE' })
      .reply(200, managedOk({}));
    await api.remove('Alert', 'a/../b');
  });
});

describe('self-hosted adapter', () => {
  it('uses Bearer auth, unwraps {data}, and has no pipes', async () => {
    const { api, log } = selfHosted();
    agent
      .get(BASE)
      .intercept({ path: '/api/v2/dashboards', headers: { authorization: `Bearer ${TOKEN}` } })
      .reply(200, dataOk([sampleDashboard()]));
    expect((await api.list('Dashboard'))[0]?.name).toBe('api-latency');
    expect(await api.list('Pipe')).toEqual([]);
    await expect(api.update('Pipe', 'p', {})).rejects.toMatchObject({ code: 'E_API_NOT_FOUND' });
    // The seed's self-hosted API has no sources, webhooks or saved searches: nothing is sent for them.
    expect(await api.list('Source')).toEqual([]);
    expect(await api.list('Webhook')).toEqual([]);
    expect(log.requests).toHaveLength(1);
  });

  it('creates, updates and deletes alerts in the request shape (dashboardId)', async () => {
    const { api } = selfHosted();
    const bodies: unknown[] = [];
    const pool = agent.get(BASE);
    const reply = (data: string) => (request: { body?: unknown }) => {
      if (request.body !== undefined && request.body !== null) bodies.push(JSON.parse(String(request.body)));
      return { statusCode: 200, data };
    };
    pool.intercept({ path: '/api/v2/alerts', method: 'POST' }).reply(reply(dataOk(sampleAlert('a1'))));
    pool
      .intercept({ path: '/api/v2/alerts/a1', method: 'PUT' })
      .reply(reply(dataOk(sampleAlert('a1', { threshold: 900 }))));
    pool.intercept({ path: '/api/v2/alerts/a1', method: 'DELETE' }).reply(200, '{}');
    const body: AlertWrite = {
      name: 'slow',
      threshold: 500,
      thresholdType: 'above' as const,
      interval: '5m',
      source: 'tile' as const,
      channel: { type: 'webhook', webhookId: 'hook-1' },
      dashboardId: 'd1',
      tileId: 't1',
    };
    const created = await api.create('Alert', body);
    const updated = await api.update('Alert', 'a1', { ...body, threshold: 900 });
    await api.remove('Alert', 'a1');
    expect(bodies).toEqual([body, { ...body, threshold: 900 }]);
    expect(created.id).toBe('a1');
    expect(updated.threshold).toBe(900);
  });

  function alertsPage(offset: number, count: number): Record<string, unknown>[] {
    return Array.from({ length: count }, (_, index) => sampleAlert(`alert-${offset + index}`));
  }

  it.each([
    { name: 'meta.total', total: (count: number) => ({ body: { meta: { total: count, limit: 1000 } }, headers: {} }) },
    { name: 'X-Total-Count', total: (count: number) => ({ body: {}, headers: { 'x-total-count': String(count) } }) },
  ])('pages through 2,500 alerts with $name, one call per page', async ({ total }) => {
    const { api, log } = selfHosted();
    const pool = agent.get(BASE);
    for (const [offset, count] of [
      [0, 1000],
      [1000, 1000],
      [2000, 500],
    ] as const) {
      const { body, headers } = total(2500);
      pool
        .intercept({ path: `/api/v2/alerts?limit=1000&offset=${offset}` })
        .reply(200, dataOk(alertsPage(offset, count), body), { headers });
    }
    const alerts = await api.list('Alert');
    expect(alerts).toHaveLength(2500);
    expect(new Set(alerts.map((alert) => alert.id)).size).toBe(2500);
    expect(log.requests).toHaveLength(3);
    expect(new Set(log.requests.map((request) => request.route))).toEqual(new Set(['/api/v2/alerts']));
  });

  it('without a total, pages on until a page comes back short', async () => {
    const { api, log } = selfHosted();
    const pool = agent.get(BASE);
    pool.intercept({ path: '/api/v2/alerts?limit=1000&offset=0' }).reply(200, dataOk(alertsPage(0, 1000)));
    pool.intercept({ path: '/api/v2/alerts?limit=1000&offset=1000' }).reply(200, dataOk(alertsPage(1000, 1000)));
    pool.intercept({ path: '/api/v2/alerts?limit=1000&offset=2000' }).reply(200, dataOk([]));
    expect(await api.list('Alert')).toHaveLength(2000);
    expect(log.requests).toHaveLength(3);
  });

  it('reads the whole live state: one dashboards list and the alert pages', async () => {
    const { api, log } = selfHosted();
    const pool = agent.get(BASE);
    pool.intercept({ path: '/api/v2/dashboards' }).reply(200, dataOk([sampleDashboard()]));
    pool
      .intercept({ path: '/api/v2/alerts?limit=1000&offset=0' })
      .reply(200, dataOk([sampleAlert()], { meta: { total: 1, limit: 1000, offset: 0 } }));
    const live = await api.readLiveState();
    expect(live.pipes).toEqual([]);
    expect(live.dashboards).toHaveLength(1);
    expect(live.alerts).toHaveLength(1);
    expect(log.requests).toHaveLength(2);
  });

  it('sets aside a resource it cannot read and reads the rest of the list; a page counts it toward its length', async () => {
    const { api, log } = selfHosted();
    const pool = agent.get(BASE);
    const badTile = { id: 'd-bad', name: 'broken', tiles: [{ id: 't', name: 'p', x: 0, y: 0, w: 'wide', h: 1 }] };
    pool
      .intercept({ path: '/api/v2/dashboards' })
      .reply(200, dataOk([sampleDashboard(), badTile, { name: 'no id at all' }]));
    const page = [...alertsPage(0, 999), sampleAlert('alert-bad', { threshold: null })];
    pool.intercept({ path: '/api/v2/alerts?limit=1000&offset=0' }).reply(200, dataOk(page));
    pool.intercept({ path: '/api/v2/alerts?limit=1000&offset=1000' }).reply(200, dataOk([sampleAlert('alert-1000')]));
    const live = await api.readLiveState();
    expect(live.dashboards?.map((dashboard) => dashboard.name)).toEqual(['api-latency']);
    expect(live.alerts).toHaveLength(1000);
    expect(live.unreadable).toEqual([
      { kind: 'Dashboard', id: 'd-bad', name: 'broken', problem: 'data[1].tiles[0].w: is not a number' },
      { kind: 'Alert', id: 'alert-bad', name: 'slow', problem: 'data[999].threshold: is not a number' },
    ]);
    expect(log.requests).toHaveLength(3);
  });
});

describe('bad shapes are E_API_PROTOCOL', () => {
  it.each([
    {
      name: 'managed without result',
      variant: 'managed',
      body: JSON.stringify({ status: 200, requestId: 'x' }),
      path: 'result',
    },
    {
      name: 'managed with an error status inside 200',
      variant: 'managed',
      body: JSON.stringify({ status: 500, result: [] }),
      path: 'status',
    },
    { name: 'self-hosted without data', variant: 'self-hosted', body: JSON.stringify({ items: [] }), path: 'data' },
    { name: 'a list that is not a list', variant: 'self-hosted', body: dataOk({ id: 'x' }), path: 'data' },
    { name: 'a body that is not JSON', variant: 'self-hosted', body: '<html>oops</html>', path: undefined },
    { name: 'a body that is a string', variant: 'managed', body: '"ok"', path: '' },
  ])('$name', async ({ variant, body, path }) => {
    const { api } = variant === 'managed' ? managed() : selfHosted();
    const route = variant === 'managed' ? `${MANAGED_PREFIX}/stack/dashboards` : '/api/v2/dashboards';
    agent.get(BASE).intercept({ path: route }).reply(200, body);
    const error = await failure(api.list('Dashboard'));
    expect(error).toMatchObject({ code: 'E_API_PROTOCOL', status: 200 });
    if (path !== undefined) expect(error).toMatchObject({ details: { path } });
  });
});

describe('a singleton route (the service-wide CDC scaling)', () => {
  const CDC = `${MANAGED_PREFIX}/pipesCdcScaling`;
  const CDC_ROUTE = '/v1/organizations/{organizationId}/services/{serviceId}/pipesCdcScaling';

  function current(paths?: { pipes: string }): { api: Api; log: ReturnType<typeof hookLog> } {
    agent = mockAgent();
    const log = hookLog();
    api = createApi(managedConnection({ api: { profile: 'current', ...(paths ? { paths } : {}) } }), {
      dispatcher: agent,
      hooks: log.hooks,
    });
    return { api, log };
  }

  it.each([
    {
      name: 'a 404 (no database pipe provisioned yet) is no object, not a failed read',
      reply: { status: 404, body: JSON.stringify({ status: 404, error: 'CDC scaling not found' }) },
      want: { pipeCdcScaling: [] },
    },
    {
      name: 'the object is read as the one item, under the id stacksync gives it',
      reply: { status: 200, body: managedOk({ replicaCpuMillicores: 4000, replicaMemoryGb: 16 }) },
      want: { pipeCdcScaling: [{ id: 'cdc-scaling', replicaCpuMillicores: 4000, replicaMemoryGb: 16 }] },
    },
    {
      name: 'an object that does not read is set aside as unreadable, under that id',
      reply: { status: 200, body: managedOk({ replicaCpuMillicores: '4000', replicaMemoryGb: 16 }) },
      want: {
        pipeCdcScaling: [],
        unreadable: [
          { kind: 'PipeCdcScaling', id: 'cdc-scaling', problem: 'result.replicaCpuMillicores: is not a number' },
        ],
      },
    },
  ])('$name', async ({ reply, want }) => {
    const { api, log } = current();
    agent
      .get(BASE)
      .intercept({ path: CDC, headers: { authorization: BASIC } })
      .reply(reply.status, reply.body, { headers: JSON_HEADERS });
    const live = await api.readKinds(['PipeCdcScaling']);
    expect({
      pipeCdcScaling: live.pipeCdcScaling,
      ...(live.unreadable?.length ? { unreadable: live.unreadable } : {}),
    }).toEqual(want);
    expect(live.pipes, 'only the kinds asked for are read').toEqual([]);
    expect(log.requests).toEqual([{ method: 'GET', route: CDC_ROUTE, status: reply.status }]);
  });

  it('is changed by a PATCH of its own route, no id in the path, where the target names the pipes segment', async () => {
    const { api, log } = current({ pipes: 'clickpipes' });
    let sent: unknown;
    agent
      .get(BASE)
      .intercept({ path: `${MANAGED_PREFIX}/clickpipesCdcScaling`, method: 'PATCH' })
      .reply((request) => {
        sent = JSON.parse(String(request.body));
        return {
          statusCode: 200,
          data: managedOk({ replicaCpuMillicores: 8000, replicaMemoryGb: 32 }),
          responseOptions: { headers: JSON_HEADERS },
        };
      });
    expect(
      await api.update('PipeCdcScaling', 'cdc-scaling', { replicaCpuMillicores: 8000, replicaMemoryGb: 32 }),
    ).toEqual({ id: 'cdc-scaling', replicaCpuMillicores: 8000, replicaMemoryGb: 32 });
    expect(sent).toEqual({ replicaCpuMillicores: 8000, replicaMemoryGb: 32 });
    expect(log.requests).toEqual([{ method: 'PATCH', route: CDC_ROUTE, status: 200 }]);
  });

  it('is never created or deleted: nothing is sent', async () => {
    const { api, log } = current();
    await expect(
      api.create('PipeCdcScaling', { replicaCpuMillicores: 2000, replicaMemoryGb: 8 }),
    ).rejects.toMatchObject({ code: 'E_API_NOT_FOUND' });
    await expect(api.remove('PipeCdcScaling', 'cdc-scaling')).rejects.toMatchObject({ code: 'E_API_NOT_FOUND' });
    expect(log.requests).toEqual([]);
  });

  it('is not read by a full read, and not at all on a target speaking the seed profile', async () => {
    agent = mockAgent();
    const log = hookLog();
    api = createApi(managedConnection(), { dispatcher: agent, hooks: log.hooks });
    expect((await api.readKinds(['PipeCdcScaling'])).pipeCdcScaling).toEqual([]);
    expect(log.requests).toEqual([]);
  });
});

describe('createApi', () => {
  it('keeps a path prefix of the base URL and drops user-info from it', async () => {
    agent = mockAgent();
    api = createApi(selfHostedConnection({ baseUrl: 'http://someone:hunter2@api.test/observability/' }), {
      dispatcher: agent,
    });
    agent
      .get(BASE)
      .intercept({ path: '/observability/api/v2/dashboards', headers: { authorization: `Bearer ${TOKEN}` } })
      .reply(200, dataOk([]));
    expect(await api.list('Dashboard')).toEqual([]);
  });

  it.each([
    { name: 'a managed target without serviceId', connection: () => managedConnection({ serviceId: undefined }) },
    {
      name: 'credentials of the other variant',
      connection: () => managedConnection({ credentials: { variant: 'self-hosted', token: TOKEN } }),
    },
    { name: 'a base URL that is not http', connection: () => selfHostedConnection({ baseUrl: 'ftp://api.test' }) },
    { name: 'a base URL that is not a URL', connection: () => selfHostedConnection({ baseUrl: 'api.test' }) },
  ])('refuses $name with E_CONFIG_INVALID', ({ connection }) => {
    agent = mockAgent();
    expect(() => createApi(connection(), { dispatcher: agent })).toThrow(
      expect.objectContaining({ code: 'E_CONFIG_INVALID' }) as Error,
    );
  });
});
