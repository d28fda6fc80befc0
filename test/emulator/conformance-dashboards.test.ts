/**
 * Conformance of the current profile's dashboards with the self-hosted server's
 * (`dashboards.int.test.ts`, `v2/dashboards.ts`, `v2/utils/dashboards.ts`, common-utils
 * `dashboardValidation.ts`) and what the Terraform provider learnt of the managed one:
 * `dashboards/validate`, strict filters and their modes, containers and tabs, the saved query kept
 * when a PUT leaves it out, and the PromQL tiles a GET hides and a PUT built from it deletes.
 */
import { expect } from 'vitest';
import { bodyIssues, conformance, errorOf, FROM, type Case, type CaseContext } from './conformance.js';
import type { StackIds } from './current-helpers.js';

const D = FROM.dashboardsTest;
const PLACEMENT = { x: 0, y: 0, w: 6, h: 4 };
const UNKNOWN = '0123456789abcdef01234567';

const tile = (t: CaseContext, extra: Record<string, unknown> = {}) => ({
  name: 'latency',
  ...PLACEMENT,
  config: { displayType: 'line', sourceId: t.ids.sources.trace, select: [{ aggFn: 'count' }] },
  ...extra,
});
const filter = (t: CaseContext, extra: Record<string, unknown> = {}) => ({
  type: 'QUERY_EXPRESSION',
  name: 'Environment',
  expression: 'environment',
  sourceId: t.ids.sources.trace,
  ...extra,
});

async function create(t: CaseContext, body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await t.client.request('POST', 'dashboards', body);
  expect(response.status, JSON.stringify(response.raw.json)).toBe(200);
  return response.data;
}

/** A dashboard as a PUT body: what GET answered, without the id the managed gateway refuses. */
function writable(dashboard: Record<string, any>): Record<string, unknown> {
  const { id: _id, ...body } = dashboard;
  return body;
}

async function validate(t: CaseContext, body: unknown): Promise<Record<string, any>> {
  const response = await t.client.request('POST', 'dashboards/validate', body);
  expect(response.status).toBe(200);
  // Self-hosted answers the verdict bare; managed wraps it in `result` (terraform-provider-clickhouse `client/dashboard.go`).
  if (t.variant === 'self-hosted') expect(response.raw.json).not.toHaveProperty('data');
  return t.variant === 'managed' ? response.data : response.raw.json;
}

/** A dashboard id for a case's seed, distinct per workspace (seeded ids are unique across the seed). */
const dashboardIdOf = (ids: StackIds): string => ids.webhook.replace('b000', 'e000');
const PROMQL_TILE = {
  id: 'promql-tile',
  ...PLACEMENT,
  config: {
    configType: 'promql',
    promqlExpression: 'up',
    connection: 'conn-1',
    displayType: 'line',
    name: 'My PromQL tile',
  },
};

/** A dashboard holding a normal tile and a PromQL tile, with an alert on each. */
function hiddenTileSeed(ids: StackIds) {
  const dashboardId = dashboardIdOf(ids);
  const alert = {
    threshold: 1,
    interval: '5m',
    thresholdType: 'above',
    source: 'tile',
    dashboardId,
    channel: { type: 'webhook', webhookId: ids.webhook },
  };
  return {
    webhooks: [{ id: ids.webhook, name: 'on-call', service: 'generic', url: 'https://hooks.example.com/on-call' }],
    dashboards: [
      {
        id: dashboardId,
        name: 'with promql',
        tiles: [
          {
            id: 'normal-tile',
            name: 'normal',
            ...PLACEMENT,
            config: { displayType: 'line', sourceId: ids.sources.log, select: [{ aggFn: 'count' }] },
          },
        ],
        hiddenTiles: [PROMQL_TILE],
      },
    ],
    alerts: [
      { ...alert, name: 'on normal', tileId: 'normal-tile' },
      { ...alert, name: 'on promql', tileId: 'promql-tile' },
    ],
  };
}

