import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator, Seed } from '../../src/emulator/index.js';
import { basic, bearer, call, start, TILE } from './helpers.js';

const ORG_A = '11111111-1111-4111-8111-111111111111';
const ORG_B = '22222222-2222-4222-8222-222222222222';
const ORG_UNKNOWN = '33333333-3333-4333-8333-333333333333';
const SVC_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const SVC_IDLE = 'aaaaaaaa-0000-4000-8000-000000000002';
const SVC_STOPPED = 'aaaaaaaa-0000-4000-8000-000000000003';
const SVC_B = 'bbbbbbbb-0000-4000-8000-000000000001';
const SVC_UNKNOWN = 'cccccccc-0000-4000-8000-000000000001';

const seed: Seed = {
  organizations: [
    {
      id: ORG_A,
      keys: [{ id: 'key-a', secret: 'secret-a' }],
      services: [{ id: SVC_A }, { id: SVC_IDLE, state: 'idle' }, { id: SVC_STOPPED, state: 'stopped' }],
    },
    { id: ORG_B, keys: [{ id: 'key-b', secret: 'secret-b' }], services: [{ id: SVC_B }] },
  ],
  teams: [
    { id: 'team-a', tokens: ['tok-a', 'tok-a2'] },
    { id: 'team-b', tokens: ['tok-b'] },
  ],
};

let emulator: RunningEmulator;
const keyA = basic('key-a', 'secret-a');
const path = (org: string, svc: string, rest = '/stack/dashboards') =>
  `/v1/organizations/${org}/services/${svc}${rest}`;

beforeAll(async () => {
  ({ emulator } = await start({ seed }));
});
afterAll(() => emulator.close());

