import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { validateApi } from '../../src/kinds/wire.js';
import {
  basic,
  bearer,
  call,
  SERVICE_PATH,
  start,
  TILE,
  tileAlert,
  type CallOptions,
  type CallResult,
} from './helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  ({ emulator } = await start());
});
afterAll(() => emulator.close());

interface Variant {
  name: string;
  id: RegExp;
  dashboards: string;
  alerts: string;
  request(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** The resource (or list) out of the success envelope. */
  unwrap(response: CallResult): any;
  /** The 400 message without the variant's wrapping: managed `BAD_REQUEST: x`, self-hosted `{message: x}`. */
  badRequest(response: CallResult): string;
  expectNotFound(response: CallResult): void;
}

const managed: Variant = {
  name: 'managed',
  id: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  dashboards: `${SERVICE_PATH}/stack/dashboards`,
  alerts: `${SERVICE_PATH}/stack/alerts`,
  request: (method, path, options = {}) => call(emulator.url, method, path, { auth: basic(), ...options }),
  unwrap: (response) => {
    expect(response.json).toMatchObject({ status: 200, requestId: expect.any(String) });
    return response.json.result;
  },
  badRequest: (response) => {
    expect(response.json).toMatchObject({ status: 400, requestId: expect.any(String) });
    return String(response.json.error).replace(/^BAD_REQUEST: /, '');
  },
  expectNotFound: (response) => {
    expect(response.status).toBe(404);
    expect(response.json.error).toMatch(/^NOT_FOUND: (dashboard|alert) .* not found$/);
  },
};

const selfHosted: Variant = {
  name: 'self-hosted',
  id: /^[0-9a-f]{24}$/,
  dashboards: '/api/v2/dashboards',
  alerts: '/api/v2/alerts',
  request: (method, path, options = {}) => call(emulator.url, method, path, { auth: bearer(), ...options }),
  unwrap: (response) => {
    expect(Object.keys(response.json)).toContain('data');
    return response.json.data;
  },
  badRequest: (response) => {
    expect(Object.keys(response.json)).toEqual(['message']);
    return String(response.json.message).replace(/^Body validation failed: /, '');
  },
  expectNotFound: (response) => {
    expect(response.status).toBe(404);
    expect(response.text).toBe('Not Found');
  },
};

const tile = (name: string, extra: Record<string, unknown> = {}) => ({ ...TILE, name, ...extra });

describe.each([managed, selfHosted])('$name stack', (v) => {
  const createDashboard = async (body: unknown) => {
    const response = await v.request('POST', v.dashboards, { body });
    expect(response.status).toBe(200);
    return v.unwrap(response);
  };
  const createAlert = async (body: unknown) => {
    const response = await v.request('POST', v.alerts, { body });
    expect(response.status, response.text).toBe(200);
    return v.unwrap(response);
  };
  const alertIds = async () => {
    const response = await v.request('GET', v.alerts);
    return (v.unwrap(response) as { id: string }[]).map((alert) => alert.id);
  };

  describe('dashboards', () => {
    it('POST assigns new ids to the dashboard and every tile, ignoring ids sent', async () => {
      const dashboard = await createDashboard({
        name: 'api',
        tags: ['prod'],
        tiles: [tile('a', { id: 'mine' }), tile('b', { asRatio: true })],
      });
      expect(dashboard.id).toMatch(v.id);
      expect(dashboard.tiles.map((t: any) => t.id)).toEqual([expect.stringMatching(v.id), expect.stringMatching(v.id)]);
      expect(new Set(dashboard.tiles.map((t: any) => t.id)).size).toBe(2);
      expect(dashboard.tiles[0].id).not.toBe('mine');
      expect(dashboard).toMatchObject({
        name: 'api',
        tags: ['prod'],
        tiles: [
          { name: 'a', x: 0, w: 6 },
          { name: 'b', asRatio: true },
        ],
      });
      expect(dashboard.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const checked = validateApi('dashboard', dashboard);
      expect(checked.ok ? '' : JSON.stringify(checked.issues)).toBe('');
      expect(v.unwrap(await v.request('GET', `${v.dashboards}/${dashboard.id}`))).toEqual(dashboard);
    });

    it('defaults tiles and tags to empty lists', async () => {
      expect(await createDashboard({ name: 'bare' })).toMatchObject({ tiles: [], tags: [] });
    });

    it('lists all dashboards sorted by name descending', async () => {
      for (const name of ['m-list', 'z-list', 'a-list']) await createDashboard({ name });
      const names = (v.unwrap(await v.request('GET', v.dashboards)) as { name: string }[]).map((d) => d.name);
      expect(names).toEqual([...names].sort().reverse());
      expect(names).toEqual(expect.arrayContaining(['m-list', 'z-list', 'a-list']));
    });

    it('PUT keeps the ids of tiles sent with their live id, gives others fresh ids, and deletes alerts of removed tiles', async () => {
      const dashboard = await createDashboard({
        name: 'put',
        tags: ['keep'],
        tiles: [tile('stay'), tile('go'), tile('renamed')],
      });
      const [stay, go, renamed] = dashboard.tiles;
      const watchStay = await createAlert(tileAlert(dashboard.id, stay.id));
      const watchGo = await createAlert(tileAlert(dashboard.id, go.id));
      const watchRenamed = await createAlert(tileAlert(dashboard.id, renamed.id));

      const response = await v.request('PUT', `${v.dashboards}/${dashboard.id}`, {
        body: {
          name: 'put-2',
          tiles: [
            { ...stay, w: 12 },
            { ...renamed, id: undefined, name: 'renamed-2' },
            tile('new', { id: 'client-made' }),
            { ...stay, name: 'dup' },
          ],
        },
      });
      expect(response.status).toBe(200);
      const updated = v.unwrap(response);
      expect(updated.name).toBe('put-2');
      expect(updated.tags).toEqual(['keep']);
      expect(updated.id).toBe(dashboard.id);
      expect(updated.createdAt).toBe(dashboard.createdAt);
      const ids = updated.tiles.map((t: any) => t.id);
      expect(ids[0]).toBe(stay.id);
      expect(updated.tiles[0].w).toBe(12);
      for (const fresh of ids.slice(1)) expect([stay.id, go.id, renamed.id, 'client-made']).not.toContain(fresh);
      expect(new Set(ids).size).toBe(4);

      const remaining = await alertIds();
      expect(remaining).toContain(watchStay.id);
      expect(remaining).not.toContain(watchGo.id);
      expect(remaining).not.toContain(watchRenamed.id);

      const retagged = v.unwrap(
        await v.request('PUT', `${v.dashboards}/${dashboard.id}`, {
          body: { name: 'put-2', tiles: updated.tiles, tags: [] },
        }),
      );
      expect(retagged.tags).toEqual([]);
      expect(retagged.tiles.map((t: any) => t.id)).toEqual(ids);
    });

    it('DELETE removes the dashboard and every alert watching it, and answers 200 {} for unknown ids', async () => {
      const dashboard = await createDashboard({ name: 'doomed', tiles: [tile('t1'), tile('t2')] });
      const other = await createDashboard({ name: 'survivor', tiles: [tile('t')] });
      const doomedAlerts = [
        await createAlert(tileAlert(dashboard.id, dashboard.tiles[0].id)),
        await createAlert(tileAlert(dashboard.id, dashboard.tiles[1].id)),
      ];
      const kept = await createAlert(tileAlert(other.id, other.tiles[0].id));
      const response = await v.request('DELETE', `${v.dashboards}/${dashboard.id}`);
      expect(response.status).toBe(200);
      expect(v.name === 'managed' ? response.json.result : response.json).toEqual({});
      v.expectNotFound(await v.request('GET', `${v.dashboards}/${dashboard.id}`));
      const remaining = await alertIds();
      for (const alert of doomedAlerts) expect(remaining).not.toContain(alert.id);
      expect(remaining).toContain(kept.id);
      const again = await v.request('DELETE', `${v.dashboards}/${dashboard.id}`);
      expect(again.status).toBe(200);
    });

    it('404s get and put of an unknown dashboard', async () => {
      const unknown = v.name === 'managed' ? '00000000-0000-4000-8000-000000000000' : '000000000000000000000000';
      v.expectNotFound(await v.request('GET', `${v.dashboards}/${unknown}`));
      v.expectNotFound(await v.request('PUT', `${v.dashboards}/${unknown}`, { body: { name: 'x', tiles: [] } }));
    });

    const invalid: { name: string; method: 'POST' | 'PUT'; body: unknown; message: string }[] = [
      { name: 'name missing', method: 'POST', body: { tiles: [] }, message: 'name: is required' },
      {
        name: 'name too long',
        method: 'POST',
        body: { name: 'x'.repeat(1025) },
        message: 'name: must NOT have more than 1024 characters',
      },
      {
        name: 'tile x out of range',
        method: 'POST',
        body: { name: 'a', tiles: [tile('t', { x: 24 })] },
        message: 'tiles[0].x: must be <= 23',
      },
      {
        name: 'tile w out of range',
        method: 'POST',
        body: { name: 'a', tiles: [tile('t', { w: 0 })] },
        message: 'tiles[0].w: must be >= 1',
      },
      {
        name: 'tile y not an integer',
        method: 'POST',
        body: { name: 'a', tiles: [tile('t', { y: 1.5 })] },
        message: 'tiles[0].y: must be integer',
      },
      {
        name: 'series type unknown',
        method: 'POST',
        body: { name: 'a', tiles: [tile('t', { series: [{ type: 'pie' }] })] },
        message: 'tiles[0].series[0].type: must be one of time, histogram, search, number, table, markdown',
      },
      {
        name: 'time series without aggFn',
        method: 'POST',
        body: { name: 'a', tiles: [tile('t', { series: [{ type: 'time' }] })] },
        message: 'tiles[0].series[0].aggFn: is required',
      },
      {
        name: 'too many tags',
        method: 'POST',
        body: { name: 'a', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
        message: 'tags: must NOT have more than 50 items',
      },
      {
        name: 'tag too long',
        method: 'POST',
        body: { name: 'a', tags: ['x'.repeat(33)] },
        message: 'tags[0]: must NOT have more than 32 characters',
      },
      { name: 'PUT without tiles', method: 'PUT', body: { name: 'a' }, message: 'tiles: is required' },
    ];
    it.each(invalid)('400 naming the path: $name', async ({ method, body, message }) => {
      const target =
        method === 'POST' ? v.dashboards : `${v.dashboards}/${(await createDashboard({ name: 'target' })).id}`;
      const response = await v.request(method, target, { body });
      expect(response.status).toBe(400);
      expect(v.badRequest(response)).toBe(message);
    });

    it('400 for a body that is not JSON', async () => {
      const response = await v.request('POST', v.dashboards, { raw: 'name: yaml' });
      expect(response.status).toBe(400);
      expect(v.badRequest(response)).toMatch(/^request body is not valid JSON/);
    });
  });

  describe('alerts', () => {
    let dashboard: any;
    beforeAll(async () => {
      dashboard = await createDashboard({ name: 'watched', tiles: [tile('p99'), tile('errors')] });
    });

    it('creates with server-set members and names the dashboard `dashboard`', async () => {
      const alert = await createAlert(tileAlert(dashboard.id, dashboard.tiles[0].id, { groupBy: 'service' }));
      expect(alert).toEqual({
        id: expect.stringMatching(v.id),
        name: 'slow',
        message: 'p99 is slow',
        threshold: 500,
        interval: '5m',
        thresholdType: 'above',
        source: 'tile',
        channel: { type: 'webhook', webhookId: 'hook-1' },
        groupBy: 'service',
        state: 'inactive',
        team: expect.any(String),
        tileId: dashboard.tiles[0].id,
        dashboard: dashboard.id,
        silenced: false,
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: alert.createdAt,
      });
      expect(validateApi('alert', alert).ok).toBe(true);
      expect(v.unwrap(await v.request('GET', `${v.alerts}/${alert.id}`))).toEqual(alert);
    });

    it('creates a search alert with `savedSearch`', async () => {
      const alert = await createAlert({
        threshold: 3,
        interval: '1h',
        thresholdType: 'below',
        source: 'search',
        savedSearchId: 'search-1',
        channel: { type: 'webhook', webhookId: 'w' },
      });
      expect(alert).toMatchObject({ source: 'search', savedSearch: 'search-1' });
      expect(alert).not.toHaveProperty('dashboard');
      expect(alert).not.toHaveProperty('savedSearchId');
    });

    it('400 Dashboard not found / Tile not found', async () => {
      const unknownDashboard = await v.request('POST', v.alerts, { body: tileAlert('nope', 'nope') });
      expect(unknownDashboard.status).toBe(400);
      expect(v.badRequest(unknownDashboard)).toBe('Dashboard not found');
      const unknownTile = await v.request('POST', v.alerts, { body: tileAlert(dashboard.id, 'nope') });
      expect(v.badRequest(unknownTile)).toBe('Tile not found');
    });

    const invalid: { name: string; change: Record<string, unknown>; message: string }[] = [
      { name: 'threshold not a number', change: { threshold: 'high' }, message: 'threshold: must be number' },
      {
        name: 'unknown interval',
        change: { interval: '2m' },
        message: 'interval: must be one of 1m, 5m, 15m, 30m, 1h, 6h, 12h, 1d',
      },
      {
        name: 'unknown thresholdType',
        change: { thresholdType: 'equal' },
        message: 'thresholdType: must be one of above, below',
      },
      { name: 'unknown source', change: { source: 'log' }, message: 'source: must be one of tile, search' },
      {
        name: 'channel type unknown',
        change: { channel: { type: 'email' } },
        message: 'channel.type: must be one of webhook',
      },
      {
        name: 'webhook without id',
        change: { channel: { type: 'webhook' } },
        message: 'channel.webhookId: is required',
      },
      { name: 'tile alert without tileId', change: { tileId: undefined }, message: 'tileId: is required' },
      {
        name: 'search alert without savedSearchId',
        change: { source: 'search' },
        message: 'savedSearchId: is required',
      },
      { name: 'threshold missing', change: { threshold: undefined }, message: 'threshold: is required' },
      { name: 'unknown member', change: { severity: 'high' }, message: 'severity: is not a known member here' },
    ];
    it.each(invalid)('400 naming the path: $name', async ({ change, message }) => {
      const body = JSON.parse(JSON.stringify({ ...tileAlert(dashboard.id, dashboard.tiles[0].id), ...change }));
      for (const [method, path] of [['POST', v.alerts]] as const) {
        const response = await v.request(method, path, { body });
        expect(response.status).toBe(400);
        expect(v.badRequest(response)).toBe(message);
      }
      const existing = await createAlert(tileAlert(dashboard.id, dashboard.tiles[0].id));
      const put = await v.request('PUT', `${v.alerts}/${existing.id}`, { body });
      expect(v.badRequest(put)).toBe(message);
      expect(v.unwrap(await v.request('GET', `${v.alerts}/${existing.id}`))).toEqual(existing);
    });

    it('PUT replaces the configuration: absent name, message and groupBy are cleared', async () => {
      const alert = await createAlert(tileAlert(dashboard.id, dashboard.tiles[0].id, { groupBy: 'host' }));
      const body = {
        threshold: 9,
        interval: '15m',
        thresholdType: 'below',
        source: 'tile',
        dashboardId: dashboard.id,
        tileId: dashboard.tiles[1].id,
        channel: { type: 'webhook', webhookId: 'h2' },
      };
      const response = await v.request('PUT', `${v.alerts}/${alert.id}`, { body });
      expect(response.status).toBe(200);
      const updated = v.unwrap(response);
      expect(updated).toEqual({
        id: alert.id,
        threshold: 9,
        interval: '15m',
        thresholdType: 'below',
        source: 'tile',
        channel: { type: 'webhook', webhookId: 'h2' },
        state: 'inactive',
        team: alert.team,
        tileId: dashboard.tiles[1].id,
        dashboard: dashboard.id,
        silenced: false,
        createdAt: alert.createdAt,
        updatedAt: expect.any(String),
      });
      const notFound = await v.request(
        'PUT',
        `${v.alerts}/${v.name === 'managed' ? '00000000-0000-4000-8000-000000000000' : 'ffffffffffffffffffffffff'}`,
        { body },
      );
      v.expectNotFound(notFound);
      const badTarget = await v.request('PUT', `${v.alerts}/${alert.id}`, { body: { ...body, tileId: 'gone' } });
      expect(v.badRequest(badTarget)).toBe('Tile not found');
    });

    it('lists in creation order, deletes, and 404s deleting an unknown alert', async () => {
      const first = await createAlert(tileAlert(dashboard.id, dashboard.tiles[0].id));
      const second = await createAlert(tileAlert(dashboard.id, dashboard.tiles[1].id));
      const ids = await alertIds();
      expect(ids.indexOf(first.id)).toBeLessThan(ids.indexOf(second.id));
      const deleted = await v.request('DELETE', `${v.alerts}/${first.id}`);
      expect(deleted.status).toBe(200);
      expect(v.name === 'managed' ? deleted.json.result : deleted.json).toEqual({});
      expect(await alertIds()).not.toContain(first.id);
      v.expectNotFound(await v.request('DELETE', `${v.alerts}/${first.id}`));
      v.expectNotFound(await v.request('GET', `${v.alerts}/${first.id}`));
    });
  });
});

describe('variant differences', () => {
  it('self-hosted ids that are not 24-hex are a 400 naming the id', async () => {
    const response = await selfHosted.request('GET', '/api/v2/dashboards/not-an-id');
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ message: 'Params validation failed: id: must be a 24-hex object id' });
  });

  it('managed sources list: result array of {id, name, kind}, one of each kind by default', async () => {
    const response = await managed.request('GET', `${SERVICE_PATH}/stack/sources`);
    const sources = managed.unwrap(response) as { id: string; name: string; kind: string }[];
    expect(sources.map((s) => s.kind)).toEqual(['log', 'trace', 'metric', 'session']);
    for (const source of sources) expect(validateApi('dataSource', source).ok).toBe(true);
  });

  it('the same dashboard id is not visible across variants', async () => {
    const created = managed.unwrap(
      await managed.request('POST', managed.dashboards, { body: { name: 'managed-only' } }),
    );
    const listed = selfHosted.unwrap(await selfHosted.request('GET', selfHosted.dashboards)) as { id: string }[];
    expect(listed.map((d) => d.id)).not.toContain(created.id);
  });
});
