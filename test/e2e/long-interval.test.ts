/**
 * A resync interval past what a timer holds (issue 15, item 3): `sync.interval: 30d` once made an
 * idle daemon send thousands of requests a second, because Node fires any delay above 24.8 days
 * at once. The config now refuses it, naming the maximum, before anything is sent; the longest
 * interval it accepts leaves an idle daemon idle.
 */
import { describe, expect, it } from 'vitest';
import { startDaemon, waitUntil } from '../helpers/daemon.js';
import { dashboardYaml, describeRun } from '../helpers/e2e.js';
import { sharedEmulator, emulatorStats, resetEmulatorStats, type Workspace } from '../helpers/workspace.js';

const shared = sharedEmulator();

async function workspaceWithInterval(interval: string): Promise<Workspace> {
  const workspace = await shared.workspace({
    rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
    sync: { interval },
  });
  await workspace.write('manifests/idle.yaml', dashboardYaml({ key: `idle-${interval}`, target: 'local-selfhosted' }));
  return workspace;
}

describe('a long resync interval', () => {
  it('30d: run refuses the config, naming the maximum, and sends nothing', async () => {
    const workspace = await workspaceWithInterval('30d');
    await resetEmulatorStats(shared.emulator.url);
    const result = await workspace.run(['run', '--listen', '127.0.0.1:0', '--once'], { timeoutMs: 20_000 });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toMatch(
      /E_CONFIG_INVALID: .*config\/stacksync\.yaml:\d+:\d+: sync\.interval: must be at most 7d/,
    );
    expect((await emulatorStats(shared.emulator.url)).total).toBe(0);
  });

  it('7d, the longest accepted: an idle daemon sends nothing after its first sync', async () => {
    const workspace = await workspaceWithInterval('7d');
    const daemon = await startDaemon(workspace, ['--log-level', 'warn']);
    try {
      await waitUntil(async () => (await daemon.get('/readyz')).status === 200, 30_000);
      await resetEmulatorStats(shared.emulator.url);
      // A hot loop shows within a second (thousands of requests); three leave no doubt.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await emulatorStats(shared.emulator.url)).total).toBe(0);
    } finally {
      await daemon.stop();
    }
  });
});
