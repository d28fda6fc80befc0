/**
 * A target "someone has been using by hand": dashboards and alerts created directly through the
 * API (not through stacksync), for the export round-trip tests. Loopback only.
 */
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';

export type TargetName = 'local' | 'local-selfhosted';

interface Created {
  id: string;
  tiles?: { id: string; name: string }[];
}

const MANAGED_STACK = `/v1/organizations/${DEFAULT_SEED_IDS.organizationId}/services/${DEFAULT_SEED_IDS.serviceId}/stack`;

async function post(
  url: string,
  target: TargetName,
  collection: 'dashboards' | 'alerts',
  body: unknown,
): Promise<Created> {
  const base = target === 'local' ? `${url}${MANAGED_STACK}` : `${url}/api/v2`;
  const authorization =
    target === 'local'
      ? `Basic ${Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64')}`
      : `Bearer ${DEFAULT_SEED_IDS.token}`;
  const response = await fetch(`${base}/${collection}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${collection} answered ${response.status}: ${text}`);
  const json = JSON.parse(text) as { result?: Created; data?: Created };
  const created = target === 'local' ? json.result : json.data;
  if (!created) throw new Error(`POST ${collection}: no resource in ${text}`);
  return created;
}

function tileId(dashboard: Created, name: string): string {
  const tile = dashboard.tiles?.find((candidate) => candidate.name === name);
  if (!tile) throw new Error(`no tile ${name}`);
  return tile.id;
}

const webhook = (id: string) => ({ type: 'webhook', webhookId: id });

/** Two dashboards (one with a markdown tile and a ratio tile), two tile alerts, one search alert. */
export async function populate(
  url: string,
  target: TargetName,
  prefix = '',
): Promise<{ dashboards: number; alerts: number }> {
  const api = await post(url, target, 'dashboards', {
    name: `${prefix}API Latency`,
    tags: ['api', 'slo'],
    tiles: [
      {
        name: 'p99',
        x: 0,
        y: 0,
        w: 12,
        h: 4,
        series: [{ type: 'time', dataSource: 'events', aggFn: 'quantile', field: 'duration_ms', where: 'service:api' }],
      },
      {
        name: 'Error rate',
        x: 12,
        y: 0,
        w: 12,
        h: 4,
        asRatio: true,
        series: [
          { type: 'time', dataSource: 'events', aggFn: 'count', where: 'service:api level:error' },
          { type: 'time', dataSource: 'events', aggFn: 'count', where: 'service:api' },
        ],
      },
      {
        name: 'notes',
        x: 0,
        y: 4,
        w: 24,
        h: 2,
        series: [{ type: 'markdown', content: 'Runbook:\n- check **p99**\n- then errors\n' }],
      },
    ],
  });
  const orders = await post(url, target, 'dashboards', {
    name: `${prefix}Orders (EU)`,
    tiles: [
      {
        name: 'orders/min',
        x: 0,
        y: 0,
        w: 16,
        h: 4,
        series: [{ type: 'time', dataSource: 'events', aggFn: 'count', groupBy: ['country'] }],
      },
      {
        name: 'revenue',
        x: 16,
        y: 0,
        w: 8,
        h: 4,
        series: [{ type: 'number', dataSource: 'metrics', aggFn: 'sum', field: 'order_amount' }],
      },
    ],
  });
  await post(url, target, 'alerts', {
    name: `${prefix}API p99 above 500 ms`,
    message: 'p99 is high',
    source: 'tile',
    dashboardId: api.id,
    tileId: tileId(api, 'p99'),
    threshold: 500,
    thresholdType: 'above',
    interval: '5m',
    channel: webhook('oncall-api'),
  });
  await post(url, target, 'alerts', {
    name: `${prefix}No orders`,
    source: 'tile',
    dashboardId: orders.id,
    tileId: tileId(orders, 'orders/min'),
    threshold: 1,
    thresholdType: 'below',
    interval: '15m',
    channel: webhook('oncall-orders'),
  });
  await post(url, target, 'alerts', {
    name: `${prefix}Payment failures`,
    source: 'search',
    savedSearchId: '65f5e4a3b9e77c001a123456',
    threshold: 10,
    thresholdType: 'above',
    interval: '5m',
    groupBy: 'provider',
    channel: webhook('oncall-orders'),
  });
  return { dashboards: 2, alerts: 3 };
}

/** A second dashboard with the same API name, as a console allows: keys get a suffix. */
export async function populateDuplicate(url: string, target: TargetName, name: string): Promise<void> {
  await post(url, target, 'dashboards', {
    name,
    tiles: [{ name: 'main', x: 0, y: 0, w: 6, h: 2, series: [{ type: 'number', aggFn: 'count' }] }],
  });
}
