/**
 * `run --once` as CI runs it (issue 14): with --dry-run --detailed-exitcode it exits 2 while
 * changes wait, like `plan`, and its console says "changes to apply" for manifest changes from
 * Git and "drift" only for live edits made outside stacksync.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dashboardName, dashboardYaml, describeRun, liveTarget, updateDashboardOutOfBand } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

const DRY = ['run', '--once', '--dry-run', '--detailed-exitcode'];

let emulator: RunningEmulator;
let workspace: Workspace;

beforeAll(async () => {
  emulator = await startTestEmulator();
  workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
  await workspace.write(
    'manifests/web.yaml',
    dashboardYaml({ key: 'web', target: 'local-selfhosted', tiles: [{ name: 'p99', w: 6 }] }),
  );
});
afterAll(async () => {
  await workspace?.dispose();
  await emulator?.close();
});

async function dryRun(): Promise<CliResult> {
  await resetEmulatorStats(emulator.url);
  const result = await workspace.run(DRY);
  expect((await emulatorStats(emulator.url)).writes, 'a dry run writes nothing').toBe(0);
  return result;
}

describe('run --once --dry-run --detailed-exitcode', () => {
  it('exits 2 while a manifest change from Git waits, and calls it a change to apply', async () => {
    const result = await dryRun();
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stdout).toContain('local-selfhosted: initial sync found 1 change to apply (dry run: not applied):');
    expect(result.stdout).not.toMatch(/drift/);
  });

  it('run --once applies it (exit 0), and the dry run then exits 0', async () => {
    const applied = await workspace.run(['run', '--once', '--detailed-exitcode']);
    expect(applied.code, describeRun(applied)).toBe(0);
    // The workspace is no git checkout: what it applies is the working tree (terminal.test.ts has Git).
    expect(applied.stdout).toContain('local-selfhosted: initial sync applied 1 change from the working tree:');
    const result = await dryRun();
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toMatch(/local-selfhosted: in sync \(1 resources, initial\)/);
  });

  it('calls a live edit made outside stacksync drift, and exits 2 for it', async () => {
    const live = (await liveTarget(emulator.url, 'local-selfhosted')).dashboards.find(
      (d) => d.name === dashboardName('web'),
    );
    if (!live) throw new Error('Dashboard web is not live');
    await updateDashboardOutOfBand(emulator.url, 'local-selfhosted', live.id, {
      name: live.name,
      tags: live.tags,
      tiles: live.tiles.map((tile) => ({ ...tile, w: 11 })),
    });
    const result = await dryRun();
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stdout).toContain(
      'local-selfhosted: initial sync found 1 drift (a live edit made outside stacksync) (dry run: not applied):',
    );
    expect(result.stdout).toContain('drift: edited outside stacksync; the manifest is as last applied');
  });

  it('a manifest edit on top of the live edit is a change to apply, not drift', async () => {
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: 'local-selfhosted', tiles: [{ name: 'p99', w: 8 }] }),
    );
    const result = await dryRun();
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stdout).toContain('found 1 change to apply (dry run: not applied)');
  });

  it('orphans alone are nothing to apply: exit 0, and the console says what a prune would delete', async () => {
    await workspace.remove('manifests/web.yaml');
    const result = await dryRun();
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toContain(
      'local-selfhosted: initial sync found nothing to apply; 1 orphaned (apply --prune deletes it):',
    );
  });

  it('--detailed-exitcode needs --once', async () => {
    const result = await workspace.run(['run', '--dry-run', '--detailed-exitcode']);
    expect(result.code, describeRun(result)).toBe(1);
    // The daemon's logs off a terminal are JSON records, its last word too.
    const last = JSON.parse(result.stderr.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(last).toMatchObject({
      level: 50,
      code: 'E_USAGE',
      msg: expect.stringContaining('--detailed-exitcode needs --once'),
    });
  });
});
