import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { LiveAlert } from '../../src/kinds/alert/model.js';
import type { LiveDashboard } from '../../src/kinds/dashboard/model.js';
import type { LivePipe } from '../../src/kinds/pipe/model.js';
import { liveStateOf, type LiveState } from '../../src/kinds/index.js';
import { assignKeys, envName, exportLiveState, pickBySchema, renderManifest, slugify } from '../../src/export/index.js';
import { dashboardSpecSchema } from '../../src/kinds/dashboard/schema.js';
import { pipeSpecSchema } from '../../src/kinds/pipe/schema.js';

const PIPE_ID = '7a0e1f2c-0001-4b3a-9c4d-5e6f7a8b9c01';

function kafkaPipe(overrides: Partial<LivePipe> = {}): LivePipe {
  return {
    id: PIPE_ID,
    name: 'orders-kafka',
    state: 'Running',
    source: {
      kind: 'kafka',
      block: {
        brokers: 'b-1:9092',
        topics: 'orders',
        iamRole: 'arn:aws:iam::1:role/x',
        reversePrivateEndpointIds: [],
        offset: { timestamp: '2026-01-01T00:00' },
      },
    },
    destination: {
      database: 'default',
      table: 'orders',
      managedTable: true,
      columns: [{ name: 'order_id', type: 'String' }],
    },
    fieldMappings: [{ sourceField: 'id', destinationField: 'order_id' }],
    settings: { streaming_max_insert_wait_ms: 5000, engine_parallel_view_processing: false },
    ...overrides,
  };
}

function dashboard(id: string, name: string, tiles: [string, string][] = [['t1', 'p99']]): LiveDashboard {
  return {
    id,
    name,
    tags: [],
    tiles: tiles.map(([tileId, tileName], index) => ({
      id: tileId,
      name: tileName,
      x: 0,
      y: index * 4,
      w: 12,
      h: 4,
      series: [{ type: 'time', dataSource: 'events', aggFn: 'count', groupBy: [] }],
    })),
  };
}

function tileAlert(id: string, name: string | undefined, dashboardId: string, tileId: string): LiveAlert {
  return {
    id,
    ...(name !== undefined ? { name } : {}),
    message: '',
    threshold: 5,
    thresholdType: 'above',
    interval: '5m',
    source: 'tile',
    channel: { type: 'webhook', webhookId: 'oncall' },
    dashboardId,
    tileId,
    state: 'inactive',
    silenced: false,
  };
}

/** A live state with every kind's collection empty (from the registry), and those given. */
function live(partial: Partial<LiveState>): LiveState {
  return { ...liveStateOf({}), ...partial };
}

describe('metadata names', () => {
  it.each([
    ['API Latency (p99)', 'api-latency-p99'],
    ['  --Orders__EU--  ', 'orders-eu'],
    ['Café Über', 'cafe-uber'],
    ['日本語', 'dashboard'],
    ['', 'dashboard'],
    ['x'.repeat(200), 'x'.repeat(128)],
  ])('slugify(%j) is %j', (name, want) => {
    expect(slugify(name, 'dashboard')).toBe(want);
  });

  it('deduplicates with suffixes in (name, id) order, whatever the list order', () => {
    const subjects = [
      { id: 'c', name: 'Orders' },
      { id: 'a', name: 'orders' },
      { id: 'b', name: 'Orders' },
      { id: 'd', name: 'orders-2' },
    ];
    const keys = assignKeys(subjects, 'dashboard');
    expect(Object.fromEntries(keys)).toEqual({ b: 'orders', c: 'orders-2', d: 'orders-2-2', a: 'orders-3' });
    expect(Object.fromEntries(assignKeys([...subjects].reverse(), 'dashboard'))).toEqual(Object.fromEntries(keys));
  });

  it('keeps the key the inventory already has for a live id, and never gives it to another', () => {
    const keys = assignKeys(
      [
        { id: 'new', name: 'API' },
        { id: 'old', name: 'Renamed in the console' },
      ],
      'dashboard',
      new Map([['old', 'api']]),
    );
    expect(keys.get('old')).toBe('api');
    expect(keys.get('new')).toBe('api-2');
  });

  it('suffixes stay within the length limit', () => {
    const long = 'y'.repeat(130);
    const keys = [
      ...assignKeys(
        [
          { id: '1', name: long },
          { id: '2', name: long },
        ],
        'alert',
      ).values(),
    ];
    expect(keys).toEqual(['y'.repeat(128), `${'y'.repeat(126)}-2`]);
  });

  it('env names for credential placeholders are valid variable names', () => {
    expect(envName('orders-kafka', 'password')).toBe('PIPE_ORDERS_KAFKA_PASSWORD');
    expect(envName('3rd-party', 'accessKeyId')).toBe('PIPE_3RD_PARTY_ACCESS_KEY_ID');
  });
});

