/**
 * Conformance of the current profile's sources and connections with the self-hosted server's
 * (`sources-crud.int.test.ts`, `sources.int.test.ts`, `connections.int.test.ts`, their routers and
 * controllers) and the managed service's (connections are the platform's: read, never written).
 */
import { expect } from 'vitest';
import { bodyIssues, conformance, errorOf, FROM, type Case, type CaseContext } from './conformance.js';

const S = FROM.sourcesCrudTest;
const C = FROM.connectionsTest;
const UNKNOWN = '0123456789abcdef01234567';

const logSource = (t: CaseContext, extra: Record<string, unknown> = {}) => ({
  kind: 'log',
  name: 'Created Log Source',
  from: { databaseName: 'default', tableName: 'otel_logs' },
  timestampValueExpression: 'Timestamp',
  defaultTableSelectExpression: 'Timestamp, Body',
  connection: t.ids.connection,
  ...extra,
});

const traceSource = (t: CaseContext, extra: Record<string, unknown> = {}) => ({
  kind: 'trace',
  name: 'Created Trace Source',
  defaultTableSelectExpression: 'Timestamp, SpanName',
  from: { databaseName: 'default', tableName: 'otel_traces' },
  timestampValueExpression: 'Timestamp',
  durationExpression: 'Duration',
  durationPrecision: 3,
  traceIdExpression: 'TraceId',
  spanIdExpression: 'SpanId',
  parentSpanIdExpression: 'ParentSpanId',
  spanNameExpression: 'SpanName',
  spanKindExpression: 'SpanKind',
  connection: t.ids.connection,
  ...extra,
});

async function createSource(t: CaseContext, body: unknown): Promise<Record<string, any>> {
  const response = await t.client.request('POST', 'sources', body);
  expect(response.status, JSON.stringify(response.raw.json)).toBe(200);
  return response.data;
}

const MOCK_CONNECTION = {
  name: 'Test Connection',
  host: 'http://localhost:8123',
  username: 'default',
  password: 'test-password',
};

async function createConnection(t: CaseContext, body: unknown = MOCK_CONNECTION): Promise<Record<string, any>> {
  const response = await t.client.request('POST', 'connections', body);
  expect(response.status, JSON.stringify(response.raw.json)).toBe(200);
  return response.data;
}

