/**
 * `/status` of a daemon that only reports drift (`sync.drift: report`): a resource edited behind
 * its back is `drifted` with the fields that differ (one not created yet without them) (what the status page and `stacksync status`
 * show), and each target tells how long its last sync took and how much of it waited for the budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/daemon.js';
import { createMetrics } from '../../src/daemon/metrics.js';
import type { StatusDocument } from '../../src/daemon/status.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dashboardName, dashboardYaml, liveTarget, updateDashboardOutOfBand } from '../helpers/e2e.js';
import { startInProcessDaemon } from '../helpers/in-process-daemon.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local-selfhosted';

describe('/status of drift that is only reported', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let stopDaemon: (() => Promise<void>) | undefined;
  let daemon: Daemon;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { drift: 'report' },
    });
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: TARGET, tiles: [{ name: 'main', w: 12 }] }),
    );
    const applied = await workspace.run(['apply']);
    expect(applied.code, applied.stderr).toBe(0);
    const web = (await liveTarget(emulator.url, TARGET)).dashboards.find(
      (dashboard) => dashboard.name === dashboardName('web'),
    );
    if (!web) throw new Error('not created');
    await updateDashboardOutOfBand(emulator.url, TARGET, web.id, {
      name: web.name,
      tags: web.tags,
      tiles: web.tiles.map((tile) => ({ ...tile, w: 6 })),
    });
    // Not applied: a resource the daemon would create.
    await workspace.write('manifests/fresh.yaml', dashboardYaml({ key: 'fresh', target: TARGET }));
    ({ daemon, stop: stopDaemon } = await startInProcessDaemon(workspace, {
      metrics: createMetrics({ defaultMetrics: false }),
    }));
  }, 60_000);
  afterAll(async () => {
    await stopDaemon?.();
    await workspace?.dispose();
    await emulator?.close();
  });

  it('shows the drifted resource with the fields that differ, live and manifest', async () => {
    const status = (await (await fetch(`${daemon.url}/status`)).json()) as StatusDocument;
    const target = status.targets[TARGET];
    expect(target?.resources).toEqual([
      expect.objectContaining({ kind: 'Dashboard', name: 'fresh', status: 'drifted', cause: 'git' }),
      expect.objectContaining({
        kind: 'Dashboard',
        name: 'web',
        status: 'drifted',
        cause: 'live',
        diff: [{ path: 'tiles[main].w', before: 6, after: 12 }],
        path: expect.stringMatching(/web\.yaml$/),
        line: 1,
      }),
    ]);
    // One not created yet carries no diff: it would be the whole manifest, copied on every read of the status.
    expect(target?.resources[0]).not.toHaveProperty('diff');
    expect(target?.lastSyncSeconds).toBeGreaterThan(0);
    expect(target?.lastSyncWaitSeconds).toBeGreaterThanOrEqual(0);
    // Reported, not healed.
    expect((await liveTarget(emulator.url, TARGET)).dashboards[0]?.tiles[0]?.w).toBe(6);
  });
});
