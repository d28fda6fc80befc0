/**
 * Notifications from the daemon end to end (issue 13): the daemon syncs against the emulator and
 * a loopback receiver gets what it applied, one `failed` over three failing resyncs, and one
 * `recovered` once the manifest is fixed; `stacksync_notifications_total` counts them.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/daemon.js';
import { createMetrics, type Metrics } from '../../src/daemon/metrics.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dashboardYaml, waitFor } from '../helpers/e2e.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startInProcessDaemon } from '../helpers/in-process-daemon.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local-selfhosted';

interface Body {
  event: string;
  target: string;
  summary: string;
  counts: Record<string, number>;
  resources: { kind: string; name: string; action: string; file?: string; line?: number }[];
  error?: { code?: string; file?: string; line?: number; message: string };
}

describe('notifications from the daemon', () => {
  let emulator: RunningEmulator;
  let receiver: Receiver;
  let workspace: Workspace;
  let stopDaemon: (() => Promise<void>) | undefined;
  let daemon: Daemon;
  let metrics: Metrics;

  const events = (): Body[] => receiver.received.map((request) => request.json as Body);
  const lastSync = async (): Promise<string | undefined> => daemon.status.target(TARGET)?.lastSyncAt;
  const resync = async (): Promise<void> => {
    const before = await lastSync();
    daemon.scheduler.trigger('resync', [TARGET]);
    await waitFor(async () => (await lastSync()) !== before, 30_000, 20);
  };

  beforeAll(async () => {
    emulator = await startTestEmulator();
    receiver = await startReceiver();
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write(
      'config/stacksync.yaml',
      `${config}notify:\n  - provider: webhook\n    url: ${receiver.url}/hooks\n    secret: { fromEnv: HOOK_KEY }\n    targets: [${TARGET}]\n`,
    );
    await workspace.write('manifests/web.yaml', dashboardYaml({ key: 'web', target: TARGET, tiles: ['p99', 'p50'] }));
    metrics = createMetrics({ defaultMetrics: false });
    ({ daemon, stop: stopDaemon } = await startInProcessDaemon(workspace, {
      metrics,
      env: { HOOK_KEY: 'receiver-key' },
      listen: false,
    }));
  }, 60_000);
  afterAll(async () => {
    await stopDaemon?.();
    await workspace?.dispose();
    await receiver?.close();
    await emulator?.close();
  });

  it('tells what the first sync applied: the kinds, names and counts', async () => {
    await waitFor(() => receiver.received.length >= 1, 10_000, 20);
    expect(events()).toEqual([
      expect.objectContaining({
        event: 'applied',
        target: TARGET,
        counts: { created: 1 },
        resources: [
          { kind: 'Dashboard', name: 'web', action: 'create', file: expect.stringMatching(/web\.yaml$/), line: 1 },
        ],
        summary: `applied 1 change to ${TARGET}: 1 created (Dashboard/web)`,
      }),
    ]);
    expect(receiver.received[0]?.headers['x-stacksync-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('tells a failure once over three failing resyncs, then one recovery', async () => {
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: TARGET, tiles: ['p99', 'p50'] }).replace('w: 12', 'w: 0'),
    );
    for (let i = 0; i < 3; i++) await resync();
    expect(daemon.status.target(TARGET)?.lastResult).toBe('failure');
    await waitFor(() => events().some((e) => e.event === 'failed'), 10_000, 20);
    await workspace.write('manifests/web.yaml', dashboardYaml({ key: 'web', target: TARGET, tiles: ['p99', 'p50'] }));
    await resync();
    await resync();
    await waitFor(() => events().some((e) => e.event === 'recovered'), 10_000, 20);
    expect(events().map((e) => e.event)).toEqual(['applied', 'failed', 'recovered']);
    const failed = events()[1];
    expect(failed?.error).toMatchObject({
      code: 'E_MANIFEST_INVALID',
      file: expect.stringMatching(/web\.yaml$/),
      line: 12,
    });
    expect(failed?.summary).toMatch(/^sync of local-selfhosted failed: .*w.* at .*web\.yaml:12$/);
    const sent = (await metrics.notifications.get()).values
      .filter((v) => v.labels.result === 'sent')
      .reduce((sum, v) => sum + v.value, 0);
    expect(sent).toBe(3);
  });
});
