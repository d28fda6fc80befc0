/**
 * A realistic account on the emulator's `current` profile (issue 16, "Done when"): dashboards in
 * `config` form with filters, a saved query and containers; alerts with a range threshold,
 * several channels, an email channel, no channel, a note and members stacksync does not model.
 * Manifests manage only some members (names, thresholds, tile positions). Also: one alert of a
 * shape no reader knows among 1,000, and names of sources that do not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_CURRENT_IDS,
  DEFAULT_SEED_IDS,
  defaultSeed,
  type RunningEmulator,
  type Seed,
} from '../../src/emulator/index.js';
import { documents, parseJsonOutput } from '../helpers/e2e.js';
import { startProxy, type RunningProxy } from '../helpers/proxy.js';
import {
  createWorkspace,
  emulatorDump,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

const TEAM = DEFAULT_CURRENT_IDS.team;
const IDS = {
  dashboard: '66f00000000000000000e001',
  latencyTile: '66f00000000000000000f001',
  errorsTile: '66f00000000000000000f002',
  opsWebhook: '66f0000000000000000b0009',
  band: '66f00000000000000000a101',
  budget: '66f00000000000000000a102',
  quiet: '66f00000000000000000a103',
  burst: '66f00000000000000000a104',
};

function accountSeed(): Seed {
  const seed = defaultSeed('current');
  const team = seed.teams?.[0];
  if (!team) throw new Error('the default seed has no team');
  team.webhooks = [...(team.webhooks ?? []), { id: IDS.opsWebhook, name: 'ops', service: 'slack' }];
  team.dashboards = [
    {
      id: IDS.dashboard,
      name: 'Checkout',
      tags: ['shop'],
      tiles: [
        {
          id: IDS.latencyTile,
          name: 'latency',
          x: 0,
          y: 0,
          w: 12,
          h: 4,
          containerId: 'main',
          config: {
            displayType: 'line',
            sourceId: TEAM.sources.trace,
            select: [{ aggFn: 'avg', valueExpression: 'Duration', alias: 'mean' }],
            groupBy: 'ServiceName',
            fillNulls: false,
          },
        },
        {
          id: IDS.errorsTile,
          name: 'errors',
          x: 12,
          y: 0,
          w: 12,
          h: 4,
          config: {
            displayType: 'number',
            sourceId: TEAM.sources.log,
            select: [{ aggFn: 'count', where: 'SeverityText:error' }],
            numberFormat: { output: 'number', mantissa: 0 },
          },
        },
      ],
      filters: [{ type: 'QUERY_EXPRESSION', name: 'service', expression: 'ServiceName', sourceId: TEAM.sources.log }],
      savedQuery: 'env:prod',
      containers: [{ id: 'main', title: 'Main', collapsed: false }],
    },
  ];
  const webhook = (id: string) => ({ type: 'webhook', webhookId: id });
  team.alerts = [
    {
      id: IDS.band,
      name: 'Latency band',
      source: 'tile',
      dashboardId: IDS.dashboard,
      tileId: IDS.latencyTile,
      threshold: 100,
      thresholdMax: 500,
      thresholdType: 'between',
      interval: '5m',
      channel: webhook(TEAM.webhook),
      channels: [webhook(TEAM.webhook), webhook(IDS.opsWebhook)],
      note: 'runbook: https://wiki.example.com/latency',
      numConsecutiveWindows: 3,
    },
    {
      id: IDS.budget,
      name: 'Error budget',
      source: 'saved_search',
      savedSearchId: TEAM.savedSearch,
      threshold: 10,
      thresholdType: 'above_exclusive',
      interval: '15m',
      channel: { type: 'email', emails: ['sre@example.com'] },
      state: 'ALERT',
      silenced: { by: 'sre@example.com', at: '2026-11-01T00:00:00.000Z', until: '2026-12-01T00:00:00.000Z' },
    },
    {
      id: IDS.quiet,
      name: 'Quiet',
      source: 'saved_search',
      savedSearchId: TEAM.savedSearch,
      threshold: 0,
      thresholdType: 'below_or_equal',
      interval: '1h',
    },
    {
      id: IDS.burst,
      name: 'Burst',
      source: 'saved_search',
      savedSearchId: TEAM.savedSearch,
      threshold: 5,
      thresholdMax: 50,
      thresholdType: 'not_between',
      interval: '5m',
      // Stored as a server of today stores any channel: mirrored in channels.
      message: 'burst of errors',
      scheduleOffsetMinutes: 2,
      channel: webhook(IDS.opsWebhook),
      channels: [webhook(IDS.opsWebhook)],
    },
  ];
  return seed;
}

const MANIFESTS = documents([
  `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: checkout, target: local-selfhosted }
spec:
  name: Checkout
  tiles:
    - { name: latency, x: 0, y: 0, w: 18, h: 4 }
    - { name: errors, x: 18, y: 0, w: 6, h: 4 }
`,
  `apiVersion: stacksync/v1
kind: Alert
metadata: { name: latency-band, target: local-selfhosted }
spec:
  name: Latency band
  source: tile
  dashboard: checkout
  tile: latency
  threshold: 150
  thresholdType: between
  interval: 5m
`,
  `apiVersion: stacksync/v1
kind: Alert
metadata: { name: error-budget, target: local-selfhosted }
spec:
  name: Error budget
  source: saved_search
  savedSearchId: ${TEAM.savedSearch}
  threshold: 10
  thresholdType: above_exclusive
  interval: 15m
`,
  `apiVersion: stacksync/v1
kind: Alert
metadata: { name: quiet, target: local-selfhosted }
spec:
  name: Quiet
  source: search
  savedSearchId: ${TEAM.savedSearch}
  threshold: 0
  thresholdType: below_or_equal
  interval: 1h
`,
  `apiVersion: stacksync/v1
kind: Alert
metadata: { name: burst, target: local-selfhosted }
spec:
  name: Burst
  source: saved_search
  savedSearchId: ${TEAM.savedSearch}
  threshold: 8
  thresholdType: not_between
  interval: 5m
`,
]);

type Json = Record<string, unknown>;

async function teamStack(url: string): Promise<{ dashboards: Json[]; alerts: Json[] }> {
  const data = (await emulatorDump(url)) as { teams: { id: string; dashboards: Json[]; alerts: Json[] }[] };
  const team = data.teams.find((candidate) => candidate.id === DEFAULT_SEED_IDS.teamId);
  if (!team) throw new Error('no team in the dump');
  return { dashboards: team.dashboards, alerts: team.alerts };
}

/** Everything but the update time, which a write moves by design. */
function withoutUpdatedAt(items: Json[]): Json[] {
  return items.map(({ updatedAt: _updatedAt, ...rest }) => rest);
}

