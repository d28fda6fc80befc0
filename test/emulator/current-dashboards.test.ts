/**
 * Contract of the current profile's dashboards, on both variants: tiles required, `series` or
 * `config`, every tile answered as `config` the way the real server converts it, sources
 * checked, unknown members dropped, GET → PUT stores the same bytes.
 */
import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CurrentEmulatorData, RunningEmulator } from '../../src/emulator/index.js';
import { CurrentDashboard } from '../../src/kinds/dashboard/wire.js';
import { basic, bearer, call, IDS, start } from './helpers.js';
import { errorText, lineTile, PLACEMENT, stackClient, type StackClient, type StackIds } from './current-helpers.js';

const UNKNOWN = '0123456789abcdef01234567';
const dashboardShape = Compile(CurrentDashboard);

let emulator: RunningEmulator;
beforeAll(async () => {
  ({ emulator } = await start({ profile: 'current' }));
});
afterAll(() => emulator.close());

const dump = async (): Promise<CurrentEmulatorData> => (await call(emulator.url, 'GET', '/_emulator/dump')).json;

/** Where a variant's dashboards are in the dump. */
async function stored(client: StackClient, id: string): Promise<unknown> {
  const data = await dump();
  const stack = client.variant === 'managed' ? data.organizations[0]!.services[0]! : data.teams[0]!;
  return stack.dashboards.find((dashboard) => dashboard.id === id);
}

