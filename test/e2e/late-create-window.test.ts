/**
 * A create answered late is given time to land (issue 25, item 2). A proxy takes the first create
 * and cuts the client off (as a proxy holding it past the client's timeout does), then forwards
 * it later. The next run, seconds after, finds nothing of that name: it must not create it again
 * while the first may still land (the late-create window, `sync.settleWindow`, default 2m). The plan
 * shows the create as `waiting … until HH:MM`; a plan with only that is not an error and has no
 * change to apply (exit 0 with `--detailed-exitcode`), and apply writes nothing. When the held
 * create lands, the next run takes it back as ours: one dashboard, never two.
 */
import { describe, expect, it } from 'vitest';
import { dashboardName, describeRun, parseJsonOutput, readState, ROUTES, writesByRoute } from '../helpers/e2e.js';
import { startDaemon, waitUntil } from '../helpers/daemon.js';
import { LATE_TARGET as TARGET, lateCreateStage } from '../helpers/late-create.js';
import { emulatorStats, resetEmulatorStats } from '../helpers/workspace.js';

const NAME = dashboardName('held');

describe('a create the client gave up on, held by a proxy and forwarded later', () => {
  const stage = lateCreateStage('held');
  const { dashboardsNamed } = stage;
  const dashboardPosts = async (): Promise<number> =>
    writesByRoute(await emulatorStats(stage.emulator.url))[`POST ${ROUTES.selfDashboards}`] ?? 0;

  it('the first apply sends the create once; its answer never comes, so the intent records until when it may land', async () => {
    const result = await stage.applyWithCreateHeld();
    expect(result.code, describeRun(result)).toBe(1);
    expect(parseJsonOutput(result).changes.find((change) => change.name === 'held')).toMatchObject({
      result: 'failed',
      code: 'E_API_AMBIGUOUS',
    });
    const [intent] = (await readState(stage.workspace.statePath)).targets[TARGET]?.intents ?? [];
    expect(intent).toMatchObject({ kind: 'Dashboard', key: 'held', name: NAME });
    // The default window: twice the longest a request may take.
    expect(Date.parse(intent?.settleUntil ?? '') - Date.parse(intent?.at ?? '')).toBe(120_000);
    expect(await dashboardsNamed(NAME)).toEqual([]);
  });

  it('the next plan, seconds later, shows it waiting until HH:MM, with the alert that needs it; no error, nothing to apply', async () => {
    const settleUntil = (await readState(stage.workspace.statePath)).targets[TARGET]?.intents[0]?.settleUntil ?? '';
    const hhmm = settleUntil.slice(11, 16);

    const json = await stage.workspace.run(['plan', '--target', TARGET, '--output', 'json', '--detailed-exitcode']);
    expect(json.code, describeRun(json)).toBe(0);
    const plan = parseJsonOutput(json);
    const held = plan.changes.find((change) => change.name === 'held') as (typeof plan.changes)[number] & {
      waitUntil?: string;
    };
    expect(held).toMatchObject({
      kind: 'Dashboard',
      action: 'waiting',
      file: 'manifests/held.yaml',
      waitUntil: settleUntil,
    });
    expect(held.warnings?.[0]).toContain(`waiting for an earlier create that may still land, until ${hhmm}`);
    expect(plan.changes.find((change) => change.name === 'held-lag')).toMatchObject({
      kind: 'Alert',
      action: 'waiting',
    });
    expect(plan.summary).toMatchObject({ create: 0, errors: 0 });

    const text = await stage.workspace.run(['plan', '--target', TARGET]);
    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stdout).toContain('* waiting Dashboard/held');
    expect(text.stdout).toContain(`waiting for an earlier create that may still land, until ${hhmm}`);
  });

  it('apply in the window writes nothing and exits 0: no second create while the first may land', async () => {
    await resetEmulatorStats(stage.emulator.url);
    const result = await stage.workspace.run(['apply', '--target', TARGET, '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(parseJsonOutput(result).changes.find((change) => change.name === 'held')).toMatchObject({
      action: 'waiting',
    });
    expect((await emulatorStats(stage.emulator.url)).writes).toBe(0);
    expect(stage.proxy.intercepted.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it('a daemon sync in the window is not a failure: /status shows it drifted until then, and nothing is written', async () => {
    const settleUntil = (await readState(stage.workspace.statePath)).targets[TARGET]?.intents[0]?.settleUntil;
    await resetEmulatorStats(stage.emulator.url);
    const daemon = await startDaemon(stage.workspace, ['--log-format', 'human', '--log-level', 'warn']);
    try {
      await waitUntil(async () => (await daemon.get('/readyz')).status === 200, 30_000);
      const status = JSON.parse((await daemon.get('/status')).text) as {
        targets: Record<
          string,
          { lastResult?: string; resources: { kind: string; name: string; status: string; waitUntil?: string }[] }
        >;
      };
      const target = status.targets[TARGET];
      expect(target?.lastResult).toBe('success');
      expect(target?.resources.find((resource) => resource.name === 'held')).toMatchObject({
        kind: 'Dashboard',
        status: 'drifted',
        waitUntil: settleUntil,
      });
      expect(daemon.output().stdout).toContain('waiting for an earlier write that may still land');
    } finally {
      await daemon.stop();
    }
    expect((await emulatorStats(stage.emulator.url)).writes).toBe(0);
  });

  it('when the held create lands, the next run takes it back as ours: exactly one dashboard', async () => {
    expect(await stage.proxy.releaseHeld()).toEqual([200]);
    const [landed] = await dashboardsNamed(NAME);
    await resetEmulatorStats(stage.emulator.url);
    const result = await stage.workspace.run(['apply', '--target', TARGET, '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    const changes = parseJsonOutput(result).changes;
    expect(changes.find((change) => change.name === 'held')).toMatchObject({
      action: 'unchanged',
      id: landed,
      reclaimed: true,
      result: 'ok',
    });
    expect(changes.find((change) => change.name === 'held-lag')).toMatchObject({ action: 'create', result: 'ok' });
    expect(await dashboardPosts()).toBe(0);
    expect(await dashboardsNamed(NAME)).toEqual([landed]);
    const state = (await readState(stage.workspace.statePath)).targets[TARGET];
    expect(state?.inventory.Dashboard).toMatchObject({ held: { id: landed } });
    expect(state?.intents).toEqual([]);
  });
});
