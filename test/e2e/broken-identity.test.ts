/**
 * One identity for a resource whose manifest is broken (issue 25, item 8). An applied alert's
 * manifest gets `threshold: "one"`: its body is invalid, but its file, kind and name are known. The
 * alert is an error at that line, named once, in the plan, in `/status` and in the metrics; it is
 * never an orphan ("no manifest names it; apply --prune deletes it") and never deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSum, startDaemon, waitUntil } from '../helpers/daemon.js';
import {
  alertYaml,
  dashboardYaml,
  describeRun,
  documents,
  liveTarget,
  parseJsonOutput,
  readState,
} from '../helpers/e2e.js';
import { sharedEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local';
const FILE = 'manifests/orders.yaml';
const shared = sharedEmulator();

interface StatusResource {
  kind: string;
  name: string;
  status: string;
  file?: string;
  line?: number;
  id?: string;
  code?: string;
}

describe('an applied alert whose manifest is broken', () => {
  let workspace: Workspace;
  let alertId: string;
  let thresholdLine: number;

  beforeAll(async () => {
    workspace = await shared.workspace({
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { maxDeletes: 1000, maxDeletePercent: 100 },
    });
    const good = documents([
      dashboardYaml({ key: 'orders', target: TARGET, tiles: ['lag'] }),
      alertYaml({ key: 'orders-stalled', target: TARGET, dashboard: 'orders', tile: 'lag' }),
    ]);
    await workspace.write(FILE, good);
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    alertId = (await readState(workspace.statePath)).targets[TARGET]?.inventory.Alert['orders-stalled']?.id ?? '';
    expect(alertId).not.toBe('');
    const broken = good.replace('threshold: 100', 'threshold: "one"');
    thresholdLine = broken.split('\n').findIndex((line) => line.includes('threshold: "one"')) + 1;
    await workspace.write(FILE, broken);
  });
  afterAll(async () => {
    await workspace?.dispose();
  });

  it('plan --prune: one error at its line, and no orphan or delete for it', async () => {
    const result = await workspace.run(['plan', '--prune', '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(1);
    const plan = parseJsonOutput(result);
    expect(plan.changes.filter((change) => change.kind === 'Alert' && change.name === 'orders-stalled')).toEqual([]);
    expect(plan.summary).toMatchObject({ orphan: 0, delete: 0 });
    expect(plan.errors).toEqual([
      expect.objectContaining({ file: FILE, line: thresholdLine, code: 'E_MANIFEST_INVALID', target: TARGET }),
    ]);

    const text = await workspace.run(['plan', '--prune']);
    expect(text.stdout).not.toContain('orphan');
    expect(text.stdout).toContain(`${FILE}:${thresholdLine}`);
  });

  it('apply --prune --force deletes nothing', async () => {
    const result = await workspace.run(['apply', '--prune', '--force']);
    expect(result.code, describeRun(result)).toBe(1);
    expect((await liveTarget(shared.emulator.url, TARGET)).alerts.map((alert) => alert.id)).toContain(alertId);
  });

  it('the daemon names it once in /status, as an error at its line, and counts it once, as an error', async () => {
    const daemon = await startDaemon(workspace, ['--log-level', 'warn']);
    try {
      await waitUntil(async () => (await daemon.get('/readyz')).status === 200, 30_000);
      const status = JSON.parse((await daemon.get('/status')).text) as {
        targets: Record<string, { resources: StatusResource[] }>;
      };
      const entries = (status.targets[TARGET]?.resources ?? []).filter(
        (resource) => resource.kind === 'Alert' && resource.name === 'orders-stalled',
      );
      expect(entries).toEqual([
        expect.objectContaining({
          status: 'error',
          file: expect.stringMatching(/manifests\/orders\.yaml$/),
          line: thresholdLine,
          code: 'E_MANIFEST_INVALID',
          id: alertId,
        }),
      ]);

      const metrics = (await daemon.get('/metrics')).text;
      expect(metricSum(metrics, 'stacksync_resources', { target: TARGET, kind: 'Alert', status: 'error' })).toBe(1);
      expect(metricSum(metrics, 'stacksync_resources', { target: TARGET, kind: 'Alert', status: 'orphan' })).toBe(0);
      expect(daemon.output().stdout).not.toContain('orphan');
    } finally {
      await daemon.stop();
    }
  });
});
