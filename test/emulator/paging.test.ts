import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { basic, bearer, call, SERVICE_PATH, start, TILE, tileAlert } from './helpers.js';

const ALERTS = 1001;
let emulator: RunningEmulator;
let created: string[];

async function createAlerts(
  dashboardsPath: string,
  alertsPath: string,
  auth: string,
  unwrap: (json: any) => any,
): Promise<string[]> {
  const dashboard = unwrap(
    (await call(emulator.url, 'POST', dashboardsPath, { auth, body: { name: 'paged', tiles: [TILE] } })).json,
  );
  const ids: string[] = [];
  // In chunks, so creation order (and so list order) is known per chunk and the test stays quick.
  for (let start = 0; start < ALERTS; start += 100) {
    const chunk = Array.from({ length: Math.min(100, ALERTS - start) }, (_, i) =>
      call(emulator.url, 'POST', alertsPath, {
        auth,
        body: tileAlert(dashboard.id, dashboard.tiles[0].id, { name: `alert-${start + i}` }),
      }),
    );
    for (const response of await Promise.all(chunk)) {
      expect(response.status).toBe(200);
      ids.push(unwrap(response.json).id);
    }
  }
  return ids;
}

beforeAll(async () => {
  ({ emulator } = await start());
  created = await createAlerts('/api/v2/dashboards', '/api/v2/alerts', bearer(), (json) => json.data);
});
afterAll(() => emulator.close());

const list = (query = '') => call(emulator.url, 'GET', `/api/v2/alerts${query}`, { auth: bearer() });

describe('self-hosted alert paging', () => {
  it('returns the first 1000 by default, with meta and X-Total-Count', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.json.data).toHaveLength(1000);
    expect(response.json.meta).toEqual({ total: ALERTS, limit: 1000, offset: 0 });
    expect(response.headers.get('x-total-count')).toBe(String(ALERTS));
  });

  it('pages with limit and offset in a stable order that covers every alert once', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < ALERTS; offset += 300) {
      const response = await list(`?limit=300&offset=${offset}`);
      expect(response.json.meta).toEqual({ total: ALERTS, limit: 300, offset });
      seen.push(...response.json.data.map((alert: { id: string }) => alert.id));
    }
    expect(seen).toHaveLength(ALERTS);
    expect(new Set(seen)).toEqual(new Set(created));
    const last = await list('?offset=1000');
    expect(last.json.data.map((alert: { id: string }) => alert.id)).toEqual([seen[1000]]);
    expect((await list('?offset=5000')).json).toEqual({ data: [], meta: { total: ALERTS, limit: 1000, offset: 5000 } });
  });

  it.each([
    ['?limit=0', 'limit: must be an integer from 1 to 1000'],
    ['?limit=1001', 'limit: must be an integer from 1 to 1000'],
    ['?limit=ten', 'limit: must be an integer from 1 to 1000'],
    ['?offset=-1', 'offset: must be an integer from 0 to'],
    ['?limit=0&offset=x', 'limit: must be an integer from 1 to 1000; offset: must be an integer from 0 to'],
  ])('400 for %s naming the parameter', async (query, message) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.json.message).toContain(`Query validation failed: ${message}`);
  });
});

describe('managed alert list', () => {
  it('is not paginated: every alert in one result', async () => {
    const ids = await createAlerts(
      `${SERVICE_PATH}/stack/dashboards`,
      `${SERVICE_PATH}/stack/alerts`,
      basic(),
      (json) => json.result,
    );
    const response = await call(emulator.url, 'GET', `${SERVICE_PATH}/stack/alerts?limit=10`, { auth: basic() });
    expect(response.json.result).toHaveLength(ALERTS);
    expect(new Set(response.json.result.map((alert: { id: string }) => alert.id))).toEqual(new Set(ids));
  });
});