describe('pickBySchema', () => {
  it('keeps only declared members, drops empties unless required (an empty series list too)', () => {
    const picked = pickBySchema(
      {
        name: 'd',
        tags: [],
        unknown: 1,
        tiles: [{ id: 'x', name: 't', x: 0, y: 0, w: 1, h: 1, series: [], extra: true }],
      },
      dashboardSpecSchema,
    );
    expect(picked).toEqual({ name: 'd', tiles: [{ name: 't', x: 0, y: 0, w: 1, h: 1 }] });
  });

  it('keeps false: it is a value, not an absence', () => {
    expect(pickBySchema({ settings: { engine_parallel_view_processing: false } }, pipeSpecSchema)).toEqual({
      settings: { engine_parallel_view_processing: false },
    });
  });
});

describe('exportLiveState', () => {
  it('writes a pipe with only the members Update pipe can change, and a credential placeholder', () => {
    const { manifests, skipped } = exportLiveState(live({ pipes: [kafkaPipe()] }), {
      target: 'prod',
      setTarget: false,
    });
    expect(skipped).toEqual([]);
    const [pipe] = manifests;
    expect(pipe?.key).toBe('orders-kafka');
    expect(pipe?.document).toEqual({
      apiVersion: 'stacksync/v1',
      kind: 'Pipe',
      metadata: { name: 'orders-kafka' },
      spec: {
        pipeId: PIPE_ID,
        name: 'orders-kafka',
        source: { kafka: { iamRole: 'arn:aws:iam::1:role/x' } },
        destination: { columns: [{ name: 'order_id', type: 'String' }] },
        fieldMappings: [{ sourceField: 'id', destinationField: 'order_id' }],
        settings: { streaming_max_insert_wait_ms: 5000, engine_parallel_view_processing: false },
      },
    });
    expect(pipe?.credentials).toEqual({
      path: 'spec.source.kafka',
      member: 'credentials',
      fields: {
        username: { fromEnv: 'PIPE_ORDERS_KAFKA_USERNAME' },
        password: { fromEnv: 'PIPE_ORDERS_KAFKA_PASSWORD' },
      },
    });
  });

  it('keeps an empty source block, so the file says where credentials would go', () => {
    const pipe = kafkaPipe({ source: { kind: 'kinesis', block: { streamName: 's', region: 'eu-west-1' } } });
    const [manifest] = exportLiveState(live({ pipes: [pipe] }), { target: 'prod', setTarget: false }).manifests;
    expect(manifest?.document.spec['source']).toEqual({ kinesis: {} });
    expect(manifest?.credentials?.member).toBe('accessKey');
  });

  it('exports a postgres pipe born in Git: the full mapping list and its create-only settings (it could be created again)', () => {
    const pipe = kafkaPipe({
      source: {
        kind: 'postgres',
        block: {
          host: 'db',
          port: 5432,
          database: 'billing',
          settings: { syncIntervalSeconds: 60, publicationName: 'pub' },
          tableMappings: [
            {
              sourceSchemaName: 'public',
              sourceTable: 'a',
              targetTable: 'a',
              excludedColumns: [],
              useCustomSortingKey: false,
            },
          ],
        },
      },
    });
    const [manifest] = exportLiveState(live({ pipes: [pipe] }), { target: 'prod', setTarget: false }).manifests;
    expect(manifest?.document.spec['source']).toEqual({
      postgres: {
        host: 'db',
        port: 5432,
        database: 'billing',
        settings: { syncIntervalSeconds: 60, publicationName: 'pub' },
        tableMappings: [{ sourceSchemaName: 'public', sourceTable: 'a', targetTable: 'a', useCustomSortingKey: false }],
      },
    });
    expect(manifest?.document.spec['pipeId']).toBeUndefined();
    expect(manifest?.credentials).toMatchObject({ path: 'spec.source.postgres', member: 'credentials' });
  });

  it('refers to dashboards and tiles by name and sets metadata.target off the default target', () => {
    const result = exportLiveState(
      live({
        dashboards: [
          dashboard('d1', 'API Latency', [
            ['t1', 'p99'],
            ['t2', 'errors'],
          ]),
        ],
        alerts: [tileAlert('a1', 'API slow', 'd1', 't2')],
      }),
      { target: 'staging', setTarget: true },
    );
    expect(result.skipped).toEqual([]);
    const alert = result.manifests.find((manifest) => manifest.kind === 'Alert');
    expect(alert?.document).toEqual({
      apiVersion: 'stacksync/v1',
      kind: 'Alert',
      metadata: { name: 'api-slow', target: 'staging' },
      spec: {
        name: 'API slow',
        source: 'tile',
        dashboard: 'api-latency',
        tile: 'errors',
        threshold: 5,
        thresholdType: 'above',
        interval: '5m',
        channel: { type: 'webhook', webhookId: 'oncall' },
      },
    });
    const dash = result.manifests.find((manifest) => manifest.kind === 'Dashboard');
    expect(dash?.document.spec['tiles']).toEqual([
      { name: 'p99', x: 0, y: 0, w: 12, h: 4, series: [{ type: 'time', dataSource: 'events', aggFn: 'count' }] },
      { name: 'errors', x: 0, y: 4, w: 12, h: 4, series: [{ type: 'time', dataSource: 'events', aggFn: 'count' }] },
    ]);
  });

  it('names dashboards for alerts even when only alerts are exported', () => {
    const state = live({ dashboards: [dashboard('d1', 'Orders')], alerts: [tileAlert('a1', 'Late', 'd1', 't1')] });
    const result = exportLiveState(state, { target: 'prod', setTarget: false, kinds: ['Alert'] });
    expect(result.manifests.map((manifest) => manifest.kind)).toEqual(['Alert']);
    expect(result.manifests[0]?.document.spec['dashboard']).toBe('orders');
  });

  it.each([
    ['a tile without a name', [['t1', '']] as [string, string][], /has no name/],
    [
      'two tiles with one name',
      [
        ['t1', 'x'],
        ['t2', 'x'],
      ] as [string, string][],
      /two tiles are named "x"/,
    ],
  ])('skips a dashboard with %s, and the alerts watching it', (_what, tiles, reason) => {
    const state = live({
      dashboards: [dashboard('d1', 'Broken', tiles)],
      alerts: [tileAlert('a1', 'On broken', 'd1', 't1')],
    });
    const result = exportLiveState(state, { target: 'prod', setTarget: false });
    expect(result.manifests).toEqual([]);
    expect(result.skipped.map((item) => [item.kind, item.id])).toEqual([
      ['Dashboard', 'd1'],
      ['Alert', 'a1'],
    ]);
    expect(result.skipped[0]?.reason).toMatch(reason);
  });

  it.each([
    ['no name', tileAlert('a1', undefined, 'd1', 't1'), /has no name/],
    ['a missing dashboard', tileAlert('a1', 'x', 'gone', 't1'), /does not exist/],
    ['a missing tile', tileAlert('a1', 'x', 'd1', 'gone'), /tile gone, which is not on dashboard d1/],
    [
      'an interval the manifest schema does not know',
      { ...tileAlert('a1', 'x', 'd1', 't1'), interval: '2m' },
      /interval.*must be one of/,
    ],
    [
      'a search alert without a saved search',
      { ...tileAlert('a1', 'x', 'd1', 't1'), source: 'search' as const },
      /savedSearchId/,
    ],
  ])('skips an alert with %s and says why', (_what, alert, reason) => {
    const result = exportLiveState(live({ dashboards: [dashboard('d1', 'D')], alerts: [alert] }), {
      target: 'prod',
      setTarget: false,
    });
    expect(result.manifests.map((manifest) => manifest.kind)).toEqual(['Dashboard']);
    expect(result.skipped).toHaveLength(1);
    expect(result.skipped[0]?.reason).toMatch(reason);
  });

  it('skips a live saved search without a source with one sentence that says what is missing and what to do', () => {
    const search = {
      id: '66f0000000000000000d0001',
      name: 'errors',
      members: { name: 'errors', where: 'level:error', whereLanguage: 'lucene' },
    };
    const result = exportLiveState(live({ savedSearches: [search] }), { target: 'prod', setTarget: false });
    expect(result.manifests).toEqual([]);
    expect(result.skipped).toEqual([
      {
        kind: 'SavedSearch',
        id: '66f0000000000000000d0001',
        name: 'errors',
        reason:
          'it has no source or sourceId, which a SavedSearch manifest needs: give it one in the console, then export again',
      },
    ]);
  });

  it('exports a search alert with its saved search id, spelled saved_search as the manifests document (the seed answers search)', () => {
    const alert: LiveAlert = {
      ...tileAlert('a1', 'Payments', 'x', 'y'),
      source: 'search',
      savedSearchId: '65f5e4a3b9e77c001a123456',
      groupBy: 'provider',
    };
    delete alert.dashboardId;
    delete alert.tileId;
    const [manifest] = exportLiveState(live({ alerts: [alert] }), { target: 'prod', setTarget: false }).manifests;
    expect(manifest?.document.spec).toMatchObject({
      source: 'saved_search',
      savedSearchId: '65f5e4a3b9e77c001a123456',
      groupBy: 'provider',
    });
    expect(manifest?.document.spec).not.toHaveProperty('dashboard');
  });

  it('exports one of several same-named dashboards (the one alerts watch) and alerts (the owned one)', () => {
    const state = live({
      dashboards: [dashboard('d0', 'Same'), dashboard('d9', 'Same')],
      alerts: [tileAlert('a1', 'Twin', 'd9', 't1'), tileAlert('a2', 'Twin', 'd9', 't1')],
    });
    const result = exportLiveState(state, {
      target: 'prod',
      setTarget: false,
      owned: { Alert: new Map([['a2', 'twin-alert']]) },
    });
    expect(result.manifests.map((manifest) => [manifest.kind, manifest.id, manifest.key])).toEqual([
      ['Dashboard', 'd9', 'same'],
      ['Alert', 'a2', 'twin-alert'],
    ]);
    expect(result.skipped.map((item) => [item.kind, item.id])).toEqual([
      ['Dashboard', 'd0'],
      ['Alert', 'a1'],
    ]);
    expect(result.skipped[0]?.reason).toMatch(/only d9 is exported/);
  });

  it('orders manifests by kind, then key', () => {
    const state = live({
      pipes: [kafkaPipe()],
      dashboards: [dashboard('d2', 'Zeta'), dashboard('d1', 'Alpha')],
      alerts: [tileAlert('a1', 'On zeta', 'd2', 't1')],
    });
    const result = exportLiveState(state, { target: 'prod', setTarget: false });
    expect(result.manifests.map((manifest) => `${manifest.kind}/${manifest.key}`)).toEqual([
      'Pipe/orders-kafka',
      'Dashboard/alpha',
      'Dashboard/zeta',
      'Alert/on-zeta',
    ]);
  });
});