describe.each(['self-hosted', 'managed'] as const)('%s dashboards (current profile)', (variant) => {
  let client: StackClient;
  let ids: StackIds;
  beforeAll(() => {
    client = stackClient(emulator, variant);
    ids = client.ids;
  });
  const create = (body: unknown) => client.request('POST', 'dashboards', body);

  /** What a 400 says: self-hosted prefixes schema problems with `Body validation failed: `. */
  const rejection = (detail: string, schema: boolean): string =>
    client.variant === 'self-hosted'
      ? schema
        ? `Body validation failed: ${detail}`
        : detail
      : `BAD_REQUEST: ${detail}`;

  const tile = (extra: Record<string, unknown>) => ({ name: 't', ...PLACEMENT, ...extra });
  const config = (extra: Record<string, unknown>) =>
    tile({ config: { displayType: 'line', sourceId: ids.sources.log, select: [{ aggFn: 'count' }], ...extra } });
  const timeSeries = (extra: Record<string, unknown> = {}) => ({
    type: 'time',
    sourceId: ids.sources.log,
    aggFn: 'count',
    where: '',
    groupBy: [],
    ...extra,
  });

  const invalid: { name: string; body: () => unknown; detail: string; schema?: boolean }[] = [
    { name: 'no tiles', body: () => ({ name: 'd' }), detail: 'tiles: is required', schema: true },
    {
      name: 'an empty series list',
      body: () => ({ name: 'd', tiles: [tile({ series: [] })] }),
      detail: 'tiles.0.series: must not have fewer than 1 items',
      schema: true,
    },
    {
      name: 'a series in the seed format (no sourceId)',
      body: () => ({
        name: 'd',
        tiles: [tile({ series: [{ type: 'time', aggFn: 'avg', dataSource: 'events', field: 'duration' }] })],
      }),
      detail:
        'tiles.0.series.0.sourceId: is required; tiles.0.series.0.where: is required; tiles.0.series.0.groupBy: is required',
      schema: true,
    },
    {
      name: 'a series on an unknown source',
      body: () => ({ name: 'd', tiles: [tile({ series: [timeSeries({ sourceId: UNKNOWN })] })] }),
      detail: `Could not find the following source IDs: ${UNKNOWN}`,
    },
    {
      name: 'series of two types',
      body: () => ({
        name: 'd',
        tiles: [
          tile({ series: [timeSeries(), { type: 'number', sourceId: ids.sources.log, aggFn: 'count', where: '' }] }),
        ],
      }),
      detail: 'tiles.0.series: All series must have the same type',
      schema: true,
    },
    {
      name: 'both series and config',
      body: () => ({ name: 'd', tiles: [{ ...config({}), series: [timeSeries()] }] }),
      detail: 'tiles.0: Tile cannot have both series and config',
      schema: true,
    },
    {
      name: 'neither series nor config',
      body: () => ({ name: 'd', tiles: [tile({})] }),
      detail: 'tiles.0: Tile must have either series or config',
      schema: true,
    },
    {
      name: 'asRatio beside a config',
      body: () => ({ name: 'd', tiles: [{ ...config({}), asRatio: true }] }),
      detail: 'tiles.0: asRatio property is not supported when using config property. Specify config.asRatio instead.',
      schema: true,
    },
    {
      name: 'an unknown display type',
      body: () => ({ name: 'd', tiles: [config({ displayType: 'gauge' })] }),
      detail:
        'tiles.0.config.displayType: must be one of line, stacked_bar, table, number, pie, bar, heatmap, search, markdown, event_patterns',
      schema: true,
    },
    {
      name: 'asRatio with one select item',
      body: () => ({ name: 'd', tiles: [config({ asRatio: true })] }),
      detail: 'tiles.0.config: asRatio can only be used with exactly two select items',
      schema: true,
    },
    {
      name: 'a count with a value expression',
      body: () => ({ name: 'd', tiles: [config({ select: [{ aggFn: 'count', valueExpression: 'x' }] })] }),
      detail: 'tiles.0.config.select.0: Value expression cannot be used with count aggregation function',
      schema: true,
    },
    {
      name: 'an average without a value expression',
      body: () => ({ name: 'd', tiles: [config({ select: [{ aggFn: 'avg' }] })] }),
      detail: 'tiles.0.config.select.0: Value expression is required for non-count aggregation functions',
      schema: true,
    },
    {
      name: 'a level without quantile',
      body: () => ({ name: 'd', tiles: [config({ select: [{ aggFn: 'max', valueExpression: 'x', level: 0.5 }] })] }),
      detail: 'tiles.0.config.select.0: Level can only be used with quantile aggregation function',
      schema: true,
    },
    {
      name: 'a number tile with two select items',
      body: () => ({
        name: 'd',
        tiles: [config({ displayType: 'number', select: [{ aggFn: 'count' }, { aggFn: 'count' }] })],
      }),
      detail:
        'tiles.0.config.select: Number tiles support a single select item unless formulas are used (extra items are formula operands)',
      schema: true,
    },
    {
      name: 'a config on an unknown source',
      body: () => ({ name: 'd', tiles: [config({ sourceId: UNKNOWN })] }),
      detail: `Could not find the following source IDs: ${UNKNOWN}`,
    },
    {
      name: 'raw SQL on an unknown connection',
      body: () => ({
        name: 'd',
        tiles: [
          tile({ config: { configType: 'sql', displayType: 'line', connectionId: UNKNOWN, sqlTemplate: 'SELECT 1' } }),
        ],
      }),
      detail: `Could not find the following connection IDs: ${UNKNOWN}`,
    },
    {
      name: 'raw SQL with an unknown display type',
      body: () => ({
        name: 'd',
        tiles: [
          tile({
            config: {
              configType: 'sql',
              displayType: 'heatmap',
              connectionId: ids.connection,
              sqlTemplate: 'SELECT 1',
            },
          }),
        ],
      }),
      detail: 'tiles.0.config.displayType: must be one of line, stacked_bar, table, number, pie, bar',
      schema: true,
    },
    {
      name: 'a tile past the grid',
      body: () => ({ name: 'd', tiles: [config({}), { ...config({}), x: 24 }] }),
      detail: 'tiles.1.x: must be <= 23',
      schema: true,
    },
    {
      name: 'a tile id twice',
      body: () => ({
        name: 'd',
        tiles: [
          { ...config({}), id: 'a' },
          { ...config({}), id: 'a' },
        ],
      }),
      detail: 'tiles.1.id: Duplicate tile ID: a. Omit the ID to generate a unique one.',
      schema: true,
    },
    {
      name: 'a filter on an unknown source',
      body: () => ({
        name: 'd',
        tiles: [],
        filters: [{ type: 'QUERY_EXPRESSION', name: 'service', expression: 'ServiceName', sourceId: UNKNOWN }],
      }),
      detail: `Could not find the following source IDs: ${UNKNOWN}`,
    },
    {
      name: 'a saved query with a null language',
      body: () => ({ name: 'd', tiles: [], savedQuery: 'level:error', savedQueryLanguage: null }),
      detail: 'savedQueryLanguage: savedQueryLanguage cannot be null when savedQuery is provided',
      schema: true,
    },
    {
      name: 'a name past 1024 characters',
      body: () => ({ name: 'x'.repeat(1025), tiles: [] }),
      detail: 'name: must not have more than 1024 characters',
      schema: true,
    },
  ];

  it.each(invalid)(
    'rejects $name with a 400 naming it, and stores nothing',
    async ({ body, detail, schema = false }) => {
      const before = JSON.stringify(await dump());
      const response = await create(body());
      expect(response.status).toBe(400);
      expect(response.error).toBe(rejection(detail, schema));
      expect(JSON.stringify(await dump())).toBe(before);
    },
  );

  const answered: { name: string; tile: () => Record<string, unknown>; want: () => Record<string, unknown> }[] = [
    {
      name: 'time series → line, fields as value expressions, groupBy joined',
      tile: () =>
        tile({
          series: [
            {
              type: 'time',
              sourceId: ids.sources.log,
              aggFn: 'avg',
              field: 'Duration',
              alias: 'mean',
              where: 'level:error',
              groupBy: ['ServiceName', 'Host'],
              numberFormat: { output: 'duration' },
              dataSource: 'events',
            },
          ],
        }),
      want: () => ({
        displayType: 'line',
        sourceId: ids.sources.log,
        asRatio: false,
        fillNulls: true,
        groupBy: 'ServiceName,Host',
        select: [
          { alias: 'mean', valueExpression: 'Duration', aggFn: 'avg', where: 'level:error', whereLanguage: 'lucene' },
        ],
        numberFormat: { output: 'duration' },
      }),
    },
    {
      name: 'two time series as a ratio → stacked_bar with asRatio',
      tile: () => ({
        ...tile({
          series: [
            timeSeries({ displayType: 'stacked_bar' }),
            timeSeries({ aggFn: 'sum', field: 'Bytes', where: 'x', whereLanguage: 'sql' }),
          ],
        }),
        asRatio: true,
      }),
      want: () => ({
        displayType: 'stacked_bar',
        sourceId: ids.sources.log,
        asRatio: true,
        fillNulls: true,
        select: [
          { valueExpression: '', aggFn: 'count', where: '', whereLanguage: 'lucene' },
          { valueExpression: 'Bytes', aggFn: 'sum', where: 'x', whereLanguage: 'sql' },
        ],
      }),
    },
    {
      name: 'a count series drops its field',
      tile: () => tile({ series: [timeSeries({ field: 'Ignored' })] }),
      want: () => ({
        displayType: 'line',
        sourceId: ids.sources.log,
        asRatio: false,
        fillNulls: true,
        select: [{ aggFn: 'count', where: '', whereLanguage: 'lucene' }],
      }),
    },
    {
      name: 'number series → number, metric members renamed, quantile level kept',
      tile: () =>
        tile({
          series: [
            {
              type: 'number',
              sourceId: ids.sources.metric,
              aggFn: 'quantile',
              level: 0.95,
              field: 'Value',
              where: '',
              metricDataType: 'gauge',
              metricName: 'cpu',
            },
          ],
        }),
      want: () => ({
        displayType: 'number',
        sourceId: ids.sources.metric,
        select: [
          {
            metricType: 'gauge',
            metricName: 'cpu',
            valueExpression: 'Value',
            aggFn: 'quantile',
            where: '',
            whereLanguage: 'lucene',
            level: 0.95,
          },
        ],
      }),
    },
    {
      name: 'a quantile level the config cannot hold is dropped',
      tile: () =>
        tile({
          series: [
            { type: 'number', sourceId: ids.sources.metric, aggFn: 'quantile', level: 0.42, field: 'Value', where: '' },
          ],
        }),
      want: () => ({
        displayType: 'number',
        sourceId: ids.sources.metric,
        select: [{ valueExpression: 'Value', aggFn: 'quantile', where: '', whereLanguage: 'lucene' }],
      }),
    },
    {
      name: 'table series → table, its sort order not carried',
      tile: () =>
        tile({
          series: [
            {
              type: 'table',
              sourceId: ids.sources.log,
              aggFn: 'count',
              where: '',
              groupBy: ['ServiceName'],
              sortOrder: 'desc',
            },
          ],
        }),
      want: () => ({
        displayType: 'table',
        sourceId: ids.sources.log,
        asRatio: false,
        groupBy: 'ServiceName',
        select: [{ valueExpression: '', aggFn: 'count', where: '', whereLanguage: 'lucene' }],
      }),
    },
    {
      name: 'search series → search, fields joined',
      tile: () =>
        tile({
          series: [
            { type: 'search', sourceId: ids.sources.log, fields: ['Body', 'ServiceName'], where: 'level:error' },
          ],
        }),
      want: () => ({
        displayType: 'search',
        sourceId: ids.sources.log,
        select: 'Body, ServiceName',
        where: 'level:error',
        whereLanguage: 'lucene',
      }),
    },
    {
      name: 'markdown series → markdown',
      tile: () => tile({ series: [{ type: 'markdown', content: '# notes' }] }),
      want: () => ({ displayType: 'markdown', markdown: '# notes' }),
    },
    {
      name: 'a minimal line config, defaults filled in',
      tile: () => config({}),
      want: () => ({
        displayType: 'line',
        sourceId: ids.sources.log,
        asRatio: false,
        fillNulls: true,
        select: [{ valueExpression: '', aggFn: 'count', where: '', whereLanguage: 'lucene' }],
      }),
    },
    {
      name: 'a full line config, in the real order, unknown members dropped',
      tile: () =>
        config({
          junk: 1,
          seriesLimit: 0,
          numberFormat: { output: 'number', mantissa: 2, junk: true },
          compareToPreviousPeriod: true,
          groupBy: '',
          fillNulls: false,
          select: [{ aggFn: 'sum', valueExpression: 'Bytes', whereLanguage: 'sql', periodAggFn: 'delta', junk: 'x' }],
        }),
      want: () => ({
        displayType: 'line',
        sourceId: ids.sources.log,
        asRatio: false,
        fillNulls: false,
        groupBy: '',
        select: [{ valueExpression: 'Bytes', aggFn: 'sum', where: '', whereLanguage: 'sql', periodAggFn: 'delta' }],
        compareToPreviousPeriod: true,
        numberFormat: { output: 'number', mantissa: 2 },
        seriesLimit: 0,
      }),
    },
    {
      name: 'a number config with formulas keeps its operands; empty color rules dropped',
      tile: () =>
        config({
          displayType: 'number',
          select: [{ aggFn: 'count' }, { aggFn: 'count', where: 'x' }],
          formulas: [{ expression: 'A / B' }],
          colorRules: [],
        }),
      want: () => ({
        displayType: 'number',
        sourceId: ids.sources.log,
        select: [
          { valueExpression: '', aggFn: 'count', where: '', whereLanguage: 'lucene' },
          { valueExpression: '', aggFn: 'count', where: 'x', whereLanguage: 'lucene' },
        ],
        formulas: [{ expression: 'A / B' }],
      }),
    },
    {
      name: 'a pie config',
      tile: () => config({ displayType: 'pie', groupBy: 'ServiceName', orderBy: 'count DESC', limit: 5 }),
      want: () => ({
        displayType: 'pie',
        sourceId: ids.sources.log,
        select: [{ valueExpression: '', aggFn: 'count', where: '', whereLanguage: 'lucene' }],
        groupBy: 'ServiceName',
        orderBy: 'count DESC',
        limit: 5,
      }),
    },
    {
      name: 'a heatmap config',
      tile: () =>
        config({
          displayType: 'heatmap',
          sourceId: ids.sources.trace,
          select: [{ valueExpression: 'Duration', aggFn: 'count' }],
        }),
      want: () => ({
        displayType: 'heatmap',
        sourceId: ids.sources.trace,
        select: [{ valueExpression: 'Duration' }],
        where: '',
        whereLanguage: 'lucene',
      }),
    },
    {
      name: 'an event patterns config with nothing but its source',
      tile: () => tile({ config: { displayType: 'event_patterns', sourceId: ids.sources.log } }),
      want: () => ({
        displayType: 'event_patterns',
        sourceId: ids.sources.log,
        select: '',
        where: '',
        whereLanguage: 'lucene',
      }),
    },
    {
      name: 'an empty markdown config',
      tile: () => tile({ config: { displayType: 'markdown' } }),
      want: () => ({ displayType: 'markdown', markdown: '' }),
    },
    {
      name: 'a raw SQL line config',
      tile: () =>
        tile({
          config: {
            displayType: 'line',
            sqlTemplate: 'SELECT 1',
            configType: 'sql',
            connectionId: ids.connection,
            sourceId: ids.sources.log,
          },
        }),
      want: () => ({
        configType: 'sql',
        displayType: 'line',
        connectionId: ids.connection,
        sqlTemplate: 'SELECT 1',
        sourceId: ids.sources.log,
        fillNulls: true,
      }),
    },
    {
      name: 'a raw SQL table config keeps its link-out as sent',
      tile: () =>
        tile({
          config: {
            configType: 'sql',
            displayType: 'table',
            connectionId: ids.connection,
            sqlTemplate: 'SELECT 1',
            onClick: { type: 'external', url: 'https://x' },
          },
        }),
      want: () => ({
        configType: 'sql',
        displayType: 'table',
        connectionId: ids.connection,
        sqlTemplate: 'SELECT 1',
        onClick: { type: 'external', url: 'https://x' },
      }),
    },
  ];

  it.each(answered)('answers $name', async ({ tile: tileOf, want }) => {
    const response = await create({ name: 'converted', tiles: [tileOf()] });
    expect(response.status).toBe(200);
    const answer = response.data.tiles[0];
    expect(answer.config).toEqual(want());
    expect(JSON.stringify(answer.config)).toBe(JSON.stringify(want()));
    expect(answer).not.toHaveProperty('series');
    expect(Object.keys(answer)).toEqual(['id', 'x', 'y', 'w', 'h', 'name', 'config']);
    expect(dashboardShape.Check(response.data), JSON.stringify(dashboardShape.Errors(response.data))).toBe(true);
  });

  it('stores what it answers, and a GET sent back with PUT stores the same bytes', async () => {
    // A count series' field is dropped from the answer, which then reads back with `valueExpression: ""`, as on the real service.
    const tiles = answered.filter((row) => row.name !== 'a count series drops its field').map((row) => row.tile());
    const variable = client.variant === 'self-hosted' ? { isVariableEnabled: true, variableName: 'svc' } : {};
    const created = await create({
      name: 'round trip',
      tags: ['a', 'b', 'a'],
      tiles,
      // Filter variables are HyperDX's: the managed document's filter lacks them.
      filters: [
        {
          type: 'QUERY_EXPRESSION',
          name: 'service',
          expression: 'ServiceName',
          sourceId: ids.sources.log,
          ...variable,
        },
      ],
      savedQuery: 'level:error',
      savedFilterValues: [{ condition: "ServiceName = 'api'" }],
    });
    expect(created.status).toBe(200);
    const id = created.data.id;
    expect(created.data.tags).toEqual(['a', 'b']);
    expect(created.data.savedQueryLanguage).toBe('lucene');
    expect(created.data.savedFilterValues).toEqual([{ type: 'sql', condition: "ServiceName = 'api'" }]);
    expect(created.data.filters).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        type: 'QUERY_EXPRESSION',
        name: 'service',
        expression: 'ServiceName',
        ...variable,
        sourceId: ids.sources.log,
      },
    ]);
    const before = JSON.stringify(await stored(client, id));
    expect(before).toBe(JSON.stringify(created.data));

    const read = await client.request('GET', `dashboards/${id}`);
    expect(JSON.stringify(read.data)).toBe(before);
    // The managed gateway refuses the dashboard's own id in a body (terraform-provider-clickhouse `dashboard_tile_ids.go`).
    const { id: _id, ...body } = read.data;
    const put = await client.request('PUT', `dashboards/${id}`, client.variant === 'managed' ? body : read.data);
    expect(put.status).toBe(200);
    expect(JSON.stringify(put.data)).toBe(before);
    expect(JSON.stringify(await stored(client, id))).toBe(before);
  });

  it('drops unknown members below the top and accepts null where the service does; at the top, self-hosted drops them and the managed gateway refuses them', async () => {
    const top = { team: 'someone-else', createdAt: 'yesterday' };
    const body = {
      name: 'lenient',
      tiles: [{ ...config({ select: [{ aggFn: 'count', junk: 1 }], junk: 2 }), junk: 3 }],
      savedQuery: null,
      savedQueryLanguage: null,
    };
    if (client.variant === 'managed') {
      const refused = await create({ ...body, ...top });
      expect([refused.status, refused.error]).toEqual([
        400,
        "BAD_REQUEST: request body property can't be validated: team; request body property can't be validated: createdAt",
      ]);
    }
    const response = await create({ ...body, ...(client.variant === 'self-hosted' && top) });
    expect(response.status).toBe(200);
    const text = JSON.stringify(response.data);
    for (const member of ['junk', 'team', 'createdAt']) expect(text).not.toContain(`"${member}"`);
    expect([response.data.savedQuery, response.data.savedQueryLanguage]).toEqual([null, null]);
  });

  it('assigns 24-hex ids to the dashboard and every tile, ignoring ids sent on POST', async () => {
    const response = await create({ name: 'ids', tiles: [{ ...config({}), id: 'mine' }] });
    expect(response.data.id).toMatch(/^[0-9a-f]{24}$/);
    expect(response.data.tiles[0].id).toMatch(/^[0-9a-f]{24}$/);
  });

  it('PUT keeps the ids of its own tiles, replaces the rest, keeps tags left out, and deletes alerts of tiles gone or no longer alertable', async () => {
    const created = (
      await create({
        name: 'before',
        tags: ['keep'],
        tiles: [config({}), config({}), config({ displayType: 'number' })],
      })
    ).data;
    const [kept, dropped, changed] = created.tiles as { id: string }[];
    const alert = (tileId: string) =>
      client.request('POST', 'alerts', {
        threshold: 1,
        interval: '5m',
        thresholdType: 'above',
        source: 'tile',
        dashboardId: created.id,
        tileId,
        channel: { type: 'webhook', webhookId: ids.webhook },
      });
    const alerts = await Promise.all([kept, dropped, changed].map((tileRef) => alert(tileRef!.id)));
    expect(alerts.map((a) => a.status)).toEqual([200, 200, 200]);

    const put = await client.request('PUT', `dashboards/${created.id}`, {
      name: 'after',
      tiles: [
        { ...config({}), id: kept!.id },
        { ...config({ displayType: 'table' }), id: changed!.id },
        { ...config({}), id: UNKNOWN },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.data.name).toBe('after');
    expect(put.data.tags).toEqual(['keep']);
    const tileIds = (put.data.tiles as { id: string }[]).map((t) => t.id);
    expect(tileIds.slice(0, 2)).toEqual([kept!.id, changed!.id]);
    expect(tileIds[2]).not.toBe(UNKNOWN);
    const left = await Promise.all(alerts.map((a) => client.request('GET', `alerts/${a.data.id}`)));
    expect(left.map((a) => a.status)).toEqual([200, 404, 404]);
  });

  it('checks the body before the dashboard: 400 for a bad body, 404 for an unknown id', async () => {
    expect((await client.request('PUT', `dashboards/${UNKNOWN}`, { name: 'x' })).status).toBe(400);
    const missing = await client.request('PUT', `dashboards/${UNKNOWN}`, { name: 'x', tiles: [] });
    expect(missing.status).toBe(404);
    expect(missing.error).toBe(
      errorText(client, 404, client.variant === 'managed' ? `dashboard ${UNKNOWN} not found` : 'Not Found'),
    );
    expect((await client.request('GET', `dashboards/${UNKNOWN}`)).status).toBe(404);
  });

  it('DELETE removes the dashboard with its alerts, and answers the same for an unknown id', async () => {
    const created = (await create({ name: 'doomed', tiles: [config({})] })).data;
    const alert = await client.request('POST', 'alerts', {
      threshold: 1,
      interval: '5m',
      thresholdType: 'above',
      source: 'tile',
      dashboardId: created.id,
      tileId: created.tiles[0].id,
      channel: { type: 'webhook', webhookId: ids.webhook },
    });
    const gone = await client.request('DELETE', `dashboards/${created.id}`);
    const unknown = await client.request('DELETE', `dashboards/${UNKNOWN}`);
    for (const response of [gone, unknown]) {
      expect(response.status).toBe(200);
      if (client.variant === 'managed')
        expect(response.raw.json).toEqual({ status: 200, requestId: expect.any(String) });
      else expect(response.raw.json).toEqual({});
    }
    expect((await client.request('GET', `alerts/${alert.data.id}`)).status).toBe(404);
  });

  it('answers 401 before looking at the body', async () => {
    const response = await client.request(
      'POST',
      'dashboards',
      { tiles: 'not even a list' },
      client.variant === 'managed' ? basic(IDS.keyId, 'wrong') : bearer('wrong'),
    );
    expect(response.status).toBe(401);
  });

  it('lists by name, descending, in the response shape', async () => {
    const list = await client.request('GET', 'dashboards');
    const names = (list.data as { name: string }[]).map((d) => d.name);
    expect(names).toEqual([...names].sort().reverse());
    for (const dashboard of list.data) expect(dashboardShape.Check(dashboard)).toBe(true);
  });
});

