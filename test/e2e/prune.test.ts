/**
 * Prune safety end to end (issue 5): a broken manifest never leads to a delete, the caps hold
 * (and `--force` lifts them), an empty manifests directory deletes nothing without `--force`,
 * what stacksync did not create is never deleted, and a failed delete is retried next time.
 * Each case has its own workspace (and name prefix) on one shared.emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alertName,
  alertYaml,
  createAlertOutOfBand,
  createDashboardOutOfBand,
  dashboardName,
  dashboardYaml,
  describeRun,
  documents,
  liveTarget,
  parseJsonOutput,
  readState,
  ROUTES,
  writesByRoute,
  type TargetName,
} from '../helpers/e2e.js';
import { startProxy, type RunningProxy } from '../helpers/proxy.js';
import {
  sharedEmulator,
  emulatorStats,
  resetEmulatorStats,
  type CliResult,
  type Workspace,
  type WorkspaceOptions,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };
const DELETES = [
  `DELETE ${ROUTES.managedDashboard}`,
  `DELETE ${ROUTES.managedAlert}`,
  `DELETE ${ROUTES.selfDashboard}`,
  `DELETE ${ROUTES.selfAlert}`,
];

const shared = sharedEmulator();

function newWorkspace(options: WorkspaceOptions = {}, url?: string): Promise<Workspace> {
  return shared.workspace({ rateLimit: FAST, ...options }, url);
}

/** One file per dashboard `${prefix}-N` on `target`; returns the file paths by key. */
async function writeDashboards(
  workspace: Workspace,
  target: TargetName,
  prefix: string,
  count: number,
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const key = `${prefix}-${i}`;
    const path = `manifests/${target}/${key}.yaml`;
    await workspace.write(path, dashboardYaml({ key, target }));
    files.set(key, path);
  }
  return files;
}

async function applyOk(workspace: Workspace, args: string[] = []): Promise<CliResult> {
  const result = await workspace.run(['apply', ...args]);
  expect(result.code, describeRun(result)).toBe(0);
  return result;
}

/** Runs apply, counting the writes it made. */
async function applyCounting(
  workspace: Workspace,
  args: string[],
): Promise<{ result: CliResult; writes: Record<string, number> }> {
  await resetEmulatorStats(shared.emulator.url);
  const result = await workspace.run(['apply', ...args]);
  return { result, writes: writesByRoute(await emulatorStats(shared.emulator.url)) };
}

function deletesIn(writes: Record<string, number>): number {
  return DELETES.reduce((sum, route) => sum + (writes[route] ?? 0), 0);
}

async function liveDashboardNames(target: TargetName, prefix: string): Promise<string[]> {
  return (await liveTarget(shared.emulator.url, target)).dashboards
    .map((d) => d.name)
    .filter((name) => name.startsWith(dashboardName(`${prefix}-`)))
    .sort();
}

function names(prefix: string, indexes: number[]): string[] {
  return indexes.map((i) => dashboardName(`${prefix}-${i}`)).sort();
}

