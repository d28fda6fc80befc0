// The long form of the fault suite (`npm run soak`; builds first): minutes, not seconds, with more
// resources and more rounds than the tests in `npm test`. Every scenario ends by checking the
// world: each fixture resource live exactly once, no stray resource, every inventory id of the
// state file live, and a plan that finds nothing to do. Scenarios:
//   faults   apply under error=0.2,throttle=0.1,reset=0.05,spike=0.05:200ms, run after run, until
//            it exits 0; no duplicate after any run
//   crash    SIGKILL at random points of an apply, round after round (creates, then updates as
//            the manifests change every round), then one apply finishes the rest
//   sigterm  SIGTERM in the middle of a paced apply: exit 0, a consistent state, and the next run
//            finishes the rest with no duplicate
//   daemon   `stacksync run` under the same faults converges, and /metrics counts every failure
// Sizes and rounds: SOAK_SIZE (resources, default 1000), SOAK_CRASH_ROUNDS (default 20),
// SOAK_SEED (random seed, default 1). Exits 1 on the first broken check; children are bounded.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { countsForSize, rewriteDashboards, seedFor, writeFixtures } from './gen-fixtures.mjs';
import {
  CLI,
  CLI_ENV,
  dump,
  metricSum,
  runCli,
  startDaemon,
  startEmulatorChild,
  stats,
  waitUntil,
} from './bench/lib.mjs';

const SIZE = Number(process.env.SOAK_SIZE ?? 1000);
const CRASH_ROUNDS = Number(process.env.SOAK_CRASH_ROUNDS ?? 20);
const FAULTS = 'error=0.2,throttle=0.1,reset=0.05,spike=0.05:200ms';
const DEADLINE_MS = 30 * 60_000;

/** mulberry32: reproducible kill points for a given SOAK_SEED. */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seededRandom(Number(process.env.SOAK_SEED ?? 1));

function check(ok, message) {
  if (!ok) throw new Error(message);
}

