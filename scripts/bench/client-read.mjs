// Client full read (the first benchmark of the tree, kept): seeds the emulator on loopback with
// `dashboards` dashboards (4 tiles each) and `alerts` alerts per variant through the API, then
// times one full read of the live state with the API client and counts the HTTP calls it took.
import { performance } from 'node:perf_hooks';
import { createApi } from '../../dist/api/index.js';
import { DEFAULT_SEED_IDS as IDS, startEmulator } from '../../dist/emulator/index.js';
import { listCalls } from '../gen-fixtures.mjs';

/** Seeding goes as fast as loopback allows; the emulator runs without a rate limit here. */
const SEED_RATE = { requests: 1_000_000, perSeconds: 1, concurrency: 32 };
const TILES_PER_DASHBOARD = 4;

function connection(url, variant, rateLimit) {
  if (variant === 'managed') {
    return {
      name: 'bench-managed',
      variant,
      baseUrl: url,
      organizationId: IDS.organizationId,
      serviceId: IDS.serviceId,
      credentials: { variant, keyId: IDS.keyId, keySecret: IDS.keySecret },
      rateLimit,
    };
  }
  return { name: 'bench-selfhosted', variant, baseUrl: url, credentials: { variant, token: IDS.token }, rateLimit };
}

function dashboardBody(index) {
  const tiles = Array.from({ length: TILES_PER_DASHBOARD }, (_, tile) => ({
    name: `tile-${tile}`,
    x: (tile % 4) * 6,
    y: Math.floor(tile / 4) * 4,
    w: 6,
    h: 4,
    series: [{ type: 'time', dataSource: 'events', aggFn: 'count', where: `service:svc-${index}` }],
  }));
  return { name: `bench-${String(index).padStart(4, '0')}`, tags: ['bench'], tiles };
}

function alertBody(dashboard, index) {
  const tile = dashboard.tiles[index % dashboard.tiles.length];
  return {
    name: `bench-alert-${index}`,
    threshold: 100 + index,
    thresholdType: 'above',
    interval: '5m',
    source: 'tile',
    channel: { type: 'webhook', webhookId: 'bench-hook' },
    dashboardId: dashboard.id,
    tileId: tile.id,
  };
}

async function seed(url, variant, dashboards, alerts) {
  const api = createApi(connection(url, variant, SEED_RATE));
  try {
    const started = performance.now();
    const created = await Promise.all(
      Array.from({ length: dashboards }, (_, index) => api.create('Dashboard', dashboardBody(index))),
    );
    await Promise.all(
      Array.from({ length: alerts }, (_, index) =>
        api.create('Alert', alertBody(created[index % created.length], index)),
      ),
    );
    return performance.now() - started;
  } finally {
    await api.close();
  }
}

async function fullRead(url, variant) {
  let calls = 0;
  const api = createApi(connection(url, variant, SEED_RATE), {
    hooks: {
      onRequest: () => {
        calls += 1;
      },
    },
  });
  try {
    await fetch(`${url}/_emulator/reset`, { method: 'POST' });
    const started = performance.now();
    const live = await api.readLiveState();
    const wallMs = performance.now() - started;
    const server = await (await fetch(`${url}/_emulator/stats`)).json();
    return { live, calls, serverCalls: server.total, wallMs };
  } finally {
    await api.close();
  }
}

export async function clientFullRead({ dashboards, alerts }, log) {
  // One list per kind each variant offers; the self-hosted alerts in pages of 1,000.
  const pages = { Alert: Math.max(1, Math.ceil(alerts / 1000)) };
  const expected = { managed: listCalls('managed', pages), 'self-hosted': listCalls('self-hosted', pages) };
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0 });
  const rows = [];
  try {
    for (const variant of ['self-hosted', 'managed']) {
      const seedMs = await seed(emulator.url, variant, dashboards, alerts);
      const { live, calls, serverCalls, wallMs } = await fullRead(emulator.url, variant);
      const ok =
        calls === expected[variant] &&
        serverCalls === calls &&
        live.alerts.length === alerts &&
        live.dashboards.length === dashboards;
      rows.push({
        variant,
        calls,
        serverCalls,
        expected: expected[variant],
        dashboards: live.dashboards.length,
        alerts: live.alerts.length,
        pipes: live.pipes.length,
        wallMs,
        seedMs,
        ok,
      });
      log(
        `  ${variant.padEnd(11)} full read: ${calls} HTTP calls (server saw ${serverCalls}, expected ${expected[variant]}), ` +
          `${live.dashboards.length} dashboards, ${live.alerts.length} alerts, ${live.pipes.length} pipes in ${wallMs.toFixed(0)} ms ` +
          `(seeded ${dashboards} dashboards + ${alerts} alerts in ${(seedMs / 1000).toFixed(1)} s)${ok ? '' : '  <-- UNEXPECTED'}`,
      );
    }
  } finally {
    await emulator.close();
  }
  return rows;
}
