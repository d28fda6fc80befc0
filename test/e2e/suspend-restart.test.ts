/**
 * A suspension made over HTTP outlasts the daemon (issue 25, item 9): an operator who suspends a
 * target during an incident keeps it suspended when the pod is rescheduled. The built CLI's
 * `run`, stopped with SIGTERM and started again on the same workspace: the state file holds the
 * suspension with its reason and author, `/status` shows them, a live edit is not healed, and
 * `POST /-/resume` lifts it for good.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { dashboardName, dashboardYaml, liveTarget, readState, updateDashboardOutOfBand } from '../helpers/e2e.js';
import { sharedEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local-selfhosted';
const TOKEN = 'control-token-456';
const REASON = 'incident 42: "orders" paused — do not touch';

interface TargetJson {
  suspended?: boolean;
  suspension?: { since: string; reason?: string; by?: string };
  lastSyncAt?: string;
  resources: { name: string; status: string }[];
}

const shared = sharedEmulator();

describe('a suspension made over HTTP, across restarts', () => {
  let workspace: Workspace;
  let daemon: RunningDaemon | undefined;

  const start = async (): Promise<RunningDaemon> => {
    daemon = await startDaemon(workspace, ['--log-level', 'warn'], { CONTROL_TOKEN: TOKEN });
    const running = daemon;
    await waitUntil(async () => (await running.get('/readyz')).status === 200, 30_000);
    return running;
  };
  const stop = async (): Promise<void> => {
    const stopped = await daemon?.stop();
    daemon = undefined;
    expect(stopped?.code).toBe(0);
  };
  const post = (running: RunningDaemon, path: string): Promise<Response> =>
    fetch(`${running.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
  const targetStatus = async (running: RunningDaemon): Promise<TargetJson> =>
    (JSON.parse((await running.get('/status')).text) as { targets: Record<string, TargetJson> }).targets[
      TARGET
    ] as TargetJson;
  const liveDashboard = async () => {
    const live = (await liveTarget(shared.emulator.url, TARGET)).dashboards.find(
      (d) => d.name === dashboardName('held'),
    );
    if (!live) throw new Error('Dashboard held is not live');
    return live;
  };
  const liveWidth = async (): Promise<number | undefined> => (await liveDashboard()).tiles[0]?.w;
  /** Waits for a sync of the target that finished after `action`. */
  const syncedAfter = async (running: RunningDaemon, action: () => Promise<unknown>): Promise<void> => {
    const before = (await targetStatus(running)).lastSyncAt;
    await action();
    await waitUntil(async () => (await targetStatus(running)).lastSyncAt !== before, 30_000);
  };

  beforeAll(async () => {
    workspace = await shared.workspace({ rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write('config/stacksync.yaml', `${config}control: { token: { fromEnv: CONTROL_TOKEN } }\n`);
    await workspace.write(
      'manifests/held.yaml',
      dashboardYaml({ key: 'held', target: TARGET, tiles: [{ name: 'p99', w: 6 }] }),
    );
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('is recorded with its reason and author, and /status shows them', async () => {
    const running = await start();
    const query = new URLSearchParams({ target: TARGET, reason: REASON, by: 'alice@example.com' });
    await syncedAfter(running, async () => expect((await post(running, `/-/suspend?${query}`)).status).toBe(202));
    const status = await targetStatus(running);
    expect(status).toMatchObject({ suspended: true, suspension: { reason: REASON, by: 'alice@example.com' } });
    expect(Date.parse(status.suspension?.since ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(status.resources.map((r) => `${r.name}:${r.status}`)).toEqual(['held:suspended']);
    expect((await readState(workspace.statePath)).targets[TARGET]?.suspension).toEqual(status.suspension);
  });

  it('holds after a restart: reported as before, and a live edit is not healed', async () => {
    const before = (await readState(workspace.statePath)).targets[TARGET]?.suspension;
    await stop();
    const live = await liveDashboard();
    await updateDashboardOutOfBand(shared.emulator.url, TARGET, live.id, {
      name: live.name,
      tags: live.tags,
      tiles: live.tiles.map((tile) => ({ ...tile, w: 11 })),
    });
    const running = await start();
    const status = await targetStatus(running);
    expect(status.suspended).toBe(true);
    expect(status.suspension).toEqual(before);
    expect(status.resources.map((r) => `${r.name}:${r.status}`)).toEqual(['held:suspended']);
    expect(await liveWidth()).toBe(11);
  });

  it('a reason that is not one line of text is refused, and the suspension stays as it was', async () => {
    const running = daemon as RunningDaemon;
    const query = new URLSearchParams({ target: TARGET, reason: 'two\nlines' });
    const response = await post(running, `/-/suspend?${query}`);
    expect([response.status, await response.text()]).toEqual([
      400,
      'the reason query parameter holds a control character (a line break, a tab, …)\n',
    ]);
    expect((await targetStatus(running)).suspension?.reason).toBe(REASON);
  });

  it('POST /-/resume lifts it: the edit is healed, and it stays lifted after another restart', async () => {
    const running = daemon as RunningDaemon;
    await syncedAfter(running, async () =>
      expect((await post(running, `/-/resume?target=${TARGET}`)).status).toBe(202),
    );
    expect(await liveWidth()).toBe(6);
    expect((await readState(workspace.statePath)).targets[TARGET]?.suspension).toBeUndefined();
    await stop();
    const again = await start();
    const status = await targetStatus(again);
    expect(status.suspended).toBeUndefined();
    expect(status.suspension).toBeUndefined();
    expect(status.resources.map((r) => `${r.name}:${r.status}`)).toEqual(['held:in_sync']);
  });
});