describe('a broken manifest never leads to a delete', () => {
  let workspace: Workspace;
  let files: Map<string, string>;
  beforeAll(async () => {
    workspace = await newWorkspace({ sync: { maxDeletes: 100, maxDeletePercent: 100 } });
    files = await writeDashboards(workspace, 'local', 'brk', 4);
    await writeDashboards(workspace, 'local-selfhosted', 'brk', 2);
    await applyOk(workspace);
  });

  it('an unparseable file: nothing deleted on any target, even with --force, exit 1', async () => {
    // The file of brk-0 turns to garbage (as a bad merge would), and brk-1 is removed for real.
    await workspace.write(
      files.get('brk-0') ?? '',
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: brk-0\n  target: [\n',
    );
    await workspace.remove(files.get('brk-1') ?? '');
    await workspace.remove('manifests/local-selfhosted/brk-1.yaml');
    for (const args of [['--prune'], ['--prune', '--force']]) {
      const { result, writes } = await applyCounting(workspace, args);
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stdout).toMatch(/manifests\/local\/brk-0\.yaml:\d+:\d+/);
      expect(deletesIn(writes), JSON.stringify(writes)).toBe(0);
    }
    expect(await liveDashboardNames('local', 'brk')).toEqual(names('brk', [0, 1, 2, 3]));
    expect(await liveDashboardNames('local-selfhosted', 'brk')).toEqual(names('brk', [0, 1]));
    const state = await readState(workspace.statePath);
    expect(Object.keys(state.targets['local']?.inventory.Dashboard ?? {}).sort()).toEqual([
      'brk-0',
      'brk-1',
      'brk-2',
      'brk-3',
    ]);
  });

  it('a file that parses but breaks the schema blocks the deletes of its target', async () => {
    await workspace.write(
      files.get('brk-0') ?? '',
      dashboardYaml({ key: 'brk-0', target: 'local', tiles: [{ name: 'main', w: 0 }] }),
    );
    const { result, writes } = await applyCounting(workspace, ['--prune', '--force']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(writes[`DELETE ${ROUTES.managedDashboard}`]).toBeUndefined();
    // The self-hosted target's manifests are fine: its removed dashboard goes.
    expect(writes[`DELETE ${ROUTES.selfDashboard}`]).toBe(1);
    expect(await liveDashboardNames('local', 'brk')).toEqual(names('brk', [0, 1, 2, 3]));
    expect(await liveDashboardNames('local-selfhosted', 'brk')).toEqual(names('brk', [0]));
  });

  it('once fixed, the prune goes ahead', async () => {
    await workspace.write(files.get('brk-0') ?? '', dashboardYaml({ key: 'brk-0', target: 'local' }));
    const { writes } = await applyCounting(workspace, ['--prune']);
    expect(writes).toEqual({ [`DELETE ${ROUTES.managedDashboard}`]: 1 });
    expect(await liveDashboardNames('local', 'brk')).toEqual(names('brk', [0, 2, 3]));
  });
});

describe('the deletion caps', () => {
  it('maxDeletes: more deletes than the cap → exit 1, explained, nothing deleted; --force deletes them', async () => {
    const workspace = await newWorkspace({ sync: { maxDeletes: 2, maxDeletePercent: 100 } });
    const files = await writeDashboards(workspace, 'local', 'cap', 6);
    await applyOk(workspace);
    for (const key of ['cap-0', 'cap-1', 'cap-2']) await workspace.remove(files.get(key) ?? '');
    // Another change in the same run still applies: only the deletes are refused.
    await workspace.write(
      files.get('cap-5') ?? '',
      dashboardYaml({ key: 'cap-5', target: 'local', tags: ['changed'] }),
    );

    const refused = await applyCounting(workspace, ['--prune']);
    expect(refused.result.code, describeRun(refused.result)).toBe(1);
    expect(refused.result.stdout).toMatch(/prune refused: 3 deletes exceed maxDeletes \(2\).*--force/);
    expect(deletesIn(refused.writes)).toBe(0);
    expect(refused.writes).toEqual({ [`PUT ${ROUTES.managedDashboard}`]: 1 });
    expect(await liveDashboardNames('local', 'cap')).toEqual(names('cap', [0, 1, 2, 3, 4, 5]));

    const json = await workspace.run(['apply', '--prune', '--output', 'json']);
    expect(json.code).toBe(1);
    const report = parseJsonOutput(json);
    expect(report.errors.some((error) => /maxDeletes/.test(error.message))).toBe(true);
    expect(report.changes.filter((change) => change.action === 'delete').map((change) => change.result)).toEqual([
      'skipped',
      'skipped',
      'skipped',
    ]);

    const forced = await applyCounting(workspace, ['--prune', '--force']);
    expect(forced.result.code, describeRun(forced.result)).toBe(0);
    expect(forced.writes).toEqual({ [`DELETE ${ROUTES.managedDashboard}`]: 3 });
    expect(await liveDashboardNames('local', 'cap')).toEqual(names('cap', [3, 4, 5]));
    expect(
      Object.keys((await readState(workspace.statePath)).targets['local']?.inventory.Dashboard ?? {}).sort(),
    ).toEqual(['cap-3', 'cap-4', 'cap-5']);
  });

  it('maxDeletePercent: more than the share of managed resources → exit 1, nothing deleted; --force deletes them', async () => {
    const workspace = await newWorkspace({ sync: { maxDeletes: 100, maxDeletePercent: 25 } });
    const files = await writeDashboards(workspace, 'local-selfhosted', 'pct', 4);
    await applyOk(workspace);
    // 1 of 4 is 25%: allowed. Then 2 of the remaining 3 is 67%: refused.
    await workspace.remove(files.get('pct-0') ?? '');
    const allowed = await applyCounting(workspace, ['--prune']);
    expect(allowed.result.code, describeRun(allowed.result)).toBe(0);
    expect(allowed.writes).toEqual({ [`DELETE ${ROUTES.selfDashboard}`]: 1 });

    await workspace.remove(files.get('pct-1') ?? '');
    await workspace.remove(files.get('pct-2') ?? '');
    const refused = await applyCounting(workspace, ['--prune']);
    expect(refused.result.code, describeRun(refused.result)).toBe(1);
    expect(refused.result.stdout).toMatch(
      /prune refused: 2 of 3 managed resources \(66\.7%\) exceed maxDeletePercent \(25%\)/,
    );
    expect(refused.writes).toEqual({});
    expect(await liveDashboardNames('local-selfhosted', 'pct')).toEqual(names('pct', [1, 2, 3]));

    const forced = await applyCounting(workspace, ['--prune', '--force']);
    expect(forced.result.code, describeRun(forced.result)).toBe(0);
    expect(forced.writes).toEqual({ [`DELETE ${ROUTES.selfDashboard}`]: 2 });
    expect(await liveDashboardNames('local-selfhosted', 'pct')).toEqual(names('pct', [3]));
  });

  it('a dashboard update that would make the server delete a refused alert is held back with it', async () => {
    const workspace = await newWorkspace({ sync: { maxDeletes: 0 } });
    const file = 'manifests/cascade.yaml';
    await workspace.write(
      file,
      documents([
        dashboardYaml({ key: 'cas', target: 'local', tiles: ['t0', 't1'] }),
        alertYaml({ key: 'cas-a', target: 'local', dashboard: 'cas', tile: 't1' }),
      ]),
    );
    await applyOk(workspace);
    // The alert leaves Git and so does the tile it watches: removing the tile deletes the alert on the server.
    await workspace.write(file, dashboardYaml({ key: 'cas', target: 'local', tiles: ['t0'] }));
    const refused = await applyCounting(workspace, ['--prune', '--output', 'json']);
    expect(refused.result.code, describeRun(refused.result)).toBe(1);
    expect(refused.writes).toEqual({});
    const report = parseJsonOutput(refused.result);
    expect(report.changes.find((change) => change.name === 'cas')).toMatchObject({
      action: 'update',
      result: 'skipped',
      error: expect.stringMatching(/held back/),
    });
    expect((await liveTarget(shared.emulator.url, 'local')).alerts.map((a) => a.name)).toContain(alertName('cas-a'));

    const forced = await applyCounting(workspace, ['--prune', '--force']);
    expect(forced.result.code, describeRun(forced.result)).toBe(0);
    expect(forced.writes).toEqual({ [`DELETE ${ROUTES.managedAlert}`]: 1, [`PUT ${ROUTES.managedDashboard}`]: 1 });
    expect((await readState(workspace.statePath)).targets['local']?.inventory.Alert).toEqual({});
  });

  it('sync.prune: true prunes without the flag, within the same caps', async () => {
    const workspace = await newWorkspace({ sync: { prune: true, maxDeletes: 1, maxDeletePercent: 100 } });
    const files = await writeDashboards(workspace, 'local', 'cfg', 3);
    await applyOk(workspace);
    await workspace.remove(files.get('cfg-0') ?? '');
    expect((await applyCounting(workspace, [])).writes).toEqual({ [`DELETE ${ROUTES.managedDashboard}`]: 1 });
    await workspace.remove(files.get('cfg-1') ?? '');
    await workspace.remove(files.get('cfg-2') ?? '');
    const refused = await applyCounting(workspace, []);
    expect(refused.result.code).toBe(1);
    expect(refused.writes).toEqual({});
  });
});

describe('an empty manifests directory', () => {
  it('deletes nothing without --force, even with the caps lifted; with --force it deletes what stacksync owns', async () => {
    const workspace = await newWorkspace({ sync: { maxDeletes: 1000, maxDeletePercent: 100 } });
    await writeDashboards(workspace, 'local', 'empty', 2);
    await workspace.write(
      'manifests/local-selfhosted/pair.yaml',
      documents([
        dashboardYaml({ key: 'empty-pair', target: 'local-selfhosted' }),
        alertYaml({ key: 'empty-pair-alert', target: 'local-selfhosted', dashboard: 'empty-pair', tile: 'main' }),
      ]),
    );
    await applyOk(workspace);
    await workspace.remove('manifests/local');
    await workspace.remove('manifests/local-selfhosted');

    const refused = await applyCounting(workspace, ['--prune']);
    expect(refused.result.code, describeRun(refused.result)).toBe(1);
    expect(refused.result.stdout).toMatch(/prune refused: the manifests directory holds no resources.*--force/);
    expect(refused.writes).toEqual({});
    expect(await liveDashboardNames('local', 'empty')).toEqual(names('empty', [0, 1]));

    const forced = await applyCounting(workspace, ['--prune', '--force']);
    expect(forced.result.code, describeRun(forced.result)).toBe(0);
    expect(forced.writes).toEqual({
      [`DELETE ${ROUTES.managedDashboard}`]: 2,
      [`DELETE ${ROUTES.selfAlert}`]: 1,
      [`DELETE ${ROUTES.selfDashboard}`]: 1,
    });
    expect(await liveDashboardNames('local', 'empty')).toEqual([]);
    const state = await readState(workspace.statePath);
    for (const target of ['local', 'local-selfhosted']) {
      expect(state.targets[target]?.inventory.Dashboard).toEqual({});
      expect(state.targets[target]?.inventory.Alert).toEqual({});
    }
  });
});

describe('what stacksync did not create', () => {
  it('is never deleted: not when unmanaged and unnamed, not after a manifest naming it is removed', async () => {
    const workspace = await newWorkspace({ sync: { maxDeletes: 1000, maxDeletePercent: 100 } });
    const stray = await createDashboardOutOfBand(shared.emulator.url, 'local', 'Stray by hand');
    await createAlertOutOfBand(shared.emulator.url, 'local', 'Stray alert by hand', stray);
    const named = await createDashboardOutOfBand(shared.emulator.url, 'local-selfhosted', dashboardName('oob-named'));
    await writeDashboards(workspace, 'local', 'oob', 2);
    // A manifest with the name of a live dashboard someone made by hand: a conflict, never adopted.
    await workspace.write('manifests/named.yaml', dashboardYaml({ key: 'oob-named', target: 'local-selfhosted' }));
    const first = await workspace.run(['apply', '--prune']);
    expect(first.code, describeRun(first)).toBe(1);
    expect(first.stdout).toMatch(/conflict/);

    await workspace.remove('manifests/named.yaml');
    await workspace.remove('manifests/local');
    await writeDashboards(workspace, 'local', 'oob', 1);
    const { result, writes } = await applyCounting(workspace, ['--prune', '--force']);
    expect(result.code, describeRun(result)).toBe(0);
    // Only oob-1, which stacksync created, goes.
    expect(writes).toEqual({ [`DELETE ${ROUTES.managedDashboard}`]: 1 });
    const local = await liveTarget(shared.emulator.url, 'local');
    expect(local.dashboards.map((d) => d.name)).toContain('Stray by hand');
    expect(local.alerts.map((a) => a.name)).toContain('Stray alert by hand');
    expect((await liveTarget(shared.emulator.url, 'local-selfhosted')).dashboards.map((d) => d.id)).toContain(named.id);
    expect(await liveDashboardNames('local', 'oob')).toEqual(names('oob', [0]));
  });
});

describe('a failed delete', () => {
  let proxy: RunningProxy;
  afterAll(async () => {
    await proxy?.close();
  });

  it('stays in the inventory and is retried by the next apply', async () => {
    proxy = await startProxy(shared.emulator.url);
    const workspace = await newWorkspace({ sync: { maxDeletes: 100, maxDeletePercent: 100 } }, proxy.url);
    await workspace.write(
      'manifests/pair.yaml',
      documents([
        dashboardYaml({ key: 'fail-d', target: 'local' }),
        alertYaml({ key: 'fail-a', target: 'local', dashboard: 'fail-d', tile: 'main' }),
      ]),
    );
    await writeDashboards(workspace, 'local', 'fail-keep', 1);
    await applyOk(workspace);
    await workspace.remove('manifests/pair.yaml');

    // The service refuses the alert delete (409, not retried by the client).
    proxy.intercept((request) =>
      request.method === 'DELETE' && request.path.includes('/stack/alerts/')
        ? { status: 409, body: JSON.stringify({ status: 409, error: 'CONFLICT: alert is locked', requestId: 'x' }) }
        : undefined,
    );
    const failed = await workspace.run(['apply', '--prune', '--output', 'json']);
    expect(failed.code, describeRun(failed)).toBe(1);
    const report = parseJsonOutput(failed);
    const alert = report.changes.find((change) => change.name === 'fail-a');
    expect(alert).toMatchObject({ action: 'delete', result: 'failed' });
    expect(alert?.error).toMatch(/alert is locked/);
    // The dashboard delete would take the alert with it, so it waits for the alert's delete.
    expect(report.changes.find((change) => change.name === 'fail-d')).toMatchObject({
      action: 'delete',
      result: 'skipped',
    });
    const state = await readState(workspace.statePath);
    expect(Object.keys(state.targets['local']?.inventory.Alert ?? {})).toEqual(['fail-a']);
    expect(Object.keys(state.targets['local']?.inventory.Dashboard ?? {}).sort()).toEqual(['fail-d', 'fail-keep-0']);
    const live = await liveTarget(shared.emulator.url, 'local');
    expect(live.alerts.map((a) => a.name)).toContain(alertName('fail-a'));

    proxy.intercept(undefined);
    const { result, writes } = await applyCounting(workspace, ['--prune']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(writes).toEqual({ [`DELETE ${ROUTES.managedAlert}`]: 1, [`DELETE ${ROUTES.managedDashboard}`]: 1 });
    const after = await readState(workspace.statePath);
    expect(after.targets['local']?.inventory.Alert).toEqual({});
    expect(Object.keys(after.targets['local']?.inventory.Dashboard ?? {})).toEqual(['fail-keep-0']);
    expect((await liveTarget(shared.emulator.url, 'local')).alerts.map((a) => a.name)).not.toContain(
      alertName('fail-a'),
    );
  });
});
