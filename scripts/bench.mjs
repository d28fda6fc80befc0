// Benchmark placeholder (`npm run bench`, runs against dist/ after the build): seeds the emulator
// on loopback with 1,000 dashboards (4 tiles each) and 3,000 alerts per variant through the API,
// then times one full read with the client and counts the HTTP calls it took.
// Bounded: loopback only, and the whole run is abandoned after BENCH_DEADLINE_MS.
import { performance } from 'node:perf_hooks';
import { createApi } from '../dist/api/index.js';
import { DEFAULT_SEED_IDS as IDS, startEmulator } from '../dist/emulator/index.js';

const DASHBOARDS = 1000;
const TILES_PER_DASHBOARD = 4;
const ALERTS = 3000;
const BENCH_DEADLINE_MS = 300_000;
/** Seeding goes as fast as loopback allows; the emulator runs without a rate limit here. */
const SEED_RATE = { requests: 1_000_000, perSeconds: 1, concurrency: 32 };
/** Calls a full read must take: managed pipes + dashboards + alerts; self-hosted dashboards + 3 alert pages. */
const EXPECTED_CALLS = { managed: 3, 'self-hosted': 4 };

function connection(url, variant, rateLimit) {
  if (variant === 'managed') {
    return {
      name: 'bench-managed', variant, baseUrl: url, organizationId: IDS.organizationId, serviceId: IDS.serviceId,
      credentials: { variant, keyId: IDS.keyId, keySecret: IDS.keySecret }, rateLimit,
    };
  }
  return { name: 'bench-selfhosted', variant, baseUrl: url, credentials: { variant, token: IDS.token }, rateLimit };
}

function dashboardBody(index) {
  const tiles = Array.from({ length: TILES_PER_DASHBOARD }, (_, tile) => ({
    name: `tile-${tile}`, x: (tile % 4) * 6, y: Math.floor(tile / 4) * 4, w: 6, h: 4,
    series: [{ type: 'time', dataSource: 'events', aggFn: 'count', where: `service:svc-${index}` }],
  }));
  return { name: `bench-${String(index).padStart(4, '0')}`, tags: ['bench'], tiles };
}

function alertBody(dashboard, index) {
  const tile = dashboard.tiles[index % dashboard.tiles.length];
  return {
    name: `bench-alert-${index}`, threshold: 100 + index, thresholdType: 'above', interval: '5m', source: 'tile',
    channel: { type: 'webhook', webhookId: 'bench-hook' }, dashboardId: dashboard.id, tileId: tile.id,
  };
}

async function seed(url, variant) {
  const api = createApi(connection(url, variant, SEED_RATE));
  try {
    const started = performance.now();
    const dashboards = await Promise.all(Array.from({ length: DASHBOARDS }, (_, index) => api.createDashboard(dashboardBody(index))));
    await Promise.all(Array.from({ length: ALERTS }, (_, index) => api.createAlert(alertBody(dashboards[index % dashboards.length], index))));
    return performance.now() - started;
  } finally {
    await api.close();
  }
}

async function fullRead(url, variant) {
  let calls = 0;
  const api = createApi(connection(url, variant, SEED_RATE), { hooks: { onRequest: () => { calls += 1; } } });
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

async function main() {
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0 });
  let failed = false;
  try {
    for (const variant of ['self-hosted', 'managed']) {
      const seedMs = await seed(emulator.url, variant);
      const { live, calls, serverCalls, wallMs } = await fullRead(emulator.url, variant);
      const ok = calls === EXPECTED_CALLS[variant] && serverCalls === calls && live.alerts.length === ALERTS && live.dashboards.length === DASHBOARDS;
      failed ||= !ok;
      console.log(
        `${variant.padEnd(11)} full read: ${calls} HTTP calls (server saw ${serverCalls}, expected ${EXPECTED_CALLS[variant]}), ` +
          `${live.dashboards.length} dashboards, ${live.alerts.length} alerts, ${live.pipes.length} pipes in ${wallMs.toFixed(0)} ms ` +
          `(seeded ${DASHBOARDS} dashboards + ${ALERTS} alerts in ${(seedMs / 1000).toFixed(1)} s)${ok ? '' : '  <-- UNEXPECTED'}`,
      );
    }
  } finally {
    await emulator.close();
  }
  console.log('Next: the benchmark issue adds plan/apply timings at this size, paced runs at the default rate limits, and a regression budget.');
  if (failed) process.exitCode = 1;
}

const deadline = setTimeout(() => {
  console.error(`bench: gave up after ${BENCH_DEADLINE_MS / 1000} s`);
  process.exit(1);
}, BENCH_DEADLINE_MS);
deadline.unref();

main().catch((error) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
