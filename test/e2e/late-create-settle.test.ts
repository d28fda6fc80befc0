/**
 * A create answered late is given time to land (issue 25, item 2). A proxy takes the first create
 * and cuts the client off (as a proxy holding it past the client's timeout does), then forwards
 * it later. The next run, seconds after, finds nothing of that name: it must not create it again
 * while the first may still land (the settle window, `sync.settleWindow`, default 2m). The plan
 * shows the create as `waiting … until HH:MM`; a plan with only that is not an error and has no
 * change to apply (exit 0 with `--detailed-exitcode`), and apply writes nothing. When the held
 * create lands, the next run takes it back as ours: one dashboard, never two.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { alertYaml, dashboardName, dashboardYaml, describeRun, documents, liveTarget, parseJsonOutput, readState, ROUTES, writesByRoute } from '../helpers/e2e.js';
import { startDaemon, waitUntil } from '../helpers/daemon.js';
import { startProxy, type RunningProxy } from '../helpers/proxy.js';
import { createWorkspace, emulatorStats, resetEmulatorStats, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const TARGET = 'local-selfhosted';
const NAME = dashboardName('held');

describe('a create the client gave up on, held by a proxy and forwarded later', () => {
  let emulator: RunningEmulator;
  let proxy: RunningProxy;
  let workspace: Workspace;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    proxy = await startProxy(emulator.url);
    workspace = await createWorkspace(proxy.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write(
      'manifests/held.yaml',
      documents([dashboardYaml({ key: 'held', target: TARGET, tiles: ['lag'] }), alertYaml({ key: 'held-lag', target: TARGET, dashboard: 'held', tile: 'lag' })]),
    );
  });
  afterAll(async () => {
    await workspace?.dispose();
    await proxy?.close();
    await emulator?.close();
  });

  const dashboardsNamed = async (name: string): Promise<string[]> => (await liveTarget(emulator.url, TARGET)).dashboards.filter((d) => d.name === name).map((d) => d.id);
  const dashboardPosts = async (): Promise<number> => writesByRoute(await emulatorStats(emulator.url))[`POST ${ROUTES.selfDashboards}`] ?? 0;

  it('the first apply sends the create once; its answer never comes, so the intent records until when it may land', async () => {
    let first = true;
    proxy.intercept((request) => {
      if (request.method !== 'POST' || request.path !== '/api/v2/dashboards' || !first) return undefined;
      first = false;
      return 'hold';
    });
    try {
      const result = await workspace.run(['apply', '--target', TARGET, '--output', 'json']);
      expect(result.code, describeRun(result)).toBe(1);
      expect(parseJsonOutput(result).changes.find((change) => change.name === 'held')).toMatchObject({ result: 'failed', code: 'E_API_AMBIGUOUS' });
    } finally {
      proxy.intercept(undefined);
    }
    const [intent] = (await readState(workspace.statePath)).targets[TARGET]?.intents ?? [];
    expect(intent).toMatchObject({ kind: 'Dashboard', key: 'held', name: NAME });
    // The default window: twice the longest a request may take.
    expect(Date.parse(intent?.settleUntil ?? '') - Date.parse(intent?.at ?? '')).toBe(120_000);
    expect(await dashboardsNamed(NAME)).toEqual([]);
  });

  it('the next plan, seconds later, shows it waiting until HH:MM, with the alert that needs it; no error, nothing to apply', async () => {
    const settleUntil = (await readState(workspace.statePath)).targets[TARGET]?.intents[0]?.settleUntil ?? '';
    const hhmm = settleUntil.slice(11, 16);

    const json = await workspace.run(['plan', '--target', TARGET, '--output', 'json', '--detailed-exitcode']);
    expect(json.code, describeRun(json)).toBe(0);
    const plan = parseJsonOutput(json);
    const held = plan.changes.find((change) => change.name === 'held') as (typeof plan.changes)[number] & { waitUntil?: string };
    expect(held).toMatchObject({ kind: 'Dashboard', action: 'waiting', file: 'manifests/held.yaml', waitUntil: settleUntil });
    expect(held.warnings?.[0]).toContain(`waiting for an earlier create that may still land, until ${hhmm}`);
    expect(plan.changes.find((change) => change.name === 'held-lag')).toMatchObject({ kind: 'Alert', action: 'waiting' });
    expect(plan.summary).toMatchObject({ create: 0, errors: 0 });

    const text = await workspace.run(['plan', '--target', TARGET]);
    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stdout).toContain('* waiting Dashboard/held');
    expect(text.stdout).toContain(`waiting for an earlier create that may still land, until ${hhmm}`);
  });

  it('apply in the window writes nothing and exits 0: no second create while the first may land', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--target', TARGET, '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(parseJsonOutput(result).changes.find((change) => change.name === 'held')).toMatchObject({ action: 'waiting' });
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
    expect(proxy.intercepted.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it('a daemon sync in the window is not a failure: /status shows it drifted until then, and nothing is written', async () => {
    const settleUntil = (await readState(workspace.statePath)).targets[TARGET]?.intents[0]?.settleUntil;
    await resetEmulatorStats(emulator.url);
    const daemon = await startDaemon(workspace, ['--log-format', 'human', '--log-level', 'warn']);
    try {
      await waitUntil(async () => (await daemon.get('/readyz')).status === 200, 30_000);
      const status = JSON.parse((await daemon.get('/status')).text) as { targets: Record<string, { lastResult?: string; resources: { kind: string; name: string; status: string; waitUntil?: string }[] }> };
      const target = status.targets[TARGET];
      expect(target?.lastResult).toBe('success');
      expect(target?.resources.find((resource) => resource.name === 'held')).toMatchObject({ kind: 'Dashboard', status: 'drifted', waitUntil: settleUntil });
      expect(daemon.output().stdout).toContain('waiting for an earlier write that may still land');
    } finally {
      await daemon.stop();
    }
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
  });

  it('when the held create lands, the next run takes it back as ours: exactly one dashboard', async () => {
    expect(await proxy.releaseHeld()).toEqual([200]);
    const [landed] = await dashboardsNamed(NAME);
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--target', TARGET, '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    const changes = parseJsonOutput(result).changes;
    expect(changes.find((change) => change.name === 'held')).toMatchObject({ action: 'unchanged', id: landed, reclaimed: true, result: 'ok' });
    expect(changes.find((change) => change.name === 'held-lag')).toMatchObject({ action: 'create', result: 'ok' });
    expect(await dashboardPosts()).toBe(0);
    expect(await dashboardsNamed(NAME)).toEqual([landed]);
    const state = (await readState(workspace.statePath)).targets[TARGET];
    expect(state?.inventory.Dashboard).toMatchObject({ held: { id: landed } });
    expect(state?.intents).toEqual([]);
  });
});
