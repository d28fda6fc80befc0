// Plan cost vs size, and the in-sync cost: for each size, against a fresh emulator (child
// process) seeded with the fixture's pipes:
//   1. plan with everything to create (the first run),
//   2. apply it all,
//   3. plan again: nothing to do (the steady state CI sees on every pull request),
//   4. apply again: nothing to do (what a resync costs).
// Each is the built CLI as a child: wall time from spawn to exit, peak RSS, and the HTTP calls the
// emulator saw, against the floor of one list per collection (plus alert pages).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countsForSize, readFloor, seedFor, writeFixtures } from '../gen-fixtures.mjs';
import { applySeconds, expectExit, resetStats, runCli, startEmulatorChild, stats } from './lib.mjs';

async function measured(world, args, exitCode, what) {
  await resetStats(world.emulator.url);
  const result = expectExit(await runCli(world.dir, args, { env: world.env }), exitCode, what);
  const server = await stats(world.emulator.url);
  return {
    wallMs: result.wallMs,
    rssBytes: result.rssBytes,
    calls: server.total,
    writes: server.writes,
    throttled: server.throttled,
    stderr: result.stderr,
  };
}

/** A workspace of `size` resources and its emulator. Call `close()` when done. */
export async function openWorld(size) {
  const counts = countsForSize(size);
  const dir = await mkdtemp(join(tmpdir(), `stacksync-bench-${size}-`));
  await writeFile(join(dir, 'seed.json'), JSON.stringify(seedFor(counts)));
  const emulator = await startEmulatorChild({ seedFile: join(dir, 'seed.json') });
  const fixtures = await writeFixtures({ dir, url: emulator.url, counts });
  return {
    size,
    counts,
    dir,
    emulator,
    env: fixtures.env,
    floor: readFloor(counts),
    firstFloor: readFloor(counts, { applied: false }),
    async close() {
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the four steps on one size; the world is left applied (in sync) and returned open. */
export async function planAtSize(size, log) {
  const world = await openWorld(size);
  const initial = await measured(world, ['plan', '--detailed-exitcode'], 2, `plan at ${size}`);
  log(`  ${size}: plan (all to create) ${(initial.wallMs / 1000).toFixed(2)} s, ${initial.calls} calls`);
  const apply = await measured(world, ['apply'], 0, `apply at ${size}`);
  // The targets apply in parallel; the longer one is the apply phase.
  const applyPhase = Math.max(applySeconds(apply.stderr, 'local'), applySeconds(apply.stderr, 'local-selfhosted'));
  log(`  ${size}: apply ${(apply.wallMs / 1000).toFixed(2)} s (${apply.writes} writes)`);
  const inSyncPlan = await measured(world, ['plan', '--detailed-exitcode'], 0, `in-sync plan at ${size}`);
  const inSyncApply = await measured(world, ['apply'], 0, `in-sync apply at ${size}`);
  log(
    `  ${size}: in-sync plan ${(inSyncPlan.wallMs / 1000).toFixed(2)} s, in-sync apply ${(inSyncApply.wallMs / 1000).toFixed(2)} s (${inSyncApply.writes} writes)`,
  );
  const figures = {
    size,
    resources: world.counts.total,
    floor: world.floor,
    firstFloor: world.firstFloor,
    initial: { wallMs: initial.wallMs, rssBytes: initial.rssBytes, calls: initial.calls },
    apply: {
      wallMs: apply.wallMs,
      rssBytes: apply.rssBytes,
      writes: apply.writes,
      calls: apply.calls,
      applySeconds: applyPhase,
    },
    inSyncPlan: {
      wallMs: inSyncPlan.wallMs,
      rssBytes: inSyncPlan.rssBytes,
      calls: inSyncPlan.calls,
      writes: inSyncPlan.writes,
    },
    inSyncApply: {
      wallMs: inSyncApply.wallMs,
      rssBytes: inSyncApply.rssBytes,
      calls: inSyncApply.calls,
      writes: inSyncApply.writes,
    },
  };
  return { figures, world };
}

/**
 * One plan, everything to create, at a size too large to apply in a benchmark run (100,000): what
 * CI pays on the first pull request of a big repository. The world is closed afterwards.
 */
export async function planOnly(size, log) {
  const world = await openWorld(size);
  try {
    const plan = await measured(world, ['plan', '--detailed-exitcode'], 2, `plan at ${size}`);
    log(
      `  ${size}: plan (all to create) ${(plan.wallMs / 1000).toFixed(2)} s, peak RSS ${(plan.rssBytes / 2 ** 20).toFixed(0)} MiB, ${plan.calls} calls`,
    );
    return {
      size,
      resources: world.counts.total,
      firstFloor: world.firstFloor,
      plan: { wallMs: plan.wallMs, rssBytes: plan.rssBytes, calls: plan.calls },
    };
  } finally {
    await world.close();
  }
}