describe('renderManifest', () => {
  it('starts with the schema line, holds the document, and shows credentials only as fromEnv placeholders', () => {
    const [manifest] = exportLiveState(live({ pipes: [kafkaPipe()] }), { target: 'prod', setTarget: false }).manifests;
    if (!manifest) throw new Error('no manifest');
    const text = renderManifest(manifest, { schemaRef: '../schemas/pipe.json', target: 'prod' });
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../schemas/pipe.json');
    expect(parse(text)).toEqual(manifest.document);
    expect(text).toContain('#     password: { fromEnv: PIPE_ORDERS_KAFKA_PASSWORD }');
    // The placeholder is a comment: nothing is managed until someone adds it on purpose.
    expect(parse(text).spec.source.kafka).not.toHaveProperty('credentials');
  });

  it('keeps multi-line markdown and long filters readable and exact', () => {
    const board = dashboard('d1', 'Notes');
    const tile = board.tiles[0];
    if (!tile) throw new Error('no tile');
    tile.series = [
      { type: 'markdown', content: 'line one\n**line two**\n' },
      { type: 'time', aggFn: 'count', where: `service:api ${'x'.repeat(200)}` },
    ];
    const [manifest] = exportLiveState(live({ dashboards: [board] }), { target: 'prod', setTarget: false }).manifests;
    if (!manifest) throw new Error('no manifest');
    const text = renderManifest(manifest, { schemaRef: 'x', target: 'prod' });
    expect(parse(text)).toEqual(manifest.document);
    expect(text).toContain('content: |');
  });
});
