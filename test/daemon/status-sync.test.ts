/**
 * `/status` and the resources gauge after a sync that wrote (issue 15, item 9): a resource created
 * in the sync shows the id it got, and one pruned in the sync is gone at once, not listed
 * `in_sync` (and counted) until the next one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/daemon.js';
import { createMetrics, type Metrics } from '../../src/daemon/metrics.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dashboardName, dashboardYaml, liveTarget, waitFor } from '../helpers/e2e.js';
import { startInProcessDaemon } from '../helpers/in-process-daemon.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local-selfhosted';

interface StatusJson {
  targets: Record<
    string,
    {
      lastResult?: string;
      lastSyncAt?: string;
      resources: { kind: string; name: string; status: string; id?: string }[];
    }
  >;
}

describe('/status after a sync that created and pruned', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let stopDaemon: (() => Promise<void>) | undefined;
  let daemon: Daemon;
  let metrics: Metrics;

  const status = async (): Promise<StatusJson> => (await (await fetch(`${daemon.url}/status`)).json()) as StatusJson;
  const gauge = async (state: string): Promise<number> => {
    const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'stacksync_resources');
    return Number(
      metric?.values.find(
        (v) => v.labels['target'] === TARGET && v.labels['kind'] === 'Dashboard' && v.labels['status'] === state,
      )?.value ?? 0,
    );
  };

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { prune: true, maxDeletePercent: 100 },
    });
    await workspace.write('manifests/keep.yaml', dashboardYaml({ key: 'keep', target: TARGET }));
    await workspace.write('manifests/gone.yaml', dashboardYaml({ key: 'gone', target: TARGET }));
    metrics = createMetrics();
    ({ daemon, stop: stopDaemon } = await startInProcessDaemon(workspace, { metrics }));
  }, 60_000);
  afterAll(async () => {
    await stopDaemon?.();
    await workspace?.dispose();
    await emulator?.close();
  });

  it('shows the id each resource was created with in that sync', async () => {
    const live = await liveTarget(emulator.url, TARGET);
    const ids = Object.fromEntries(live.dashboards.map((d) => [d.name, d.id]));
    const resources = (await status()).targets[TARGET]?.resources ?? [];
    expect(resources).toEqual([
      expect.objectContaining({ kind: 'Dashboard', name: 'gone', status: 'in_sync', id: ids[dashboardName('gone')] }),
      expect.objectContaining({ kind: 'Dashboard', name: 'keep', status: 'in_sync', id: ids[dashboardName('keep')] }),
    ]);
    expect(resources.every((resource) => typeof resource.id === 'string' && resource.id !== '')).toBe(true);
  });

  it('drops a resource pruned in the sync at once, from /status and from the gauge', async () => {
    await workspace.remove('manifests/gone.yaml');
    const before = (await status()).targets[TARGET]?.lastSyncAt;
    daemon.reload();
    await waitFor(async () => (await status()).targets[TARGET]?.lastSyncAt !== before, 30_000, 50);
    expect((await liveTarget(emulator.url, TARGET)).dashboards.map((d) => d.name)).toEqual([dashboardName('keep')]);
    const target = (await status()).targets[TARGET];
    expect(target?.lastResult).toBe('success');
    expect(target?.resources.map((resource) => `${resource.name}:${resource.status}`)).toEqual(['keep:in_sync']);
    expect(await gauge('in_sync')).toBe(1);
  });

  it('shows a suspended resource as suspended, in /status and in the gauge', async () => {
    const manifest = dashboardYaml({ key: 'keep', target: TARGET }).replace(
      'metadata:\n',
      'metadata:\n  annotations: { stacksync.io/suspend: "true" }\n',
    );
    await workspace.write('manifests/keep.yaml', manifest);
    const before = (await status()).targets[TARGET]?.lastSyncAt;
    daemon.reload();
    await waitFor(async () => (await status()).targets[TARGET]?.lastSyncAt !== before, 30_000, 50);
    expect(
      (await status()).targets[TARGET]?.resources.map((resource) => `${resource.name}:${resource.status}`),
    ).toEqual(['keep:suspended']);
    expect(await gauge('suspended')).toBe(1);
    expect(await gauge('in_sync')).toBe(0);
  });
});
