/**
 * `stacksync apply` end to end (issue 5, "Must hold"): it converges (a second apply writes
 * nothing, the plan is empty), it writes exactly once per changed resource (plus the second
 * PATCH of a postgres mapping change), PATCH bodies are minimal, and ids created in a run flow
 * into the alerts that need them — on both variants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import {
  alertName,
  alertYaml,
  dashboardName,
  billingPipe,
  dashboardYaml,
  describeRun,
  documents,
  dump,
  expectExactly,
  expectStateMatchesLive,
  livePipe,
  liveOf,
  liveTarget,
  parseJsonOutput,
  readState,
  ROUTES,
  writesByRoute,
  type TargetName,
} from '../helpers/e2e.js';
import { startProxy, type ProxiedRequest, type RunningProxy } from '../helpers/proxy.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

const EVENTS_S3 = (pollingMs: number): string => `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: events-s3, target: local }
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.objectStorage}
  settings:
    object_storage_concurrency: 1
    object_storage_polling_interval_ms: ${pollingMs}
`;

function stack(
  target: TargetName,
  version: { wideP99?: boolean; slowThreshold?: number; tags?: string[] } = {},
): string {
  return documents([
    dashboardYaml({
      key: 'api',
      target,
      tiles: [{ name: 'p99', w: version.wideP99 ? 18 : 12 }, 'errors'],
      ...(version.tags ? { tags: version.tags } : {}),
    }),
    alertYaml({ key: 'api-slow', target, dashboard: 'api', tile: 'p99', threshold: version.slowThreshold ?? 500 }),
    alertYaml({ key: 'api-failing', target, dashboard: 'api', tile: 'errors', threshold: 5 }),
    dashboardYaml({ key: 'db', target, tiles: ['qps'] }),
    alertYaml({ key: 'db-busy', target, dashboard: 'db', tile: 'qps' }),
  ]);
}

const NEW_PAIR = (target: TargetName): string =>
  documents([
    dashboardYaml({ key: 'fresh', target, tiles: ['left', 'right'] }),
    alertYaml({ key: 'fresh-right', target, dashboard: 'fresh', tile: 'right' }),
  ]);

describe('apply converges with the minimum of writes', () => {
  let emulator: RunningEmulator;
  let proxy: RunningProxy;
  let workspace: Workspace;
  let requests: ProxiedRequest[] = [];

  beforeAll(async () => {
    emulator = await startTestEmulator();
    // The proxy only records what is sent, to check the bodies.
    proxy = await startProxy(emulator.url);
    proxy.intercept((request) => {
      requests.push(request);
      return undefined;
    });
    workspace = await createWorkspace(proxy.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write('manifests/local.yaml', stack('local'));
    await workspace.write('manifests/selfhosted.yaml', stack('local-selfhosted'));
    await workspace.write('manifests/pipes.yaml', documents([EVENTS_S3(15000), billingPipe('customers')]));
  });
  afterAll(async () => {
    await workspace?.dispose();
    await proxy?.close();
    await emulator?.close();
  });

  async function applyCounting(args: string[] = ['apply']): Promise<Record<string, number>> {
    await resetEmulatorStats(emulator.url);
    requests = [];
    const result = await workspace.run(args);
    expect(result.code, describeRun(result)).toBe(0);
    return writesByRoute(await emulatorStats(emulator.url));
  }

  async function expectConverged(): Promise<void> {
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
    expect(await applyCounting()).toEqual({});
  }

  it('first apply: one create per dashboard and alert, one PATCH for the one changed pipe', async () => {
    const writes = await applyCounting();
    expect(writes).toEqual({
      [`POST ${ROUTES.managedDashboards}`]: 2,
      [`POST ${ROUTES.managedAlerts}`]: 3,
      [`POST ${ROUTES.selfDashboards}`]: 2,
      [`POST ${ROUTES.selfAlerts}`]: 3,
      [`PATCH ${ROUTES.managedPipe}`]: 1,
    });
    const data = await dump(emulator.url);
    for (const target of ['local', 'local-selfhosted'] as const) {
      const want = { dashboards: ['api', 'db'], alerts: ['api-slow', 'api-failing', 'db-busy'] };
      expectExactly(liveOf(data, target), {
        dashboards: want.dashboards.map(dashboardName),
        alerts: want.alerts.map(alertName),
      });
      expectStateMatchesLive(await readState(workspace.statePath), data, target, want);
    }
  });

  it('sends a minimal PATCH: only the changed setting', () => {
    const patches = requests.filter((request) => request.method === 'PATCH');
    expect(patches.map((request) => JSON.parse(request.body) as unknown)).toEqual([
      { settings: { object_storage_polling_interval_ms: 15000 } },
    ]);
    expect(patches[0]?.path).toContain(DEFAULT_SEED_IDS.pipes.objectStorage);
  });

  it('converges: the plan is empty and a second apply makes zero writes', async () => {
    await expectConverged();
  });

  it('N changed resources take N writes, plus one for a postgres mapping remove-then-add', async () => {
    const before = await dump(emulator.url);
    await workspace.write('manifests/local.yaml', stack('local', { wideP99: true, slowThreshold: 750 }));
    await workspace.write('manifests/selfhosted.yaml', stack('local-selfhosted', { tags: ['db', 'api'] }));
    await workspace.write('manifests/pipes.yaml', documents([EVENTS_S3(20000), billingPipe('customers_v2')]));
    // 5 changed resources: 1 dashboard + 1 alert (managed), 1 dashboard (self-hosted), 2 pipes.
    const writes = await applyCounting();
    expect(writes).toEqual({
      [`PUT ${ROUTES.managedDashboard}`]: 1,
      [`PUT ${ROUTES.managedAlert}`]: 1,
      [`PUT ${ROUTES.selfDashboard}`]: 1,
      [`PATCH ${ROUTES.managedPipe}`]: 3,
    });

    // The postgres change went as a remove, then an add, in two PATCHes.
    const billing = requests.filter(
      (request) => request.method === 'PATCH' && request.path.endsWith(DEFAULT_SEED_IDS.pipes.postgres),
    );
    expect(billing.map((request) => JSON.parse(request.body) as unknown)).toEqual([
      {
        source: {
          postgres: {
            tableMappingsToRemove: [{ sourceSchemaName: 'public', sourceTable: 'customers', targetTable: 'customers' }],
          },
        },
      },
      {
        source: {
          postgres: {
            tableMappingsToAdd: [
              expect.objectContaining({
                sourceSchemaName: 'public',
                sourceTable: 'customers',
                targetTable: 'customers_v2',
              }),
            ],
          },
        },
      },
    ]);
    const after = await dump(emulator.url);
    const mappings = (livePipe(after, DEFAULT_SEED_IDS.pipes.postgres).source['postgres']?.['tableMappings'] ?? []) as {
      sourceTable: string;
      targetTable: string;
    }[];
    expect(mappings.map((mapping) => `${mapping.sourceTable}→${mapping.targetTable}`).sort()).toEqual([
      'customers→customers_v2',
      'invoices→invoices',
    ]);
    expect(livePipe(after, DEFAULT_SEED_IDS.pipes.objectStorage).settings?.['object_storage_polling_interval_ms']).toBe(
      20000,
    );

    // The tile update kept the tile ids, so the alerts watching them are the same alerts.
    for (const target of ['local', 'local-selfhosted'] as const) {
      const was = liveOf(before, target);
      const now = liveOf(after, target);
      expect(now.alerts.map((alert) => [alert.id, alert.tileId]).sort()).toEqual(
        was.alerts.map((alert) => [alert.id, alert.tileId]).sort(),
      );
      expect(now.dashboards.map((d) => d.tiles.map((tile) => tile.id)).sort()).toEqual(
        was.dashboards.map((d) => d.tiles.map((tile) => tile.id)).sort(),
      );
    }
    const wide = liveOf(after, 'local')
      .dashboards.find((d) => d.name === dashboardName('api'))
      ?.tiles.find((tile) => tile.name === 'p99');
    expect(wide?.w).toBe(18);
    expect(liveOf(after, 'local').alerts.find((a) => a.name === alertName('api-slow'))?.threshold).toBe(750);
  });

  it('converges again after the changes', async () => {
    await expectConverged();
  });

  it('a new dashboard and an alert on one of its tiles go in one apply, with the new ids', async () => {
    await workspace.write('manifests/fresh-local.yaml', NEW_PAIR('local'));
    await workspace.write('manifests/fresh-selfhosted.yaml', NEW_PAIR('local-selfhosted'));
    await resetEmulatorStats(emulator.url);
    const result = await workspace.run(['apply', '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    const report = parseJsonOutput(result);
    const applied = report.changes.filter((change) => change.action !== 'unchanged');
    expect(applied.map((change) => `${change.target}/${change.kind}/${change.name}:${change.result}`).sort()).toEqual([
      'local-selfhosted/Alert/fresh-right:ok',
      'local-selfhosted/Dashboard/fresh:ok',
      'local/Alert/fresh-right:ok',
      'local/Dashboard/fresh:ok',
    ]);
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({
      [`POST ${ROUTES.managedDashboards}`]: 1,
      [`POST ${ROUTES.managedAlerts}`]: 1,
      [`POST ${ROUTES.selfDashboards}`]: 1,
      [`POST ${ROUTES.selfAlerts}`]: 1,
    });
    const data = await dump(emulator.url);
    for (const target of ['local', 'local-selfhosted'] as const) {
      const live = liveOf(data, target);
      const dashboard = live.dashboards.find((d) => d.name === dashboardName('fresh'));
      const alert = live.alerts.find((a) => a.name === alertName('fresh-right'));
      expect(dashboard, target).toBeDefined();
      expect(alert?.dashboard).toBe(dashboard?.id);
      expect(alert?.tileId).toBe(dashboard?.tiles.find((tile) => tile.name === 'right')?.id);
    }
    await expectConverged();
  });

  it('one failed create does not stop the others; what depends on it is skipped, and the next run completes', async () => {
    for (const target of ['local', 'local-selfhosted'] as const) {
      await workspace.write(
        `manifests/doomed-${target}.yaml`,
        documents([
          dashboardYaml({ key: 'doomed', target }),
          alertYaml({ key: 'doomed-alert', target, dashboard: 'doomed', tile: 'main' }),
          dashboardYaml({ key: 'bystander', target }),
        ]),
      );
    }
    // The service refuses the doomed dashboard (a 400 is final: not retried, certainly not created).
    proxy.intercept((request) => {
      requests.push(request);
      const refused = request.method === 'POST' && request.body.includes(dashboardName('doomed'));
      return refused
        ? {
            status: 400,
            body: JSON.stringify({
              status: 400,
              error: 'BAD_REQUEST: no room for doomed',
              message: 'no room for doomed',
            }),
          }
        : undefined;
    });
    try {
      const result = await workspace.run(['apply', '--output', 'json']);
      expect(result.code, describeRun(result)).toBe(1);
      const report = parseJsonOutput(result);
      for (const target of ['local', 'local-selfhosted']) {
        const of = (name: string): unknown =>
          report.changes.find((change) => change.target === target && change.name === name);
        expect(of('doomed')).toMatchObject({
          action: 'create',
          result: 'failed',
          error: expect.stringMatching(/no room for doomed/),
        });
        expect(of('doomed-alert')).toMatchObject({
          action: 'create',
          result: 'skipped',
          error: expect.stringMatching(/depends on Dashboard\/doomed/),
        });
        expect(of('bystander')).toMatchObject({ action: 'create', result: 'ok' });
      }
      // The refused create left no intent behind.
      const state = await readState(workspace.statePath);
      for (const target of ['local', 'local-selfhosted']) expect(state.targets[target]?.intents).toEqual([]);
    } finally {
      proxy.intercept((request) => {
        requests.push(request);
        return undefined;
      });
    }
    const next = await workspace.run(['apply']);
    expect(next.code, describeRun(next)).toBe(0);
    await expectConverged();
    const data = await dump(emulator.url);
    for (const target of ['local', 'local-selfhosted'] as const) {
      expect(liveOf(data, target).dashboards.filter((d) => d.name === dashboardName('doomed'))).toHaveLength(1);
      expect(liveOf(data, target).alerts.filter((a) => a.name === alertName('doomed-alert'))).toHaveLength(1);
    }
  });
});

describe('alerts follow their tiles when a dashboard drops or renames them', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it.each([['local'], ['local-selfhosted']] as const)(
    'on %s: a moved alert keeps its id, one on a renamed tile is re-created once',
    async (target) => {
      const workspace = await createWorkspace(emulator.url, {
        rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      });
      try {
        const write = (tiles: string[], moved: string, renamed: string): Promise<void> =>
          workspace.write(
            'manifests/board.yaml',
            documents([
              dashboardYaml({ key: 'board', target, tiles }),
              alertYaml({ key: 'moved', target, dashboard: 'board', tile: moved }),
              alertYaml({ key: 'renamed', target, dashboard: 'board', tile: renamed }),
            ]),
          );
        await write(['t0', 't1', 'p99'], 't1', 'p99');
        expect((await workspace.run(['apply'])).code).toBe(0);
        const before = await liveTarget(emulator.url, target);
        // t1 goes (its alert moves to t0 first); p99 becomes p99-latency (a new tile id), and its alert follows.
        await write(['t0', 'p99-latency'], 't0', 'p99-latency');
        const plan = await workspace.run(['plan']);
        expect(plan.stdout).toMatch(/warning: the server deletes this alert .* re-created on tile "p99-latency"/);
        await resetEmulatorStats(emulator.url);
        const result = await workspace.run(['apply']);
        expect(result.code, describeRun(result)).toBe(0);
        const [dashboards, alerts] =
          target === 'local'
            ? [ROUTES.managedDashboard, ROUTES.managedAlert]
            : [ROUTES.selfDashboard, ROUTES.selfAlert];
        const collection = target === 'local' ? ROUTES.managedAlerts : ROUTES.selfAlerts;
        expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({
          [`PUT ${dashboards}`]: 1,
          [`PUT ${alerts}`]: 1,
          [`POST ${collection}`]: 1,
        });

        const after = await liveTarget(emulator.url, target);
        expectExactly(after, {
          dashboards: [dashboardName('board')],
          alerts: [alertName('moved'), alertName('renamed')],
        });
        const tiles = new Map(after.dashboards[0]?.tiles.map((tile) => [tile.name, tile.id]));
        const moved = after.alerts.find((a) => a.name === alertName('moved'));
        expect(moved?.id).toBe(before.alerts.find((a) => a.name === alertName('moved'))?.id);
        expect(moved?.tileId).toBe(tiles.get('t0'));
        expect(after.alerts.find((a) => a.name === alertName('renamed'))?.tileId).toBe(tiles.get('p99-latency'));
        const state = await readState(workspace.statePath);
        expectStateMatchesLive(state, await dump(emulator.url), target, {
          dashboards: ['board'],
          alerts: ['moved', 'renamed'],
        });
        const again = await workspace.run(['plan', '--detailed-exitcode']);
        expect(again.code, describeRun(again)).toBe(0);
      } finally {
        await workspace.dispose();
      }
    },
  );
});