const validateCases: Case[] = [
  {
    from: D,
    name: 'POST /validate returns valid:true and the normalized body for a well-formed dashboard, and does not persist',
    run: async (t) => {
      const before = (await t.client.request('GET', 'dashboards')).data.length;
      expect(await validate(t, { name: 'D', tiles: [tile(t)] })).toEqual({
        valid: true,
        errors: [],
        normalized: expect.objectContaining({ name: 'D', tiles: [expect.objectContaining({ name: 'latency' })] }),
      });
      expect((await t.client.request('GET', 'dashboards')).data).toHaveLength(before);
    },
  },
  {
    from: D,
    name: 'POST /validate returns valid:false with errors for a malformed body (always 200)',
    run: async (t) => {
      const verdict = await validate(t, { tiles: 'nope' });
      expect(verdict['valid']).toBe(false);
      expect(verdict['errors']).toEqual(expect.arrayContaining([{ path: 'name', message: 'is required' }]));
      expect(verdict['normalized']).toBeNull();
    },
  },
  {
    from: FROM.dashboardsRouter,
    name: "POST /validate reports what the tiles name that does not exist at the root path, as a create's 400 would",
    run: async (t) => {
      const body = {
        name: 'D',
        tiles: [tile(t, { config: { displayType: 'line', sourceId: UNKNOWN, select: [{ aggFn: 'count' }] } })],
      };
      expect(await validate(t, body)).toEqual({
        valid: false,
        errors: [{ path: '', message: `Could not find the following source IDs: ${UNKNOWN}` }],
        normalized: null,
      });
      const created = await t.client.request('POST', 'dashboards', body);
      expect([created.status, errorOf(t, created)]).toEqual([
        400,
        `Could not find the following source IDs: ${UNKNOWN}`,
      ]);
    },
  },
  {
    from: FROM.providerTileIds,
    name: 'POST /validate reports a filter id on a create body: "filters.N: Unrecognized key(s) in object: \'id\'"',
    run: async (t) => {
      expect(await validate(t, { name: 'D', tiles: [], filters: [filter(t, { id: UNKNOWN })] })).toEqual({
        valid: false,
        errors: [{ path: 'filters.0', message: "Unrecognized key(s) in object: 'id'" }],
        normalized: null,
      });
    },
  },
  {
    from: FROM.providerTileIds,
    name: "the managed gateway 400s a body's top-level id outright, on validate as on writes",
    only: 'managed',
    run: async (t) => {
      const response = await t.client.request('POST', 'dashboards/validate', { id: UNKNOWN, name: 'D', tiles: [] });
      expect([response.status, errorOf(t, response)]).toEqual([400, "request body property can't be validated: id"]);
    },
  },
  {
    from: D,
    name: 'should require authentication for all endpoints (validate included)',
    run: async (t) => {
      for (const [method, path] of [
        ['GET', 'dashboards'],
        ['POST', 'dashboards'],
        ['POST', 'dashboards/validate'],
        ['PUT', `dashboards/${UNKNOWN}`],
        ['DELETE', `dashboards/${UNKNOWN}`],
      ] as const) {
        expect([
          method,
          path,
          (
            await t.client.request(
              method,
              path,
              method === 'GET' || method === 'DELETE' ? undefined : { name: 'D', tiles: [] },
              null,
            )
          ).status,
        ]).toEqual([method, path, 401]);
      }
    },
  },
];

