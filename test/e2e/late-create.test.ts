/**
 * A create that lands late (issue 15, item 10): a proxy cuts the client off after taking the whole
 * create, and forwards it only later. stacksync must not send a second create of that name in the
 * same run; the intent stays pending, and the next run takes back the one that landed. A live twin
 * of a managed dashboard (same name, not in the inventory) is a conflict in every plan, never an
 * "all well".
 */
import { describe, expect, it } from 'vitest';
import {
  createDashboardOutOfBand,
  dashboardName,
  describeRun,
  parseJsonOutput,
  readState,
  ROUTES,
  writesByRoute,
} from '../helpers/e2e.js';
import { LATE_TARGET as TARGET, lateCreateStage } from '../helpers/late-create.js';
import { emulatorStats, resetEmulatorStats } from '../helpers/workspace.js';

const NAME = dashboardName('ops');

describe('a create that lands late', () => {
  const stage = lateCreateStage('ops');
  const { dashboardsNamed } = stage;

  it('is not sent again in the same run: the change fails as ambiguous and its intent stays pending', async () => {
    const result = await stage.applyWithCreateHeld();
    expect(result.code, describeRun(result)).toBe(1);
    const changes = parseJsonOutput(result).changes as {
      name: string;
      result?: string;
      code?: string;
      error?: string;
    }[];
    expect(changes.find((change) => change.name === 'ops')).toMatchObject({
      result: 'failed',
      code: 'E_API_AMBIGUOUS',
      error: expect.stringContaining('not sent again'),
    });
    expect(changes.find((change) => change.name === 'ops-lag')).toMatchObject({ result: 'skipped' });
    // The one create reached the proxy, and no second one the emulator.
    expect(stage.proxy.intercepted.filter((request) => request.method === 'POST')).toHaveLength(1);
    expect(writesByRoute(await emulatorStats(stage.emulator.url))[`POST ${ROUTES.selfDashboards}`] ?? 0).toBe(0);
    expect((await readState(stage.workspace.statePath)).targets[TARGET]?.intents).toMatchObject([
      { kind: 'Dashboard', key: 'ops', name: NAME },
    ]);

    // Now the held request lands: exactly one dashboard of that name.
    expect(await stage.proxy.releaseHeld()).toEqual([200]);
    expect(await dashboardsNamed(NAME)).toHaveLength(1);
  });

  it('is taken back by the next run, which creates no second one', async () => {
    await resetEmulatorStats(stage.emulator.url);
    const [landed] = await dashboardsNamed(NAME);
    const result = await stage.workspace.run(['apply', '--target', TARGET, '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(parseJsonOutput(result).changes.find((change) => change.name === 'ops')).toMatchObject({
      action: 'unchanged',
      id: landed,
      reclaimed: true,
      result: 'ok',
    });
    const writes = writesByRoute(await emulatorStats(stage.emulator.url));
    expect(writes[`POST ${ROUTES.selfDashboards}`] ?? 0).toBe(0);
    expect(writes[`POST ${ROUTES.selfAlerts}`]).toBe(1);
    const state = (await readState(stage.workspace.statePath)).targets[TARGET];
    expect(state?.inventory.Dashboard).toMatchObject({ ops: { id: landed, name: NAME } });
    expect(state?.intents).toEqual([]);
    expect(await dashboardsNamed(NAME)).toEqual([landed]);
  });

  it('a live twin of the managed dashboard is a conflict in the plan, saying what --adopt and --prune do with it', async () => {
    const twin = await createDashboardOutOfBand(stage.emulator.url, TARGET, NAME, ['lag']);
    const plan = await stage.workspace.run(['plan', '--target', TARGET, '--output', 'json']);
    expect(plan.code, describeRun(plan)).toBe(1);
    const json = parseJsonOutput(plan);
    const conflict = json.changes.find((change) => change.id === twin.id) as
      | { action: string; code?: string; error?: string; file?: string }
      | undefined;
    expect(conflict).toMatchObject({ action: 'error', code: 'E_CONFLICT', file: 'manifests/ops.yaml' });
    expect(conflict?.error).toContain(
      `a second live Dashboard named "${NAME}" (id ${twin.id}) is not in the inventory`,
    );
    expect(conflict?.error).toMatch(/--adopt leaves it alone .* --prune does not delete it/);
    expect(json.summary.errors).toBe(1);

    const text = await stage.workspace.run(['plan', '--target', TARGET, '--detailed-exitcode']);
    expect(text.code, describeRun(text)).toBe(1);
    expect(text.stdout).toContain(`error Dashboard/ops (twin ${twin.id})`);

    // Neither flag touches it: the twin is still there, and so is ours.
    await resetEmulatorStats(stage.emulator.url);
    const apply = await stage.workspace.run(['apply', '--target', TARGET, '--prune', '--adopt', '--force']);
    expect(apply.code, describeRun(apply)).toBe(1);
    expect((await emulatorStats(stage.emulator.url)).writes).toBe(0);
    const [ours] = Object.values(
      (await readState(stage.workspace.statePath)).targets[TARGET]?.inventory.Dashboard ?? {},
    );
    expect((await dashboardsNamed(NAME)).sort()).toEqual([ours?.id, twin.id].sort());
  });
});
