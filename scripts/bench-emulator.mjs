// Emulator load and memory check (`npm run build && node scripts/bench-emulator.mjs [--seconds 60]
// [--concurrency 64]`). Runs the emulator from dist/ in a child process on loopback, fires a
// 1,000-request burst, then a sustained mixed load (reads, PATCHes, create/update/delete cycles
// that leave state as it was) and prints requests/s, latency and the child's RSS and heap before
// and after. Exits 1 on any failed request or when the heap (after GC) grew past the budget.
// Bounded: the child is killed after the run or at the deadline, whichever comes first.
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '64' },
    child: { type: 'boolean', default: false },
  },
});

const HEAP_GROWTH_BUDGET_MB = 32;
const BURST = 1000;

// ---------------------------------------------------------------- child: the emulator under test

async function runChild() {
  const { startEmulator } = await import('../dist/emulator/index.js');
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0, logger: false });
  process.on('message', async (message) => {
    if (message === 'memory') {
      globalThis.gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      process.send({ rss, heapUsed });
    } else if (message === 'stop') {
      await emulator.close();
      process.exit(0);
    }
  });
  process.send({ url: emulator.url });
}

// ---------------------------------------------------------------- parent: the load

function ask(child, message) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
}

const IDS = {
  org: '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a01',
  service: '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01',
  kinesis: '7a0e1f2c-0003-4b3a-9c4d-5e6f7a8b9c03',
};
const MANAGED = `/v1/organizations/${IDS.org}/services/${IDS.service}`;
const BASIC = `Basic ${Buffer.from('emulator-key:emulator-secret').toString('base64')}`;
const BEARER = 'Bearer emulator-token';
const TILE = { name: 'p99', x: 0, y: 0, w: 6, h: 4, series: [{ type: 'time', aggFn: 'avg', dataSource: 'events' }] };

async function send(pool, method, path, auth, body) {
  const response = await pool.request({
    method,
    path,
    headers: { authorization: auth, ...(body && { 'content-type': 'application/json' }) },
    body: body && JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${method} ${path} → ${response.statusCode} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

/** One unit of mixed work; creates are undone so the state, and so memory, stays flat. */
async function operation(pool, n) {
  switch (n % 8) {
    case 0:
    case 1:
      return [await send(pool, 'GET', `${MANAGED}/pipes`, BASIC)].length;
    case 2:
      return [
        await send(pool, 'PATCH', `${MANAGED}/pipes/${IDS.kinesis}`, BASIC, {
          settings: { streaming_max_insert_wait_ms: 500 + (n % 1000) },
        }),
      ].length;
    case 3:
      return [await send(pool, 'GET', '/api/v2/alerts?limit=100', BEARER)].length;
    case 4:
      return [await send(pool, 'GET', `${MANAGED}/stack/dashboards`, BASIC)].length;
    case 5: {
      const { data } = await send(pool, 'POST', '/api/v2/dashboards', BEARER, {
        name: `bench-${n}`,
        tiles: [TILE, { ...TILE, name: 'p50' }],
      });
      await send(pool, 'PUT', `/api/v2/dashboards/${data.id}`, BEARER, { name: `bench-${n}`, tiles: [data.tiles[0]] });
      await send(pool, 'DELETE', `/api/v2/dashboards/${data.id}`, BEARER);
      return 3;
    }
    default: {
      const { result } = await send(pool, 'POST', `${MANAGED}/stack/dashboards`, BASIC, {
        name: `bench-${n}`,
        tiles: [TILE],
      });
      const alert = {
        threshold: 1,
        interval: '5m',
        thresholdType: 'above',
        source: 'tile',
        dashboardId: result.id,
        tileId: result.tiles[0].id,
        channel: { type: 'webhook', webhookId: 'w' },
      };
      await send(pool, 'POST', `${MANAGED}/stack/alerts`, BASIC, alert);
      await send(pool, 'DELETE', `${MANAGED}/stack/dashboards/${result.id}`, BASIC);
      return 3;
    }
  }
}

async function burst(url) {
  const pool = new Pool(url, { connections: BURST });
  const started = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: BURST }, (_, n) =>
      send(pool, 'GET', n % 2 ? `${MANAGED}/pipes` : '/api/v2/dashboards', n % 2 ? BASIC : BEARER),
    ),
  );
  const failed = results.filter((result) => result.status === 'rejected');
  await pool.close();
  return {
    seconds: (performance.now() - started) / 1000,
    failed: failed.length,
    firstError: failed[0]?.reason?.message,
  };
}

async function sustained(url, seconds, concurrency) {
  const pool = new Pool(url, { connections: concurrency });
  const deadline = performance.now() + seconds * 1000;
  const latencies = [];
  let requests = 0;
  let failures = 0;
  let firstError;
  let counter = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        // Not `requests += await …`: that reads `requests` before the await and loses other workers' counts.
        const done = await operation(pool, counter++);
        requests += done;
        latencies.push(performance.now() - started);
      } catch (error) {
        failures++;
        firstError ??= error.message;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const percentile = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]?.toFixed(1);
  return { requests, failures, firstError, elapsed, p50: percentile(0.5), p99: percentile(0.99) };
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function runParent(seconds, concurrency) {
  if (!(seconds > 0 && concurrency > 0)) throw new Error('--seconds and --concurrency must be positive numbers');
  const child = fork(new URL(import.meta.url), ['--child'], { execArgv: ['--expose-gc'] });
  const killer = setTimeout(() => child.kill('SIGKILL'), (seconds + 120) * 1000);
  killer.unref();
  try {
    const { url } = await new Promise((resolve) => child.once('message', resolve));
    console.log(`emulator ${url}; ${seconds}s of mixed load at concurrency ${concurrency}`);

    const spike = await burst(url);
    console.log(
      `burst: ${BURST} concurrent requests in ${spike.seconds.toFixed(2)}s, ${spike.failed} failed${spike.firstError ? ` (${spike.firstError})` : ''}`,
    );
    // Warm up before the baseline, so JIT and pools are not counted as growth.
    await sustained(url, Math.min(5, seconds), concurrency);
    const before = await ask(child, 'memory');

    const load = await sustained(url, seconds, concurrency);
    const after = await ask(child, 'memory');
    console.log(
      `load: ${load.requests} requests in ${load.elapsed.toFixed(1)}s = ${Math.round(load.requests / load.elapsed)} requests/s; ${load.failures} failed${load.firstError ? ` (${load.firstError})` : ''}`,
    );
    console.log(`latency per operation: p50 ${load.p50} ms, p99 ${load.p99} ms`);
    console.log(
      `RSS before ${mb(before.rss)}, after ${mb(after.rss)}; heap (after GC) before ${mb(before.heapUsed)}, after ${mb(after.heapUsed)}`,
    );

    const growth = (after.heapUsed - before.heapUsed) / 1024 / 1024;
    const ok = spike.failed === 0 && load.failures === 0 && growth < HEAP_GROWTH_BUDGET_MB;
    console.log(ok ? 'OK' : `FAILED (heap growth ${growth.toFixed(1)} MB, budget ${HEAP_GROWTH_BUDGET_MB} MB)`);
    process.exitCode = ok ? 0 : 1;
    await ask(child, 'stop').catch(() => undefined);
  } finally {
    clearTimeout(killer);
    if (child.exitCode === null) child.kill();
  }
}

if (values.child) await runChild();
else await runParent(Number(values.seconds), Number(values.concurrency));