function listCalls(stats: Awaited<ReturnType<typeof emulatorStats>>, suffix: string): number {
  return stats.routes
    .filter((route) => route.method === 'GET' && route.route.endsWith(suffix))
    .reduce((sum, route) => sum + route.count, 0);
}

describe('a realistic account on the current profile, managed member by member', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;

  beforeAll(async () => {
    emulator = await startTestEmulator({ profile: 'current', seed: accountSeed() });
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      apiProfile: 'current',
    });
    await workspace.write('manifests/account.yaml', MANIFESTS);
  });

  afterAll(async () => {
    await workspace.dispose();
    await emulator.close();
  });

  it('plans with the right code, converges at once, and never changes a member the manifests do not set', async () => {
    const seeded = await teamStack(emulator.url);
    await resetEmulatorStats(emulator.url);
    const plan = await workspace.run([
      'plan',
      '--detailed-exitcode',
      '--target',
      'local-selfhosted',
      '--output',
      'json',
    ]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    const planned = parseJsonOutput(plan) as {
      changes: { name: string; action: string; diff: { path: string }[] }[];
      errors: unknown[];
    };
    expect(planned.errors).toEqual([]);
    expect(
      Object.fromEntries(
        planned.changes.map((change) => [change.name, [change.action, change.diff.map((diff) => diff.path)]]),
      ),
    ).toEqual({
      checkout: ['adopt', ['tiles[latency].w', 'tiles[errors].x', 'tiles[errors].w']],
      'latency-band': ['adopt', ['threshold']],
      'error-budget': ['adopt', []],
      quiet: ['adopt', []],
      burst: ['adopt', ['threshold']],
    });
    // Sources and webhooks are kinds of their own now: each is listed once per plan (for orphans and drift), whether or not a manifest names one.
    const stats = await emulatorStats(emulator.url);
    expect([listCalls(stats, '/sources'), listCalls(stats, '/webhooks')]).toEqual([1, 1]);

    const first = await workspace.run(['apply', '--adopt', '--target', 'local-selfhosted']);
    expect(first.code).toBe(0);
    const applied = await teamStack(emulator.url);

    // Exactly the managed members moved; every other member is what it was, byte for byte.
    const expected = structuredClone(seeded);
    const [board] = expected.dashboards as { tiles: Json[] }[];
    Object.assign(board?.tiles[0] ?? {}, { w: 18 });
    Object.assign(board?.tiles[1] ?? {}, { x: 18, w: 6 });
    for (const alert of expected.alerts) if (alert['id'] === IDS.band) alert['threshold'] = 150;
    for (const alert of expected.alerts) if (alert['id'] === IDS.burst) alert['threshold'] = 8;
    expect(JSON.stringify(withoutUpdatedAt(applied.dashboards))).toBe(
      JSON.stringify(withoutUpdatedAt(expected.dashboards)),
    );
    expect(JSON.stringify(withoutUpdatedAt(applied.alerts))).toBe(JSON.stringify(withoutUpdatedAt(expected.alerts)));

    for (const round of [2, 3]) {
      await resetEmulatorStats(emulator.url);
      const again = await workspace.run(['apply', '--target', 'local-selfhosted']);
      expect(again.code, `apply ${round}`).toBe(0);
      expect((await emulatorStats(emulator.url)).writes, `writes of apply ${round}`).toBe(0);
    }
    expect(JSON.stringify(await teamStack(emulator.url))).toBe(JSON.stringify(applied));
    expect((await workspace.run(['plan', '--detailed-exitcode', '--target', 'local-selfhosted'])).code).toBe(0);
  });

  it('an unknown source name is an error at its file and line, and the rest is planned', async () => {
    await workspace.write(
      'manifests/named.yaml',
      `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: named, target: local-selfhosted }
spec:
  name: Named
  tiles:
    - { name: t, x: 0, y: 0, w: 6, h: 4, config: { displayType: line, source: no-such-source, select: [{ aggFn: count }] } }
`,
    );
    const plan = await workspace.run([
      'plan',
      '--detailed-exitcode',
      '--target',
      'local-selfhosted',
      '--output',
      'json',
    ]);
    expect(plan.code).toBe(1);
    const planned = parseJsonOutput(plan) as {
      changes: { name: string; action: string; code?: string; file?: string; line?: number; error?: string }[];
    };
    const named = planned.changes.find((change) => change.name === 'named');
    expect(named).toMatchObject({
      action: 'error',
      code: 'E_REF_UNRESOLVED',
      file: expect.stringMatching(/manifests\/named\.yaml$/),
      line: 1,
    });
    expect(named?.error).toContain('"no-such-source"');
    expect(planned.changes.filter((change) => change.name !== 'named').map((change) => change.action)).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
    await workspace.remove('manifests/named.yaml');
  });
});

