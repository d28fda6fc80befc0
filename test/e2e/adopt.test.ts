/**
 * Adoption end to end (issue 5, docs/ownership.md): a same-named live
 * resource created out of band shows as `adopt`; apply leaves it alone without `--adopt`
 * (a conflict, exit 1, as `apply --help` documents: anything not applied is a failure); with
 * `--adopt` it joins the inventory, and a later removal with `--prune` deletes it. Both variants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
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
  TARGETS,
  writesByRoute,
} from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

describe('adopting live resources stacksync did not create', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { maxDeletePercent: 100 },
    });
    for (const target of TARGETS) {
      // Made by hand in the UI: a dashboard with one tile and an alert on it.
      const dashboard = await createDashboardOutOfBand(emulator.url, target, dashboardName('shared'), ['main']);
      const alert = await createAlertOutOfBand(emulator.url, target, alertName('shared-alert'), dashboard);
      ids.set(`${target}/Dashboard`, dashboard.id);
      ids.set(`${target}/Alert`, alert.id);
      // The manifests name them; the dashboard's tile differs from the live one (its series).
      await workspace.write(
        `manifests/${target}.yaml`,
        documents([
          dashboardYaml({ key: 'shared', target }),
          alertYaml({ key: 'shared-alert', target, dashboard: 'shared', tile: 'main', threshold: 1, interval: '5m' }),
          dashboardYaml({ key: 'own', target }),
        ]),
      );
    }
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('plan shows them as adopt, with the live id', async () => {
    const result = await workspace.run(['plan', '--output', 'json', '--detailed-exitcode']);
    expect(result.code, describeRun(result)).toBe(2);
    const plan = parseJsonOutput(result);
    for (const target of TARGETS) {
      for (const [kind, name] of [
        ['Dashboard', 'shared'],
        ['Alert', 'shared-alert'],
      ] as const) {
        const change = plan.changes.find((c) => c.target === target && c.kind === kind && c.name === name);
        expect(change, `${target}/${kind}/${name}`).toMatchObject({
          action: 'adopt',
          id: ids.get(`${target}/${kind}`),
        });
      }
    }
    expect(plan.summary).toMatchObject({ create: 2, adopt: 4, errors: 0 });
    const text = await workspace.run(['plan']);
    expect(text.stdout).toMatch(/= adopt Dashboard\/shared\b/);
  });

  it('apply without --adopt leaves them alone, reports the conflict and exits 1', async () => {
    const before = await liveTarget(emulator.url, 'local');
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(1);
    const report = parseJsonOutput(result);
    for (const target of TARGETS) {
      const dashboard = report.changes.find((c) => c.target === target && c.name === 'shared');
      expect(dashboard).toMatchObject({ action: 'adopt', result: 'skipped' });
      expect(dashboard?.error).toMatch(/conflict.*--adopt/);
      expect(report.changes.find((c) => c.target === target && c.name === 'own')).toMatchObject({
        action: 'create',
        result: 'ok',
      });
    }
    // Only the two own dashboards were written; nothing touched the foreign ones.
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({
      [`POST ${ROUTES.managedDashboards}`]: 1,
      [`POST ${ROUTES.selfDashboards}`]: 1,
    });
    const after = await liveTarget(emulator.url, 'local');
    expect(after.dashboards.find((d) => d.id === ids.get('local/Dashboard'))).toEqual(
      before.dashboards.find((d) => d.id === ids.get('local/Dashboard')),
    );
    const state = await readState(workspace.statePath);
    for (const target of TARGETS) {
      expect(Object.keys(state.targets[target]?.inventory.Dashboard ?? {})).toEqual(['own']);
      expect(state.targets[target]?.inventory.Alert).toEqual({});
    }
    const text = await workspace.run(['apply']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(
      /conflict: a live Dashboard named "Dashboard shared" exists that stacksync does not manage; re-run with --adopt/,
    );
  });

  it('apply --adopt takes them over: into the inventory, updated to the manifest, no duplicate', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--adopt']);
    expect(result.code, describeRun(result)).toBe(0);
    // The dashboards differ from their manifests (one PUT each); the alerts match (no write).
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({
      [`PUT ${ROUTES.managedDashboard}`]: 1,
      [`PUT ${ROUTES.selfDashboard}`]: 1,
    });
    const state = await readState(workspace.statePath);
    for (const target of TARGETS) {
      expect(state.targets[target]?.inventory.Dashboard['shared']?.id).toBe(ids.get(`${target}/Dashboard`));
      expect(state.targets[target]?.inventory.Alert['shared-alert']?.id).toBe(ids.get(`${target}/Alert`));
      const live = await liveTarget(emulator.url, target);
      expect(live.dashboards.filter((d) => d.name === dashboardName('shared'))).toHaveLength(1);
      // The tile kept its id, so the adopted alert still watches it.
      const alert = live.alerts.find((a) => a.id === ids.get(`${target}/Alert`));
      expect(live.dashboards.find((d) => d.id === alert?.dashboard)?.tiles.map((tile) => tile.id)).toContain(
        alert?.tileId,
      );
    }
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
  });

  it('once adopted, removing the manifests with --prune deletes them', async () => {
    for (const target of TARGETS)
      await workspace.write(`manifests/${target}.yaml`, dashboardYaml({ key: 'own', target }));
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--prune']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({
      [`DELETE ${ROUTES.managedAlert}`]: 1,
      [`DELETE ${ROUTES.managedDashboard}`]: 1,
      [`DELETE ${ROUTES.selfAlert}`]: 1,
      [`DELETE ${ROUTES.selfDashboard}`]: 1,
    });
    for (const target of TARGETS) {
      const live = await liveTarget(emulator.url, target);
      expect(live.dashboards.map((d) => d.name)).toEqual([dashboardName('own')]);
      expect(live.alerts).toEqual([]);
    }
  });

  it('sync.adopt: true in the config adopts without the flag', async () => {
    const other = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { adopt: true },
    });
    try {
      const dashboard = await createDashboardOutOfBand(emulator.url, 'local-selfhosted', dashboardName('cfg-adopt'));
      await other.write('manifests/a.yaml', dashboardYaml({ key: 'cfg-adopt', target: 'local-selfhosted' }));
      const result = await other.run(['apply']);
      expect(result.code, describeRun(result)).toBe(0);
      expect((await readState(other.statePath)).targets['local-selfhosted']?.inventory.Dashboard['cfg-adopt']?.id).toBe(
        dashboard.id,
      );
    } finally {
      await other.dispose();
    }
  });
});
