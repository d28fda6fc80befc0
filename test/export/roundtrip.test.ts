/**
 * THE onboarding test: a target used by hand → `export` → `plan` shows nothing to change; with
 * `--adopt` stacksync owns what was exported (prune deletes it once its manifest is gone), and
 * without it nothing is owned until `apply --adopt`. Both variants, against the emulator.
 * Export runs in-process (`exportTarget`); plan and apply run the built CLI in the workspace.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { exportTarget, type ExportOutcome } from '../../src/cli/export.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { describeRun, liveTarget, parseJsonOutput, readState } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';
import { populate, populateDuplicate, type TargetName } from './live-fixtures.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };
const SEEDED_PIPES = 4;

async function exportInto(
  workspace: Workspace,
  target: TargetName,
  extra: { adopt?: boolean } = {},
): Promise<ExportOutcome> {
  const sink = { stdout: () => undefined, stderr: () => undefined, env: workspace.env };
  return exportTarget({ config: workspace.configPath, target, out: workspace.manifestsDir, ...extra }, sink);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe.each<TargetName>(['local', 'local-selfhosted'])('export --adopt, then plan (%s)', (target) => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let outcome: ExportOutcome;
  const pipes = target === 'local' ? SEEDED_PIPES : 0;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    await populate(emulator.url, target);
    // Same API name twice, as a console allows: only the one its alert watches can be exported.
    await populateDuplicate(emulator.url, target, 'API Latency');
    workspace = await createWorkspace(emulator.url, { rateLimit: FAST });
    outcome = await exportInto(workspace, target, { adopt: true });
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('writes one file per resource, named after the API names, and skips a same-named twin', async () => {
    expect(outcome.skipped).toMatchObject([
      {
        kind: 'Dashboard',
        name: 'API Latency',
        reason: expect.stringMatching(/2 live resources are named "API Latency"/),
      },
    ]);
    const files = await filesUnder(workspace.manifestsDir);
    const expected = [
      'alerts/api-p99-above-500-ms.yaml',
      'alerts/no-orders.yaml',
      'alerts/payment-failures.yaml',
      'dashboards/api-latency.yaml',
      'dashboards/orders-eu.yaml',
      ...(target === 'local'
        ? [
            'pipes/billing-postgres.yaml',
            'pipes/clicks-kinesis.yaml',
            'pipes/events-s3.yaml',
            'pipes/orders-kafka.yaml',
          ]
        : []),
    ].sort();
    expect(files).toEqual(expected);
    expect(outcome.files).toHaveLength(5 + pipes);
  });

  it('plan on the export has nothing to change, and shows the same-named twin it did not export as a conflict', async () => {
    await resetEmulatorStats(emulator.url);
    const json = parseJsonOutput(await workspace.run(['plan', '--output', 'json', '--target', target]));
    expect(json.summary).toEqual({
      create: 0,
      update: 0,
      replace: 0,
      delete: 0,
      adopt: 0,
      orphan: 0,
      suspended: 0,
      unchanged: 5 + pipes,
      errors: 1,
    });
    // The twin of the adopted "API Latency" is never hidden behind an "all well" (issue 15).
    expect(json.changes.filter((change) => change.action !== 'unchanged')).toMatchObject([
      { kind: 'Dashboard', action: 'error', code: 'E_CONFLICT', name: expect.stringMatching(/^api-latency \(twin /) },
    ]);
    const result = await workspace.run(['plan', '--detailed-exitcode', '--target', target]);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stdout).toContain('a second live Dashboard named "API Latency"');
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
  });

  it('metadata.target is written only off the default target', async () => {
    const doc = parse(await readFile(join(workspace.manifestsDir, 'dashboards', 'orders-eu.yaml'), 'utf8')) as {
      metadata: Record<string, unknown>;
    };
    expect(doc.metadata).toEqual(
      target === 'local' ? { name: 'orders-eu' } : { name: 'orders-eu', target: 'local-selfhosted' },
    );
  });

  it('records every exported resource in the inventory', async () => {
    const state = await readState(workspace.statePath);
    const inventory = state.targets[target]?.inventory;
    expect(Object.keys(inventory?.Dashboard ?? {}).sort()).toEqual(['api-latency', 'orders-eu']);
    expect(Object.keys(inventory?.Alert ?? {}).sort()).toEqual([
      'api-p99-above-500-ms',
      'no-orders',
      'payment-failures',
    ]);
    expect(Object.keys(inventory?.Pipe ?? {})).toHaveLength(pipes);
  });

  it('refuses to overwrite the files on a second export, and replaces them with --force', async () => {
    await expect(exportInto(workspace, target)).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringMatching(/--force/),
    });
    const again = await exportTarget(
      { config: workspace.configPath, target, out: workspace.manifestsDir, force: true },
      { stdout: () => undefined, stderr: () => undefined, env: workspace.env },
    );
    // The inventory's keys win, so a re-export names everything the same.
    expect(again.files.map((file) => file.relativePath).sort()).toEqual(
      outcome.files.map((file) => file.relativePath).sort(),
    );
  });

  it('owns what it adopted: a removed manifest is pruned (and the twin, which it does not own, is not)', async () => {
    await workspace.remove('manifests/alerts/no-orders.yaml');
    const result = await workspace.run(['apply', '--prune', '--force', '--target', target, '--output', 'json']);
    // 1: the twin conflict is still there; everything else applied.
    expect(result.code, describeRun(result)).toBe(1);
    expect(
      parseJsonOutput(result)
        .changes.filter((change) => change.result !== 'ok')
        .map((change) => change.code),
    ).toEqual(['E_CONFLICT']);
    const live = await liveTarget(emulator.url, target);
    expect(live.alerts.map((alert) => alert.name).sort()).toEqual(['API p99 above 500 ms', 'Payment failures']);
    expect(live.dashboards.filter((dashboard) => dashboard.name === 'API Latency')).toHaveLength(2);
    const plan = parseJsonOutput(await workspace.run(['plan', '--output', 'json', '--prune', '--target', target]));
    expect(plan.summary).toMatchObject({ create: 0, update: 0, delete: 0, adopt: 0, errors: 1 });
  });
});

describe.each<TargetName>(['local', 'local-selfhosted'])('export without --adopt (%s)', (target) => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  /** Pipes exported born in Git (no pipeId): matched by name, so adopted like dashboards. */
  let bornPipes: string[] = [];

  beforeAll(async () => {
    emulator = await startTestEmulator();
    await populate(emulator.url, target);
    workspace = await createWorkspace(emulator.url, { rateLimit: FAST });
    const outcome = await exportInto(workspace, target);
    bornPipes = outcome.files
      .filter((file) => file.manifest.kind === 'Pipe' && !file.text.includes('pipeId:'))
      .map((file) => file.manifest.key);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('plan shows no field changes: only adopt (dashboards, alerts, pipes born in Git) and unchanged (pipeId pipes)', async () => {
    const result = await workspace.run(['plan', '--output', 'json', '--detailed-exitcode', '--target', target]);
    expect(result.code, describeRun(result)).toBe(2);
    const json = parseJsonOutput(result);
    expect(json.summary).toMatchObject({ create: 0, update: 0, delete: 0, adopt: 5 + bornPipes.length, errors: 0 });
    for (const change of json.changes) {
      expect(change.action).toBe(change.kind === 'Pipe' && !bornPipes.includes(change.name) ? 'unchanged' : 'adopt');
      expect(change.diff, `${change.kind}/${change.name}`).toEqual([]);
    }
  });

  it('owns nothing: a removed manifest is not pruned', async () => {
    await workspace.remove('manifests/alerts/no-orders.yaml');
    await resetEmulatorStats(emulator.url);
    await workspace.run(['apply', '--prune', '--force', '--target', target]);
    const live = await liveTarget(emulator.url, target);
    expect(live.alerts.map((alert) => alert.name).sort()).toEqual([
      'API p99 above 500 ms',
      'No orders',
      'Payment failures',
    ]);
    const deletes = (await emulatorStats(emulator.url)).routes.filter((route) => route.method === 'DELETE');
    expect(deletes).toEqual([]);
  });

  it('apply --adopt takes the rest over without a single write; plan is then clean', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--adopt', '--target', target]);
    expect(result.code, describeRun(result)).toBe(0);
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
    const plan = await workspace.run(['plan', '--detailed-exitcode', '--target', target]);
    expect(plan.code, describeRun(plan)).toBe(0);
  });
});
