// HTTP floor: the same N dashboard creates, at the same concurrency, with no rate limit, issued
//   (a) by a bare undici loop (the floor: only the HTTP round trips), and
//   (b) by `stacksync apply` as a user runs it (process start, config and manifest load, the
//       live read, the plan, the writes, a state-file write per completed write).
// Each against a fresh emulator child. Reports stacksync ÷ floor for the whole run and for its
// apply phase alone, and the process start on its own, so it is clear what dominates.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { DEFAULT_SEED_IDS as IDS } from '../../dist/emulator/index.js';
import { seedFor, writeFixtures } from '../gen-fixtures.mjs';
import { applySeconds, median, runCli, startEmulatorChild, stats } from './lib.mjs';

const BASIC = `Basic ${Buffer.from(`${IDS.keyId}:${IDS.keySecret}`).toString('base64')}`;
const PATH = `/v1/organizations/${IDS.organizationId}/services/${IDS.serviceId}/stack/dashboards`;
const TILES = ['p50', 'p99', 'errors', 'count'];

/** The body stacksync sends for the fixture's dashboard `index` (same size on the wire). */
function dashboardBody(index) {
  return {
    name: `Bench dashboard ${index}`,
    tags: ['bench', 'v1'],
    tiles: TILES.map((tile, t) => ({
      name: tile,
      x: t * 6,
      y: 0,
      w: 6,
      h: 4,
      series: [
        {
          type: 'time',
          dataSource: 'events',
          aggFn: tile === 'count' || tile === 'errors' ? 'count' : 'quantile',
          where: `service:svc-${index}`,
        },
      ],
    })),
  };
}

async function bareLoop(url, writes, concurrency) {
  const pool = new Pool(url, { connections: concurrency });
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < writes) {
      const index = next++;
      const response = await pool.request({
        method: 'POST',
        path: PATH,
        headers: { authorization: BASIC, 'content-type': 'application/json' },
        body: JSON.stringify(dashboardBody(index)),
      });
      await response.body.text();
      if (response.statusCode !== 200) failed++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  await pool.close();
  return { wallMs, failed };
}

async function withEmulator(counts, body) {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-bench-floor-'));
  await writeFile(join(dir, 'seed.json'), JSON.stringify(seedFor(counts)));
  const emulator = await startEmulatorChild({ seedFile: join(dir, 'seed.json') });
  try {
    return await body(emulator, dir);
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** tmpfs, where fsync costs next to nothing: shows what durable state writes cost on this disk. */
const TMPFS = '/dev/shm';

async function stacksyncApply(counts, concurrency, statePath) {
  return withEmulator(counts, async (emulator, dir) => {
    await writeFixtures({
      dir,
      url: emulator.url,
      counts,
      rateLimit: { requests: 1_000_000, perSeconds: 1, concurrency },
      ...(statePath ? { statePath } : {}),
    });
    const result = await runCli(dir, ['apply']);
    const server = await stats(emulator.url);
    if (result.code !== 0 || server.writes !== counts.dashboards)
      throw new Error(`stacksync apply: exit ${result.code}, ${server.writes} writes\n${result.stderr.slice(-2000)}`);
    return { wallMs: result.wallMs, phaseMs: applySeconds(result.stderr, 'local') * 1000 };
  });
}

export async function httpFloor({ writes, concurrency, repeats }, log) {
  const counts = { pipes: 0, dashboards: writes, alertsPerDashboard: 0, selfHosted: false, total: writes };
  const floor = [];
  const total = [];
  const phase = [];
  const start = [];
  const tmpfsPhase = [];
  const tmpfsTotal = [];
  for (let round = 0; round < repeats; round++) {
    floor.push(
      await withEmulator(counts, async (emulator) => {
        const run = await bareLoop(emulator.url, writes, concurrency);
        if (run.failed > 0) throw new Error(`bare loop: ${run.failed} writes failed`);
        return run.wallMs;
      }),
    );
    const run = await stacksyncApply(counts, concurrency);
    total.push(run.wallMs);
    phase.push(run.phaseMs);
    start.push((await runCli(tmpdir(), ['--version'])).wallMs);
    if (existsSync(TMPFS)) {
      const scratch = await mkdtemp(join(TMPFS, 'stacksync-bench-'));
      try {
        const onTmpfs = await stacksyncApply(counts, concurrency, join(scratch, 'state.json'));
        tmpfsTotal.push(onTmpfs.wallMs);
        tmpfsPhase.push(onTmpfs.phaseMs);
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    }
  }
  const figures = {
    writes,
    concurrency,
    repeats,
    floorMs: median(floor),
    stacksyncMs: median(total),
    applyPhaseMs: median(phase),
    processStartMs: median(start),
    tmpfsMs: tmpfsTotal.length ? median(tmpfsTotal) : undefined,
    tmpfsPhaseMs: tmpfsPhase.length ? median(tmpfsPhase) : undefined,
  };
  figures.ratio = figures.stacksyncMs / figures.floorMs;
  figures.phaseRatio = figures.applyPhaseMs / figures.floorMs;
  log(
    `  ${writes} creates at concurrency ${concurrency}: floor ${(figures.floorMs / 1000).toFixed(2)} s, stacksync ${(figures.stacksyncMs / 1000).toFixed(2)} s (× ${figures.ratio.toFixed(2)}), its apply phase ${(figures.applyPhaseMs / 1000).toFixed(2)} s (× ${figures.phaseRatio.toFixed(2)}), process start ${(figures.processStartMs / 1000).toFixed(2)} s`,
  );
  if (figures.tmpfsMs !== undefined)
    log(
      `  with the state file on tmpfs: stacksync ${(figures.tmpfsMs / 1000).toFixed(2)} s (× ${(figures.tmpfsMs / figures.floorMs).toFixed(2)}), apply phase ${(figures.tmpfsPhaseMs / 1000).toFixed(2)} s (× ${(figures.tmpfsPhaseMs / figures.floorMs).toFixed(2)})`,
    );
  return figures;
}