const filterCases: Case[] = [
  {
    from: D,
    name: 'should return 400 when create filter includes id',
    run: async (t) => {
      const response = await t.client.request('POST', 'dashboards', {
        name: 'D',
        tiles: [tile(t)],
        filters: [filter(t, { id: UNKNOWN })],
      });
      expect([response.status, errorOf(t, response)]).toEqual([
        400,
        bodyIssues(t, "filters.0: Unrecognized key(s) in object: 'id'"),
      ]);
    },
  },
  {
    from: `${FROM.zod} (externalDashboardFilterSchemaWithId)`,
    name: 'an update names each filter by its id (a new filter carries one the client made up) and refuses members filters do not have',
    run: async (t) => {
      const created = await create(t, { name: 'D', tiles: [tile(t)] });
      const missing = await t.client.request('PUT', `dashboards/${created['id']}`, {
        name: 'D',
        tiles: [tile(t)],
        filters: [filter(t)],
      });
      expect([missing.status, errorOf(t, missing)]).toEqual([400, bodyIssues(t, 'filters.0.id: is required')]);
      const stray = await t.client.request('PUT', `dashboards/${created['id']}`, {
        name: 'D',
        tiles: [tile(t)],
        filters: [filter(t, { id: UNKNOWN, colour: 'red' })],
      });
      expect([stray.status, errorOf(t, stray)]).toEqual([
        400,
        bodyIssues(t, "filters.0: Unrecognized key(s) in object: 'colour'"),
      ]);
    },
  },
  {
    from: D,
    name: 'should preserve filter IDs that match existing filters and generate new IDs for unrecognized filters',
    run: async (t) => {
      const created = await create(t, { name: 'D', tiles: [tile(t)] });
      const first = await t.client.request('PUT', `dashboards/${created['id']}`, {
        name: 'Initial',
        tiles: [tile(t)],
        filters: [filter(t, { id: UNKNOWN })],
      });
      const existing = first.data.filters[0].id;
      expect(existing).not.toBe(UNKNOWN);
      const unknown = '0123456789abcdef01234568';
      const second = await t.client.request('PUT', `dashboards/${created['id']}`, {
        name: 'Updated',
        tiles: [tile(t)],
        filters: [filter(t, { id: existing }), filter(t, { id: unknown, name: 'Service', expression: 'service_name' })],
      });
      expect(second.data.filters[0].id).toBe(existing);
      expect(second.data.filters[1].id).toMatch(/^[0-9a-f]{24}$/);
      expect(second.data.filters[1].id).not.toBe(unknown);
    },
  },
  {
    from: D,
    name: 'should preserve existing dashboard filters when filters are not provided, and clear them when given []',
    run: async (t) => {
      const created = await create(t, { name: 'D', tiles: [tile(t)], filters: [filter(t)] });
      const kept = await t.client.request('PUT', `dashboards/${created['id']}`, { name: 'D', tiles: [tile(t)] });
      expect(kept.data.filters).toEqual(created['filters']);
      const cleared = await t.client.request('PUT', `dashboards/${created['id']}`, {
        name: 'D',
        tiles: [tile(t)],
        filters: [],
      });
      expect(cleared.data.filters).toEqual([]);
    },
  },
  {
    from: D,
    name: 'should return 400 when filter source ID does not exist (create and update)',
    run: async (t) => {
      const bad = filter(t, { sourceId: UNKNOWN });
      const created = await t.client.request('POST', 'dashboards', { name: 'D', tiles: [tile(t)], filters: [bad] });
      expect([created.status, errorOf(t, created)]).toEqual([
        400,
        `Could not find the following source IDs: ${UNKNOWN}`,
      ]);
      const dashboard = await create(t, { name: 'D', tiles: [tile(t)] });
      expect(
        (
          await t.client.request('PUT', `dashboards/${dashboard['id']}`, {
            name: 'D',
            tiles: [tile(t)],
            filters: [{ ...bad, id: UNKNOWN }],
          })
        ).status,
      ).toBe(400);
    },
  },
  {
    from: D,
    name: 'should round-trip the filter variable settings, and clear them when an update omits them',
    // The managed document's filter has no variables or broadcast: the managed case below.
    only: 'self-hosted',
    run: async (t) => {
      const created = await create(t, {
        name: 'D',
        tiles: [tile(t)],
        filters: [filter(t, { isBroadcastEnabled: false, isVariableEnabled: true, variableName: 'env' })],
      });
      expect(created['filters'][0]).toMatchObject({
        isBroadcastEnabled: false,
        isVariableEnabled: true,
        variableName: 'env',
      });
      const id = created['filters'][0].id;
      const cleared = await t.client.request('PUT', `dashboards/${created['id']}`, {
        name: 'D',
        tiles: [tile(t)],
        filters: [filter(t, { id })],
      });
      expect(cleared.data.filters[0]).toMatchObject({ id });
      for (const member of ['isBroadcastEnabled', 'isVariableEnabled', 'variableName'])
        expect(cleared.data.filters[0]).not.toHaveProperty(member);
    },
  },
  ...[
    {
      name: 'rejects two variable-enabled filters sharing a variable name',
      filters: [
        { isVariableEnabled: true, variableName: 'service' },
        { isVariableEnabled: true, variableName: 'service' },
      ],
      detail: 'filters.1.variableName: Variable names must be unique: "service"',
    },
    {
      name: 'rejects a clash against a name derived from the filter name',
      filters: [
        { name: 'Service Name', isVariableEnabled: true },
        { isVariableEnabled: true, variableName: 'Service_Name' },
      ],
      detail: 'filters.1.variableName: Variable names must be unique: "Service_Name"',
    },
    {
      name: 'rejects a variable-enabled filter with no usable variable name',
      filters: [{ name: '!!!', isVariableEnabled: true }],
      detail: 'filters.0.variableName: Variable name is required for filter "!!!"',
    },
    {
      name: 'rejects a filter with both modes off',
      filters: [{ isBroadcastEnabled: false, isVariableEnabled: false }],
      detail:
        'filters.0.isBroadcastEnabled: Filter "Environment" must broadcast its value, be available as a variable, or both',
    },
    {
      name: 'rejects a variableName on a filter that is not variable-enabled',
      filters: [{ variableName: 'env' }],
      detail:
        'filters.0.variableName: Filter "Environment" sets variableName but is not available as a variable; set isVariableEnabled to true or drop variableName',
    },
    {
      name: 'rejects appliesToSourceIds on a filter that does not broadcast',
      filters: [{ isBroadcastEnabled: false, isVariableEnabled: true, variableName: 'env', appliesToSourceIds: ['x'] }],
      detail:
        'filters.0.appliesToSourceIds: Filter "Environment" sets appliesToSourceIds but does not broadcast its value; set isBroadcastEnabled to true or drop appliesToSourceIds',
    },
    {
      name: 'rejects a variableName that is not a bare token',
      filters: [{ isVariableEnabled: true, variableName: 'has space' }],
      detail: 'filters.0.variableName: must match pattern',
    },
  ].map(
    ({ name, filters, detail }): Case => ({
      from: `${D} (filter variables)`,
      name,
      only: 'self-hosted',
      run: async (t) => {
        const response = await t.client.request('POST', 'dashboards', {
          name: 'D',
          tiles: [tile(t)],
          filters: filters.map((extra) => filter(t, extra)),
        });
        expect(response.status).toBe(400);
        expect(errorOf(t, response)).toContain(detail);
      },
    }),
  ),
  ...[
    {
      name: 'accepts duplicate names when the filters are not variable-enabled',
      filters: [{ isVariableEnabled: false }, {}],
    },
    {
      name: 'accepts an unusable filter name when an explicit variable name is sent',
      filters: [{ name: '!!!', isVariableEnabled: true, variableName: 'ok' }],
    },
    {
      name: 'accepts broadcast-only and variable-only filters',
      filters: [
        { isBroadcastEnabled: true },
        { isBroadcastEnabled: false, isVariableEnabled: true, variableName: 'env' },
      ],
    },
    {
      name: 'accepts an empty appliesToSourceIds on a non-broadcasting filter',
      filters: [{ isBroadcastEnabled: false, isVariableEnabled: true, variableName: 'env', appliesToSourceIds: [] }],
    },
  ].map(
    ({ name, filters }): Case => ({
      from: `${D} (filter variables)`,
      name,
      only: 'self-hosted',
      run: async (t) => {
        await create(t, { name: 'D', tiles: [tile(t)], filters: filters.map((extra) => filter(t, extra)) });
      },
    }),
  ),
  {
    from: `${FROM.managedOpenApi} (ClickStackFilterInput: no isBroadcastEnabled, isVariableEnabled, variableName)`,
    name: 'a managed dashboard filter has no variables or broadcast: each is refused, on create, update and validate',
    only: 'managed',
    run: async (t) => {
      const lacks = (member: string): string =>
        `the service's API does not offer ${member} (its newest API description lacks it); leave it out for a target with api profile current`;
      const dashboard = await create(t, { name: 'D', tiles: [tile(t)], filters: [filter(t)] });
      for (const member of [{ isBroadcastEnabled: true }, { isVariableEnabled: true }, { variableName: 'env' }]) {
        const [name] = Object.keys(member);
        const created = await t.client.request('POST', 'dashboards', {
          name: 'D',
          tiles: [tile(t)],
          filters: [filter(t, member)],
        });
        expect([created.status, errorOf(t, created)]).toEqual([
          400,
          bodyIssues(t, `filters.0.${name}: ${lacks(name!)}`),
        ]);
        const updated = await t.client.request('PUT', `dashboards/${dashboard['id']}`, {
          name: 'D',
          tiles: [tile(t)],
          filters: [filter(t, { id: dashboard['filters'][0].id, ...member })],
        });
        expect(updated.status).toBe(400);
        const checked = await t.client.request('POST', 'dashboards/validate', {
          name: 'D',
          tiles: [tile(t)],
          filters: [filter(t, member)],
        });
        expect(checked.data.valid).toBe(false);
      }
    },
  },
];

