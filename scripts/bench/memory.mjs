// Daemon memory: `stacksync run` over an applied world (10,000 resources in the full run), with
// sync.interval at its 1 s minimum so periodic resyncs run back to back. RSS and heap come from
// the daemon's own /metrics (prom-client's process metrics), sampled twice a second. A resync of
// 10,000 resources allocates a few hundred MB that the GC then gives back, so single samples swing;
// what a leak would raise is the trough, so the figures compare the lowest RSS and heap of the
// first third of the resyncs (after a warm-up) with those of the last third.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { median, metricSum, startDaemon, waitUntil } from './lib.mjs';

const TARGETS = ['local', 'local-selfhosted'];

/** Completed syncs of the target that has done fewest. */
function syncsDone(metrics) {
  return Math.min(...TARGETS.map((target) => metricSum(metrics, 'stacksync_reconcile_total', { target })));
}

async function metricsOf(daemon) {
  try {
    return (await daemon.get('/metrics')).text;
  } catch {
    return undefined;
  }
}

function windowFigures(samples) {
  return {
    minRss: Math.min(...samples.map((s) => s.rss)),
    medianRss: median(samples.map((s) => s.rss)),
    maxRss: Math.max(...samples.map((s) => s.rss)),
    minHeap: Math.min(...samples.map((s) => s.heap)),
  };
}

export async function daemonMemory(world, { resyncs, warmup }, log) {
  const configPath = join(world.dir, 'config', 'stacksync.yaml');
  const original = await readFile(configPath, 'utf8');
  await writeFile(configPath, original.replace(/^sync: .*$/m, 'sync: {"interval":"1s"}'));
  const daemon = await startDaemon(world.dir, ['--log-level', 'warn'], { env: world.env });
  const samples = [];
  try {
    await waitUntil(async () => (await daemon.get('/readyz').catch(() => ({ status: 0 }))).status === 200, 180_000, 250);
    const started = Date.now();
    const deadline = started + 15 * 60_000;
    for (;;) {
      const metrics = await metricsOf(daemon);
      if (metrics) {
        const syncs = syncsDone(metrics);
        samples.push({ syncs, rss: metricSum(metrics, 'process_resident_memory_bytes'), heap: metricSum(metrics, 'nodejs_heap_size_used_bytes') });
        if (syncs >= 1 + warmup + resyncs) break;
      }
      if (Date.now() > deadline) throw new Error(`only ${samples.at(-1)?.syncs ?? 0} syncs in 15 min`);
      await delay(500);
    }
    const minutes = (Date.now() - started) / 60_000;
    const measured = samples.filter((s) => s.syncs > warmup);
    const third = Math.max(1, Math.floor(resyncs / 3));
    const first = windowFigures(measured.filter((s) => s.syncs <= warmup + third));
    const last = windowFigures(measured.filter((s) => s.syncs > warmup + resyncs - third));
    const final = (await metricsOf(daemon)) ?? '';
    const writes = ['create', 'update', 'delete'].reduce((sum, action) => sum + metricSum(final, 'stacksync_apply_operations_total', { action }), 0);
    const figures = { resources: world.counts.total, resyncs, warmup, minutes, first, last, writes, samples: measured.length };
    figures.rssGrowth = last.minRss - first.minRss;
    figures.heapGrowth = last.minHeap - first.minHeap;
    const m = (bytes) => (bytes / 2 ** 20).toFixed(0);
    log(
      `  ${figures.resources} resources, ${resyncs} resyncs after ${warmup} warm-up, ${minutes.toFixed(1)} min: RSS trough ${m(first.minRss)} → ${m(last.minRss)} MB ` +
        `(median ${m(first.medianRss)} → ${m(last.medianRss)}, peak ${m(Math.max(first.maxRss, last.maxRss))}), heap trough ${m(first.minHeap)} → ${m(last.minHeap)} MB, ${writes} writes`,
    );
    return figures;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- daemon output\n${daemon.output().slice(-3000)}`);
  } finally {
    await daemon.stop();
    await writeFile(configPath, original);
  }
}