describe('one alert of a shape no reader knows among 1,000', () => {
  let emulator: RunningEmulator;
  let proxy: RunningProxy;
  let workspace: Workspace;
  const SERVICE = DEFAULT_CURRENT_IDS.service;
  const alertId = (index: number): string => `66f0000000000000001${index.toString(16).padStart(5, '0')}`;
  const alertsRoute = `/v1/organizations/${DEFAULT_SEED_IDS.organizationId}/services/${DEFAULT_SEED_IDS.serviceId}/stack/alerts`;

  beforeAll(async () => {
    const seed = defaultSeed('current');
    const service = seed.organizations?.[0]?.services?.[0];
    if (!service) throw new Error('the default seed has no service');
    service.alerts = Array.from({ length: 1000 }, (_, index) => ({
      id: alertId(index),
      name: `alert ${index}`,
      source: 'saved_search',
      savedSearchId: SERVICE.savedSearch,
      threshold: index,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'webhook', webhookId: SERVICE.webhook },
    }));
    emulator = await startTestEmulator({ profile: 'current', seed });
    // The service answers the list with alert 500 in a shape nothing can read (a threshold that is no number).
    const auth = `Basic ${Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64')}`;
    const listed = (await (
      await fetch(`${emulator.url}${alertsRoute}`, { headers: { authorization: auth } })
    ).json()) as { result: Json[] };
    const broken = {
      ...listed,
      result: listed.result.map((alert) =>
        alert['id'] === alertId(500) ? { ...alert, threshold: { gt: 'high' } } : alert,
      ),
    };
    proxy = await startProxy(emulator.url);
    proxy.intercept((request) =>
      request.method === 'GET' && request.path === alertsRoute
        ? { status: 200, body: JSON.stringify(broken), contentType: 'application/json' }
        : undefined,
    );
    workspace = await createWorkspace(proxy.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      apiProfile: 'current',
    });
  });

  afterAll(async () => {
    await workspace.dispose();
    await proxy.close();
    await emulator.close();
  });

  const manifest = (index: number): string => `apiVersion: stacksync/v1
kind: Alert
metadata: { name: alert-${index} }
spec:
  name: alert ${index}
  source: saved_search
  savedSearchId: ${SERVICE.savedSearch}
  threshold: ${index + 1}
  thresholdType: above
  interval: 5m
`;

  async function planOf(
    indexes: number[],
  ): Promise<{ code: number | null; changes: { name: string; action: string; id?: string; code?: string }[] }> {
    await workspace.write('manifests/alerts.yaml', documents(indexes.map(manifest)));
    const plan = await workspace.run(['plan', '--detailed-exitcode', '--target', 'local', '--output', 'json']);
    return {
      code: plan.code,
      changes: (parseJsonOutput(plan) as { changes: { name: string; action: string; id?: string; code?: string }[] })
        .changes,
    };
  }

  it('is one error row, with its id, when a manifest manages it; the other 999 are planned', async () => {
    const { code, changes } = await planOf(Array.from({ length: 1000 }, (_, index) => index));
    expect(code).toBe(1);
    expect(changes.filter((change) => change.action === 'error')).toEqual([
      expect.objectContaining({ name: 'alert-500', id: alertId(500), code: 'E_API_PROTOCOL' }),
    ]);
    expect(changes.filter((change) => change.action === 'adopt')).toHaveLength(999);
  });

  it('is nothing when no manifest manages it', async () => {
    const { code, changes } = await planOf(
      Array.from({ length: 1000 }, (_, index) => index).filter((index) => index !== 500),
    );
    expect(code).toBe(2);
    expect(changes.filter((change) => change.action !== 'adopt')).toEqual([]);
    expect(changes).toHaveLength(999);
  });
});
