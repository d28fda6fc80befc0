// Daemon memory: `stacksync run` over an applied world (10,000 resources in the full run). Resyncs
// are triggered back to back with POST /-/reload (an hour at the default 5 m interval is 12); after
// each, once every target is idle again, a full GC is forced through the inspector (the daemon runs
// with --inspect on loopback) and the heap and RSS are read. Without the forced GC, samples swing by
// the size of the young generation and of whatever the last sync left for the collector; with it,
// what remains is what the daemon holds, and a leak would make it climb from resync to resync.
// The peak RSS during syncs comes from polling the daemon's /metrics.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { WebSocket } from 'undici';
import { metricSum, startDaemon, waitUntil } from './lib.mjs';

const TARGETS = ['local', 'local-selfhosted'];

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function openInspector(wsUrl) {
  const socket = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`cannot connect to the inspector at ${wsUrl}`));
  });
  const pending = new Map();
  let next = 0;
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  };
  const call = (method, params = {}) =>
    new Promise((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

/** Heap used and RSS right after two full GCs. */
async function afterGc(inspector) {
  await inspector.call('HeapProfiler.collectGarbage');
  await inspector.call('HeapProfiler.collectGarbage');
  const reply = await inspector.call('Runtime.evaluate', {
    expression: 'JSON.stringify(process.memoryUsage())',
    returnByValue: true,
  });
  const usage = JSON.parse(reply.result.result.value);
  return { heap: usage.heapUsed, rss: usage.rss };
}

function syncCounts(metrics) {
  return TARGETS.map((target) => metricSum(metrics, 'stacksync_reconcile_total', { target }));
}

export async function daemonMemory(world, { resyncs, warmup }, log) {
  const configPath = join(world.dir, 'config', 'stacksync.yaml');
  const original = await readFile(configPath, 'utf8');
  // The default interval (5 m): no periodic resync gets in the way of the triggered ones.
  await writeFile(configPath, original.replace(/^sync: .*$/m, 'sync: {}'));
  const daemon = await startDaemon(world.dir, ['--log-level', 'warn'], {
    env: world.env,
    nodeArgs: ['--inspect=127.0.0.1:0'],
  });
  let inspector;
  try {
    await waitUntil(
      async () => (await daemon.get('/readyz').catch(() => ({ status: 0 }))).status === 200,
      180_000,
      250,
    );
    const wsUrl = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(daemon.output())?.[0];
    if (!wsUrl) throw new Error('the daemon did not print its inspector URL');
    inspector = await openInspector(wsUrl);
    const started = Date.now();
    const series = [];
    let peakRss = 0;
    for (let round = 1; round <= warmup + resyncs; round++) {
      const before = syncCounts((await daemon.get('/metrics')).text);
      await fetch(`${daemon.url}/-/reload`, { method: 'POST', headers: { 'content-type': 'application/json' } });
      await waitUntil(
        async () => {
          const metrics = (await daemon.get('/metrics').catch(() => ({ text: '' }))).text;
          peakRss = Math.max(peakRss, metricSum(metrics, 'process_resident_memory_bytes'));
          const now = syncCounts(metrics);
          if (!now.every((count, index) => count > (before[index] ?? 0))) return false;
          const status = JSON.parse((await daemon.get('/status')).text);
          return Object.values(status.targets ?? {}).every((target) => !target.syncing);
        },
        180_000,
        250,
      );
      series.push({ round, ...(await afterGc(inspector)) });
      await delay(50);
    }
    const measured = series.slice(warmup - 1);
    const first = measured[0];
    const last = measured[measured.length - 1];
    const final = (await daemon.get('/metrics')).text;
    const writes = ['create', 'update', 'delete'].reduce(
      (sum, action) => sum + metricSum(final, 'stacksync_apply_operations_total', { action }),
      0,
    );
    const figures = {
      resources: world.counts.total,
      resyncs,
      warmup,
      minutes: (Date.now() - started) / 60_000,
      first: { heap: first.heap, rss: first.rss },
      last: { heap: last.heap, rss: last.rss },
      maxHeap: Math.max(...measured.map((point) => point.heap)),
      peakRss,
      heapSeries: measured.map((point) => point.heap),
      writes,
    };
    figures.heapGrowth = last.heap - first.heap;
    figures.rssGrowth = last.rss - first.rss;
    const m = (bytes) => (bytes / 2 ** 20).toFixed(1);
    log(
      `  ${figures.resources} resources, ${resyncs} resyncs after ${warmup} warm-up, ${figures.minutes.toFixed(1)} min: heap after GC ${m(first.heap)} → ${m(last.heap)} MB ` +
        `(highest ${m(figures.maxHeap)}), RSS after GC ${m(first.rss)} → ${m(last.rss)} MB, peak RSS during syncs ${m(peakRss)} MB, ${writes} writes`,
    );
    return figures;
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n--- daemon output\n${daemon.output().slice(-3000)}`,
    );
  } finally {
    inspector?.close();
    await daemon.stop();
    await writeFile(configPath, original);
  }
}
