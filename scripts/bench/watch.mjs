// Watch latency: the daemon runs against an applied world (of 100 and of 10,000 resources); a
// manifest file is saved with one changed tag, and the time until the emulator has answered the
// resulting write (PUT of that dashboard) is taken, over N edits, one at a time. The emulator runs in this process so its
// request log gives the exact moment. "Debounce excluded" subtracts the watcher's quiet period
// (DEFAULT_DEBOUNCE_MS); everything else (detection, re-read of the manifests, live read, plan,
// the write itself) stays in.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { DEFAULT_DEBOUNCE_MS } from '../../dist/daemon/watch.js';
import { startEmulator } from '../../dist/emulator/index.js';
import { countsForSize, rewriteDashboards, seedFor, writeFixtures } from '../gen-fixtures.mjs';
import { expectExit, percentile, runCli, startDaemon, waitUntil } from './lib.mjs';

/** An emulator whose request log calls `onWrite(entry, when)` for every write it answered. */
async function emulatorWithWriteLog(seed) {
  const listeners = new Set();
  const sink = {
    write(line) {
      const when = performance.now();
      const entry = JSON.parse(line);
      if (entry.msg === 'request' && entry.method !== 'GET') for (const listener of listeners) listener(entry, when);
    },
  };
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0, seed, logger: pino({ level: 'debug' }, sink) });
  return { emulator, listeners };
}

function nextWrite(listeners, matches) {
  return new Promise((resolve) => {
    const listener = (entry, when) => {
      if (!matches(entry)) return;
      listeners.delete(listener);
      resolve(when);
    };
    listeners.add(listener);
  });
}

export async function watchLatency({ size, edits }, log) {
  const counts = countsForSize(size);
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-bench-watch-'));
  const { emulator, listeners } = await emulatorWithWriteLog(seedFor(counts));
  let daemon;
  try {
    const fixtures = await writeFixtures({ dir, url: emulator.url, counts });
    expectExit(await runCli(dir, ['apply'], { env: fixtures.env, timeoutMs: 600_000 }), 0, 'watch: initial apply');
    daemon = await startDaemon(dir, ['--log-level', 'warn'], { env: fixtures.env });
    await waitUntil(async () => (await daemon.get('/readyz')).status === 200, 300_000);
    const latencies = [];
    for (let edit = 0; edit < edits; edit++) {
      // A different dashboard each time, of each target in turn (odd indexes are the self-hosted target's).
      const index = edit % counts.dashboards;
      const written = nextWrite(listeners, (entry) => entry.method === 'PUT' && entry.route.includes('/dashboards/{'));
      await rewriteDashboards({ dir, counts, tag: `edit-${edit}`, only: index });
      const saved = performance.now();
      const received = await Promise.race([written, delay(30_000).then(() => NaN)]);
      if (Number.isNaN(received))
        throw new Error(`watch: edit ${edit} produced no write within 30 s\n${daemon.output().slice(-3000)}`);
      latencies.push(received - saved);
      await settle(daemon);
    }
    const figures = {
      size: counts.total,
      edits,
      debounceMs: DEFAULT_DEBOUNCE_MS,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: Math.max(...latencies),
    };
    log(
      `  ${edits} edits at ${counts.total} resources: p50 ${figures.p50.toFixed(0)} ms, p99 ${figures.p99.toFixed(0)} ms (debounce ${DEFAULT_DEBOUNCE_MS} ms included; excluded: p50 ${(figures.p50 - DEFAULT_DEBOUNCE_MS).toFixed(0)} ms, p99 ${(figures.p99 - DEFAULT_DEBOUNCE_MS).toFixed(0)} ms)`,
    );
    return figures;
  } finally {
    await daemon?.stop();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Waits until no target is syncing, then past the debounce, so edits do not overlap. */
async function settle(daemon) {
  await waitUntil(async () => {
    const status = JSON.parse((await daemon.get('/status')).text);
    return Object.values(status.targets ?? {}).every((target) => !target.syncing);
  }, 30_000);
  await delay(DEFAULT_DEBOUNCE_MS + 100);
}
