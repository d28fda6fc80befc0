/**
 * Conformance of what the current profile's stack routes share: `RateLimit-*` on every
 * self-hosted v2 answer (hyperdx `v2/index.ts`: express-rate-limit with `standardHeaders`, mounted
 * before auth), and the managed gateway that refuses top-level members a write's schema does not
 * name while the self-hosted server drops them (terraform-provider-clickhouse
 * `dashboard_tile_ids.go`). Path ids of the managed stack are 24-hex object ids.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { bearer, call, start } from './helpers.js';
import { conformance, errorOf, FROM, type Case, type CaseContext } from './conformance.js';

const UNKNOWN = '0123456789abcdef01234567';

/** A valid write body of each kind, and a PUT path for it, from the case's workspace. */
function writes(t: CaseContext): { kind: string; body: Record<string, unknown> }[] {
  return [
    { kind: 'dashboards', body: { name: 'D', tiles: [] } },
    {
      kind: 'sources',
      body: {
        kind: 'promql',
        name: 'P',
        from: { databaseName: 'd', tableName: 't' },
        timestampValueExpression: 'ts',
        connection: t.ids.connection,
      },
    },
    { kind: 'webhooks', body: { name: 'W', service: 'generic', url: 'https://example.com/w' } },
    { kind: 'saved-searches', body: { name: 'S', sourceId: t.ids.sources.log } },
  ];
}

const rateHeaders = (response: { raw: { headers: Headers } }) =>
  ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((name) => response.raw.headers.get(name));

const cases: Case[] = [
  {
    from: `${FROM.v2Index} (rateLimiter standardHeaders: true, before validateUserAccessKey)`,
    name: 'every self-hosted v2 answer carries RateLimit-Limit, -Remaining and -Reset: 200, 400, 404 and 401 alike',
    only: 'self-hosted',
    run: async (t) => {
      const answers = [
        await t.client.request('GET', 'sources'),
        await t.client.request('POST', 'webhooks', { name: 'x' }),
        await t.client.request('GET', `saved-searches/${UNKNOWN}`),
        await t.client.request('GET', 'dashboards', undefined, null),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([200, 400, 404, 401]);
      const [first, second, third] = answers.map(rateHeaders);
      expect(first).toEqual(['100', '99', expect.stringMatching(/^\d+$/)]);
      expect([second?.[1], third?.[1]]).toEqual(['98', '97']);
      expect(rateHeaders(answers[3]!)).toEqual(['100', expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)]);
    },
  },
  {
    from: FROM.providerTileIds,
    name: "the managed gateway refuses a write's top-level member its schema does not name, on every kind, creates and updates",
    only: 'managed',
    run: async (t) => {
      for (const { kind, body } of writes(t)) {
        const made = await t.client.request('POST', kind, body);
        expect([kind, made.status]).toEqual([kind, 200]);
        for (const [method, path] of [
          ['POST', kind],
          ['PUT', `${kind}/${made.data.id}`],
        ] as const) {
          const response = await t.client.request(method, path, { ...body, id: made.data.id, teamId: 'x' });
          expect([method, path, response.status, errorOf(t, response)]).toEqual([
            method,
            path,
            400,
            "request body property can't be validated: id; request body property can't be validated: teamId",
          ]);
        }
      }
    },
  },
  {
    from: `${FROM.zod} (zod objects strip unknown keys)`,
    name: 'the self-hosted server drops members it does not know, at the top and below',
    only: 'self-hosted',
    run: async (t) => {
      for (const { kind, body } of writes(t)) {
        const response = await t.client.request('POST', kind, { ...body, id: UNKNOWN, teamId: 'x', junk: { deep: 1 } });
        expect([kind, response.status, response.data.id === UNKNOWN, 'junk' in response.data]).toEqual([
          kind,
          200,
          false,
          false,
        ]);
      }
    },
  },
  {
    from: FROM.providerTileIds,
    name: 'below the top the managed service drops what it does not know, as the server does (tile ids stay accepted)',
    only: 'managed',
    run: async (t) => {
      const tile = {
        id: 'mine',
        name: 't',
        x: 0,
        y: 0,
        w: 6,
        h: 4,
        junk: 1,
        config: { displayType: 'markdown', markdown: 'hi', junk: 2 },
      };
      const response = await t.client.request('POST', 'dashboards', { name: 'D', tiles: [tile] });
      expect(response.status).toBe(200);
      expect(JSON.stringify(response.data.tiles)).not.toContain('junk');
    },
  },
  {
    from: FROM.managedOpenApi,
    name: 'the managed stack names its resources by 24-hex object ids: a UUID in the path is a 400',
    only: 'managed',
    run: async (t) => {
      for (const kind of ['sources', 'roles', 'saved-searches']) {
        const response = await t.client.request('GET', `${kind}/9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01`);
        expect([kind, response.status]).toEqual([kind, 400]);
      }
    },
  },
];

conformance('stack routes', cases);

describe('RateLimit-* with --rate-limit (current profile)', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(() => emulator?.close());

  it(`${FROM.v2Index}: the configured limit's numbers are the ones sent, on errors too`, async () => {
    ({ emulator } = await start({ profile: 'current', rateLimit: 5, clock: () => 1_000_000 }));
    const found = await call(emulator.url, 'GET', '/api/v2/sources', { auth: bearer() });
    const missing = await call(emulator.url, 'GET', `/api/v2/sources/${UNKNOWN}`, { auth: bearer() });
    expect([found.status, found.headers.get('ratelimit-limit'), found.headers.get('ratelimit-remaining')]).toEqual([
      200,
      '5',
      '4',
    ]);
    expect([
      missing.status,
      missing.headers.get('ratelimit-limit'),
      missing.headers.get('ratelimit-remaining'),
    ]).toEqual([404, '5', '3']);
  });

  it('under the seed profile nothing changes: no RateLimit-* without a limit', async () => {
    ({ emulator } = await start({ profile: 'seed' }));
    const response = await call(emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer() });
    expect([response.status, response.headers.get('ratelimit-limit')]).toEqual([200, null]);
  });
});
