/**
 * Interrupted applies (issue 5): a create intent left pending by a crash between the create and
 * the state write is taken back, never duplicated; SIGTERM during a long apply stops cleanly
 * (exit 0, valid state) and the next apply finishes the rest without duplicates. Both variants.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { StateFile, TargetState } from '../../src/model/state.js';
import { emptyInventory } from '../../src/state/empty.js';
import {
  alertName,
  alertYaml,
  createAlertOutOfBand,
  createDashboardOutOfBand,
  dashboardName,
  dashboardYaml,
  describeRun,
  documents,
  dump,
  expectExactly,
  expectStateMatchesLive,
  generateFleet,
  liveOf,
  parseJsonOutput,
  readState,
  ROUTES,
  TARGETS,
  waitFor,
  writeFiles,
  writesByRoute,
  type Fleet,
  type TargetName,
} from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

function targetState(intents: TargetState['intents']): TargetState {
  return { inventory: emptyInventory(), secretHashes: {}, intents };
}

/** The intents were written just before the creates they record went out (an intent proves nothing about what was made before it). */
const AT = new Date().toISOString();

describe('a pending create intent (crash between create and state write)', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  const liveIds = new Map<string, string>();

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    const state: StateFile = { version: 1, targets: {} };
    for (const target of TARGETS) {
      // The creates that went through before the crash: the dashboard and the alert on it.
      const dashboard = await createDashboardOutOfBand(emulator.url, target, dashboardName('rc'), ['main']);
      const alert = await createAlertOutOfBand(emulator.url, target, alertName('rc-alert'), dashboard);
      liveIds.set(`${target}/Dashboard`, dashboard.id);
      liveIds.set(`${target}/Alert`, alert.id);
      state.targets[target] = targetState([
        { kind: 'Dashboard', key: 'rc', name: dashboardName('rc'), at: AT },
        { kind: 'Alert', key: 'rc-alert', name: alertName('rc-alert'), at: AT },
        // A create that never reached the service.
        { kind: 'Dashboard', key: 'rc-never', name: dashboardName('rc-never'), at: AT },
      ]);
      await workspace.write(
        `manifests/${target}.yaml`,
        documents([
          dashboardYaml({ key: 'rc', target }),
          alertYaml({ key: 'rc-alert', target, dashboard: 'rc', tile: 'main', threshold: 1 }),
          dashboardYaml({ key: 'rc-never', target }),
        ]),
      );
    }
    await workspace.write('.stacksync/state.json', `${JSON.stringify(state, null, 2)}\n`);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('plan shows the live resources as reclaimed, not as adopt or create', async () => {
    const result = await workspace.run(['plan', '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    const plan = parseJsonOutput(result);
    for (const target of TARGETS) {
      for (const [kind, name] of [
        ['Dashboard', 'rc'],
        ['Alert', 'rc-alert'],
      ] as const) {
        const change = plan.changes.find((c) => c.target === target && c.kind === kind && c.name === name);
        expect(change?.reclaimed, `${target}/${kind}/${name}`).toBe(true);
        expect(['update', 'unchanged']).toContain(change?.action);
        expect(change?.id).toBe(liveIds.get(`${target}/${kind}`));
      }
      expect(plan.changes.find((c) => c.target === target && c.name === 'rc-never')?.action).toBe('create');
    }
    expect(plan.summary.adopt).toBe(0);
  });

  it('apply takes them back without --adopt and without a duplicate, and creates the one never sent', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply']);
    expect(result.code, describeRun(result)).toBe(0);
    const writes = writesByRoute(await emulatorStats(emulator.url));
    // One create per target (rc-never); the reclaimed dashboard's tiles differ from the manifest (one PUT each).
    expect(writes[`POST ${ROUTES.managedDashboards}`]).toBe(1);
    expect(writes[`POST ${ROUTES.selfDashboards}`]).toBe(1);
    expect(writes[`POST ${ROUTES.managedAlerts}`]).toBeUndefined();
    expect(writes[`POST ${ROUTES.selfAlerts}`]).toBeUndefined();
    const data = await dump(emulator.url);
    const state = await readState(workspace.statePath);
    for (const target of TARGETS) {
      expectExactly(liveOf(data, target), {
        dashboards: [dashboardName('rc'), dashboardName('rc-never')],
        alerts: [alertName('rc-alert')],
      });
      expectStateMatchesLive(state, data, target, { dashboards: ['rc', 'rc-never'], alerts: ['rc-alert'] });
      expect(state.targets[target]?.inventory.Dashboard['rc']?.id).toBe(liveIds.get(`${target}/Dashboard`));
      expect(state.targets[target]?.inventory.Alert['rc-alert']?.id).toBe(liveIds.get(`${target}/Alert`));
    }
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
  });
});

