/**
 * Under injected faults (`error=0.2,throttle=0.1,reset=0.05`: 500/503s, 429s with Retry-After and
 * cut connections), an apply of 200 dashboards and alerts over both targets converges in repeated
 * runs, with no duplicate and nothing missing (issue 5). The client's default retries apply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  describeRun,
  dump,
  expectExactly,
  expectStateMatchesLive,
  generateFleet,
  liveOf,
  parseJsonOutput,
  readState,
  writeFiles,
  type Fleet,
} from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  startTestEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';
import { seededRandom } from '../helpers/random.js';

const FAULTS = 'error=0.2,throttle=0.1,reset=0.05';
const MAX_RUNS = 15;
/** Codes of a request every retry of which met a fault: the client gave up on it, nothing is wrong with the plan. */
const FAULTS_OUTLASTED_RETRIES: ReadonlySet<string> = new Set(['E_API_THROTTLED', 'E_API_UNAVAILABLE']);
const MAX_PLANS = 5;

describe(`apply under faults (${FAULTS})`, () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  const fleets = new Map<'local' | 'local-selfhosted', Fleet>();

  beforeAll(async () => {
    emulator = await startTestEmulator({ faults: FAULTS, random: seededRandom(20) });
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 8 },
      sync: { maxDeletes: 1000, maxDeletePercent: 100 },
    });
    // 2 × (25 dashboards + 75 alerts) = 200 resources.
    fleets.set(
      'local',
      generateFleet({ target: 'local', prefix: 'fm', dashboards: 25, tilesPerDashboard: 3, alertsPerDashboard: 3 }),
    );
    fleets.set(
      'local-selfhosted',
      generateFleet({
        target: 'local-selfhosted',
        prefix: 'fs',
        dashboards: 25,
        tilesPerDashboard: 3,
        alertsPerDashboard: 3,
      }),
    );
    for (const fleet of fleets.values()) await writeFiles(workspace, fleet.files);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  /** Reruns apply until it exits 0; after every failed run, nothing may be live twice. */
  async function applyUntilClean(args: string[]): Promise<{ runs: CliResult[]; durations: number[] }> {
    const runs: CliResult[] = [];
    const durations: number[] = [];
    for (let i = 0; i < MAX_RUNS; i++) {
      const started = Date.now();
      const result = await workspace.run(args, { timeoutMs: 120_000 });
      durations.push(Date.now() - started);
      runs.push(result);
      if (result.code === 0) break;
      const data = await dump(emulator.url);
      for (const target of fleets.keys()) {
        const live = liveOf(data, target);
        expect(
          new Set(live.dashboards.map((d) => d.name)).size,
          `run ${i + 1}: duplicate dashboards on ${target}`,
        ).toBe(live.dashboards.length);
        expect(new Set(live.alerts.map((a) => a.name)).size, `run ${i + 1}: duplicate alerts on ${target}`).toBe(
          live.alerts.length,
        );
      }
    }
    const last = runs[runs.length - 1];
    expect(last?.code, `no clean run in ${MAX_RUNS}; last: ${last ? describeRun(last) : 'none'}`).toBe(0);
    return { runs, durations };
  }

  /**
   * `plan --detailed-exitcode` against the same faulty server, as a user's CI would run it. One of
   * its reads fails outright when every retry meets a fault (about 0.35^6 of requests), so a run
   * whose only errors are such reads is run again; a planned change, or any other error, is the
   * answer at once.
   */
  async function planUnderFaults(args: string[]): Promise<CliResult> {
    for (let attempt = 1; ; attempt++) {
      const plan = await workspace.run([...args, '--detailed-exitcode', '--output', 'json'], { timeoutMs: 60_000 });
      if (plan.code !== 1 || attempt === MAX_PLANS) return plan;
      const { errors, changes } = parseJsonOutput(plan);
      const onlyOutlastedReads =
        errors.length > 0 &&
        errors.every((error) => FAULTS_OUTLASTED_RETRIES.has(error.code ?? '')) &&
        changes.every((change) => change.action !== 'error');
      if (!onlyOutlastedReads) return plan;
    }
  }

  async function expectExactState(): Promise<void> {
    const data = await dump(emulator.url);
    const state = await readState(workspace.statePath);
    for (const [target, fleet] of fleets) {
      expectExactly(liveOf(data, target), { dashboards: fleet.dashboardNames, alerts: fleet.alertNames });
      expectStateMatchesLive(state, data, target, { dashboards: fleet.dashboards, alerts: fleet.alerts });
    }
  }

  it('converges in repeated runs with no duplicate dashboards or alerts', async () => {
    const { runs, durations } = await applyUntilClean(['apply']);
    // The faults really were there.
    const stats = await emulatorStats(emulator.url);
    expect(stats.throttled).toBeGreaterThan(0);
    expect(stats.routes.some((route) => (route.statuses['500'] ?? 0) + (route.statuses['503'] ?? 0) > 0)).toBe(true);
    expect(stats.routes.some((route) => (route.statuses['reset'] ?? 0) > 0)).toBe(true);
    await expectExactState();
    console.info(
      `creates converged after ${runs.length} run(s) taking ${durations.join(', ')} ms; ${stats.total} requests, ${stats.throttled} throttled`,
    );
  }, 300_000);

  it('then plans no changes, still under faults', async () => {
    const plan = await planUnderFaults(['plan']);
    expect(plan.code, describeRun(plan)).toBe(0);
  }, 300_000);

  it('updates and prunes converge too: a fifth of each fleet removed, the rest changed', async () => {
    for (const target of [...fleets.keys()]) {
      const prefix = target === 'local' ? 'fm' : 'fs';
      const changed = generateFleet({
        target,
        prefix,
        dashboards: 25,
        tilesPerDashboard: 3,
        alertsPerDashboard: 3,
        threshold: 500,
      });
      await workspace.remove(`manifests/${prefix}`);
      const kept = new Map([...changed.files].slice(5));
      await writeFiles(workspace, kept);
      const keep = (key: string): boolean => !/-d[0-4](-|$)/.test(key);
      fleets.set(target, {
        files: kept,
        dashboards: changed.dashboards.filter(keep),
        alerts: changed.alerts.filter(keep),
        dashboardNames: changed.dashboardNames.filter((name) => keep(name.split(' ')[1] ?? '')),
        alertNames: changed.alertNames.filter((name) => keep(name.split(' ')[1] ?? '')),
      });
      expect(fleets.get(target)?.dashboards).toHaveLength(20);
    }
    const { runs, durations } = await applyUntilClean(['apply', '--prune']);
    await expectExactState();
    const data = await dump(emulator.url);
    for (const target of fleets.keys())
      for (const alert of liveOf(data, target).alerts) expect(alert.threshold).toBeGreaterThanOrEqual(500);
    console.info(`updates and deletes converged after ${runs.length} run(s) taking ${durations.join(', ')} ms`);
    const plan = await planUnderFaults(['plan', '--prune']);
    expect(plan.code, describeRun(plan)).toBe(0);
  }, 300_000);
});
