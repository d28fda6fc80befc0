/**
 * Conformance of the current profile's saved searches with the self-hosted server's
 * (`savedSearches-crud.int.test.ts`, `v2/savedSearches.ts`, `controllers/savedSearch.ts`): a paged
 * list, the source of the team, a full-replace PUT, pinned filters that must render, and a delete
 * that takes the alerts on the search with it.
 */
import { expect } from 'vitest';
import { conformance, errorOf, FROM, type Case, type CaseContext } from './conformance.js';

const T = FROM.savedSearchesTest;
const UNKNOWN = '0123456789abcdef01234567';

const body = (t: CaseContext, extra: Record<string, unknown> = {}) => ({
  name: 'Production Errors',
  sourceId: t.ids.sources.log,
  select: 'Timestamp, Body',
  where: 'SeverityText:ERROR',
  whereLanguage: 'lucene',
  orderBy: 'Timestamp DESC',
  tags: ['prod'],
  ...extra,
});

async function create(t: CaseContext, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await t.client.request('POST', 'saved-searches', body(t, extra));
  expect(response.status, JSON.stringify(response.raw.json)).toBe(200);
  return response.data;
}

const refused =
  (extra: (t: CaseContext) => Record<string, unknown>, message?: RegExp): Case['run'] =>
  async (t) => {
    const response = await t.client.request('POST', 'saved-searches', body(t, extra(t)));
    expect(response.status).toBe(400);
    if (message) expect(errorOf(t, response)).toMatch(message);
    expect((await t.client.request('GET', 'saved-searches')).data).toEqual([]);
  };

const NOT_RENDERABLE = /^filters\[0\] must be a sidebar-renderable SQL predicate/;

