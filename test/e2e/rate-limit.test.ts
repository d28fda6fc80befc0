/**
 * A target configured above its server's budget (20 requests a second against 10) provokes 429s.
 * The client pauses the whole budget for the server's Retry-After and retries; a retried request
 * goes before fresh ones, or it could lose the race for the next window every time and give up
 * after its last attempt (the benchmark lost 2 to 4 of 300 creates that way). One apply creates
 * every dashboard, exactly once, and exits 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { describeRun, dump, generateFleet, liveOf, writeFiles, type Fleet } from '../helpers/e2e.js';
import { createWorkspace, emulatorStats, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const SERVER_LIMIT = 10;
const DASHBOARDS = 150;

describe('apply configured at twice the server budget', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let fleet: Fleet;

  beforeAll(async () => {
    emulator = await startTestEmulator({ rateLimit: SERVER_LIMIT });
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: SERVER_LIMIT * 2, perSeconds: 1, concurrency: 4 },
    });
    fleet = generateFleet({
      target: 'local',
      prefix: 'rl',
      dashboards: DASHBOARDS,
      tilesPerDashboard: 1,
      alertsPerDashboard: 0,
    });
    await writeFiles(workspace, fleet.files);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('recovers from the 429s it provokes and loses nothing: every dashboard once, exit 0', async () => {
    const result = await workspace.run(['apply'], { timeoutMs: 120_000 });
    expect(result.code, describeRun(result)).toBe(0);
    const names = liveOf(await dump(emulator.url), 'local').dashboards.map((dashboard) => dashboard.name);
    expect(names.length).toBe(DASHBOARDS);
    expect(new Set(names)).toEqual(new Set(fleet.dashboardNames));
    // It did provoke them: otherwise this test would not be about recovering.
    expect((await emulatorStats(emulator.url)).throttled).toBeGreaterThan(0);
  }, 150_000);
});
