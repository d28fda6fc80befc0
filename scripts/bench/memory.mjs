// Daemon memory: `stacksync run` over an applied world (10,000 resources in the full run), with
// sync.interval at its 1 s minimum so periodic resyncs run back to back. RSS and heap come from
// the daemon's own /metrics (prom-client's process metrics) after each resync; "steady" is after
// the first few, "after" is once the resyncs of an hour at the default 5 m interval (12) — or more
// — have run. Growth between them is what a leak would show.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { median, metricSum, startDaemon, waitUntil } from './lib.mjs';

/** Completed syncs per target so far. */
function syncsDone(metrics, targets) {
  return Math.min(...targets.map((target) => metricSum(metrics, 'stacksync_reconcile_total', { target })));
}

function sample(metrics) {
  return { rss: metricSum(metrics, 'process_resident_memory_bytes'), heap: metricSum(metrics, 'nodejs_heap_size_used_bytes') };
}

export async function daemonMemory(world, { resyncs, warmup }, log) {
  const configPath = join(world.dir, 'config', 'stacksync.yaml');
  const original = await readFile(configPath, 'utf8');
  await writeFile(configPath, original.replace(/^sync: .*$/m, 'sync: {"interval":"1s"}'));
  const daemon = await startDaemon(world.dir, ['--log-level', 'warn'], { env: world.env });
  const targets = ['local', 'local-selfhosted'];
  const samples = [];
  try {
    await waitUntil(async () => (await daemon.get('/readyz')).status === 200, 120_000, 100);
    let done = 0;
    const started = Date.now();
    while (done < warmup + resyncs) {
      await waitUntil(async () => syncsDone((await daemon.get('/metrics')).text, targets) > done, 120_000, 100);
      const metrics = (await daemon.get('/metrics')).text;
      done = syncsDone(metrics, targets);
      samples.push({ syncs: done, ...sample(metrics) });
    }
    const minutes = (Date.now() - started) / 60_000;
    const steady = samples.filter((s) => s.syncs <= warmup + 1).slice(-3);
    const after = samples.slice(-3);
    const writes = metricSum((await daemon.get('/metrics')).text, 'stacksync_apply_operations_total');
    const figures = {
      resources: world.counts.total,
      resyncs: done - 1,
      minutes,
      steadyRss: median(steady.map((s) => s.rss)),
      afterRss: median(after.map((s) => s.rss)),
      steadyHeap: median(steady.map((s) => s.heap)),
      afterHeap: median(after.map((s) => s.heap)),
      maxRss: Math.max(...samples.map((s) => s.rss)),
      writes,
    };
    figures.rssGrowth = figures.afterRss - figures.steadyRss;
    figures.heapGrowth = figures.afterHeap - figures.steadyHeap;
    log(
      `  ${figures.resources} resources: RSS steady ${(figures.steadyRss / 2 ** 20).toFixed(0)} MB, after ${figures.resyncs} resyncs ${(figures.afterRss / 2 ** 20).toFixed(0)} MB ` +
        `(heap ${(figures.steadyHeap / 2 ** 20).toFixed(0)} → ${(figures.afterHeap / 2 ** 20).toFixed(0)} MB), ${writes} writes, ${minutes.toFixed(1)} min`,
    );
    return figures;
  } finally {
    await daemon.stop();
    await writeFile(configPath, original);
  }
}