const CONTAINERS = [
  {
    id: 'service-health',
    title: 'Service Health',
    collapsed: false,
    collapsible: true,
    bordered: true,
    tabs: [
      { id: 'errors', title: 'Errors' },
      { id: 'latency', title: 'Latency' },
    ],
  },
  { id: 'overview', title: 'Overview', collapsed: true },
];

const containerCases: Case[] = [
  {
    from: D,
    name: 'round-trips containers, tabs, and tile containerId/tabId on create and update',
    run: async (t) => {
      const tiles = [
        tile(t, { name: 'In Group, Tab A', containerId: 'service-health', tabId: 'errors' }),
        tile(t, { name: 'In Plain Group', containerId: 'overview' }),
        tile(t, { name: 'Ungrouped' }),
      ];
      const created = await create(t, { name: 'Containers Round-Trip', tiles, containers: CONTAINERS });
      expect(created['containers']).toEqual(CONTAINERS);
      expect(created['tiles'].map((entry: Record<string, unknown>) => [entry['containerId'], entry['tabId']])).toEqual([
        ['service-health', 'errors'],
        ['overview', undefined],
        [undefined, undefined],
      ]);
      const read = (await t.client.request('GET', `dashboards/${created['id']}`)).data;
      const put = await t.client.request('PUT', `dashboards/${created['id']}`, writable(read));
      expect(JSON.stringify(put.data)).toBe(JSON.stringify(read));
    },
  },
  {
    from: D,
    name: 'rejects a tile that references an unknown containerId, or an unknown tabId',
    run: async (t) => {
      const container = await t.client.request('POST', 'dashboards', {
        name: 'D',
        tiles: [tile(t, { containerId: 'does-not-exist' })],
        containers: [{ id: 'real-container', title: 'Real', collapsed: false }],
      });
      expect([container.status, errorOf(t, container)]).toEqual([
        400,
        'tiles.0.containerId: Tile references unknown containerId "does-not-exist"',
      ]);
      const tab = await t.client.request('POST', 'dashboards', {
        name: 'D',
        tiles: [tile(t, { containerId: 'service-health', tabId: 'ghost' })],
        containers: CONTAINERS,
      });
      expect([tab.status, errorOf(t, tab)]).toEqual([
        400,
        'tiles.0.tabId: Tile references unknown tabId "ghost" in container "service-health"',
      ]);
      const loose = await t.client.request('POST', 'dashboards', {
        name: 'D',
        tiles: [tile(t, { tabId: 'errors' })],
        containers: CONTAINERS,
      });
      expect([loose.status, errorOf(t, loose)]).toEqual([400, 'tiles.0.tabId: tabId requires containerId to be set']);
    },
  },
  {
    from: FROM.dashboardValidation,
    name: 'validateDashboardContainersStructure: container ids unique, tab ids unique within a container',
    run: async (t) => {
      const twice = await t.client.request('POST', 'dashboards', {
        name: 'D',
        tiles: [],
        containers: [CONTAINERS[1], CONTAINERS[1]],
      });
      expect([twice.status, errorOf(t, twice)]).toEqual([
        400,
        bodyIssues(t, 'containers.1.id: Container IDs must be unique: "overview"'),
      ]);
      const tabs = await t.client.request('POST', 'dashboards', {
        name: 'D',
        tiles: [],
        containers: [
          {
            ...CONTAINERS[1],
            tabs: [
              { id: 'a', title: 'A' },
              { id: 'a', title: 'B' },
            ],
          },
        ],
      });
      expect([tabs.status, errorOf(t, tabs)]).toEqual([
        400,
        bodyIssues(t, 'containers.0.tabs.1.id: Duplicate tab id "a" in container "overview"'),
      ]);
    },
  },
  {
    from: `${FROM.dashboardsUtils} (collectTileContainerRefIssues)`,
    name: "a PUT that leaves containers out places its tiles in the dashboard's own containers, which it keeps",
    run: async (t) => {
      const created = await create(t, { name: 'D', tiles: [], containers: CONTAINERS });
      const put = await t.client.request('PUT', `dashboards/${created['id']}`, {
        name: 'D',
        tiles: [tile(t, { containerId: 'overview' })],
      });
      expect([put.status, put.data.containers]).toEqual([200, CONTAINERS]);
      const unknown = await t.client.request('PUT', `dashboards/${created['id']}`, {
        name: 'D',
        tiles: [tile(t, { containerId: 'elsewhere' })],
      });
      expect(unknown.status).toBe(400);
    },
  },
];