/** A fixture workspace and its emulator child. */
async function openWorld({ counts, faults, rateLimit, clientRate }) {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-soak-'));
  await writeFile(join(dir, 'seed.json'), JSON.stringify(seedFor(counts)));
  const emulator = await startEmulatorChild({ seedFile: join(dir, 'seed.json'), faults, rateLimit });
  const fixtures = await writeFixtures({
    dir,
    url: emulator.url,
    counts,
    ...(clientRate ? { rateLimit: clientRate } : {}),
  });
  return {
    dir,
    counts,
    emulator,
    env: fixtures.env,
    async close() {
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Names of what is live, per owner (managed service, self-hosted team). */
async function liveNames(url) {
  const data = await dump(url);
  const service = data.organizations[0].services[0];
  const team = data.teams[0];
  return {
    dashboards: [...service.dashboards, ...team.dashboards].map((d) => d.name),
    alerts: [...service.alerts, ...team.alerts].map((a) => a.name),
    ids: new Set(
      [...service.dashboards, ...team.dashboards, ...service.alerts, ...team.alerts, ...service.pipes].map((r) => r.id),
    ),
    byId: new Map([
      ...[...service.dashboards, ...team.dashboards].map((r) => [r.id, `Dashboard ${r.name}`]),
      ...[...service.alerts, ...team.alerts].map((r) => [r.id, `Alert ${r.name}`]),
      ...service.pipes.map((r) => [r.id, `Pipe ${r.name}`]),
    ]),
  };
}

function duplicatesIn(names) {
  const seen = new Set();
  return names.filter((name) => (seen.has(name) ? true : (seen.add(name), false)));
}

async function expectNoDuplicates(world, when) {
  const live = await liveNames(world.emulator.url);
  const dupes = [...duplicatesIn(live.dashboards), ...duplicatesIn(live.alerts)];
  check(dupes.length === 0, `${when}: duplicates live: ${dupes.slice(0, 5).join(', ')}`);
  return live;
}

/** The final checks: exact live set, a valid state file naming only live ids, an empty plan. */
async function expectConverged(world, when) {
  const live = await expectNoDuplicates(world, when);
  const { dashboards, alertsPerDashboard } = world.counts;
  check(
    live.dashboards.length === dashboards,
    `${when}: ${live.dashboards.length} dashboards live, want ${dashboards}`,
  );
  check(
    live.alerts.length === dashboards * alertsPerDashboard,
    `${when}: ${live.alerts.length} alerts live, want ${dashboards * alertsPerDashboard}`,
  );
  const state = JSON.parse(await readFile(join(world.dir, '.stacksync', 'state.json'), 'utf8'));
  check(state.version === 1, `${when}: state file version ${state.version}`);
  // Dashboards and alerts are owned once created; a pipe enters the inventory only when stacksync
  // writes it (one already as the manifest says, e.g. after a kill between PATCH and state write,
  // is never written again), so pipes are only checked to be live.
  let owned = 0;
  const ownedIds = new Set();
  for (const [target, targetState] of Object.entries(state.targets)) {
    check(
      targetState.intents.length === 0,
      `${when}: ${target} has ${targetState.intents.length} pending create intents after a clean run`,
    );
    for (const [kind, entries] of Object.entries(targetState.inventory)) {
      for (const [key, entry] of Object.entries(entries)) {
        if (kind !== 'Pipe') owned++;
        ownedIds.add(entry.id);
        check(live.ids.has(entry.id), `${when}: state names ${target}/${kind}/${key} = ${entry.id}, which is not live`);
      }
    }
  }
  const want = dashboards * (1 + alertsPerDashboard);
  if (owned !== want) {
    const stray = [...live.byId]
      .filter(([id, name]) => !name.startsWith('Pipe ') && !ownedIds.has(id))
      .map(([, name]) => name);
    check(
      false,
      `${when}: the state owns ${owned} dashboards and alerts, want ${want}; live but not owned: ${stray.slice(0, 10).join(', ')}`,
    );
  }
  const plan = await runCli(world.dir, ['plan', '--detailed-exitcode'], { env: world.env });
  check(plan.code === 0, `${when}: plan after convergence exits ${plan.code}\n${plan.stdout.slice(-2000)}`);
}

// ---------------------------------------------------------------- scenarios

async function faultsScenario() {
  const world = await openWorld({ counts: countsForSize(SIZE), faults: FAULTS });
  try {
    let runs = 0;
    for (;;) {
      runs++;
      const result = await runCli(world.dir, ['apply'], { env: world.env, timeoutMs: 600_000 });
      await expectNoDuplicates(world, `faults, run ${runs}`);
      if (result.code === 0) break;
      check(runs < 30, `faults: no clean apply in 30 runs\n${result.stderr.slice(-2000)}`);
    }
    const server = await stats(world.emulator.url);
    await expectConverged(world, 'faults');
    return `${SIZE} resources converged in ${runs} apply runs through ${server.throttled} × 429 and ${countStatus(server, '500') + countStatus(server, '503')} × 5xx, ${countStatus(server, 'reset')} resets`;
  } finally {
    await world.close();
  }
}

function countStatus(server, status) {
  return server.routes.reduce((sum, route) => sum + (route.statuses[status] ?? 0), 0);
}

/** Starts an apply and kills it with `signal` after `afterMs`; resolves with how it ended. */
async function interruptedApply(world, signal, afterMs) {
  const child = spawn(process.execPath, [CLI, 'apply'], {
    cwd: world.dir,
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...CLI_ENV, ...world.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output = (output + chunk).slice(-5000)));
  child.stderr.on('data', (chunk) => (output = (output + chunk).slice(-5000)));
  const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })));
  const timer = setTimeout(() => child.kill(signal), afterMs);
  const hardStop = setTimeout(() => child.kill('SIGKILL'), afterMs + 60_000);
  const result = await exited;
  clearTimeout(timer);
  clearTimeout(hardStop);
  return { ...result, output };
}

async function crashScenario() {
  // A little latency on every request, so kills land in the middle of the writes.
  const world = await openWorld({
    counts: countsForSize(SIZE),
    faults: 'latency=2ms',
    clientRate: { requests: 100_000, perSeconds: 1, concurrency: 4 },
  });
  try {
    let killed = 0;
    for (let round = 0; round < CRASH_ROUNDS; round++) {
      // From the fourth round on, every round also changes every dashboard (updates beside creates).
      if (round >= 3) await rewriteDashboards({ dir: world.dir, counts: world.counts, tag: `round-${round}` });
      const result = await interruptedApply(world, 'SIGKILL', 100 + Math.floor(random() * 2500));
      if (result.signal === 'SIGKILL') killed++;
      await expectNoDuplicates(world, `crash round ${round + 1}`);
      // The state file must still parse whatever moment the kill hit.
      JSON.parse(
        await readFile(join(world.dir, '.stacksync', 'state.json'), 'utf8').catch(() => '{"version":1,"targets":{}}'),
      );
    }
    const final = await runCli(world.dir, ['apply'], { env: world.env, timeoutMs: 600_000 });
    check(
      final.code === 0,
      `crash: the apply after ${CRASH_ROUNDS} rounds exits ${final.code}\n${final.stderr.slice(-2000)}`,
    );
    await expectConverged(world, 'crash');
    return `${CRASH_ROUNDS} rounds (${killed} killed mid-apply) at ${SIZE} resources, then one apply: exact, no duplicate, state valid`;
  } finally {
    await world.close();
  }
}

