/**
 * A daemon with `sync.drift: propose` started without a pull core (`DaemonOptions.pullDrift`, as
 * a library embedding may start it; `stacksync run` always passes one): it applies what comes
 * from Git, never undoes the live edit, and says proposing is unavailable instead of pretending a
 * proposal (docs/daemon.md, "Drift proposed as a branch").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/daemon.js';
import { createMetrics } from '../../src/daemon/metrics.js';
import type { StatusDocument } from '../../src/daemon/status.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { renderStatusText } from '../../src/cli/status-text.js';
import { dashboardName, dashboardYaml, liveTarget, updateDashboardOutOfBand } from '../helpers/e2e.js';
import { startInProcessDaemon } from '../helpers/in-process-daemon.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local-selfhosted';

describe('sync.drift: propose without a pull core', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let stopDaemon: (() => Promise<void>) | undefined;
  let daemon: Daemon;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { drift: 'propose', propose: { author: { name: 'stacksync', email: 'bot@example.com' }, base: 'main' } },
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
    // From Git: applied as heal would.
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

  it('leaves the live edit, applies the change from Git, and says proposing is unavailable', async () => {
    const status = (await (await fetch(`${daemon.url}/status`)).json()) as StatusDocument;
    const target = status.targets[TARGET];
    expect(target?.lastResult).toBe('success');
    expect(target?.resources).toEqual([
      expect.objectContaining({ kind: 'Dashboard', name: 'fresh', status: 'in_sync' }),
      expect.objectContaining({
        kind: 'Dashboard',
        name: 'web',
        status: 'drifted',
        cause: 'live',
        diff: [{ path: 'tiles[main].w', before: 6, after: 12 }],
      }),
    ]);
    expect(target?.resources[1]).not.toHaveProperty('proposed');
    expect(target?.proposal).toEqual({
      branch: `stacksync/drift/${TARGET}`,
      code: 'E_PROPOSE_UNAVAILABLE',
      error: expect.stringMatching(/^proposing is unavailable/),
    });
    const live = await liveTarget(emulator.url, TARGET);
    expect(live.dashboards.find((dashboard) => dashboard.name === dashboardName('web'))?.tiles[0]?.w).toBe(6);
    expect(live.dashboards.map((dashboard) => dashboard.name)).toContain(dashboardName('fresh'));
    // What `stacksync status` prints: no proposal claimed.
    const text = renderStatusText(status);
    expect(text).toMatch(
      /drift proposal: nothing proposed on stacksync\/drift\/local-selfhosted; proposing is unavailable.*\(E_PROPOSE_UNAVAILABLE\)/,
    );
    expect(text).not.toMatch(/drift proposed on/);
  });
});
