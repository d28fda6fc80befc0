// The benchmark (`npm run bench` = build, then this): measures stacksync against the emulator on
// loopback and prints every figure; the full run also writes BENCHMARKS.md (machine, Node
// version, date, figures, and the goals they meet or miss). BENCH_QUICK=1 runs smaller sizes to
// try it out and writes nothing (unless BENCH_OUTPUT=FILE). Sections:
//   client full read · plan cost vs size · in-sync cost · plan at 100,000 · forEach vs written out · first apply vs size ·
//   first apply with the state in PostgreSQL ÷ the state file · daemon memory · apply under a rate limit · many targets on one key · apply estimate · pipes born
//   in Git at the real budget · HTTP floor · watch latency
// BENCH_ONLY=name,name runs only those sections (names as in the results: clientRead, planSize,
// planLarge, forEach, firstApply, statePostgres, memory, rateLimit, sharedKey, estimate, bornPipes, httpFloor, watch) and
// writes no report unless BENCH_OUTPUT is set.
// The daemon sections run when this build has `stacksync run`; otherwise they say "pending".
// Bounded: every child has a deadline, and the whole run gives up after BENCH_DEADLINE_MS.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bornPipesFirstApply } from './bench/born-pipes.mjs';
import { clientFullRead } from './bench/client-read.mjs';
import { firstApplyScale } from './bench/first-apply.mjs';
import { httpFloor } from './bench/http-floor.mjs';
import { hasDaemon, machine } from './bench/lib.mjs';
import { daemonMemory } from './bench/memory.mjs';
import { estimateRun } from './bench/estimate.mjs';
import { forEachPlan } from './bench/for-each.mjs';
import { planAtSize, planOnly } from './bench/plan-size.mjs';
import { rateLimitRuns } from './bench/rate-limit.mjs';
import { sharedKeyRun } from './bench/shared-key.mjs';
import { statePostgresRun } from './bench/state-postgres.mjs';
import { firstApplyVerdict, floorVerdict, renderMarkdown, statePostgresVerdict } from './bench/report.mjs';
import { watchLatency } from './bench/watch.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const BENCH_DEADLINE_MS = QUICK ? 420_000 : 2_400_000;
/** Where the report goes; a quick or partial run writes one only when BENCH_OUTPUT names a file. */
const OUTPUT =
  process.env.BENCH_OUTPUT ?? (QUICK || ONLY ? undefined : fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url)));

/** What each section runs; the full profile is the one BENCHMARKS.md reports. */
export const PROFILE = QUICK
  ? {
      clientRead: { dashboards: 200, alerts: 600 },
      sizes: [100, 1000],
      firstApply: [300, 1000, 3000],
      statePostgres: { size: 3000 },
      rate: { changes: 40, limit: 10 },
      sharedKey: { targets: 10, requests: 10, perSeconds: 5, creates: 1, heavyCreates: 5 },
      estimate: { requests: 10, perSeconds: 1, dashboards: 15, otherDashboards: 20 },
      floor: { writes: 300, concurrency: 8, repeats: 1 },
      largePlan: 20_000,
      forEach: { files: 100, items: 10, repeats: 3 },
      bornPipes: { pipes: 300, scale: 100 },
      watch: [
        { size: 100, edits: 10 },
        { size: 1000, edits: 5 },
      ],
      memory: { resyncs: 3, warmup: 2 },
    }
  : {
      clientRead: { dashboards: 1000, alerts: 3000 },
      sizes: [100, 1000, 10_000],
      firstApply: [1000, 10_000, 30_000],
      statePostgres: { size: 30_000 },
      rate: { changes: 300, limit: 10 },
      sharedKey: { targets: 20, requests: 10, perSeconds: 10, creates: 2, heavyCreates: 12 },
      estimate: { requests: 20, perSeconds: 2, dashboards: 100, otherDashboards: 100 },
      floor: { writes: 2000, concurrency: 8, repeats: 3 },
      largePlan: 100_000,
      forEach: { files: 1000, items: 10, repeats: 5 },
      bornPipes: { pipes: 1000, scale: 100 },
      watch: [
        { size: 100, edits: 50 },
        { size: 10_000, edits: 30 },
      ],
      memory: { resyncs: 12, warmup: 6 },
    };

const log = (line) => console.log(line);

