/** Variants of real services read into one model: the differ must never see them. */
import { describe, expect, it } from 'vitest';
import { readEach, ShapeError } from '../../src/kinds/shared/read.js';
import { readFlat } from '../../src/kinds/shared/flat-live.js';
import { toLiveAlert } from '../../src/kinds/alert/read.js';
import { toLiveDashboard } from '../../src/kinds/dashboard/read.js';
import { toLivePipe } from '../../src/kinds/pipe/read.js';
import { sampleAlert } from './helpers.js';

const canonicalAlert = toLiveAlert(sampleAlert('a1'), 'data[0]');

describe('alerts', () => {
  it('reads the documented shape into the request-shaped model', () => {
    expect(canonicalAlert).toEqual({
      id: 'a1',
      name: 'slow',
      message: 'p99 high',
      threshold: 500,
      interval: '5m',
      thresholdType: 'above',
      source: 'tile',
      channel: { type: 'webhook', webhookId: 'hook-1' },
      dashboardId: '65f5e4a3b9e77c001a000001',
      tileId: '65f5e4a3b9e77c001a000001-t1',
      state: 'inactive',
      silenced: false,
      createdAt: '2026-03-15T10:20:30.000Z',
    });
  });

  it.each([
    {
      name: 'dashboardId instead of dashboard',
      raw: { dashboard: undefined, dashboardId: '65f5e4a3b9e77c001a000001' },
    },
    { name: 'a populated dashboard object', raw: { dashboard: { _id: '65f5e4a3b9e77c001a000001', name: 'x' } } },
    { name: '_id instead of id', raw: { id: undefined, _id: 'a1' } },
    { name: 'upper-case enums', raw: { thresholdType: 'ABOVE', source: 'TILE', state: 'INACTIVE' } },
    { name: 'nulls for absent members', raw: { groupBy: null, savedSearch: null } },
  ])('tolerates $name', ({ raw }) => {
    expect(toLiveAlert(sampleAlert('a1', raw), 'a')).toEqual(canonicalAlert);
  });

  it.each([
    { raw: { source: 'saved_search', savedSearch: 's1' } },
    { raw: { source: 'search', savedSearchId: 's1' } },
    { raw: { source: 'search', savedSearch: { id: 's1' } } },
  ])('reads a search alert $raw', ({ raw }) => {
    const alert = toLiveAlert(sampleAlert('a1', { dashboard: undefined, tileId: undefined, ...raw }), 'a');
    expect(alert).toMatchObject({ source: 'saved_search', savedSearchId: 's1' });
    expect(alert).not.toHaveProperty('dashboardId');
  });

  it.each([
    { state: 'OK', want: 'ok' },
    { state: 'ALERT', want: 'alert' },
    { state: 'inactive', want: 'inactive' },
  ])('normalises state $state', ({ state, want }) => {
    expect(toLiveAlert(sampleAlert('a1', { state }), 'a').state).toBe(want);
  });

  it('reads a silence record as silenced', () => {
    expect(
      toLiveAlert(sampleAlert('a1', { silenced: { by: 'me', until: '2026-04-01T00:00:00.000Z' } }), 'a').silenced,
    ).toBe(true);
  });

  it('reads the shape of current servers: range thresholds, saved_search, channels, note, teamId, members it does not model', () => {
    const raw = {
      id: '65f5e4a3b9e77c001a0000a1',
      name: 'errors',
      message: null,
      note: 'runbook: …',
      threshold: 5,
      thresholdMax: 10,
      thresholdType: 'between',
      interval: '15m',
      numConsecutiveWindows: 2,
      source: 'saved_search',
      savedSearchId: 's1',
      state: 'INSUFFICIENT_DATA',
      teamId: 'team-1',
      channel: { type: 'webhook', webhookId: 'w1' },
      channels: [
        { type: 'webhook', webhookId: 'w1' },
        { type: 'webhook', webhookId: 'w2' },
      ],
      silenced: { by: 'me', at: '2026-01-01T00:00:00.000Z', until: '2026-02-01T00:00:00.000Z' },
      scheduleOffsetMinutes: 3,
      futureMember: { a: 1 },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    expect(toLiveAlert(raw, 'a')).toEqual({
      id: raw.id,
      name: 'errors',
      threshold: 5,
      thresholdMax: 10,
      thresholdType: 'between',
      interval: '15m',
      source: 'saved_search',
      savedSearchId: 's1',
      channel: { type: 'webhook', webhookId: 'w1' },
      state: 'insufficient_data',
      silenced: true,
      createdAt: raw.createdAt,
      extra: {
        note: 'runbook: …',
        numConsecutiveWindows: 2,
        channels: raw.channels,
        scheduleOffsetMinutes: 3,
        futureMember: { a: 1 },
      },
    });
  });

  it.each([
    { name: 'no channel', raw: { channel: undefined }, want: undefined },
    { name: 'a channel the service could not resolve', raw: { channel: { type: null } }, want: undefined },
    {
      name: 'an email channel',
      raw: { channel: { type: 'email', emails: ['a@example.com'] } },
      want: { type: 'email', emails: ['a@example.com'] },
    },
  ])('reads an alert with $name', ({ raw, want }) => {
    expect(toLiveAlert(sampleAlert('a1', raw), 'a').channel).toEqual(want);
  });

  it('keeps threshold types and sources newer than its own as text', () => {
    expect(toLiveAlert(sampleAlert('a1', { thresholdType: 'not_equal', source: 'anomaly' }), 'a')).toMatchObject({
      thresholdType: 'not_equal',
      source: 'anomaly',
    });
  });

  it.each([
    { raw: { threshold: 'high' }, path: 'data[0].threshold' },
    { raw: { thresholdType: 3 }, path: 'data[0].thresholdType' },
    { raw: { channel: 'webhook' }, path: 'data[0].channel' },
    { raw: { id: '' }, path: 'data[0].id' },
    { raw: { dashboard: 42 }, path: 'data[0].dashboard' },
    { raw: { name: ['x'] }, path: 'data[0].name' },
  ])('rejects $raw at $path', ({ raw, path }) => {
    expect(() => toLiveAlert(sampleAlert('a1', raw), 'data[0]')).toThrow(
      expect.objectContaining({ path }) as ShapeError,
    );
  });
});

describe('dashboards', () => {
  it.each([
    { createdAt: '2026-03-15T10:20:30.000Z', want: { createdAt: '2026-03-15T10:20:30.000Z' } },
    { createdAt: 'yesterday', want: {} },
    { createdAt: 1773570030000, want: {} },
    { createdAt: null, want: {} },
  ])(
    'keeps a creation time only when it reads as one ($createdAt): an odd one proves nothing and breaks nothing',
    ({ createdAt, want }) => {
      const dashboard = toLiveDashboard({ id: 'd', name: 'n', createdAt }, 'd');
      expect(dashboard).toEqual({ id: 'd', name: 'n', tags: [], tiles: [], ...want });
      expect(toLiveAlert(sampleAlert('a1', { createdAt }), 'a').createdAt).toEqual(want.createdAt);
    },
  );

  it('fills absent tags and tiles with empty lists and leaves server-set members out', () => {
    expect(toLiveDashboard({ id: 'd', name: 'n', team: 'team-1', createdAt: 'x' }, 'd')).toEqual({
      id: 'd',
      name: 'n',
      tags: [],
      tiles: [],
    });
    const dashboard = toLiveDashboard(
      {
        id: 'd',
        name: 'n',
        tiles: [{ _id: 't', name: 'p', x: 0, y: 1, w: 2, h: 3, asRatio: null, containerId: 'c1' }],
      },
      'd',
    );
    expect(dashboard.tiles).toEqual([{ id: 't', name: 'p', x: 0, y: 1, w: 2, h: 3, extra: { containerId: 'c1' } }]);
  });

  it('keeps a config tile whole and the members of newer servers in extra', () => {
    const config = {
      displayType: 'line',
      sourceId: '65f5e4a3b9e77c001a0000b1',
      select: [{ aggFn: 'avg', valueExpression: 'Duration', level: null }],
      fillNulls: true,
    };
    const dashboard = toLiveDashboard(
      {
        id: 'd',
        name: 'n',
        tags: [],
        tiles: [{ id: 't', name: 'p', x: 0, y: 0, w: 6, h: 4, config }],
        filters: [],
        savedQuery: null,
        teamId: 'team',
      },
      'd',
    );
    expect(dashboard).toEqual({
      id: 'd',
      name: 'n',
      tags: [],
      tiles: [{ id: 't', name: 'p', x: 0, y: 0, w: 6, h: 4, config }],
      extra: { filters: [], savedQuery: null },
    });
  });

  it('keeps every member of a series, also those the seed does not list', () => {
    const dashboard = toLiveDashboard(
      {
        id: 'd',
        name: 'n',
        tiles: [
          {
            id: 't',
            name: 'p',
            x: 0,
            y: 0,
            w: 1,
            h: 1,
            series: [{ type: 'time', sourceId: 's', aggFn: 'count', where: '', groupBy: [] }],
          },
        ],
      },
      'd',
    );
    expect(dashboard.tiles[0]?.series).toEqual([
      { type: 'time', sourceId: 's', aggFn: 'count', where: '', groupBy: [] },
    ]);
  });

  it('reads a single group-by string as a list', () => {
    const dashboard = toLiveDashboard(
      {
        id: 'd',
        name: 'n',
        tiles: [
          {
            id: 't',
            name: 'p',
            x: 0,
            y: 0,
            w: 1,
            h: 1,
            series: [{ type: 'table', aggFn: 'count', groupBy: 'service' }],
          },
        ],
      },
      'd',
    );
    expect(dashboard.tiles[0]?.series?.[0]?.['groupBy']).toEqual(['service']);
  });

  it('rejects a tile without an id', () => {
    expect(() =>
      toLiveDashboard({ id: 'd', name: 'n', tiles: [{ name: 'p', x: 0, y: 0, w: 1, h: 1 }] }, 'data[0]'),
    ).toThrow('data[0].tiles[0].id');
  });
});

describe('pipes', () => {
  it('reads a sparse pipe', () => {
    expect(toLivePipe({ id: 'p', name: 'n', source: { kinesis: { streamName: 's', region: null } } }, 'p')).toEqual({
      id: 'p',
      name: 'n',
      source: { kind: 'kinesis', block: { streamName: 's' } },
      destination: {},
    });
  });

  it('drops credentials a service should never have returned', () => {
    const pipe = toLivePipe(
      {
        id: 'p',
        name: 'n',
        source: { postgres: { host: 'h', credentials: { username: 'u', password: 'x' } }, validateSamples: true },
      },
      'p',
    );
    expect(pipe.source).toEqual({ kind: 'postgres', block: { host: 'h' } });
  });

  it.each([
    { raw: { source: {} }, path: 'p.source' },
    { raw: { source: { kafka: {}, kinesis: {} } }, path: 'p.source' },
    { raw: { source: { kafka: {} }, settings: { engine_max_threads: '8' } }, path: 'p.settings.engine_max_threads' },
    {
      raw: { source: { kafka: {} }, destination: { columns: [{ name: 'id' }] } },
      path: 'p.destination.columns[0].type',
    },
    // Each family names its source its own way (schema and table, database and collection); every mapping names its target table.
    {
      raw: { source: { postgres: { tableMappings: [{ sourceTable: 't' }] } } },
      path: 'p.source.postgres.tableMappings[0].targetTable',
    },
  ])('rejects garbage at $path', ({ raw, path }) => {
    expect(() => toLivePipe({ id: 'p', name: 'n', ...raw }, 'p')).toThrow(
      expect.objectContaining({ path }) as ShapeError,
    );
  });
});

describe('lists', () => {
  it('sets aside an item that does not read, with its id and name, and reads the rest', () => {
    const items = [
      sampleAlert('a1'),
      sampleAlert('a2', { threshold: 'high' }),
      sampleAlert('a3'),
      { name: 'no id', threshold: 'x' },
      'garbage',
    ];
    const list = readEach('Alert', items, 'data', toLiveAlert);
    expect(list.items.map((alert) => alert.id)).toEqual(['a1', 'a3']);
    expect(list.unreadable).toEqual([
      { kind: 'Alert', id: 'a2', name: 'slow', problem: 'data[1].threshold: is not a number' },
    ]);
  });

  it('still fails when the list itself is not a list', () => {
    expect(() => readEach('Alert', { data: [] }, 'data', toLiveAlert)).toThrow(ShapeError);
  });
});

describe('sources, connections, webhooks, saved searches', () => {
  it('keep every member but what the server sets itself, so a PUT built from them passes a strict gateway', () => {
    const raw = {
      _id: 'w',
      name: 'ops',
      service: 'slack',
      url: 'https://hooks.slack.com/x',
      teamId: 't',
      createdAt: '2026-03-15T10:20:30.000Z',
      updatedAt: 'x',
      __v: 0,
      description: null,
    };
    expect(readFlat(raw, 'w')).toEqual({
      id: 'w',
      name: 'ops',
      createdAt: '2026-03-15T10:20:30.000Z',
      members: { name: 'ops', service: 'slack', url: 'https://hooks.slack.com/x' },
    });
  });

  it("reads the seed's {id, name, kind} sources", () => {
    expect(readFlat({ id: 's', name: 'Logs', kind: 'log' }, 's')).toEqual({
      id: 's',
      name: 'Logs',
      members: { name: 'Logs', kind: 'log' },
    });
  });

  it('refuses one without a name: it could not be matched', () => {
    expect(() => readFlat({ id: 's', kind: 'log' }, 'data[0]')).toThrow(ShapeError);
  });
});
