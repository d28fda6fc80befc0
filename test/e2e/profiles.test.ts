/**
 * The core scenarios against both emulator profiles (issue 16, "Done when"): plan, apply,
 * converge (a second apply writes nothing), adopt, prune and a daemon sync, on both variants.
 * Under `current` the manifests are what a real service of today takes: `config` tiles naming
 * their data source by name, webhooks by name, saved_search; the targets say `api.profile`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CURRENT_IDS, DEFAULT_SEED_IDS, type Profile, type RunningEmulator } from '../../src/emulator/index.js';
import { documents } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorDump,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

type TargetName = 'local' | 'local-selfhosted';
const TARGETS: readonly TargetName[] = ['local', 'local-selfhosted'];

interface Stack {
  dashboards: { id: string; name: string; tiles: { id: string; name: string; x: number; w: number }[] }[];
  alerts: { id: string; name?: string | null; threshold: number; source?: string }[];
}

/** The default seed's service (managed) or team (self-hosted) in a dump of either profile. */
async function liveStack(url: string, target: TargetName): Promise<Stack> {
  const data = (await emulatorDump(url)) as {
    organizations: { services: ({ id: string } & Stack)[] }[];
    teams: ({ id: string } & Stack)[];
  };
  const stack =
    target === 'local'
      ? data.organizations.flatMap((org) => org.services).find((service) => service.id === DEFAULT_SEED_IDS.serviceId)
      : data.teams.find((team) => team.id === DEFAULT_SEED_IDS.teamId);
  if (!stack) throw new Error(`no ${target} stack in the dump`);
  return stack;
}

/** A tile's chart in the profile's form. */
function chart(profile: Profile, tile: string): string {
  return profile === 'seed'
    ? `      series:\n        - { type: time, dataSource: events, aggFn: count, where: "tile:${tile}" }`
    : `      config: { displayType: line, source: logs, select: [{ aggFn: count, where: "tile:${tile}" }] }`;
}

function dashboardYaml(
  profile: Profile,
  target: TargetName,
  key: string,
  tiles: { name: string; w?: number }[],
): string {
  const lines = tiles.map((tile, index) =>
    [
      `    - name: ${tile.name}`,
      `      x: ${index * 12}`,
      '      y: 0',
      `      w: ${tile.w ?? 12}`,
      '      h: 4',
      chart(profile, tile.name),
    ].join('\n'),
  );
  return [
    'apiVersion: stacksync/v1',
    'kind: Dashboard',
    `metadata: { name: ${key}, target: ${target} }`,
    'spec:',
    `  name: Dashboard ${key}`,
    '  tiles:',
    ...lines,
    '',
  ].join('\n');
}

function alertYaml(
  profile: Profile,
  target: TargetName,
  key: string,
  spec: { dashboard?: string; tile?: string; threshold: number },
): string {
  const channel = profile === 'seed' ? '{ type: webhook, webhookId: oncall }' : '{ type: webhook, webhook: on-call }';
  const savedSearch =
    profile === 'seed'
      ? 'saved-1'
      : target === 'local'
        ? DEFAULT_CURRENT_IDS.service.savedSearch
        : DEFAULT_CURRENT_IDS.team.savedSearch;
  const watch = spec.dashboard
    ? [`  source: tile`, `  dashboard: ${spec.dashboard}`, `  tile: ${spec.tile ?? ''}`]
    : ['  source: saved_search', `  savedSearchId: ${savedSearch}`];
  return [
    'apiVersion: stacksync/v1',
    'kind: Alert',
    `metadata: { name: ${key}, target: ${target} }`,
    'spec:',
    `  name: Alert ${key}`,
    ...watch,
    `  threshold: ${spec.threshold}`,
    '  thresholdType: above',
    '  interval: 5m',
    `  channel: ${channel}`,
    '',
  ].join('\n');
}

function stackYaml(profile: Profile, target: TargetName, version: { wide?: boolean; threshold?: number } = {}): string {
  return documents([
    dashboardYaml(profile, target, 'api', [{ name: 'p99', w: version.wide ? 18 : 12 }, { name: 'errors' }]),
    alertYaml(profile, target, 'api-slow', { dashboard: 'api', tile: 'p99', threshold: version.threshold ?? 500 }),
    alertYaml(profile, target, 'errors-seen', { threshold: 1 }),
  ]);
}

/** Writes made by the last command, from the emulator's counters. */
async function writesSince(url: string): Promise<number> {
  return (await emulatorStats(url)).writes;
}

function listCalls(stats: Awaited<ReturnType<typeof emulatorStats>>, suffix: string): number {
  return stats.routes
    .filter((route) => route.method === 'GET' && route.route.endsWith(suffix))
    .reduce((sum, route) => sum + route.count, 0);
}

