/**
 * Ownership is proven, never guessed (issue 25, item 1). A create intent says only that a create
 * may have happened: prune deletes what the inventory records and nothing else, and an intent
 * takes a live resource back only for a manifest that still wants it and only when that resource
 * could be the create (made after the intent, before the create could have landed). A colleague's
 * dashboard that merely has the name is shown for a person to decide, never deleted.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { StateFile } from '../../src/model/state.js';
import { emptyInventory } from '../../src/state/empty.js';
import {
  createDashboardOutOfBand,
  dashboardName,
  dashboardYaml,
  describeRun,
  liveTarget,
  parseJsonOutput,
  readState,
  TARGETS,
} from '../helpers/e2e.js';
import { startProxy, type RunningProxy } from '../helpers/proxy.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

const TARGET = 'local-selfhosted';

describe('a create killed after its intent was recorded, before its request reached the service', () => {
  let emulator: RunningEmulator;
  let proxy: RunningProxy;
  let workspace: Workspace;
  const NAME = dashboardName('killed');

  beforeAll(async () => {
    emulator = await startTestEmulator();
    proxy = await startProxy(emulator.url);
    workspace = await createWorkspace(proxy.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { maxDeletes: 1000, maxDeletePercent: 100 },
    });
    await workspace.write('manifests/killed.yaml', dashboardYaml({ key: 'killed', target: TARGET }));
  });
  afterAll(async () => {
    await workspace?.dispose();
    await proxy?.close();
    await emulator?.close();
  });

  it('leaves a pending intent and nothing live', async () => {
    let child: ChildProcess | undefined;
    proxy.intercept((request) => {
      if (request.method !== 'POST' || request.path !== '/api/v2/dashboards') return undefined;
      // SIGKILL before the socket is cut: the client dies waiting for the answer; the service never sees the create.
      child?.kill('SIGKILL');
      return 'hold';
    });
    try {
      child = workspace.spawn(['apply', '--target', TARGET]);
      const exit = new Promise<NodeJS.Signals | null>((resolve) =>
        child?.once('exit', (_code, signal) => resolve(signal)),
      );
      expect(await exit).toBe('SIGKILL');
    } finally {
      proxy.intercept(undefined);
    }
    expect((await readState(workspace.statePath)).targets[TARGET]?.intents).toMatchObject([
      { kind: 'Dashboard', key: 'killed', name: NAME },
    ]);
    expect((await liveTarget(emulator.url, TARGET)).dashboards).toEqual([]);
  });

  it("then its manifest is removed and a colleague makes a dashboard of that name: apply --prune --force leaves the colleague's dashboard alone", async () => {
    await workspace.remove('manifests/killed.yaml');
    await workspace.write('manifests/other.yaml', dashboardYaml({ key: 'other', target: TARGET }));
    const colleagues = await createDashboardOutOfBand(emulator.url, TARGET, NAME);

    const plan = await workspace.run(['plan', '--target', TARGET, '--prune', '--output', 'json']);
    expect(plan.code, describeRun(plan)).toBe(0);
    expect(parseJsonOutput(plan).changes.filter((change) => change.id === colleagues.id)).toEqual([]);

    await resetEmulatorStats(emulator.url);
    const apply = await workspace.run(['apply', '--target', TARGET, '--prune', '--force']);
    expect(apply.code, describeRun(apply)).toBe(0);
    const deletes = (await emulatorStats(emulator.url)).routes.filter((route) => route.method === 'DELETE');
    expect(deletes).toEqual([]);
    expect((await liveTarget(emulator.url, TARGET)).dashboards.map((dashboard) => dashboard.id)).toContain(
      colleagues.id,
    );
  });
});

describe('an intent written an hour before a colleague made a dashboard of its name', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  const NAME = dashboardName('taken');
  const colleagues = new Map<string, string>();

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { maxDeletes: 1000, maxDeletePercent: 100 },
    });
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const state: StateFile = { version: 1, targets: {} };
    for (const target of TARGETS) {
      state.targets[target] = {
        inventory: emptyInventory(),
        secretHashes: {},
        intents: [{ kind: 'Dashboard', key: 'taken', name: NAME, at: anHourAgo }],
      };
      colleagues.set(target, (await createDashboardOutOfBand(emulator.url, target, NAME)).id);
      await workspace.write(`manifests/${target}.yaml`, dashboardYaml({ key: 'taken', target }));
    }
    await workspace.write('.stacksync/state.json', `${JSON.stringify(state, null, 2)}\n`);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('is not taken back while the manifest wants it: the plan shows adopt, for a person to decide', async () => {
    const result = await workspace.run(['plan', '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    const plan = parseJsonOutput(result);
    for (const target of TARGETS) {
      const change = plan.changes.find((candidate) => candidate.target === target && candidate.name === 'taken');
      expect(change, target).toMatchObject({ action: 'adopt', id: colleagues.get(target) });
      expect(change?.reclaimed, target).toBeUndefined();
    }
  });

  it('apply without --adopt reports the conflict and writes nothing', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--prune', '--force', '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(1);
    for (const change of parseJsonOutput(result).changes.filter((candidate) => candidate.name === 'taken'))
      expect(change).toMatchObject({ action: 'adopt', result: 'skipped', code: 'E_CONFLICT' });
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
    const state = await readState(workspace.statePath);
    for (const target of TARGETS) {
      expect(state.targets[target]?.inventory.Dashboard).toEqual({});
      expect((await liveTarget(emulator.url, target)).dashboards.map((dashboard) => dashboard.id)).toEqual([
        colleagues.get(target),
      ]);
    }
  });

  it('and with its manifest removed, apply --prune --force deletes neither; the intent, with nothing left to do, expires', async () => {
    for (const target of TARGETS) await workspace.remove(`manifests/${target}.yaml`);
    await workspace.write('manifests/keep.yaml', dashboardYaml({ key: 'keep', target: 'local' }));
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--prune', '--force']);
    expect(result.code, describeRun(result)).toBe(0);
    // Only the create of `keep`: no delete.
    expect((await emulatorStats(emulator.url)).writes).toBe(1);
    for (const target of TARGETS)
      expect((await liveTarget(emulator.url, target)).dashboards.map((dashboard) => dashboard.id)).toContain(
        colleagues.get(target),
      );
    for (const target of TARGETS) expect((await readState(workspace.statePath)).targets[target]?.intents).toEqual([]);
  });
});
