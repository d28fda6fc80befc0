/** Variants of real services read into one model: the differ must never see them. */
import { describe, expect, it } from 'vitest';
import { ShapeError, toDataSource, toLiveAlert, toLiveDashboard, toLivePipe } from '../../src/api/normalize.js';
import { sampleAlert } from './helpers.js';

const canonicalAlert = toLiveAlert(sampleAlert('a1'), 'data[0]');

describe('alerts', () => {
  it('reads the documented shape into the request-shaped model', () => {
    expect(canonicalAlert).toEqual({
      id: 'a1', name: 'slow', message: 'p99 high', threshold: 500, interval: '5m', thresholdType: 'above', source: 'tile',
      channel: { type: 'webhook', webhookId: 'hook-1' }, dashboardId: '65f5e4a3b9e77c001a000001', tileId: '65f5e4a3b9e77c001a000001-t1',
      state: 'inactive', silenced: false,
    });
  });

  it.each([
    { name: 'dashboardId instead of dashboard', raw: { dashboard: undefined, dashboardId: '65f5e4a3b9e77c001a000001' } },
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
    expect(alert).toMatchObject({ source: 'search', savedSearchId: 's1' });
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
    expect(toLiveAlert(sampleAlert('a1', { silenced: { by: 'me', until: '2026-04-01T00:00:00.000Z' } }), 'a').silenced).toBe(true);
  });

  it.each([
    { raw: { threshold: 'high' }, path: 'data[0].threshold' },
    { raw: { thresholdType: 'sideways' }, path: 'data[0].thresholdType' },
    { raw: { source: 'tiles' }, path: 'data[0].source' },
    { raw: { channel: 'webhook' }, path: 'data[0].channel' },
    { raw: { id: '' }, path: 'data[0].id' },
    { raw: { dashboard: 42 }, path: 'data[0].dashboard' },
    { raw: { name: ['x'] }, path: 'data[0].name' },
  ])('rejects $raw at $path', ({ raw, path }) => {
    expect(() => toLiveAlert(sampleAlert('a1', raw), 'data[0]')).toThrow(expect.objectContaining({ path }) as ShapeError);
  });
});

describe('dashboards', () => {
  it('fills absent tags, tiles, series with empty lists and keeps only model members', () => {
    expect(toLiveDashboard({ id: 'd', name: 'n', team: 'team-1', createdAt: 'x' }, 'd')).toEqual({ id: 'd', name: 'n', tags: [], tiles: [] });
    const dashboard = toLiveDashboard({ id: 'd', name: 'n', tiles: [{ _id: 't', name: 'p', x: 0, y: 1, w: 2, h: 3, asRatio: null, extra: 1 }] }, 'd');
    expect(dashboard.tiles).toEqual([{ id: 't', name: 'p', x: 0, y: 1, w: 2, h: 3, series: [] }]);
  });

  it('reads a single group-by string as a list', () => {
    const dashboard = toLiveDashboard({ id: 'd', name: 'n', tiles: [{ id: 't', name: 'p', x: 0, y: 0, w: 1, h: 1, series: [{ type: 'table', aggFn: 'count', groupBy: 'service' }] }] }, 'd');
    expect(dashboard.tiles[0]?.series[0]?.groupBy).toEqual(['service']);
  });

  it('rejects a tile without an id', () => {
    expect(() => toLiveDashboard({ id: 'd', name: 'n', tiles: [{ name: 'p', x: 0, y: 0, w: 1, h: 1 }] }, 'data[0]')).toThrow('data[0].tiles[0].id');
  });
});

describe('pipes', () => {
  it('reads a sparse pipe', () => {
    expect(toLivePipe({ id: 'p', name: 'n', source: { kinesis: { streamName: 's', region: null } } }, 'p')).toEqual({
      id: 'p', name: 'n', source: { kind: 'kinesis', block: { streamName: 's' } }, destination: {},
    });
  });

  it('drops credentials a service should never have returned', () => {
    const pipe = toLivePipe({ id: 'p', name: 'n', source: { postgres: { host: 'h', credentials: { username: 'u', password: 'x' } }, validateSamples: true } }, 'p');
    expect(pipe.source).toEqual({ kind: 'postgres', block: { host: 'h' } });
  });

  it.each([
    { raw: { source: {} }, path: 'p.source' },
    { raw: { source: { kafka: {}, kinesis: {} } }, path: 'p.source' },
    { raw: { source: { kafka: {} }, settings: { engine_max_threads: '8' } }, path: 'p.settings.engine_max_threads' },
    { raw: { source: { kafka: {} }, destination: { columns: [{ name: 'id' }] } }, path: 'p.destination.columns[0].type' },
    { raw: { source: { postgres: { tableMappings: [{ sourceTable: 't' }] } } }, path: 'p.source.postgres.tableMappings[0].sourceSchemaName' },
  ])('rejects garbage at $path', ({ raw, path }) => {
    expect(() => toLivePipe({ id: 'p', name: 'n', ...raw }, 'p')).toThrow(expect.objectContaining({ path }) as ShapeError);
  });
});

describe('sources', () => {
  it('reads {id, name, kind}', () => {
    expect(toDataSource({ id: 's', name: 'Logs', kind: 'log', extra: 1 }, 's')).toEqual({ id: 's', name: 'Logs', kind: 'log' });
  });
});
