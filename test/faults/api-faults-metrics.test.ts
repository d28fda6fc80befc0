/**
 * API faults, short form (issue 8): under `error=0.2,throttle=0.1,reset=0.05,spike=0.05:200ms`
 * the daemon converges with no duplicate, and every failure is visible in its metrics: each
 * 500, 503 and 429 the emulator sent, and each connection it cut, is counted in
 * `stacksync_api_requests_total` under the same method and route template (a cut as code
 * `error`), and the retries they caused are in `stacksync_api_retries_total` by reason.
 * (The apply side of this, repeated runs to convergence, is in test/e2e/apply-faults.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { metricSum, startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { dump, expectExactly, generateFleet, liveOf, writeFiles, type Fleet, type TargetName } from '../helpers/e2e.js';
import { createWorkspace, emulatorStats, startTestEmulator, type Workspace } from '../helpers/workspace.js';
import { seededRandom } from '../helpers/random.js';

const FAULTS = 'error=0.2,throttle=0.1,reset=0.05,spike=0.05:200ms';

interface TargetStatus {
  lastResult?: string;
  resources: { status: string }[];
}

describe(`daemon under API faults (${FAULTS})`, () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let daemon: RunningDaemon;
  const fleets = new Map<TargetName, Fleet>();

  beforeAll(async () => {
    emulator = await startTestEmulator({ faults: FAULTS, random: seededRandom(8) });
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    fleets.set(
      'local',
      generateFleet({ target: 'local', prefix: 'mf', dashboards: 10, tilesPerDashboard: 2, alertsPerDashboard: 2 }),
    );
    fleets.set(
      'local-selfhosted',
      generateFleet({
        target: 'local-selfhosted',
        prefix: 'sf',
        dashboards: 10,
        tilesPerDashboard: 2,
        alertsPerDashboard: 2,
      }),
    );
    for (const fleet of fleets.values()) await writeFiles(workspace, fleet.files);
    daemon = await startDaemon(workspace, ['--log-level', 'warn']);
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
    await workspace?.dispose();
    await emulator?.close();
  });

  it('converges: every resource in sync, no duplicate, nothing missing', async () => {
    await waitUntil(
      async () => {
        const status = JSON.parse((await daemon.get('/status')).text) as { targets?: Record<string, TargetStatus> };
        return [...fleets.keys()].every((target) => {
          const resources = status.targets?.[target]?.resources ?? [];
          const fleet = fleets.get(target);
          const want = (fleet?.dashboards.length ?? 0) + (fleet?.alerts.length ?? 0);
          return (
            status.targets?.[target]?.lastResult === 'success' &&
            resources.length === want &&
            resources.every((r) => r.status === 'in_sync')
          );
        });
      },
      90_000,
      250,
    );
    const data = await dump(emulator.url);
    for (const [target, fleet] of fleets)
      expectExactly(liveOf(data, target), { dashboards: fleet.dashboardNames, alerts: fleet.alertNames });
  }, 100_000);

  it('counts every failed response and cut connection under its route, and the retries by reason', async () => {
    const metrics = (await daemon.get('/metrics')).text;
    const stats = await emulatorStats(emulator.url);
    const seen = { 500: 0, 503: 0, 429: 0, reset: 0 };
    /** Failures of reads, which are always safe to retry (a create that failed may have happened, so it is looked up instead). */
    const onReads = { 500: 0, 503: 0, 429: 0, reset: 0 };
    for (const route of stats.routes) {
      for (const [status, count] of Object.entries(route.statuses)) {
        const code = status === 'reset' ? 'error' : status;
        expect(
          metricSum(metrics, 'stacksync_api_requests_total', { method: route.method, route: route.route, code }),
          `${route.method} ${route.route} ${status}`,
        ).toBe(count);
        if (!(status in seen)) continue;
        seen[status as keyof typeof seen] += count;
        if (route.method === 'GET') onReads[status as keyof typeof seen] += count;
      }
    }
    // The faults were really injected, each kind.
    expect(seen[500] + seen[503]).toBeGreaterThan(0);
    expect(seen[429]).toBeGreaterThan(0);
    expect(seen.reset).toBeGreaterThan(0);
    const retries = (reason: string): number => metricSum(metrics, 'stacksync_api_retries_total', { reason });
    // A 429 was not processed, so every one is retried, whatever the method.
    expect(retries('throttled')).toBeGreaterThan(0);
    expect(retries('throttled')).toBeLessThanOrEqual(seen[429]);
    if (onReads[500] + onReads[503] > 0) expect(retries('server_error')).toBeGreaterThan(0);
    if (onReads.reset > 0) expect(retries('connection')).toBeGreaterThan(0);
    expect(retries('server_error')).toBeLessThanOrEqual(seen[500] + seen[503]);
    expect(retries('connection')).toBeLessThanOrEqual(seen.reset);
    const resources = [...fleets.values()].reduce(
      (sum, fleet) => sum + fleet.dashboards.length + fleet.alerts.length,
      0,
    );
    expect(metricSum(metrics, 'stacksync_resources', { status: 'in_sync' })).toBe(resources);
  });
});