const cases: Case[] = [
  {
    from: T,
    name: 'should require authentication on list',
    run: async (t) => expect((await t.client.request('GET', 'saved-searches', undefined, null)).status).toBe(401),
  },

  // ---------------------------------------------------------------- POST
  {
    from: T,
    name: 'should create a saved search and return the external shape',
    run: async (t) => {
      const created = await create(t);
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        ...body(t),
        filters: [],
        teamId: t.variant === 'managed' ? expect.stringMatching(/^[0-9a-f-]{36}$/) : 'team-1',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(Object.keys(created)).toEqual([
        'id',
        'name',
        'select',
        'where',
        'whereLanguage',
        'orderBy',
        'sourceId',
        'tags',
        'filters',
        'teamId',
        'createdAt',
        'updatedAt',
      ]);
      expect(created).not.toHaveProperty('source');
    },
  },
  {
    from: T,
    name: 'should reject a sourceId that does not belong to the team',
    run: refused(() => ({ sourceId: UNKNOWN }), /existing source/i),
  },
  {
    from: T,
    name: 'should reject a real source owned by another team (cross-team)',
    run: refused((t) => ({ sourceId: t.otherIds.source }), /existing source/i),
  },
  { from: T, name: 'should reject a malformed sourceId', run: refused(() => ({ sourceId: 'not-an-id' })) },
  { from: T, name: 'should reject a missing name', run: refused(() => ({ name: undefined })) },
  {
    from: T,
    name: 'should reject more than 50 tags',
    run: refused(() => ({ tags: Array.from({ length: 51 }, (_, index) => `tag-${index}`) })),
  },
  { from: T, name: 'should reject a tag longer than 32 characters', run: refused(() => ({ tags: ['x'.repeat(33)] })) },
  {
    from: T,
    name: 'should reject a name longer than 1024 characters',
    run: refused(() => ({ name: 'x'.repeat(1025) })),
  },
  {
    from: T,
    name: 'should accept the sidebar-renderable IN / NOT IN / BETWEEN forms (type defaults to sql)',
    run: async (t) => {
      const filters = [
        { type: 'sql', condition: "ServiceName IN ('checkout', 'payments')" },
        { type: 'sql', condition: "SeverityText NOT IN ('debug', 'trace')" },
        { type: 'sql', condition: 'Duration BETWEEN 100 AND 5000' },
        { condition: "StatusCode IN ('500')" },
      ];
      expect((await create(t, { filters }))['filters']).toEqual([
        ...filters.slice(0, 3),
        { type: 'sql', condition: "StatusCode IN ('500')" },
      ]);
    },
  },
  {
    from: T,
    name: 'should reject non-sql filter shapes that would not render in the sidebar',
    run: async (t) => {
      for (const filter of [
        { type: 'lucene', condition: 'SeverityText:ERROR' },
        { type: 'sql_ast', operator: '=', left: 'ServiceName', right: "'x'" },
      ]) {
        const response = await t.client.request('POST', 'saved-searches', body(t, { filters: [filter] }));
        expect([response.status, errorOf(t, response)]).toEqual([400, expect.stringMatching(NOT_RENDERABLE)]);
      }
    },
  },
  {
    from: T,
    name: 'should reject a sql condition that is not a sidebar-renderable predicate',
    run: refused(() => ({ filters: [{ type: 'sql', condition: "ServiceName = 'checkout'" }] }), NOT_RENDERABLE),
  },
  {
    from: T,
    name: 'should reject a compound condition that only partially renders',
    run: async (t) => {
      for (const condition of [
        "ServiceName IN ('checkout') AND foo = 1",
        "ServiceName IN ('a') AND SeverityText IN ('error')",
        'x NOT BETWEEN 1 AND 2',
      ]) {
        const response = await t.client.request(
          'POST',
          'saved-searches',
          body(t, { filters: [{ type: 'sql', condition }] }),
        );
        expect([condition, response.status]).toEqual([condition, 400]);
      }
    },
  },
  {
    from: T,
    name: 'should reject a BETWEEN with non-numeric bounds',
    run: refused(
      () => ({ filters: [{ type: 'sql', condition: "Timestamp BETWEEN '2024-01-01' AND '2024-02-01'" }] }),
      NOT_RENDERABLE,
    ),
  },
  {
    from: T,
    name: 'should reject more than 100 filters',
    run: refused(() => ({
      filters: Array.from({ length: 101 }, () => ({ type: 'sql', condition: "ServiceName IN ('checkout')" })),
    })),
  },
  {
    from: T,
    name: 'should reject a filter expression that exceeds the length cap',
    run: refused(() => ({ filters: [{ type: 'sql', condition: 'x'.repeat(8 * 1024 + 1) }] })),
  },
  ...(
    [
      ['select', 4 * 1024],
      ['where', 8 * 1024],
      ['orderBy', 1024],
    ] as const
  ).map(
    ([member, cap]): Case => ({
      from: T,
      name: `should reject ${member} longer than its cap`,
      run: refused(() => ({ [member]: 'x'.repeat(cap + 1) })),
    }),
  ),

  // ---------------------------------------------------------------- GET
  {
    from: T,
    name: 'should list only the team saved searches',
    run: async (t) => {
      await create(t);
      expect(
        (await t.client.request('GET', 'saved-searches')).data.map((search: { name: string }) => search.name),
      ).toEqual(['Production Errors']);
    },
  },
  {
    from: T,
    name: 'should paginate with limit and offset and report the total (cap with limit, empty page past the end)',
    run: async (t) => {
      for (const name of ['First', 'Second', 'Third']) await create(t, { name });
      const first = await t.client.request('GET', 'saved-searches?limit=2&offset=0');
      const second = await t.client.request('GET', 'saved-searches?limit=2&offset=2');
      const past = await t.client.request('GET', 'saved-searches?offset=100');
      // The managed list declares no query parameter: limit and offset are not honoured there.
      expect([first.data.length, second.data.length, past.data.length]).toEqual(
        t.variant === 'self-hosted' ? [2, 1, 0] : [3, 3, 3],
      );
      if (t.variant === 'self-hosted') {
        expect([first.raw.json.meta, second.raw.json.meta, past.raw.json.meta]).toEqual([
          { total: 3, limit: 2, offset: 0 },
          { total: 3, limit: 2, offset: 2 },
          { total: 3, limit: 1000, offset: 100 },
        ]);
        expect(first.raw.headers.get('x-total-count')).toBe('3');
      }
      expect(new Set([...first.data, ...second.data].map((search) => search.id)).size).toBe(3);
    },
  },
  {
    from: T,
    name: 'should reject an out-of-range or non-integer limit or offset',
    run: async (t) => {
      for (const query of ['limit=0', 'limit=5000', 'offset=-1', 'limit=abc', 'limit=1.5'])
        expect([query, (await t.client.request('GET', `saved-searches?${query}`)).status]).toEqual([
          query,
          t.variant === 'self-hosted' ? 400 : 200,
        ]);
    },
  },
  {
    from: T,
    name: 'should get a saved search by id; 404 for another team saved search',
    run: async (t) => {
      const created = await create(t);
      expect((await t.client.request('GET', `saved-searches/${created['id']}`)).data).toEqual(created);
      const other = await t.client.request('GET', `saved-searches/${t.otherIds.savedSearch}`);
      expect([other.status, errorOf(t, other)]).toEqual([404, 'Saved search not found']);
    },
  },

  // ---------------------------------------------------------------- PUT
  {
    from: T,
    name: 'should preserve a pre-existing non-renderable filter on read-modify-write',
    seed: (ids) => ({
      savedSearches: [
        {
          name: 'Legacy',
          sourceId: ids.sources.log,
          whereLanguage: 'lucene',
          filters: [{ type: 'lucene', condition: 'level:error' }],
        },
      ],
    }),
    run: async (t) => {
      const [legacy] = (await t.client.request('GET', 'saved-searches')).data;
      const kept = await t.client.request('PUT', `saved-searches/${legacy.id}`, {
        name: 'Legacy renamed',
        sourceId: t.ids.sources.log,
        filters: [{ type: 'lucene', condition: 'level:error' }],
      });
      expect([kept.status, kept.data.filters]).toEqual([200, [{ type: 'lucene', condition: 'level:error' }]]);
      const added = await t.client.request('PUT', `saved-searches/${legacy.id}`, {
        name: 'Legacy renamed',
        sourceId: t.ids.sources.log,
        filters: [
          { type: 'lucene', condition: 'level:error' },
          { type: 'lucene', condition: 'status:500' },
        ],
      });
      expect([added.status, errorOf(t, added)]).toEqual([
        400,
        expect.stringMatching(/^filters\[1\] must be a sidebar-renderable/),
      ]);
    },
  },
  {
    from: T,
    name: 'should update a saved search',
    run: async (t) => {
      const created = await create(t);
      const response = await t.client.request(
        'PUT',
        `saved-searches/${created['id']}`,
        body(t, { name: 'Renamed', where: 'Body:timeout' }),
      );
      expect(response.data).toMatchObject({
        id: created['id'],
        name: 'Renamed',
        where: 'Body:timeout',
        createdAt: created['createdAt'],
      });
    },
  },
  {
    from: T,
    name: 'should reset every omitted optional field to its default (uniform full-replace)',
    run: async (t) => {
      const created = await create(t, { whereLanguage: 'sql', where: 'x = 1', filters: [{ condition: "A IN ('b')" }] });
      const response = await t.client.request('PUT', `saved-searches/${created['id']}`, {
        name: 'Minimal',
        sourceId: t.ids.sources.log,
      });
      expect(response.data).toMatchObject({
        name: 'Minimal',
        select: '',
        where: '',
        whereLanguage: 'lucene',
        orderBy: '',
        tags: [],
        filters: [],
      });
    },
  },
  {
    from: T,
    name: 'should return 404 for another team saved search; 400 for a sourceId that does not belong to the team',
    run: async (t) => {
      expect((await t.client.request('PUT', `saved-searches/${t.otherIds.savedSearch}`, body(t))).status).toBe(404);
      const created = await create(t);
      const response = await t.client.request('PUT', `saved-searches/${created['id']}`, body(t, { sourceId: UNKNOWN }));
      expect([response.status, errorOf(t, response)]).toEqual([400, 'sourceId must be an existing source id']);
    },
  },
  {
    from: FROM.savedSearchesRouter,
    name: 'a saved search read with GET can be sent back with PUT (self-hosted drops the members only answers carry)',
    only: 'self-hosted',
    run: async (t) => {
      const created = await create(t);
      const put = await t.client.request('PUT', `saved-searches/${created['id']}`, created);
      expect({ ...put.data, updatedAt: created['updatedAt'] }).toEqual(created);
    },
  },

  // ---------------------------------------------------------------- DELETE
  {
    from: T,
    name: 'should delete a saved search; 404 for another team saved search',
    run: async (t) => {
      const created = await create(t);
      expect((await t.client.request('DELETE', `saved-searches/${created['id']}`)).status).toBe(200);
      expect((await t.client.request('GET', `saved-searches/${created['id']}`)).status).toBe(404);
      expect((await t.client.request('DELETE', `saved-searches/${t.otherIds.savedSearch}`)).status).toBe(404);
      expect((await t.other.request('GET', `saved-searches/${t.otherIds.savedSearch}`)).status).toBe(200);
    },
  },
  {
    from: T,
    name: 'should delete alerts attached to the saved search (and only those)',
    run: async (t) => {
      const created = await create(t);
      const kept = await create(t, { name: 'kept' });
      const webhook = await t.client.request('POST', 'webhooks', {
        name: 'hook',
        service: 'generic',
        url: 'https://example.com/hook',
      });
      const alertOn = (savedSearchId: string) =>
        t.client.request('POST', 'alerts', {
          savedSearchId,
          threshold: 1,
          interval: '5m',
          thresholdType: 'above',
          channel: { type: 'webhook', webhookId: webhook.data.id },
        });
      const doomed = await alertOn(created['id']);
      const survivor = await alertOn(kept['id']);
      expect((await t.client.request('DELETE', `saved-searches/${created['id']}`)).status).toBe(200);
      expect((await t.client.request('GET', `alerts/${doomed.data.id}`)).status).toBe(404);
      expect((await t.client.request('GET', `alerts/${survivor.data.id}`)).status).toBe(200);
    },
  },
];

conformance('saved searches', cases);