describe('managed auth (HTTP Basic, scoped to an organization)', () => {
  const rows: {
    name: string;
    auth: string | null;
    org?: string;
    svc?: string;
    rest?: string;
    status: number;
    error: RegExp;
  }[] = [
    { name: 'no Authorization header', auth: null, status: 401, error: /^UNAUTHORIZED: / },
    {
      name: 'wrong secret',
      auth: basic('key-a', 'nope'),
      status: 401,
      error: /^UNAUTHORIZED: invalid key id or key secret$/,
    },
    { name: 'unknown key id', auth: basic('key-x', 'secret-a'), status: 401, error: /^UNAUTHORIZED: / },
    { name: 'Bearer instead of Basic', auth: bearer('tok-a'), status: 401, error: /^UNAUTHORIZED: / },
    { name: 'garbage scheme', auth: 'Digest abc', status: 401, error: /^UNAUTHORIZED: / },
    {
      name: 'Basic without a colon',
      auth: `Basic ${Buffer.from('key-a').toString('base64')}`,
      status: 401,
      error: /^UNAUTHORIZED: /,
    },
    {
      name: 'key of another organization',
      auth: basic('key-b', 'secret-b'),
      status: 403,
      error: /^FORBIDDEN: the key does not belong to organization /,
    },
    {
      name: 'unknown organization',
      auth: keyA,
      org: ORG_UNKNOWN,
      status: 404,
      error: new RegExp(`^NOT_FOUND: organization ${ORG_UNKNOWN} not found$`),
    },
    {
      name: 'unknown service',
      auth: keyA,
      svc: SVC_UNKNOWN,
      status: 404,
      error: new RegExp(`^NOT_FOUND: service ${SVC_UNKNOWN} not found$`),
    },
    {
      name: 'organization id not a UUID',
      auth: keyA,
      org: 'not-a-uuid',
      status: 400,
      error: /^BAD_REQUEST: organizationId: must be a UUID$/,
    },
    {
      name: 'pipe id not a UUID',
      auth: keyA,
      rest: '/pipes/123',
      status: 400,
      error: /^BAD_REQUEST: pipeId: must be a UUID$/,
    },
    {
      name: 'idle service',
      auth: keyA,
      svc: SVC_IDLE,
      status: 424,
      error: /^FAILED_DEPENDENCY: service .* is idle, not running$/,
    },
    {
      name: 'stopped service',
      auth: keyA,
      svc: SVC_STOPPED,
      rest: '/pipes',
      status: 424,
      error: /^FAILED_DEPENDENCY: service .* is stopped/,
    },
    { name: 'another org service under my org', auth: keyA, svc: SVC_B, status: 404, error: /^NOT_FOUND: service / },
  ];

  it.each(rows)('$name → $status', async ({ auth, org = ORG_A, svc = SVC_A, rest, status, error }) => {
    const response = await call(emulator.url, 'GET', path(org, svc, rest), { auth });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.json).toMatchObject({ status, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(response.json.error).toMatch(error);
  });

  it('challenges with WWW-Authenticate on 401 and never echoes the secret', async () => {
    const response = await call(emulator.url, 'GET', path(ORG_A, SVC_A), {
      auth: basic('key-a', 'wrong-secret-value'),
    });
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(response.text).not.toContain('wrong-secret-value');
  });

  it('serves with the right key, and the other organization with its own key', async () => {
    expect((await call(emulator.url, 'GET', path(ORG_A, SVC_A), { auth: keyA })).status).toBe(200);
    expect((await call(emulator.url, 'GET', path(ORG_B, SVC_B), { auth: basic('key-b', 'secret-b') })).status).toBe(
      200,
    );
  });

  it('a rejected write changes nothing (401 before any rule)', async () => {
    const before = await call(emulator.url, 'GET', '/_emulator/dump');
    await call(emulator.url, 'POST', path(ORG_A, SVC_A), {
      auth: basic('key-b', 'secret-b'),
      body: { name: 'sneaky' },
    });
    await call(emulator.url, 'POST', path(ORG_A, SVC_A), { auth: null, body: { name: 'sneaky' } });
    expect((await call(emulator.url, 'GET', '/_emulator/dump')).json).toEqual(before.json);
  });
});

describe('self-hosted auth (Bearer, one team per token)', () => {
  const rows: { name: string; auth: string | null }[] = [
    { name: 'no Authorization header', auth: null },
    { name: 'unknown token', auth: bearer('tok-x') },
    { name: 'Basic instead of Bearer', auth: basic('key-a', 'secret-a') },
    { name: 'empty Bearer', auth: 'Bearer ' },
  ];
  it.each(rows)('$name → 401 plain text', async ({ auth }) => {
    for (const route of ['/api/v2/dashboards', '/api/v2/alerts', '/api/v2/alerts/65f5e4a3b9e77c001a123456']) {
      const response = await call(emulator.url, 'GET', route, { auth });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(response.text).toBe('Unauthorized');
    }
  });

  it('a team sees only its own dashboards and alerts; another team gets 404', async () => {
    const created = await call(emulator.url, 'POST', '/api/v2/dashboards', {
      auth: bearer('tok-a'),
      body: { name: 'a-only', tiles: [TILE] },
    });
    expect(created.status).toBe(200);
    const dashboard = created.json.data;
    const alert = await call(emulator.url, 'POST', '/api/v2/alerts', {
      auth: bearer('tok-a2'),
      body: {
        threshold: 1,
        interval: '1m',
        thresholdType: 'above',
        source: 'tile',
        dashboardId: dashboard.id,
        tileId: dashboard.tiles[0].id,
        channel: { type: 'webhook', webhookId: 'w' },
      },
    });
    expect(alert.status).toBe(200);
    const other = bearer('tok-b');
    expect((await call(emulator.url, 'GET', '/api/v2/dashboards', { auth: other })).json).toEqual({ data: [] });
    expect((await call(emulator.url, 'GET', '/api/v2/alerts', { auth: other })).json.data).toEqual([]);
    for (const [method, route, body] of [
      ['GET', `/api/v2/dashboards/${dashboard.id}`, undefined],
      ['PUT', `/api/v2/dashboards/${dashboard.id}`, { name: 'x', tiles: [] }],
      ['GET', `/api/v2/alerts/${alert.json.data.id}`, undefined],
      ['DELETE', `/api/v2/alerts/${alert.json.data.id}`, undefined],
    ] as const) {
      const response = await call(emulator.url, method, route, { auth: other, body });
      expect(response.status, `${method} ${route}`).toBe(404);
      expect(response.text).toBe('Not Found');
    }
    // Another team's dashboard cannot be watched either.
    const foreign = await call(emulator.url, 'POST', '/api/v2/alerts', {
      auth: other,
      body: {
        threshold: 1,
        interval: '1m',
        thresholdType: 'above',
        source: 'tile',
        dashboardId: dashboard.id,
        tileId: dashboard.tiles[0].id,
        channel: { type: 'webhook', webhookId: 'w' },
      },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.json).toEqual({ message: 'Dashboard not found' });
    // Both tokens of team-a see the same team.
    expect(
      (await call(emulator.url, 'GET', `/api/v2/alerts/${alert.json.data.id}`, { auth: bearer('tok-a') })).status,
    ).toBe(200);
    expect(alert.json.data.team).toBe('team-a');
  });
});

describe('unauthenticated emulator endpoints', () => {
  it('serve /_emulator/* without auth', async () => {
    for (const route of ['/_emulator/stats', '/_emulator/dump'])
      expect((await call(emulator.url, 'GET', route)).status).toBe(200);
    expect((await call(emulator.url, 'POST', '/_emulator/reset')).status).toBe(200);
  });

  it('the dump holds no secret in clear', async () => {
    const dump = (await call(emulator.url, 'GET', '/_emulator/dump')).text;
    for (const secret of ['secret-a', 'secret-b', 'tok-a', 'tok-b']) expect(dump).not.toContain(`"${secret}"`);
  });
});