async function section(results, name, title, body) {
  if (ONLY && !ONLY.has(name)) return;
  log(`\n${title}`);
  const started = Date.now();
  try {
    results.sections[name] = await body();
  } catch (error) {
    results.sections[name] = { error: error instanceof Error ? error.message : String(error) };
    results.failed = true;
    log(`  FAILED: ${results.sections[name].error.split('\n')[0]}`);
  }
  log(`  (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

async function main() {
  const results = { machine: machine(), quick: QUICK, profile: PROFILE, sections: {}, failed: false };
  const m = results.machine;
  log(
    `stacksync benchmark${QUICK ? ' (quick)' : ''}: ${m.cpu}, ${m.cores} cores, ${m.memory}, Node ${m.node}, ${m.date}`,
  );
  const daemon = await hasDaemon(process.cwd());

  await section(results, 'clientRead', 'Client full read', () => clientFullRead(PROFILE.clientRead, log));

  let largest;
  await section(results, 'planSize', 'Plan cost vs size (and the in-sync cost)', async () => {
    const rows = [];
    for (const size of PROFILE.sizes) {
      const { figures, world } = await planAtSize(size, log);
      rows.push(figures);
      if (size === Math.max(...PROFILE.sizes)) largest = world;
      else await world.close();
    }
    return rows;
  });

  await section(results, 'planLarge', `Plan at ${PROFILE.largePlan.toLocaleString('en-US')} resources`, () =>
    planOnly(PROFILE.largePlan, log),
  );

  await section(
    results,
    'forEach',
    `${(PROFILE.forEach.files * PROFILE.forEach.items).toLocaleString('en-US')} resources from ${PROFILE.forEach.files.toLocaleString('en-US')} forEach manifests vs written out`,
    () => forEachPlan(PROFILE.forEach, log),
  );

  await section(
    results,
    'firstApply',
    `First apply at ${PROFILE.firstApply.map((size) => size.toLocaleString('en-US')).join(', ')} resources`,
    async () => {
      const figures = await firstApplyScale({ sizes: PROFILE.firstApply }, log);
      log(`  ${firstApplyVerdict(figures)}`);
      return figures;
    },
  );

  await section(
    results,
    'statePostgres',
    `First apply of ${PROFILE.statePostgres.size.toLocaleString('en-US')} resources, PostgreSQL state ÷ file state`,
    async () => {
      const figures = await statePostgresRun(PROFILE.statePostgres, log);
      log(`  ${statePostgresVerdict(figures)}`);
      return figures;
    },
  );

  await section(results, 'memory', 'Daemon memory', async () => {
    if (!daemon) return { pending: 'daemon not built' };
    if (!largest) throw new Error('no applied world from the plan section');
    return daemonMemory(largest, PROFILE.memory, log);
  });
  await largest?.close();

  await section(results, 'rateLimit', 'Apply under a rate limit', () => rateLimitRuns(PROFILE.rate, log));
  await section(results, 'sharedKey', 'Many targets on one key', () => sharedKeyRun(PROFILE.sharedKey, log));
  await section(results, 'estimate', 'Apply estimate vs a measured apply', () => estimateRun(PROFILE.estimate, log));
  await section(
    results,
    'bornPipes',
    `First apply of ${PROFILE.bornPipes.pipes.toLocaleString('en-US')} pipes born in Git at the real budget`,
    () => bornPipesFirstApply(PROFILE.bornPipes, log),
  );
  await section(results, 'httpFloor', 'HTTP floor', async () => {
    const figures = await httpFloor(PROFILE.floor, log);
    log(`  ${floorVerdict(figures)}`);
    return figures;
  });
  await section(results, 'watch', 'Watch latency', async () => {
    if (!daemon) return { pending: 'daemon not built' };
    const rows = [];
    for (const size of PROFILE.watch) rows.push(await watchLatency(size, log));
    return rows;
  });
  if (!daemon) log('\npending: daemon not built (watch latency and daemon memory need `stacksync run`)');

  // The raw figures, so the report can be rendered again: node scripts/bench/report.mjs FILE
  const raw = process.env.BENCH_RESULTS ?? join(tmpdir(), 'stacksync-bench-results.json');
  await writeFile(raw, `${JSON.stringify(results, null, 2)}\n`);
  log(`\nfigures: ${raw}`);
  const markdown = renderMarkdown(results);
  if (!OUTPUT)
    log(
      '\nquick or partial run: BENCHMARKS.md left as it is (run without BENCH_QUICK and BENCH_ONLY to write it, or set BENCH_OUTPUT)',
    );
  else {
    await writeFile(OUTPUT, markdown);
    log(`\nwrote ${OUTPUT}`);
  }
  const verdicts = markdown
    .split('\n')
    .filter((line) => line.startsWith('- **'))
    .join('\n');
  if (verdicts) log(`\n${verdicts}`);
  if (results.failed) process.exitCode = 1;
}

const deadline = setTimeout(() => {
  console.error(`bench: gave up after ${BENCH_DEADLINE_MS / 1000} s`);
  process.exit(1);
}, BENCH_DEADLINE_MS);
deadline.unref();

main().catch((error) => {
  console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
