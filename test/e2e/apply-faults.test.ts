/**
 * Under injected faults (`error=0.2,throttle=0.1,reset=0.05`: 500/503s, 429s with Retry-After and
 * cut connections), an apply of 200 dashboards and alerts over both targets converges in repeated
 * runs, with no duplicate and nothing missing (issue 5). The client's default retries apply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { describeRun, dump, expectExactly, expectStateMatchesLive, generateFleet, liveOf, readState, writeFiles, type Fleet } from '../helpers/e2e.js';
import { createWorkspace, emulatorStats, startTestEmulator, type CliResult, type Workspace } from '../helpers/workspace.js';

const FAULTS = 'error=0.2,throttle=0.1,reset=0.05';
const MAX_RUNS = 15;

describe(`apply under faults (${FAULTS})`, () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  const fleets = new Map<'local' | 'local-selfhosted', Fleet>();

  beforeAll(async () => {
    emulator = await startTestEmulator({ faults: FAULTS });
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 8 } });
    // 2 × (25 dashboards + 75 alerts) = 200 resources.
    fleets.set('local', generateFleet({ target: 'local', prefix: 'fm', dashboards: 25, tilesPerDashboard: 3, alertsPerDashboard: 3 }));
    fleets.set('local-selfhosted', generateFleet({ target: 'local-selfhosted', prefix: 'fs', dashboards: 25, tilesPerDashboard: 3, alertsPerDashboard: 3 }));
    for (const fleet of fleets.values()) await writeFiles(workspace, fleet.files);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('converges in repeated runs with no duplicate dashboards or alerts', async () => {
    const runs: CliResult[] = [];
    const durations: number[] = [];
    for (let i = 0; i < MAX_RUNS; i++) {
      const started = Date.now();
      const result = await workspace.run(['apply'], { timeoutMs: 120_000 });
      durations.push(Date.now() - started);
      runs.push(result);
      if (result.code === 0) break;
      // A failed run must still leave a consistent world behind: never a duplicate.
      const data = await dump(emulator.url);
      for (const target of fleets.keys()) {
        const live = liveOf(data, target);
        expect(new Set(live.dashboards.map((d) => d.name)).size, `run ${i + 1}: duplicate dashboards on ${target}`).toBe(live.dashboards.length);
        expect(new Set(live.alerts.map((a) => a.name)).size, `run ${i + 1}: duplicate alerts on ${target}`).toBe(live.alerts.length);
      }
    }
    const last = runs[runs.length - 1];
    expect(last?.code, `no clean run in ${MAX_RUNS}; last: ${last ? describeRun(last) : 'none'}`).toBe(0);
    // The faults really were there.
    const stats = await emulatorStats(emulator.url);
    expect(stats.throttled).toBeGreaterThan(0);
    expect(stats.routes.some((route) => (route.statuses['500'] ?? 0) + (route.statuses['503'] ?? 0) > 0)).toBe(true);
    expect(stats.routes.some((route) => (route.statuses['reset'] ?? 0) > 0)).toBe(true);

    const data = await dump(emulator.url);
    const state = await readState(workspace.statePath);
    for (const [target, fleet] of fleets) {
      expectExactly(liveOf(data, target), { dashboards: fleet.dashboardNames, alerts: fleet.alertNames });
      expectStateMatchesLive(state, data, target, { dashboards: fleet.dashboards, alerts: fleet.alerts });
    }
    console.info(`converged after ${runs.length} run(s) taking ${durations.join(', ')} ms; ${stats.total} requests, ${stats.throttled} throttled`);
  }, 300_000);

  it('then plans no changes, still under faults', async () => {
    const plan = await workspace.run(['plan', '--detailed-exitcode'], { timeoutMs: 60_000 });
    expect(plan.code, describeRun(plan)).toBe(0);
  }, 60_000);
});
