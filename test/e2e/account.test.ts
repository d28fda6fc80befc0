/**
 * Issue 24, "Done when": the whole observability account as code, on both variants of the
 * emulator's `current` profile, through the built CLI. A source, a webhook, a saved search on the
 * source and an alert on that, all new in one commit, apply in one run in the right order; a
 * second apply writes nothing; renames keep ids; a webhook header change is sent once; deletes
 * run top-down; a dashboard with tiles its GET hides is refused and left as it was; the server's
 * own check of a dashboard shows at the manifest's line and fails the plan. And a whole account
 * (connection, source, webhook, saved search, dashboard, alerts, all named by name; a managed
 * source names the platform's connection by id) is kept from
 * manifests: in sync on the next plan, a change sent alone, prune deletes only what it made.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CURRENT_IDS, defaultSeed, type Seed } from '../../src/emulator/index.js';
import {
  describeRun,
  documents,
  named,
  parseJsonOutput,
  stackOf,
  TARGETS,
  type Stack,
  type TargetName,
} from '../helpers/e2e.js';
import { emulatorStats, resetEmulatorStats, sharedEmulator, type Workspace } from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 } as const;
const HOOK = { HOOK_URL: 'https://hooks.example.com/notify/T0KEN-IN-THE-URL', HOOK_TOKEN: 'bearer-one' };

/** How a source names its connection: the seeded one by its name on a self-hosted target; by id on a managed one, whose API has no connection list. */
function connectionOf(target: TargetName): string {
  return target === 'local' ? `connectionId: "${DEFAULT_CURRENT_IDS.service.connection}"` : 'connection: Default';
}

/** A source, a webhook, a saved search on the source, and an alert on the saved search notifying the webhook. */
function accountYaml(target: TargetName, suffix = ''): string {
  return documents([
    `apiVersion: stacksync/v1
kind: Source
metadata: { name: shop-logs, target: ${target} }
spec:
  name: Shop logs${suffix}
  kind: log
  ${connectionOf(target)}
  from: { databaseName: otel, tableName: shop_logs }
  timestampValueExpression: Timestamp
  defaultTableSelectExpression: Timestamp, Body
`,
    `apiVersion: stacksync/v1
kind: Webhook
metadata: { name: shop-pager, target: ${target} }
spec:
  name: Shop pager${suffix}
  service: generic
  url: { fromEnv: HOOK_URL }
  headers:
    Authorization: { fromEnv: HOOK_TOKEN }
`,
    `apiVersion: stacksync/v1
kind: SavedSearch
metadata: { name: shop-errors, target: ${target} }
spec:
  name: Shop errors${suffix}
  source: shop-logs
  where: "level:error"
`,
    `apiVersion: stacksync/v1
kind: Alert
metadata: { name: shop-errors, target: ${target} }
spec:
  name: Shop errors${suffix}
  source: saved_search
  savedSearch: shop-errors
  threshold: 5
  thresholdType: above
  interval: 5m
  channel: { type: webhook, webhook: shop-pager }
`,
  ]);
}

/** The default current seed, plus on each variant a dashboard holding a tile its GET hides (a PromQL tile) that an alert watches. */
function accountSeed(): Seed {
  const seed = defaultSeed('current');
  const stacks = [
    { stack: seed.organizations?.[0]?.services?.[0], ids: DEFAULT_CURRENT_IDS.service, prefix: '66f00000000000000001' },
    { stack: seed.teams?.[0], ids: DEFAULT_CURRENT_IDS.team, prefix: '66f00000000000000002' },
  ];
  for (const { stack, ids, prefix } of stacks) {
    if (!stack) throw new Error('the default seed has a service and a team');
    const dashboard = `${prefix}d001`;
    stack.dashboards = [
      {
        id: dashboard,
        name: 'Capacity',
        tiles: [
          {
            id: `${prefix}f001`,
            name: 'requests',
            x: 0,
            y: 0,
            w: 12,
            h: 4,
            config: { displayType: 'line', sourceId: ids.sources.log, select: [{ aggFn: 'count' }] },
          },
        ],
        hiddenTiles: [
          {
            id: `${prefix}f002`,
            x: 12,
            y: 0,
            w: 12,
            h: 4,
            config: {
              configType: 'promql',
              promqlExpression: 'sum(rate(http_requests_total[5m]))',
              displayType: 'line',
            },
          },
        ],
      },
    ];
    stack.alerts = [
      {
        id: `${prefix}a001`,
        name: 'Saturation',
        source: 'tile',
        dashboardId: dashboard,
        tileId: `${prefix}f002`,
        threshold: 0.9,
        thresholdType: 'above',
        interval: '5m',
        channel: { type: 'webhook', webhookId: ids.webhook },
      },
    ];
  }
  return seed;
}