describe('managed stack ids (current profile)', () => {
  it('are 24-hex object ids: a UUID in the path is a 400', async () => {
    const client = stackClient(emulator, 'managed');
    const response = await client.request('GET', `dashboards/${IDS.serviceId}`);
    expect([response.status, response.error]).toEqual([400, 'BAD_REQUEST: dashboardId: must be a 24-hex object id']);
  });
});

describe('the count-series quirk of the real service', () => {
  it('answers a count series without its field, and that answer sent back gains an empty value expression', async () => {
    const client = stackClient(emulator, 'self-hosted');
    const series = {
      type: 'time',
      sourceId: client.ids.sources.log,
      aggFn: 'count',
      field: 'Ignored',
      where: '',
      groupBy: [],
    };
    const created = (
      await client.request('POST', 'dashboards', {
        name: 'quirk',
        tiles: [{ name: 't', ...PLACEMENT, series: [series] }, lineTile(client.ids.sources.log)],
      })
    ).data;
    expect(created.tiles[0].config.select).toEqual([{ aggFn: 'count', where: '', whereLanguage: 'lucene' }]);
    const put = (await client.request('PUT', `dashboards/${created.id}`, created)).data;
    expect(put.tiles[0].config.select).toEqual([
      { valueExpression: '', aggFn: 'count', where: '', whereLanguage: 'lucene' },
    ]);
    expect(put.tiles[1]).toEqual(created.tiles[1]);
  });
});