const sourceCases: Case[] = [
  {
    from: S,
    name: 'refuses a member its newest API description lacks for the kind (orderByExpression on a log source), and writes nothing',
    run: async (t) => {
      const response = await t.client.request('POST', 'sources', logSource(t, { orderByExpression: 'Timestamp' }));
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.data ?? response)).toContain('does not offer orderByExpression');
      const listed = (await t.client.request('GET', 'sources')).data as { name: string }[];
      expect(listed.map((source) => source.name)).not.toContain('Created Log Source');
    },
  },
  // ---------------------------------------------------------------- GET /sources/:id
  {
    from: S,
    name: "should return a source by id (and 404 for a non-existent or another team's source, 400 for an invalid id)",
    run: async (t) => {
      const created = await createSource(t, logSource(t));
      expect((await t.client.request('GET', `sources/${created['id']}`)).data).toMatchObject({
        id: created['id'],
        name: 'Created Log Source',
        kind: 'log',
      });
      for (const id of [UNKNOWN, t.otherIds.source]) {
        const response = await t.client.request('GET', `sources/${id}`);
        expect([response.status, errorOf(t, response)]).toEqual([404, 'Source not found']);
      }
      expect((await t.client.request('GET', 'sources/not-an-object-id')).status).toBe(400);
    },
  },
  {
    from: S,
    name: 'should return 401 when user is not authenticated',
    run: async (t) => {
      for (const [method, path] of [
        ['GET', `sources/${UNKNOWN}`],
        ['POST', 'sources'],
        ['PUT', `sources/${UNKNOWN}`],
        ['DELETE', `sources/${UNKNOWN}`],
      ] as const) {
        expect([
          method,
          (await t.client.request(method, path, method === 'POST' || method === 'PUT' ? logSource(t) : undefined, null))
            .status,
        ]).toEqual([method, 401]);
      }
    },
  },

  // ---------------------------------------------------------------- POST /sources
  {
    from: S,
    name: 'should create a log source',
    run: async (t) => {
      const created = await createSource(t, logSource(t));
      expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), ...logSource(t) });
      // The answer's members come in the service's order: id, name, kind, connection, from, …
      expect(Object.keys(created).slice(0, 5)).toEqual(['id', 'name', 'kind', 'connection', 'from']);
      expect((await t.client.request('GET', 'sources')).data.map((source: { id: string }) => source.id)).toContain(
        created['id'],
      );
    },
  },
  {
    from: S,
    name: 'should accept external short-form granularities and answer them short',
    run: async (t) => {
      const view = {
        databaseName: 'default',
        tableName: 'traces_mv',
        dimensionColumns: 'ServiceName',
        timestampColumn: 'Timestamp',
        aggregatedColumns: [{ mvColumn: 'count', aggFn: 'count' }],
      };
      const created = await createSource(
        t,
        traceSource(t, {
          materializedViews: [
            { ...view, minGranularity: '5m' },
            { ...view, minGranularity: '15 minute' },
          ],
        }),
      );
      expect(created['materializedViews'].map((entry: { minGranularity: string }) => entry.minGranularity)).toEqual([
        '5m',
        '15m',
      ]);
      const bad = await t.client.request(
        'POST',
        'sources',
        traceSource(t, { materializedViews: [{ ...view, minGranularity: 'five minutes' }] }),
      );
      expect(bad.status).toBe(400);
    },
  },
  {
    from: S,
    name: 'should map metadataMaterializedViews granularity to internal format (and answer it short)',
    run: async (t) => {
      const created = await createSource(
        t,
        logSource(t, {
          metadataMaterializedViews: {
            keyRollupTable: 'otel_logs_key_rollup_15m',
            kvRollupTable: 'otel_logs_kv_rollup_15m',
            granularity: '15m',
          },
        }),
      );
      expect(created['metadataMaterializedViews'].granularity).toBe('15m');
    },
  },
  {
    from: S,
    name: 'should create a promql source',
    run: async (t) => {
      const created = await createSource(t, {
        kind: 'promql',
        name: 'Prometheus Metrics',
        from: { databaseName: 'default', tableName: 'default' },
        timestampValueExpression: 'timestamp',
        connection: t.ids.connection,
      });
      expect(created).toMatchObject({ kind: 'promql', name: 'Prometheus Metrics' });
    },
  },
  {
    from: `${FROM.commonTypes} (MetricSourceSchema, SessionSourceSchema)`,
    name: 'creates metric and session sources with what their kinds require',
    run: async (t) => {
      const metric = {
        kind: 'metric',
        name: 'metrics',
        from: { databaseName: 'default', tableName: '' },
        timestampValueExpression: 'TimeUnix',
        metricTables: { gauge: 'otel_metrics_gauge' },
        resourceAttributesExpression: 'ResourceAttributes',
        connection: t.ids.connection,
      };
      await createSource(t, metric);
      const noTable = await t.client.request('POST', 'sources', { ...metric, metricTables: { gauge: '' } });
      expect([noTable.status, errorOf(t, noTable)]).toEqual([
        400,
        bodyIssues(t, 'metricTables: At least one metric table must be specified'),
      ]);
      await createSource(t, {
        kind: 'session',
        name: 'sessions',
        from: { databaseName: 'default', tableName: 'hyperdx_sessions' },
        timestampValueExpression: 'TimestampTime',
        traceSourceId: t.ids.sources.trace,
        connection: t.ids.connection,
      });
      const noTrace = await t.client.request('POST', 'sources', {
        kind: 'session',
        name: 's',
        from: { databaseName: 'd', tableName: 't' },
        timestampValueExpression: 'T',
        connection: t.ids.connection,
      });
      expect([noTrace.status, errorOf(t, noTrace)]).toEqual([400, bodyIssues(t, 'traceSourceId: is required')]);
    },
  },
  {
    from: `${FROM.commonTypes} (TraceSourceSchema)`,
    name: 'a trace source without durationPrecision gets the default, 3',
    run: async (t) => {
      const { durationPrecision: _default, ...body } = traceSource(t);
      expect((await createSource(t, body))['durationPrecision']).toBe(3);
    },
  },
  {
    from: S,
    name: 'should return 400 when connection is not a valid id, or belongs to another team',
    run: async (t) => {
      const invalid = await t.client.request('POST', 'sources', logSource(t, { connection: 'my-connection-name' }));
      expect([invalid.status, errorOf(t, invalid)]).toEqual([400, 'connection must be a valid connection id']);
      const other = await t.client.request('POST', 'sources', logSource(t, { connection: t.otherIds.connection }));
      expect([other.status, errorOf(t, other)]).toEqual([400, 'connection must be an existing connection id']);
      expect((await t.client.request('GET', 'sources')).data).toHaveLength(4);
    },
  },
  {
    from: S,
    name: 'should return 400 for an invalid body (and name the kinds for an unknown one)',
    run: async (t) => {
      expect((await t.client.request('POST', 'sources', { kind: 'log', name: 'Missing required fields' })).status).toBe(
        400,
      );
      const unknown = await t.client.request('POST', 'sources', logSource(t, { kind: 'table' }));
      expect([unknown.status, errorOf(t, unknown)]).toEqual([
        400,
        bodyIssues(t, 'kind: must be one of log, trace, session, metric, promql'),
      ]);
    },
  },

  // ---------------------------------------------------------------- PUT /sources/:id
  {
    from: S,
    name: 'should update a source (a full replace: members left out are gone)',
    run: async (t) => {
      const created = await createSource(t, logSource(t, { bodyExpression: 'Body' }));
      const response = await t.client.request(
        'PUT',
        `sources/${created['id']}`,
        logSource(t, { name: 'Updated Log Source' }),
      );
      expect(response.status).toBe(200);
      expect(response.data).toEqual({ id: created['id'], ...logSource(t, { name: 'Updated Log Source' }) });
      expect((await t.client.request('GET', `sources/${created['id']}`)).data).not.toHaveProperty('bodyExpression');
    },
  },
  {
    from: S,
    name: "should return 404 for a non-existent source, or another team's (and leave it as it was)",
    run: async (t) => {
      for (const id of [UNKNOWN, t.otherIds.source])
        expect((await t.client.request('PUT', `sources/${id}`, logSource(t, { name: 'Hijacked' }))).status).toBe(404);
      expect((await t.other.request('GET', 'sources')).data[0].name).toBe('logs');
    },
  },
  {
    from: S,
    name: 'should return 400 for an invalid body or connection before looking for the source',
    run: async (t) => {
      const created = await createSource(t, logSource(t));
      expect(
        (await t.client.request('PUT', `sources/${created['id']}`, { kind: 'log', name: 'Missing required fields' }))
          .status,
      ).toBe(400);
      expect(
        (await t.client.request('PUT', `sources/${created['id']}`, logSource(t, { connection: 'my-connection-name' })))
          .status,
      ).toBe(400);
      expect(
        (await t.client.request('PUT', `sources/${created['id']}`, logSource(t, { connection: t.otherIds.connection })))
          .status,
      ).toBe(400);
      expect((await t.client.request('PUT', `sources/${UNKNOWN}`, { kind: 'log' })).status).toBe(400);
      expect((await t.client.request('GET', `sources/${created['id']}`)).data.connection).toBe(t.ids.connection);
    },
  },
  {
    from: S,
    name: "should change a source's kind",
    run: async (t) => {
      const created = await createSource(t, logSource(t));
      const response = await t.client.request(
        'PUT',
        `sources/${created['id']}`,
        traceSource(t, { name: 'Now A Trace Source' }),
      );
      expect(response.data).toMatchObject({ id: created['id'], kind: 'trace', name: 'Now A Trace Source' });
      expect(response.data).not.toHaveProperty('defaultTableSelectExpression', 'Timestamp, Body');
    },
  },
  {
    from: FROM.sourcesRouter,
    name: 'a source read with GET can be sent back with PUT and is stored the same',
    run: async (t) => {
      const read = (await t.client.request('GET', `sources/${t.ids.sources.trace}`)).data;
      const { id: _id, ...body } = read;
      const put = await t.client.request(
        'PUT',
        `sources/${t.ids.sources.trace}`,
        t.variant === 'managed' ? body : read,
      );
      expect(put.status).toBe(200);
      expect(JSON.stringify(put.data)).toBe(JSON.stringify(read));
    },
  },

  // ---------------------------------------------------------------- DELETE /sources/:id
  {
    from: S,
    name: "should delete a source; 404 for a non-existent source or another team's (left intact)",
    run: async (t) => {
      const created = await createSource(t, logSource(t));
      const response = await t.client.request('DELETE', `sources/${created['id']}`);
      expect(response.status).toBe(200);
      expect(response.raw.json).toEqual(t.variant === 'managed' ? { status: 200, requestId: expect.any(String) } : {});
      expect((await t.client.request('GET', `sources/${created['id']}`)).status).toBe(404);
      for (const id of [UNKNOWN, t.otherIds.source])
        expect((await t.client.request('DELETE', `sources/${id}`)).status).toBe(404);
      expect((await t.other.request('GET', 'sources')).data).toHaveLength(1);
    },
  },
  {
    from: `${FROM.sourceController} (deleteSource)`,
    name: 'delete checks no references: a source a saved search and a dashboard name is deleted, and they keep naming it',
    run: async (t) => {
      const source = await createSource(t, logSource(t));
      const search = await t.client.request('POST', 'saved-searches', { name: 'on it', sourceId: source['id'] });
      const tile = {
        name: 't',
        x: 0,
        y: 0,
        w: 6,
        h: 4,
        config: { displayType: 'line', sourceId: source['id'], select: [{ aggFn: 'count' }] },
      };
      const dashboard = await t.client.request('POST', 'dashboards', { name: 'on it', tiles: [tile] });
      expect([search.status, dashboard.status]).toEqual([200, 200]);
      expect((await t.client.request('DELETE', `sources/${source['id']}`)).status).toBe(200);
      expect((await t.client.request('GET', `saved-searches/${search.data.id}`)).data.sourceId).toBe(source['id']);
      // The dashboard is left naming it, and can no longer be written as it is.
      const { id: _id, ...body } = (await t.client.request('GET', `dashboards/${dashboard.data.id}`)).data;
      const put = await t.client.request('PUT', `dashboards/${dashboard.data.id}`, body);
      expect([put.status, errorOf(t, put)]).toEqual([400, `Could not find the following source IDs: ${source['id']}`]);
    },
  },
];