const keptCases: Case[] = [
  {
    from: `${FROM.dashboardsRouter} (PUT setPayload)`,
    name: 'savedQuery, savedQueryLanguage and savedFilterValues are kept when a PUT leaves them out, replaced when it sends them',
    run: async (t) => {
      const created = await create(t, {
        name: 'D',
        tiles: [tile(t)],
        savedQuery: 'level:error',
        savedFilterValues: [{ condition: "ServiceName = 'api'" }],
      });
      expect([created['savedQuery'], created['savedQueryLanguage'], created['savedFilterValues']]).toEqual([
        'level:error',
        'lucene',
        [{ type: 'sql', condition: "ServiceName = 'api'" }],
      ]);
      const kept = await t.client.request('PUT', `dashboards/${created['id']}`, { name: 'renamed', tiles: [tile(t)] });
      expect([kept.data.savedQuery, kept.data.savedQueryLanguage, kept.data.savedFilterValues]).toEqual([
        created['savedQuery'],
        created['savedQueryLanguage'],
        created['savedFilterValues'],
      ]);
      const cleared = await t.client.request('PUT', `dashboards/${created['id']}`, {
        name: 'renamed',
        tiles: [tile(t)],
        savedQuery: null,
        savedFilterValues: [],
      });
      expect([cleared.data.savedQuery, cleared.data.savedQueryLanguage, cleared.data.savedFilterValues]).toEqual([
        null,
        null,
        [],
      ]);
    },
  },
  {
    from: `${FROM.openapi} (CreateDashboardRequest.savedQuery, savedQueryLanguage: nullable)`,
    name: 'null is taken where the OpenAPI marks a dashboard member nullable',
    run: async (t) => {
      const created = await create(t, { name: 'D', tiles: [], savedQuery: null, savedQueryLanguage: null });
      expect([created['savedQuery'], created['savedQueryLanguage']]).toEqual([null, null]);
    },
  },
];