describe.each(['seed', 'current'] as const)('against the %s profile', (profile) => {
  let emulator: RunningEmulator;
  let workspace: Workspace;

  beforeAll(async () => {
    emulator = await startTestEmulator({ profile });
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      apiProfile: profile,
    });
  });

  afterAll(async () => {
    await workspace.dispose();
    await emulator.close();
  });

  it('plans, applies and converges: the second apply makes no write, and the plan is empty', async () => {
    for (const target of TARGETS) await workspace.write(`manifests/${target}.yaml`, stackYaml(profile, target));
    await resetEmulatorStats(emulator.url);
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/Plan: 6 to create/);
    const stats = await emulatorStats(emulator.url);
    // Sources and webhooks are kinds: each target that can write them lists them once per plan (a
    // paged list ends at its first short page: one call for these short lists, docs/api-client.md).
    // The seed's managed API lists sources but cannot write them: nothing here names one, so no
    // plan reads them.
    expect([listCalls(stats, '/sources'), listCalls(stats, '/webhooks')]).toEqual(
      profile === 'current' ? [2, 2] : [0, 0],
    );

    const first = await workspace.run(['apply']);
    expect(first.code).toBe(0);
    for (const target of TARGETS) {
      const live = await liveStack(emulator.url, target);
      expect(live.dashboards.map((dashboard) => dashboard.name)).toEqual(['Dashboard api']);
      expect(live.alerts.map((alert) => alert.name).sort()).toEqual(['Alert api-slow', 'Alert errors-seen']);
      if (profile === 'current')
        expect(live.alerts.find((alert) => alert.name === 'Alert errors-seen')?.source).toBe('saved_search');
    }

    await resetEmulatorStats(emulator.url);
    const second = await workspace.run(['apply']);
    expect(second.code).toBe(0);
    expect(await writesSince(emulator.url)).toBe(0);
    expect((await workspace.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('applies a change with one write per changed resource, and keeps the tile ids the alerts watch', async () => {
    const before = await liveStack(emulator.url, 'local');
    for (const target of TARGETS)
      await workspace.write(`manifests/${target}.yaml`, stackYaml(profile, target, { wide: true, threshold: 900 }));
    await resetEmulatorStats(emulator.url);
    const apply = await workspace.run(['apply']);
    expect(apply.code).toBe(0);
    expect(await writesSince(emulator.url)).toBe(4);
    const after = await liveStack(emulator.url, 'local');
    expect(after.dashboards[0]?.tiles.map((tile) => [tile.id, tile.w])).toEqual(
      before.dashboards[0]?.tiles.map((tile) => [tile.id, tile.name === 'p99' ? 18 : tile.w]),
    );
    expect(after.alerts.find((alert) => alert.name === 'Alert api-slow')?.threshold).toBe(900);
  });

  it('adopts a same-named live dashboard only with --adopt, then leaves it unchanged', async () => {
    const target = 'local-selfhosted';
    await workspace.write('manifests/adopted.yaml', dashboardYaml(profile, target, 'ops', [{ name: 'load' }]));
    // Someone made it in the console first: created straight through the API, not by stacksync.
    const tile =
      profile === 'seed'
        ? {
            name: 'load',
            x: 0,
            y: 0,
            w: 12,
            h: 4,
            series: [{ type: 'time', dataSource: 'events', aggFn: 'count', where: 'tile:load' }],
          }
        : {
            name: 'load',
            x: 0,
            y: 0,
            w: 6,
            h: 4,
            config: {
              displayType: 'line',
              sourceId: DEFAULT_CURRENT_IDS.team.sources.log,
              select: [{ aggFn: 'count', where: 'tile:load' }],
            },
          };
    const created = await fetch(`${emulator.url}/api/v2/dashboards`, {
      method: 'POST',
      headers: { authorization: 'Bearer emulator-token', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Dashboard ops', tiles: [tile] }),
    });
    expect(created.status).toBe(200);
    const plan = await workspace.run(['plan', '--detailed-exitcode', '--target', target]);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/adopt/);
    expect((await workspace.run(['apply', '--adopt', '--target', target])).code).toBe(0);
    const live = await liveStack(emulator.url, target);
    expect(live.dashboards.filter((dashboard) => dashboard.name === 'Dashboard ops')).toHaveLength(1);
    expect((await workspace.run(['plan', '--detailed-exitcode', '--target', target])).code).toBe(0);
  });

  it('prunes what a manifest no longer names', async () => {
    for (const target of TARGETS) {
      await workspace.write(
        `manifests/${target}.yaml`,
        documents([
          dashboardYaml(profile, target, 'api', [{ name: 'p99', w: 18 }, { name: 'errors' }]),
          alertYaml(profile, target, 'api-slow', { dashboard: 'api', tile: 'p99', threshold: 900 }),
        ]),
      );
    }
    // One of three managed resources per target is past the default 25 % delete cap.
    const apply = await workspace.run(['apply', '--prune', '--force']);
    expect(apply.code).toBe(0);
    for (const target of TARGETS)
      expect((await liveStack(emulator.url, target)).alerts.map((alert) => alert.name)).toEqual(['Alert api-slow']);
  });

  it('a daemon sync heals a live edit made outside stacksync', async () => {
    const live = await liveStack(emulator.url, 'local');
    const alert = live.alerts.find((item) => item.name === 'Alert api-slow');
    if (!alert) throw new Error('no api-slow alert');
    const path = `/v1/organizations/${DEFAULT_SEED_IDS.organizationId}/services/${DEFAULT_SEED_IDS.serviceId}/stack/alerts/${alert.id}`;
    const auth = `Basic ${Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64')}`;
    const current = (await (await fetch(`${emulator.url}${path}`, { headers: { authorization: auth } })).json()) as {
      result: Record<string, unknown>;
    };
    const {
      id: _id,
      state: _state,
      team: _team,
      teamId: _teamId,
      createdAt: _c,
      updatedAt: _u,
      silenced: _s,
      dashboard,
      ...body
    } = current.result;
    const edited = await fetch(`${emulator.url}${path}`, {
      method: 'PUT',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, ...(dashboard !== undefined ? { dashboardId: dashboard } : {}), threshold: 1 }),
    });
    expect(edited.status).toBe(200);
    const run = await workspace.run(['run', '--once', '--listen', '127.0.0.1:0']);
    expect(run.code).toBe(0);
    expect(
      (await liveStack(emulator.url, 'local')).alerts.find((item) => item.name === 'Alert api-slow')?.threshold,
    ).toBe(900);
  });
});