const connectionCases: Case[] = [
  {
    from: C,
    name: 'should return an empty list when no connections exist',
    only: 'self-hosted',
    seed: () => ({ sources: [], connections: [] }),
    run: async (t) => {
      const response = await t.client.request('GET', 'connections');
      expect(response.raw.json).toEqual({ data: [] });
    },
  },
  {
    from: C,
    name: 'should list connections without exposing passwords (and not those of another team)',
    only: 'self-hosted',
    run: async (t) => {
      await createConnection(t);
      const list = (await t.client.request('GET', 'connections')).data;
      expect(list.map((connection: { name: string }) => connection.name)).toEqual(['Default', MOCK_CONNECTION.name]);
      expect(list[1]).toEqual({
        id: expect.any(String),
        name: MOCK_CONNECTION.name,
        host: MOCK_CONNECTION.host,
        username: MOCK_CONNECTION.username,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(JSON.stringify(list)).not.toContain('password');
      expect(list.map((connection: { id: string }) => connection.id)).not.toContain(t.otherIds.connection);
    },
  },
  {
    from: C,
    name: "should return a connection by id without the password; 404 (plain) for a non-existent or another team's, 400 for an invalid id",
    only: 'self-hosted',
    run: async (t) => {
      const created = await createConnection(t);
      const read = await t.client.request('GET', `connections/${created['id']}`);
      expect(read.data).toMatchObject({ id: created['id'], name: MOCK_CONNECTION.name });
      expect(read.data).not.toHaveProperty('password');
      for (const id of [UNKNOWN, t.otherIds.connection]) {
        const response = await t.client.request('GET', `connections/${id}`);
        expect([response.status, response.raw.text]).toEqual([404, 'Not Found']);
      }
      expect((await t.client.request('GET', 'connections/nope')).status).toBe(400);
    },
  },
  {
    from: C,
    name: 'should create a connection and return it without the password (kept as a fingerprint)',
    only: 'self-hosted',
    run: async (t) => {
      const created = await createConnection(t);
      expect(created).not.toHaveProperty('password');
      expect((await t.stored()).secrets?.[created['id']]).toEqual({
        password: t.fingerprint(MOCK_CONNECTION.password),
      });
      const { password: _password, ...withoutPassword } = MOCK_CONNECTION;
      const bare = await createConnection(t, { ...withoutPassword, name: 'no password' });
      expect((await t.stored()).secrets?.[bare['id']]).toBeUndefined();
    },
  },
  {
    from: C,
    name: 'should create a connection with optional fields, and a Prometheus-compatible one',
    only: 'self-hosted',
    run: async (t) => {
      expect(await createConnection(t, { ...MOCK_CONNECTION, hyperdxSettingPrefix: 'hyperdx_' })).toMatchObject({
        hyperdxSettingPrefix: 'hyperdx_',
      });
      expect(
        await createConnection(t, {
          name: 'Thanos',
          host: 'http://thanos:10902',
          username: '',
          password: '',
          isPrometheusEndpoint: true,
        }),
      ).toMatchObject({ isPrometheusEndpoint: true });
      expect(
        (await t.client.request('POST', 'connections', { ...MOCK_CONNECTION, hyperdxSettingPrefix: 'bad prefix!' }))
          .status,
      ).toBe(400);
    },
  },
  {
    from: C,
    name: 'should reject a request with missing required fields (create and update)',
    only: 'self-hosted',
    run: async (t) => {
      const created = await createConnection(t);
      expect((await t.client.request('POST', 'connections', { name: 'Missing host and username' })).status).toBe(400);
      expect(
        (await t.client.request('PUT', `connections/${created['id']}`, { name: 'Missing host and username' })).status,
      ).toBe(400);
    },
  },
  {
    from: C,
    name: 'should update a connection, keeping the password when omitted and replacing it when given',
    only: 'self-hosted',
    run: async (t) => {
      const created = await createConnection(t);
      const updated = await t.client.request('PUT', `connections/${created['id']}`, {
        name: 'Renamed',
        host: 'http://other:8123',
        username: 'admin',
      });
      expect(updated.data).toMatchObject({
        id: created['id'],
        name: 'Renamed',
        host: 'http://other:8123',
        username: 'admin',
      });
      expect((await t.stored()).secrets?.[created['id']]).toEqual({
        password: t.fingerprint(MOCK_CONNECTION.password),
      });
      await t.client.request('PUT', `connections/${created['id']}`, { ...MOCK_CONNECTION, password: '' });
      expect((await t.stored()).secrets?.[created['id']]).toEqual({
        password: t.fingerprint(MOCK_CONNECTION.password),
      });
      await t.client.request('PUT', `connections/${created['id']}`, { ...MOCK_CONNECTION, password: 'new-password' });
      expect((await t.stored()).secrets?.[created['id']]).toEqual({ password: t.fingerprint('new-password') });
    },
  },
  {
    from: C,
    name: 'should clear hyperdxSettingPrefix when set to an empty string or null, and keep it when omitted',
    only: 'self-hosted',
    run: async (t) => {
      const created = await createConnection(t, { ...MOCK_CONNECTION, hyperdxSettingPrefix: 'hyperdx_' });
      expect(
        (await t.client.request('PUT', `connections/${created['id']}`, MOCK_CONNECTION)).data.hyperdxSettingPrefix,
      ).toBe('hyperdx_');
      for (const cleared of ['', null]) {
        await t.client.request('PUT', `connections/${created['id']}`, {
          ...MOCK_CONNECTION,
          hyperdxSettingPrefix: 'hyperdx_',
        });
        const response = await t.client.request('PUT', `connections/${created['id']}`, {
          ...MOCK_CONNECTION,
          hyperdxSettingPrefix: cleared,
        });
        expect(response.data).not.toHaveProperty('hyperdxSettingPrefix');
      }
    },
  },
  {
    from: C,
    name: 'should toggle isPrometheusEndpoint',
    only: 'self-hosted',
    run: async (t) => {
      const created = await createConnection(t);
      const response = await t.client.request('PUT', `connections/${created['id']}`, {
        ...MOCK_CONNECTION,
        host: 'http://thanos:10902',
        isPrometheusEndpoint: true,
      });
      expect(response.data).toMatchObject({ host: 'http://thanos:10902', isPrometheusEndpoint: true });
    },
  },
  {
    from: C,
    name: "should return 404 on update and delete of a non-existent or another team's connection, and delete one of its own",
    only: 'self-hosted',
    run: async (t) => {
      for (const id of [UNKNOWN, t.otherIds.connection]) {
        expect((await t.client.request('PUT', `connections/${id}`, MOCK_CONNECTION)).status).toBe(404);
        expect((await t.client.request('DELETE', `connections/${id}`)).status).toBe(404);
      }
      const created = await createConnection(t);
      const deleted = await t.client.request('DELETE', `connections/${created['id']}`);
      expect([deleted.status, deleted.raw.json]).toEqual([200, {}]);
      expect((await t.client.request('GET', `connections/${created['id']}`)).status).toBe(404);
      expect((await t.stored()).secrets?.[created['id']]).toBeUndefined();
    },
  },
  {
    from: C,
    name: 'should require authentication',
    only: 'self-hosted',
    run: async (t) => {
      expect((await t.client.request('GET', 'connections', undefined, null)).status).toBe(401);
      expect((await t.client.request('POST', 'connections', MOCK_CONNECTION, null)).status).toBe(401);
    },
  },
  {
    from: `${FROM.connectionsRouter} (delete)`,
    name: 'delete checks no references: a connection its sources name is deleted, and new sources on it are refused',
    only: 'self-hosted',
    run: async (t) => {
      expect((await t.client.request('DELETE', `connections/${t.ids.connection}`)).status).toBe(200);
      const refused = await t.client.request('POST', 'sources', logSource(t));
      expect([refused.status, errorOf(t, refused)]).toEqual([400, 'connection must be an existing connection id']);
    },
  },
  {
    from: FROM.providerConnection,
    name: 'on ClickHouse Cloud the platform makes the connections: its API has no connection path (404), and a source names one by id',
    only: 'managed',
    run: async (t) => {
      // The managed OpenAPI document has no `clickstack/connections` path (docs/api-client.md).
      for (const [method, path] of [
        ['GET', 'connections'],
        ['GET', `connections/${t.ids.connection}`],
        ['POST', 'connections'],
        ['PUT', `connections/${t.ids.connection}`],
        ['DELETE', `connections/${t.ids.connection}`],
      ] as const) {
        expect(
          (await t.client.request(method, path, method === 'POST' || method === 'PUT' ? MOCK_CONNECTION : undefined))
            .status,
          `${method} ${path}`,
        ).toBe(404);
      }
      expect(await createSource(t, logSource(t))).toMatchObject({ connection: t.ids.connection });
    },
  },
];

conformance('sources', sourceCases);
conformance('connections', connectionCases);
