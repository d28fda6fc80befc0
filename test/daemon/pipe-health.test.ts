/**
 * Pipe health end to end (issue 13): the emulator is seeded with a Failed pipe and a pipe in a
 * state stacksync does not know; /status shows the first degraded and the second as it is,
 * `stacksync_pipe_state` is 1 for each current state, and the plan warns about the failed one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/daemon.js';
import { createMetrics, type Metrics } from '../../src/daemon/metrics.js';
import { DEFAULT_SEED_IDS, defaultSeed, type RunningEmulator } from '../../src/emulator/index.js';
import { describeRun } from '../helpers/e2e.js';
import { startInProcessDaemon } from '../helpers/in-process-daemon.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const pipe = (name: string, id: string): string => `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: ${name}
  target: local
spec:
  pipeId: ${id}
`;

describe('pipe health', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let stopDaemon: (() => Promise<void>) | undefined;
  let daemon: Daemon;
  let metrics: Metrics;

  beforeAll(async () => {
    const seed = defaultSeed();
    const pipes = seed.organizations?.[0]?.services?.[0]?.pipes ?? [];
    for (const seeded of pipes) {
      if (seeded.id === DEFAULT_SEED_IDS.pipes.kafka) seeded.state = 'Failed';
      if (seeded.id === DEFAULT_SEED_IDS.pipes.kinesis) seeded.state = 'Provisioning';
    }
    emulator = await startTestEmulator({ seed });
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write('manifests/orders.yaml', pipe('orders', DEFAULT_SEED_IDS.pipes.kafka));
    await workspace.write('manifests/events.yaml', pipe('events', DEFAULT_SEED_IDS.pipes.kinesis));
    metrics = createMetrics({ defaultMetrics: false });
    ({ daemon, stop: stopDaemon } = await startInProcessDaemon(workspace, { metrics }));
  }, 60_000);
  afterAll(async () => {
    await stopDaemon?.();
    await workspace?.dispose();
    await emulator?.close();
  });

  it('/status shows a Failed pipe degraded, and a state it does not know as it is', async () => {
    const status = (await (await fetch(`${daemon.url}/status`)).json()) as {
      targets: Record<string, { resources: { name: string; status: string; state?: string; health?: string }[] }>;
    };
    const resources = status.targets['local']?.resources ?? [];
    expect(resources.find((r) => r.name === 'orders')).toMatchObject({
      status: 'in_sync',
      state: 'Failed',
      health: 'degraded',
    });
    expect(resources.find((r) => r.name === 'events')).toMatchObject({
      status: 'in_sync',
      state: 'Provisioning',
      health: 'healthy',
    });
  });

  it('stacksync_pipe_state is 1 for the current state of each pipe', async () => {
    const text = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(text).toContain('stacksync_pipe_state{target="local",name="orders",state="Failed"} 1');
    expect(text).toContain('stacksync_pipe_state{target="local",name="orders",state="Running"} 0');
    expect(text).toContain('stacksync_pipe_state{target="local",name="events",state="Provisioning"} 1');
  });

  it('plan warns about the degraded pipe and exits 0', async () => {
    const plan = await workspace.run(['plan']);
    expect(plan.code, describeRun(plan)).toBe(0);
    expect(plan.stdout).toMatch(/Pipe\/orders is degraded: its live state is Failed/);
    expect(plan.stdout).not.toMatch(/Pipe\/events is degraded/);
  });
});
