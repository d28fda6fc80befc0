/**
 * docs/reference/config.md: a target may name the path segments and the settings prefix its server uses
 * (`api: { paths: { pipes, stack }, settingsPrefix }`). Against an emulator that spells them as
 * the real service does (`clickpipes`, `clickstack`, `clickhouse_`), a target saying so creates a
 * pipe born in Git with engine settings and a dashboard, plans clean, and sends nothing to the
 * seed's spelling; a target that does not say so cannot even read the live state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_IDS, type RunningEmulator } from '../../src/emulator/index.js';
import { describeRun } from '../helpers/e2e.js';
import { bornPipesYaml } from '../helpers/pipes.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';
import { fixtureSeed } from '../emulator/pipe-fixtures.js';

const SERVED = { paths: { pipes: 'clickpipes', stack: 'clickstack' }, settingsPrefix: 'clickhouse_' } as const;

function configYaml(url: string, statePath: string, api: string): string {
  const ids = DEFAULT_SEED_IDS;
  return `targets:
  - name: local
    variant: managed
    baseUrl: ${url}
    organizationId: ${ids.organizationId}
    serviceId: ${ids.serviceId}
    auth: { keyId: { fromEnv: STACKSYNC_KEY_ID }, keySecret: { fromEnv: STACKSYNC_KEY_SECRET } }
    rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 }
    api: ${api}
state: ${JSON.stringify(statePath)}
`;
}

const DASHBOARD = `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: spelled }
spec:
  name: Spelled dashboard
  tiles:
    - { name: rate, x: 0, y: 0, w: 12, h: 4, config: { displayType: line, source: logs, select: [{ aggFn: count }] } }
`;

describe('a target naming its server’s path segments and settings prefix', () => {
  let emulator: RunningEmulator;
  const workspaces: Workspace[] = [];

  beforeAll(async () => {
    emulator = await startTestEmulator({ profile: 'current', seed: fixtureSeed(), pipeTransitionMs: 0, ...SERVED });
  });
  afterAll(async () => {
    await Promise.all(workspaces.map((workspace) => workspace.dispose()));
    await emulator?.close();
  });

  async function workspaceWith(api: string): Promise<Workspace> {
    const workspace = await createWorkspace(emulator.url);
    workspaces.push(workspace);
    await workspace.write('config/stacksync.yaml', configYaml(emulator.url, workspace.statePath, api));
    const { yaml, env } = bornPipesYaml([
      {
        key: 'spelled-pipe',
        family: 'kafka',
        spec: { settings: { engine_max_threads: 4, streaming_max_insert_wait_ms: 2000 } },
      },
    ]);
    Object.assign(workspace.env, env);
    await workspace.write('manifests/pipe.yaml', yaml);
    await workspace.write('manifests/dashboard.yaml', DASHBOARD);
    return workspace;
  }

  it('creates, plans clean, and uses only the segments and prefix the server serves', async () => {
    const workspace = await workspaceWith(
      '{ profile: current, paths: { pipes: clickpipes, stack: clickstack }, settingsPrefix: clickhouse_ }',
    );
    await resetEmulatorStats(emulator.url);
    const apply = await workspace.run(['apply']);
    expect(apply.code, describeRun(apply)).toBe(0);
    const served = (await emulatorStats(emulator.url)).routes;
    expect(served.some((route) => route.method === 'POST' && route.route.endsWith('/clickpipes'))).toBe(true);
    expect(served.some((route) => route.method === 'POST' && route.route.endsWith('/clickstack/dashboards'))).toBe(
      true,
    );
    expect(served.filter((route) => /\/(pipes|stack)(\/|$)/.test(route.route))).toEqual([]);
    for (const route of served) expect(Object.keys(route.statuses), `${route.method} ${route.route}`).toEqual(['200']);

    // The server answers the settings under its own prefix; the manifest's engine_ names match them.
    const ids = DEFAULT_SEED_IDS;
    const auth = `Basic ${Buffer.from(`${ids.keyId}:${ids.keySecret}`).toString('base64')}`;
    const answer = await fetch(
      `${emulator.url}/v1/organizations/${ids.organizationId}/services/${ids.serviceId}/clickpipes`,
      { headers: { authorization: auth } },
    );
    const pipe = (
      (await answer.json()) as { result: { name: string; settings?: Record<string, unknown> }[] }
    ).result.find((each) => each.name === 'spelled-pipe');
    expect(pipe?.settings).toEqual({ clickhouse_max_threads: 4, streaming_max_insert_wait_ms: 2000 });
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
  }, 120_000);

  it('without them, the seed’s segments name nothing on that server', async () => {
    const workspace = await workspaceWith('{ profile: current }');
    const plan = await workspace.run(['plan']);
    expect(plan.code, describeRun(plan)).toBe(1);
    expect(plan.stdout).toMatch(
      /GET \/v1\/organizations\/\{organizationId\}\/services\/\{serviceId\}\/pipes: HTTP 404/,
    );
  }, 60_000);
});