const hiddenTileCases: Case[] = [
  {
    from: `${FROM.dashboardsUtilsTest} › drops PromQL tiles from external response (no schema variant yet)`,
    name: 'GET and the list leave a PromQL tile out; it stays stored',
    seed: hiddenTileSeed,
    run: async (t) => {
      const id = dashboardIdOf(t.ids);
      expect(
        (await t.client.request('GET', `dashboards/${id}`)).data.tiles.map((entry: { id: string }) => entry.id),
      ).toEqual(['normal-tile']);
      expect((await t.client.request('GET', 'dashboards')).data[0].tiles).toHaveLength(1);
      const stored = (await t.stored()).dashboards.find((dashboard) => dashboard.id === id);
      expect(stored?.hiddenTiles).toEqual([PROMQL_TILE]);
    },
  },
  {
    from: `${FROM.dashboardsUtils} (convertTileToExternalChart) and ${FROM.dashboardsRouter} (PUT)`,
    name: 'a PUT built from GET deletes the tile GET hid, and the alerts on it',
    seed: hiddenTileSeed,
    run: async (t) => {
      const id = dashboardIdOf(t.ids);
      const alerts = (await t.client.request('GET', 'alerts')).data;
      expect(alerts.map((alert: { tileId: string }) => alert.tileId).sort()).toEqual(['normal-tile', 'promql-tile']);
      const read = (await t.client.request('GET', `dashboards/${id}`)).data;
      expect((await t.client.request('PUT', `dashboards/${id}`, writable(read))).status).toBe(200);
      expect((await t.stored()).dashboards.find((dashboard) => dashboard.id === id)).not.toHaveProperty('hiddenTiles');
      expect((await t.client.request('GET', 'alerts')).data.map((alert: { tileId: string }) => alert.tileId)).toEqual([
        'normal-tile',
      ]);
    },
  },
  {
    from: `${FROM.dashboardsUtils} (convertExternalTilesToInternal)`,
    name: "a PUT that sends a tile with the hidden tile's id keeps the id (the tile is now the one sent)",
    seed: hiddenTileSeed,
    run: async (t) => {
      const id = dashboardIdOf(t.ids);
      const read = (await t.client.request('GET', `dashboards/${id}`)).data;
      const put = await t.client.request('PUT', `dashboards/${id}`, {
        ...writable(read),
        tiles: [...read.tiles, tile(t, { id: 'promql-tile', name: 'now a line' })],
      });
      expect(put.data.tiles.map((entry: { id: string }) => entry.id)).toEqual(['normal-tile', 'promql-tile']);
    },
  },
];

conformance('dashboards/validate', validateCases);
conformance('dashboard filters', filterCases);
conformance('dashboard containers', containerCases);
conformance('dashboard members a PUT keeps', keptCases);
conformance('dashboard tiles a GET hides', hiddenTileCases);
