import { describe, expect, it } from 'vitest';
import { validateApi } from '../../src/kinds/wire.js';
import { describeIssues } from '../../src/schema/validate.js';
import type { ApiSchemaName } from '../../src/kinds/wire.js';

const tile = { name: 'p99', x: 0, y: 0, w: 6, h: 4, series: [{ type: 'time', aggFn: 'avg', dataSource: 'events' }] };
const alert = {
  threshold: 1,
  interval: '5m',
  thresholdType: 'above',
  source: 'tile',
  dashboardId: 'd',
  tileId: 't',
  channel: { type: 'webhook', webhookId: 'w' },
};

const rows: { name: string; schema: ApiSchemaName; body: unknown; want: string }[] = [
  { name: 'valid alert', schema: 'alertWriteBody', body: alert, want: '' },
  {
    name: 'alert threshold type',
    schema: 'alertWriteBody',
    body: { ...alert, threshold: 'high' },
    want: 'threshold: must be number',
  },
  {
    name: 'alert interval enum',
    schema: 'alertWriteBody',
    body: { ...alert, interval: '2m' },
    want: 'interval: must be one of 1m, 5m, 15m, 30m, 1h, 6h, 12h, 1d',
  },
  {
    name: 'tile alert without tile',
    schema: 'alertWriteBody',
    body: { ...alert, tileId: undefined },
    want: 'tileId: is required',
  },
  {
    name: 'search alert needs saved search',
    schema: 'alertWriteBody',
    body: { ...alert, source: 'search' },
    want: 'savedSearchId: is required',
  },
  {
    name: 'webhook needs id',
    schema: 'alertWriteBody',
    body: { ...alert, channel: { type: 'webhook' } },
    want: 'channel.webhookId: is required',
  },
  { name: 'valid dashboard', schema: 'dashboardCreateBody', body: { name: 'a', tiles: [tile], tags: ['x'] }, want: '' },
  {
    name: 'tile x bound',
    schema: 'dashboardCreateBody',
    body: { name: 'a', tiles: [{ ...tile, x: 24 }] },
    want: 'tiles[0].x: must be <= 23',
  },
  {
    name: 'time series needs aggFn',
    schema: 'dashboardCreateBody',
    body: { name: 'a', tiles: [{ ...tile, series: [{ type: 'time' }] }] },
    want: 'tiles[0].series[0].aggFn: is required',
  },
  { name: 'dashboard name required', schema: 'dashboardCreateBody', body: { tiles: [] }, want: 'name: is required' },
  { name: 'PUT needs tiles', schema: 'dashboardUpdateBody', body: { name: 'a' }, want: 'tiles: is required' },
  {
    name: 'pipe setting out of range',
    schema: 'pipePatchBody',
    body: { settings: { engine_max_threads: 65 } },
    want: 'settings.engine_max_threads: must be <= 64',
  },
  {
    name: 'pipe immutable member',
    schema: 'pipePatchBody',
    body: { source: { kafka: { brokers: 'b:9092' } } },
    want: 'source.kafka.brokers: is not a known member here',
  },
  {
    name: 'pipe unknown setting',
    schema: 'pipePatchBody',
    body: { settings: { nope: 1 } },
    want: 'settings.nope: is not a known member here',
  },
  {
    name: 'valid pipe patch',
    schema: 'pipePatchBody',
    body: {
      name: 'n',
      source: {
        postgres: { tableMappingsToAdd: [{ sourceSchemaName: 'public', sourceTable: 't', targetTable: 't' }] },
      },
    },
    want: '',
  },
];

describe('API schemas', () => {
  it.each(rows)('$name', ({ schema, body, want }) => {
    const result = validateApi(schema, JSON.parse(JSON.stringify(body)));
    expect(result.ok ? '' : describeIssues(result.issues)).toBe(want);
  });
});
