/**
 * `POST /-/suspend` and `/-/resume` (issue 13): behind the bearer token of `control.token`, off
 * without one. A target suspended at run time is read and reported, and an edit made outside
 * stacksync is not healed until it is resumed.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/daemon.js';
import { startHttpServer } from '../../src/daemon/http.js';
import { createMetrics, type Metrics } from '../../src/daemon/metrics.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dashboardName, dashboardYaml, liveTarget, updateDashboardOutOfBand, waitFor } from '../helpers/e2e.js';
import { startInProcessDaemon } from '../helpers/in-process-daemon.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local-selfhosted';
const TOKEN = 'control-token-123';

interface StatusJson {
  targets: Record<string, { suspended?: boolean; lastSyncAt?: string; resources: { name: string; status: string }[] }>;
}

describe('suspend and resume over HTTP', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let stopDaemon: (() => Promise<void>) | undefined;
  let daemon: Daemon;
  let metrics: Metrics;

  const post = (path: string, token?: string): Promise<Response> =>
    fetch(`${daemon.url}${path}`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} });
  const status = async (): Promise<StatusJson> => (await (await fetch(`${daemon.url}/status`)).json()) as StatusJson;
  const liveWidth = async (): Promise<number | undefined> =>
    (await liveTarget(emulator.url, TARGET)).dashboards.find((d) => d.name === dashboardName('web'))?.tiles[0]?.w;
  const syncedAfter = async (action: () => Promise<unknown>): Promise<void> => {
    const before = (await status()).targets[TARGET]?.lastSyncAt;
    await action();
    await waitFor(async () => (await status()).targets[TARGET]?.lastSyncAt !== before, 30_000, 20);
  };

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write('config/stacksync.yaml', `${config}control: { token: { fromEnv: CONTROL_TOKEN } }\n`);
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: TARGET, tiles: [{ name: 'p99', w: 6 }] }),
    );
    metrics = createMetrics({ defaultMetrics: false });
    ({ daemon, stop: stopDaemon } = await startInProcessDaemon(workspace, { metrics, env: { CONTROL_TOKEN: TOKEN } }));
  }, 60_000);
  afterAll(async () => {
    await stopDaemon?.();
    await workspace?.dispose();
    await emulator?.close();
  });

  it('refuses a request without the token, with a wrong one, for no target or an unknown one', async () => {
    const missing = await post(`/-/suspend?target=${TARGET}`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await post(`/-/suspend?target=${TARGET}`, 'wrong-token-12345')).status).toBe(401);
    expect((await post('/-/suspend', TOKEN)).status).toBe(400);
    expect((await post('/-/suspend?target=nope', TOKEN)).status).toBe(404);
    expect((await status()).targets[TARGET]?.suspended).toBeUndefined();
  });

  it('a target suspended at run time is reported suspended and an edit outside stacksync is not healed', async () => {
    await syncedAfter(async () => expect((await post(`/-/suspend?target=${TARGET}`, TOKEN)).status).toBe(202));
    const live = (await liveTarget(emulator.url, TARGET)).dashboards.find((d) => d.name === dashboardName('web'));
    if (!live) throw new Error('Dashboard web is not live');
    await updateDashboardOutOfBand(emulator.url, TARGET, live.id, {
      name: live.name,
      tags: live.tags,
      tiles: live.tiles.map((tile) => ({ ...tile, w: 11 })),
    });
    await syncedAfter(async () => daemon.scheduler.trigger('resync', [TARGET]));
    const target = (await status()).targets[TARGET];
    expect(target?.suspended).toBe(true);
    expect(target?.resources.map((r) => `${r.name}:${r.status}`)).toEqual(['web:suspended']);
    expect(await liveWidth()).toBe(11);
  });

  it('resuming syncs at once and heals', async () => {
    await syncedAfter(async () => expect((await post(`/-/resume?target=${TARGET}`, TOKEN)).status).toBe(202));
    expect((await status()).targets[TARGET]?.suspended).toBeUndefined();
    expect(await liveWidth()).toBe(6);
  });
});

describe('without control.token', () => {
  it('the endpoints are off', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      registry: metrics.registry,
      status: () => ({ version: 1, generatedAt: '', ready: true, targets: {} }),
      ready: () => true,
      onReload: () => undefined,
    });
    try {
      const response = await fetch(`${server.url}/-/suspend?target=x`, {
        method: 'POST',
        headers: { authorization: 'Bearer anything' },
      });
      expect(response.status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