function exited(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

function creates(writes: Record<string, number>): number {
  return [ROUTES.managedDashboards, ROUTES.managedAlerts, ROUTES.selfDashboards, ROUTES.selfAlerts].reduce(
    (sum, route) => sum + (writes[`POST ${route}`] ?? 0),
    0,
  );
}

describe('SIGTERM during a long apply', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  const fleets = new Map<TargetName, Fleet>();

  beforeAll(async () => {
    emulator = await startTestEmulator();
    // 10 requests a second per target: 40 resources take a few seconds.
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 10, perSeconds: 1, concurrency: 2 } });
    for (const target of TARGETS) {
      const fleet = generateFleet({
        target,
        prefix: target === 'local' ? 'tm' : 'ts',
        dashboards: 5,
        tilesPerDashboard: 2,
        alertsPerDashboard: 3,
      });
      fleets.set(target, fleet);
      await writeFiles(workspace, fleet.files);
    }
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('stops taking work, saves the state, exits 0; the next apply finishes the rest without duplicates', async () => {
    await resetEmulatorStats(emulator.url);
    const child = workspace.spawn(['apply']);
    const done = exited(child);
    await waitFor(async () => (await emulatorStats(emulator.url)).writes >= 6, 20_000, 10);
    child.kill('SIGTERM');
    const first = await done;
    const firstWrites = writesByRoute(await emulatorStats(emulator.url));
    expect(first.signal, first.stderr).toBeNull();
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    expect(first.stderr).toMatch(/stopping/);
    expect(creates(firstWrites)).toBeLessThan(40);

    // What was written is recorded: every inventory id is live, no intent is left.
    const data = await dump(emulator.url);
    const state = await readState(workspace.statePath);
    for (const target of TARGETS) {
      const live = liveOf(data, target);
      const inventory = state.targets[target]?.inventory ?? { Dashboard: {}, Alert: {} };
      expect(Object.keys(inventory.Dashboard).length).toBe(live.dashboards.length);
      expect(Object.keys(inventory.Alert).length).toBe(live.alerts.length);
      expectStateMatchesLive(state, data, target, {
        dashboards: Object.keys(inventory.Dashboard),
        alerts: Object.keys(inventory.Alert),
      });
    }

    await resetEmulatorStats(emulator.url);
    const second = await workspace.run(['apply']);
    expect(second.code, describeRun(second)).toBe(0);
    const secondWrites = writesByRoute(await emulatorStats(emulator.url));
    // Each resource was created exactly once over the two runs.
    expect(creates(firstWrites) + creates(secondWrites)).toBe(40);
    const after = await dump(emulator.url);
    const finalState = await readState(workspace.statePath);
    for (const [target, fleet] of fleets) {
      expectExactly(liveOf(after, target), { dashboards: fleet.dashboardNames, alerts: fleet.alertNames });
      expectStateMatchesLive(finalState, after, target, { dashboards: fleet.dashboards, alerts: fleet.alerts });
    }
  }, 60_000);
});

describe('a second SIGTERM while requests are in flight', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    // Every request takes 600 ms, so the first signal's graceful stop has work in flight.
    emulator = await startTestEmulator({ faults: 'latency=600ms' });
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 2 } });
    await writeFiles(
      workspace,
      generateFleet({ target: 'local', prefix: 'x', dashboards: 3, tilesPerDashboard: 1, alertsPerDashboard: 1 }).files,
    );
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('exits at once with 1, leaving a state file the next apply resumes from without duplicates', async () => {
    const child = workspace.spawn(['apply']);
    const done = exited(child);
    // The state file appears with the first create intent, just before the first create leaves.
    await waitFor(() => existsSync(workspace.statePath), 20_000, 10);
    child.kill('SIGTERM');
    await delay(50);
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(1);
    // The creates in flight at exit are pending intents in a valid state file.
    const interrupted = await readState(workspace.statePath);
    expect(interrupted.targets['local']?.intents.length).toBeGreaterThanOrEqual(1);

    // They reach the server anyway; their intents let the next run take them back.
    await delay(800);
    const next = await workspace.run(['apply'], { timeoutMs: 60_000 });
    expect(next.code, describeRun(next)).toBe(0);
    const fleet = generateFleet({
      target: 'local',
      prefix: 'x',
      dashboards: 3,
      tilesPerDashboard: 1,
      alertsPerDashboard: 1,
    });
    const data = await dump(emulator.url);
    expectExactly(liveOf(data, 'local'), { dashboards: fleet.dashboardNames, alerts: fleet.alertNames });
    expectStateMatchesLive(await readState(workspace.statePath), data, 'local', {
      dashboards: fleet.dashboards,
      alerts: fleet.alerts,
    });
  }, 60_000);
});