async function sigtermScenario() {
  // 300 changes paced at 50 writes/s: about 6 s of writes, interrupted after 2 s.
  const counts = { pipes: 0, dashboards: 300, alertsPerDashboard: 0, selfHosted: false, total: 300 };
  const world = await openWorld({ counts, clientRate: { requests: 50, perSeconds: 1, concurrency: 4 } });
  try {
    const result = await interruptedApply(world, 'SIGTERM', 2000);
    check(
      result.code === 0,
      `sigterm: apply exited ${result.code} (signal ${result.signal}), want 0\n${result.output}`,
    );
    const done = (await stats(world.emulator.url)).writes;
    check(done > 0 && done < 300, `sigterm: ${done} writes before the stop; the scenario needs it to stop midway`);
    const live = await expectNoDuplicates(world, 'sigterm, after the stop');
    const state = JSON.parse(await readFile(join(world.dir, '.stacksync', 'state.json'), 'utf8'));
    const owned = Object.values(state.targets.local?.inventory.Dashboard ?? {});
    check(
      owned.length === live.dashboards.length,
      `sigterm: the state owns ${owned.length} dashboards, ${live.dashboards.length} are live`,
    );
    const rest = await runCli(world.dir, ['apply'], { env: world.env, timeoutMs: 120_000 });
    check(rest.code === 0, `sigterm: the next apply exits ${rest.code}`);
    const after = (await stats(world.emulator.url)).writes;
    check(after === 300, `sigterm: ${after} writes in all, want exactly 300`);
    await expectConverged(world, 'sigterm');
    return `stopped after ${done} of 300 writes with exit 0; the next run wrote the other ${300 - done}, no duplicate`;
  } finally {
    await world.close();
  }
}

async function daemonScenario() {
  const world = await openWorld({ counts: countsForSize(SIZE), faults: FAULTS });
  const daemon = await startDaemon(world.dir, ['--log-level', 'warn'], { env: world.env });
  try {
    await waitUntil(
      async () => {
        const status = JSON.parse((await daemon.get('/status')).text);
        const targets = Object.values(status.targets ?? {});
        const resources = targets.flatMap((target) => target.resources ?? []);
        return (
          targets.every((target) => target.lastResult === 'success') &&
          resources.length === world.counts.total &&
          resources.every((r) => r.status === 'in_sync')
        );
      },
      600_000,
      500,
    );
    const metrics = (await daemon.get('/metrics')).text;
    const server = await stats(world.emulator.url);
    let failures = 0;
    for (const route of server.routes) {
      for (const [status, count] of Object.entries(route.statuses)) {
        const seen = metricSum(metrics, 'stacksync_api_requests_total', {
          method: route.method,
          route: route.route,
          code: status === 'reset' ? 'error' : status,
        });
        check(seen === count, `daemon: ${route.method} ${route.route} ${status}: emulator ${count}, metrics ${seen}`);
        if (status !== '200') failures += count;
      }
    }
    const retries = metricSum(metrics, 'stacksync_api_retries_total');
    check(retries > 0 && retries <= failures, `daemon: ${retries} retries for ${failures} failures`);
    await daemon.stop();
    await expectConverged(world, 'daemon');
    return `${SIZE} resources in sync under faults; all ${failures} failures counted in /metrics, ${retries} retries`;
  } finally {
    await daemon.stop();
    await world.close();
  }
}

const SCENARIOS = { faults: faultsScenario, crash: crashScenario, sigterm: sigtermScenario, daemon: daemonScenario };

async function main() {
  const only = process.argv.slice(2);
  let failed = false;
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    if (only.length > 0 && !only.includes(name)) continue;
    const started = Date.now();
    try {
      const summary = await scenario();
      console.log(`ok   ${name}: ${summary} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    } catch (error) {
      failed = true;
      console.log(
        `FAIL ${name}: ${error instanceof Error ? error.message : String(error)} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
    await delay(100);
  }
  process.exitCode = failed ? 1 : 0;
}

const deadline = setTimeout(() => {
  console.error(`soak: gave up after ${DEADLINE_MS / 60_000} min`);
  process.exit(1);
}, DEADLINE_MS);
deadline.unref();

await main();