const SECRETS = { ...HOOK, CH_PASSWORD: 'ch-pa55word-never-printed' };

/**
 * A whole account, every kind named by name: the connection (a Connection manifest on a
 * self-hosted target; the platform's own, by its id, on a managed one), a source on it, a
 * webhook, a saved search on the source, a dashboard whose tile reads the source, and two alerts
 * (one on the saved search, one on the tile) notifying the webhook.
 */
function wholeAccountFiles(target: TargetName, where = 'level:error'): Record<string, string> {
  const selfHosted = target !== 'local';
  const head = (kind: string, name: string): string =>
    `apiVersion: stacksync/v1\nkind: ${kind}\nmetadata: { name: ${name}, target: ${target} }\nspec:\n`;
  return {
    ...(selfHosted
      ? {
          'manifests/connection.yaml': `${head('Connection', 'shop-ch')}  name: Shop ClickHouse\n  host: http://clickhouse.shop.internal:8123\n  username: reader\n  password: { fromEnv: CH_PASSWORD }\n`,
        }
      : {}),
    'manifests/source.yaml': `${head('Source', 'shop-logs')}  name: Shop logs\n  kind: log\n  ${selfHosted ? 'connection: shop-ch' : connectionOf(target)}\n  from: { databaseName: otel, tableName: shop_logs }\n  timestampValueExpression: Timestamp\n  defaultTableSelectExpression: Timestamp, Body\n`,
    'manifests/webhook.yaml': `${head('Webhook', 'shop-pager')}  name: Shop pager\n  service: generic\n  url: { fromEnv: HOOK_URL }\n  headers:\n    Authorization: { fromEnv: HOOK_TOKEN }\n`,
    'manifests/search.yaml': `${head('SavedSearch', 'shop-errors')}  name: Shop errors\n  source: shop-logs\n  where: "${where}"\n`,
    'manifests/dashboard.yaml': `${head('Dashboard', 'shop')}  name: Shop\n  tiles:\n    - { name: volume, x: 0, y: 0, w: 12, h: 4, config: { displayType: line, source: shop-logs, select: [{ aggFn: count }] } }\n`,
    'manifests/alert-search.yaml': `${head('Alert', 'shop-errors')}  name: Shop errors\n  source: saved_search\n  savedSearch: shop-errors\n  threshold: 5\n  thresholdType: above\n  interval: 5m\n  channel: { type: webhook, webhook: shop-pager }\n`,
    'manifests/alert-tile.yaml': `${head('Alert', 'shop-volume')}  name: Shop volume\n  source: tile\n  dashboard: shop\n  tile: volume\n  threshold: 1000\n  thresholdType: above\n  interval: 15m\n  channel: { type: webhook, webhook: shop-pager }\n`,
  };
}

/** Every live id of every kind, by kind: what was there before stacksync wrote anything. */
function idsOf(stack: Stack): Record<string, string[]> {
  const kinds = {
    connections: stack.connections,
    sources: stack.sources,
    webhooks: stack.webhooks,
    savedSearches: stack.savedSearches,
    dashboards: stack.dashboards,
    alerts: stack.alerts,
  };
  return Object.fromEntries(
    Object.entries(kinds).map(([kind, items]) => [kind, (items ?? []).map((item) => item.id).sort()]),
  );
}

/** Every file below `dir`, concatenated in name order. */
async function filesUnder(dir: string): Promise<string> {
  const names = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
  const texts = await Promise.all(names.sort().map((name) => readFile(name, 'utf8')));
  return texts.join('\n---\n');
}

function writeCount(stats: Awaited<ReturnType<typeof emulatorStats>>, method: string, suffix: string): number {
  return stats.routes
    .filter((route) => route.method === method && route.route.endsWith(suffix))
    .reduce((sum, route) => sum + route.count, 0);
}

const shared = sharedEmulator({ profile: 'current', seed: accountSeed() });

describe.each(TARGETS)('the whole account as code on %s (current profile)', (target) => {
  const open = (): Promise<Workspace> => shared.workspace({ apiProfile: 'current', rateLimit: FAST });

  it('creates a source, a webhook, a saved search and an alert on it from one commit in one run; then writes nothing; renames, header changes once, prunes top-down', async () => {
    const { url } = shared.emulator;
    const workspace = await open();
    const run = (args: string[], env: Record<string, string> = HOOK) =>
      workspace.run([...args, '--target', target], { env });
    await workspace.write('manifests/account.yaml', accountYaml(target));

    // 1. One plan, one apply: every create in the order of what it names, ids flowing between them.
    const plan = await run(['plan', '--output', 'json', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(2);
    expect(parseJsonOutput(plan).changes.map((change) => `${change.action} ${change.kind}`)).toEqual([
      'create Source',
      'create SavedSearch',
      'create Webhook',
      'create Alert',
    ]);
    expect(plan.stdout + plan.stderr).not.toContain('T0KEN-IN-THE-URL');
    expect(plan.stdout + plan.stderr).not.toContain(HOOK.HOOK_TOKEN);
    const applied = await run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    let live = await stackOf(url, target);
    const source = named(live.sources, 'Shop logs');
    const search = named(live.savedSearches, 'Shop errors');
    const webhook = named(live.webhooks, 'Shop pager');
    const alert = named(live.alerts, 'Shop errors');
    expect(source['connection']).toBe(
      target === 'local' ? DEFAULT_CURRENT_IDS.service.connection : DEFAULT_CURRENT_IDS.team.connection,
    );
    expect(search['sourceId']).toBe(source.id);
    expect(alert).toMatchObject({
      source: 'saved_search',
      savedSearchId: search.id,
      channel: { type: 'webhook', webhookId: webhook.id },
    });
    expect(webhook['url']).toBe(HOOK.HOOK_URL);
    const header = live.secrets[webhook.id]?.['headers.Authorization'];
    expect(header).toBeDefined();

    // 2. In sync: a second apply writes nothing, and the plan is empty.
    await resetEmulatorStats(url);
    expect((await run(['apply'])).code).toBe(0);
    expect((await emulatorStats(url)).writes).toBe(0);
    expect((await run(['plan', '--detailed-exitcode'])).code).toBe(0);

    // 3. A new header value is sent once: one PUT of the webhook, then nothing more.
    const rotated = { ...HOOK, HOOK_TOKEN: 'bearer-two' };
    const headerPlan = await run(['plan', '--output', 'json', '--detailed-exitcode'], rotated);
    expect(headerPlan.code, describeRun(headerPlan)).toBe(2);
    expect(
      parseJsonOutput(headerPlan)
        .changes.filter((change) => change.action === 'update')
        .map((change) => [change.kind, change.diff]),
    ).toEqual([['Webhook', [{ path: 'headers', before: '(sensitive)', after: '(sensitive)' }]]]);
    await resetEmulatorStats(url);
    expect((await run(['apply'], rotated)).code).toBe(0);
    expect((await emulatorStats(url)).writes).toBe(1);
    expect((await stackOf(url, target)).secrets[webhook.id]?.['headers.Authorization']).not.toBe(header);
    await resetEmulatorStats(url);
    expect((await run(['apply'], rotated)).code).toBe(0);
    expect((await emulatorStats(url)).writes).toBe(0);

    // 4. Renames are updates that keep every id, and the references between them.
    await workspace.write('manifests/account.yaml', accountYaml(target, ' (renamed)'));
    await resetEmulatorStats(url);
    const renamed = await run(['apply'], rotated);
    expect(renamed.code, describeRun(renamed)).toBe(0);
    expect((await emulatorStats(url)).writes).toBe(4);
    live = await stackOf(url, target);
    expect(named(live.sources, 'Shop logs (renamed)').id).toBe(source.id);
    expect(named(live.savedSearches, 'Shop errors (renamed)')).toMatchObject({ id: search.id, sourceId: source.id });
    expect(named(live.webhooks, 'Shop pager (renamed)').id).toBe(webhook.id);
    expect(named(live.alerts, 'Shop errors (renamed)')).toMatchObject({
      id: alert.id,
      savedSearchId: search.id,
      channel: { webhookId: webhook.id },
    });
    // The rename moved the webhook's destination nowhere: its header is still the one sent.
    expect(live.secrets[webhook.id]?.['headers.Authorization']).toBeDefined();

    // 5. Deletes run top-down: the alert before its saved search and its webhook, the saved search before its source.
    await workspace.remove('manifests/account.yaml');
    await workspace.write('manifests/other.yaml', '# nothing here for now\n');
    const prunePlan = await run(['plan', '--prune', '--output', 'json'], rotated);
    expect(parseJsonOutput(prunePlan).changes.map((change) => `${change.action} ${change.kind}`)).toEqual([
      'delete Alert',
      'delete Webhook',
      'delete SavedSearch',
      'delete Source',
    ]);
    const pruned = await run(['apply', '--prune', '--force'], rotated);
    expect(pruned.code, describeRun(pruned)).toBe(0);
    const order = [...pruned.stderr.matchAll(/deleted (\w+)\//g)].map((match) => match[1]);
    expect(order.indexOf('Alert')).toBeLessThan(order.indexOf('SavedSearch'));
    expect(order.indexOf('Alert')).toBeLessThan(order.indexOf('Webhook'));
    expect(order.indexOf('SavedSearch')).toBeLessThan(order.indexOf('Source'));
    live = await stackOf(url, target);
    for (const [items, id] of [
      [live.sources, source.id],
      [live.savedSearches, search.id],
      [live.webhooks, webhook.id],
      [live.alerts, alert.id],
    ] as const) {
      expect(items.map((item) => item.id)).not.toContain(id);
    }
  }, 120_000);

  it('keeps a whole account from manifests: every kind named by name, in sync on the next plan, one change sent alone, prune of one owned resource, nothing unowned deleted', async () => {
    const { url } = shared.emulator;
    const workspace = await open();
    const run = (args: string[]) => workspace.run([...args, '--target', target], { env: SECRETS });
    const printed = (result: { stdout: string; stderr: string }): string => result.stdout + result.stderr;
    const files = wholeAccountFiles(target);
    for (const [path, text] of Object.entries(files)) await workspace.write(path, text);
    const baseline = idsOf(await stackOf(url, target));
    // What stacksync never made: the seed's connection, sources, webhook and saved search (and whatever earlier tests left).
    const seeded = target === 'local' ? DEFAULT_CURRENT_IDS.service : DEFAULT_CURRENT_IDS.team;
    expect(baseline).toMatchObject({
      connections: expect.arrayContaining([seeded.connection]),
      sources: expect.arrayContaining(Object.values(seeded.sources)),
      webhooks: expect.arrayContaining([seeded.webhook]),
      savedSearches: expect.arrayContaining([seeded.savedSearch]),
    });

    // 1. One commit, one apply: each kind after the kinds it names; no secret printed.
    const plan = await run(['plan', '--output', 'json', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(2);
    const creates = parseJsonOutput(plan).changes.map((change) => `${change.action} ${change.kind}`);
    const connection = target === 'local' ? [] : ['create Connection'];
    expect(creates).toEqual([
      ...connection,
      'create Source',
      'create Dashboard',
      'create SavedSearch',
      'create Webhook',
      'create Alert',
      'create Alert',
    ]);
    // A saved plan (and the review comment made with it) holds no secret either, and applies as it was reviewed.
    const saved = await run(['plan', '--out', 'plan.json', '--output', 'markdown']);
    const savedText = await readFile(join(workspace.dir, 'plan.json'), 'utf8');
    expect(savedText).toContain('"kind": "Webhook"');
    const applied = await workspace.run(['apply', '--plan', 'plan.json'], { env: SECRETS });
    expect(applied.code, describeRun(applied)).toBe(0);
    for (const text of [printed(plan), printed(saved), savedText, printed(applied)])
      for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);

    let live = await stackOf(url, target);
    const connectionId =
      target === 'local' ? DEFAULT_CURRENT_IDS.service.connection : named(live.connections, 'Shop ClickHouse').id;
    if (target !== 'local') expect(live.secrets[connectionId]?.['password']).toBeDefined();
    const source = named(live.sources, 'Shop logs');
    const search = named(live.savedSearches, 'Shop errors');
    const webhook = named(live.webhooks, 'Shop pager');
    const dashboard = named(live.dashboards, 'Shop');
    expect(source['connection']).toBe(connectionId);
    expect(search['sourceId']).toBe(source.id);
    expect(dashboard.tiles[0]?.['config']).toMatchObject({ sourceId: source.id });
    expect(named(live.alerts, 'Shop errors')).toMatchObject({
      savedSearchId: search.id,
      channel: { type: 'webhook', webhookId: webhook.id },
    });
    expect(named(live.alerts, 'Shop volume')).toMatchObject({
      dashboardId: dashboard.id,
      tileId: dashboard.tiles[0]?.id,
      channel: { type: 'webhook', webhookId: webhook.id },
    });

    // 2. In sync: the next plan is empty and an apply writes nothing.
    const again = await run(['plan', '--detailed-exitcode']);
    expect(again.code, describeRun(again)).toBe(0);
    await resetEmulatorStats(url);
    expect((await run(['apply'])).code).toBe(0);
    expect((await emulatorStats(url)).writes).toBe(0);

    // 3. One change is one update of that resource, and nothing else.
    await workspace.write(
      'manifests/search.yaml',
      wholeAccountFiles(target, 'level:error OR level:fatal')['manifests/search.yaml'] ?? '',
    );
    const changed = await run(['plan', '--output', 'json', '--detailed-exitcode']);
    expect(changed.code, describeRun(changed)).toBe(2);
    expect(
      parseJsonOutput(changed)
        .changes.filter((change) => change.action !== 'unchanged')
        .map((change) => `${change.action} ${change.kind}/${change.name}`),
    ).toEqual(['update SavedSearch/shop-errors']);
    await resetEmulatorStats(url);
    expect((await run(['apply'])).code).toBe(0);
    expect((await emulatorStats(url)).writes).toBe(1);
    expect(named((await stackOf(url, target)).savedSearches, 'Shop errors')).toMatchObject({
      id: search.id,
      where: 'level:error OR level:fatal',
    });

    // 4. Prune deletes the one owned resource whose manifest went, and nothing else.
    await workspace.remove('manifests/alert-tile.yaml');
    const prunePlan = await run(['plan', '--prune', '--output', 'json']);
    expect(
      parseJsonOutput(prunePlan)
        .changes.filter((change) => change.action !== 'unchanged')
        .map((change) => `${change.action} ${change.kind}/${change.name}`),
    ).toEqual(['delete Alert/shop-volume']);
    const pruned = await run(['apply', '--prune']);
    expect(pruned.code, describeRun(pruned)).toBe(0);
    live = await stackOf(url, target);
    expect(live.alerts.map((alert) => alert.name)).not.toContain('Shop volume');
    expect(named(live.alerts, 'Shop errors').id).toBeDefined();
    expect(named(live.dashboards, 'Shop').id).toBe(dashboard.id);

    // 5. With every manifest gone, prune takes all it made, top-down, and every resource it did not make stays.
    for (const path of Object.keys(files)) await workspace.remove(path).catch(() => undefined);
    await workspace.write('manifests/other.yaml', '# nothing here for now\n');
    const emptied = await run(['apply', '--prune', '--force']);
    expect(emptied.code, describeRun(emptied)).toBe(0);
    const after = idsOf(await stackOf(url, target));
    expect(after).toEqual(baseline);
    for (const secret of Object.values(SECRETS)) expect(printed(emptied)).not.toContain(secret);
  }, 180_000);

  it('exports an account holding every kind, named by name and without secrets, and the plan of the export shows no changes', async () => {
    const { url } = shared.emulator;
    const workspace = await open();
    const run = (args: string[], env: Record<string, string> = SECRETS) =>
      workspace.run([...args, '--target', target], { env });
    for (const [path, text] of Object.entries(wholeAccountFiles(target))) await workspace.write(path, text);
    const applied = await run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const made = await stackOf(url, target);

    // A fresh workspace that owns nothing exports the whole account, the seed's resources and ours alike.
    const fresh = await open();
    const exported = await fresh.run(['export', '--out', 'manifests', '--adopt', '--target', target]);
    expect(exported.code, describeRun(exported)).toBe(0);
    const text = await filesUnder(fresh.manifestsDir);
    const folders =
      target === 'local'
        ? ['sources', 'dashboards', 'saved-searches', 'webhooks', 'alerts']
        : ['connections', 'sources', 'dashboards', 'saved-searches', 'webhooks', 'alerts'];
    expect(await readdir(fresh.manifestsDir)).toEqual(expect.arrayContaining(folders));
    const kinds =
      target === 'local'
        ? ['Source', 'Dashboard', 'SavedSearch', 'Webhook', 'Alert']
        : ['Connection', 'Source', 'Dashboard', 'SavedSearch', 'Webhook', 'Alert'];
    for (const kind of kinds) expect(text, `an exported ${kind}`).toMatch(new RegExp(`^kind: ${kind}$`, 'm'));
    // References by name, never the ids they resolve to (a file's header comment says which live id it came from).
    const members = text
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .join('\n');
    expect(members).toMatch(/savedSearch: [a-z0-9-]+/);
    expect(members).toMatch(/webhook: [a-z0-9-]+/);
    expect(members).toMatch(/source: [a-z0-9-]+/);
    for (const id of [
      named(made.savedSearches, 'Shop errors').id,
      named(made.webhooks, 'Shop pager').id,
      named(made.sources, 'Shop logs').id,
    ])
      expect(members).not.toContain(id);
    for (const secret of Object.values(SECRETS)) expect(text + exported.stdout + exported.stderr).not.toContain(secret);

    // Export leaves every secret out (the live ones are kept; a comment names the variable to set to manage one): the plan is clean.
    expect(members).not.toMatch(/fromEnv|fromFile/);
    const plan = await fresh.run(['plan', '--detailed-exitcode', '--output', 'json', '--target', target]);
    expect(plan.code, describeRun(plan)).toBe(0);
    expect(parseJsonOutput(plan).changes.map((change) => change.kind)).toEqual(expect.arrayContaining(kinds));

    // Leave the account as the other cases found it: the workspace that made the account prunes it.
    await workspace.remove('manifests');
    await workspace.write('manifests/other.yaml', '# nothing here for now\n');
    const cleared = await run(['apply', '--prune', '--force']);
    expect(cleared.code, describeRun(cleared)).toBe(0);
    expect(idsOf(await stackOf(url, target)).sources).not.toContain(named(made.sources, 'Shop logs').id);
  }, 120_000);

  it.runIf(target === 'local-selfhosted')(
    'applies examples/account as it is written, and the next plan is clean',
    async () => {
      const { url } = shared.emulator;
      const workspace = await open();
      const dir = join(import.meta.dirname, '..', '..', 'examples', 'account');
      for (const file of (await readdir(dir)).filter((name) => name.endsWith('.yaml')))
        await workspace.write(join('manifests', file), await readFile(join(dir, file), 'utf8'));
      const env = {
        SHOP_CLICKHOUSE_PASSWORD: 'example-password',
        SHOP_PAGER_URL: 'https://hooks.example.com/example',
        SHOP_PAGER_TOKEN: 'example-token',
      };
      const applied = await workspace.run(['apply', '--target', target], { env });
      expect(applied.code, describeRun(applied)).toBe(0);
      const live = await stackOf(url, target);
      const source = named(live.sources, 'Shop logs');
      expect(source['connection']).toBe(named(live.connections, 'Shop ClickHouse').id);
      expect(named(live.alerts, 'Shop errors above 5 in 5 minutes')).toMatchObject({
        savedSearchId: named(live.savedSearches, 'Shop errors').id,
      });
      const plan = await workspace.run(['plan', '--detailed-exitcode', '--target', target], { env });
      expect(plan.code, describeRun(plan)).toBe(0);
      // Leave the account as the other cases found it.
      await workspace.remove('manifests');
      await workspace.write('manifests/other.yaml', '# nothing here for now\n');
      expect((await workspace.run(['apply', '--prune', '--force', '--target', target], { env })).code).toBe(0);
    },
    120_000,
  );

  it('refuses to update a dashboard holding a tile its GET does not return, leaves it as it was, and updates it once the manifest owns every tile', async () => {
    const { url } = shared.emulator;
    const workspace = await open();
    const manifest = (extra = ''): string => `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: capacity, target: ${target} }
spec:
  name: Capacity
${extra}  tiles:
    - { name: requests, x: 0, y: 0, w: 24, h: 4 }
`;
    await workspace.write('manifests/capacity.yaml', manifest());
    const before = named((await stackOf(url, target)).dashboards, 'Capacity');

    const plan = await workspace.run(['plan', '--adopt', '--target', target, '--output', 'json']);
    expect(plan.code, describeRun(plan)).toBe(1);
    const [refused] = parseJsonOutput(plan).changes;
    expect(refused).toMatchObject({
      kind: 'Dashboard',
      name: 'capacity',
      action: 'error',
      code: 'E_CONFLICT',
      file: expect.stringMatching(/capacity\.yaml$/),
      line: 1,
    });
    expect(refused?.error).toContain('leaves out');
    expect(refused?.error).toContain('ownsAllTiles: true');
    await resetEmulatorStats(url);
    const apply = await workspace.run(['apply', '--adopt', '--target', target]);
    expect(apply.code, describeRun(apply)).toBe(1);
    expect((await emulatorStats(url)).writes).toBe(0);
    expect(named((await stackOf(url, target)).dashboards, 'Capacity')).toEqual(before);

    // Saying so is an update that replaces the whole tile list, the hidden tile (and the alert on it) with it.
    await workspace.write('manifests/capacity.yaml', manifest('  ownsAllTiles: true\n'));
    const owned = await workspace.run(['apply', '--adopt', '--target', target]);
    expect(owned.code, describeRun(owned)).toBe(0);
    const after = named((await stackOf(url, target)).dashboards, 'Capacity');
    expect(after.tiles.map((tile) => [tile.id, tile['w']])).toEqual([[before.tiles[0]?.id, 24]]);
    expect(after.hiddenTiles).toBeUndefined();
  }, 60_000);

  it("shows the server's own check of a dashboard at the manifest's line and exits 1; --no-server-validate skips it", async () => {
    const { url } = shared.emulator;
    const workspace = await open();
    await workspace.write(
      'manifests/latency.yaml',
      `# The server refuses an average with nothing to average; the manifest schema cannot tell.
apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: latency, target: ${target} }
spec:
  name: Latency
  tiles:
    - { name: mean, x: 0, y: 0, w: 12, h: 4, config: { displayType: line, source: logs, select: [{ aggFn: avg }] } }
`,
    );
    await resetEmulatorStats(url);
    const plan = await workspace.run(['plan', '--target', target, '--output', 'json', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(1);
    const [checked] = parseJsonOutput(plan).changes;
    expect(checked).toMatchObject({
      kind: 'Dashboard',
      name: 'latency',
      action: 'error',
      code: 'E_API_VALIDATION',
      file: expect.stringMatching(/latency\.yaml$/),
      line: 2,
    });
    expect(checked?.error).toContain('tiles.0.config.select.0');
    expect(checked?.error).toContain('Value expression is required');
    expect(writeCount(await emulatorStats(url), 'POST', '/dashboards/validate')).toBe(1);
    const text = await workspace.run(['plan', '--target', target]);
    expect(text.stdout).toMatch(/latency\.yaml:2/);

    await resetEmulatorStats(url);
    const unchecked = await workspace.run([
      'plan',
      '--target',
      target,
      '--output',
      'json',
      '--detailed-exitcode',
      '--no-server-validate',
    ]);
    expect(unchecked.code, describeRun(unchecked)).toBe(2);
    expect(parseJsonOutput(unchecked).changes.map((change) => change.action)).toEqual(['create']);
    expect(writeCount(await emulatorStats(url), 'POST', '/dashboards/validate')).toBe(0);
  }, 60_000);
});
