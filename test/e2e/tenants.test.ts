/**
 * Tenants end to end (issue 37): a manifest under a tenant's paths may name only its targets and
 * kinds, and is refused at its line otherwise; a tenant's violation holds back its own writes and
 * prune, never another tenant's; what a tenant created is recorded as its own; `plan --output
 * markdown` has a heading per tenant; a manifest in no tenant's paths, or in two, is an error;
 * the config's tenants are checked at their lines.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingPipe, dashboardName, dashboardYaml, describeRun, liveTarget } from '../helpers/e2e.js';
import { sharedEmulator, type Workspace } from '../helpers/workspace.js';

const shared = sharedEmulator();
const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

const TENANTS = `tenants:
  - name: payments
    paths: [teams/payments/]
    targets: [local]
    kinds: [Dashboard, Alert]
  - name: search
    paths: ["teams/search/**/*.yaml"]
    targets: [local]
    kinds: [Dashboard, Alert, Pipe]
`;

async function withTenants(workspace: Workspace, tenants = TENANTS): Promise<void> {
  const config = await readFile(workspace.configPath, 'utf8');
  await workspace.write('config/stacksync.yaml', `${config.replace(/\n?$/, '\n')}${tenants}`);
}

async function liveDashboards(prefix: string): Promise<string[]> {
  return (await liveTarget(shared.emulator.url, 'local')).dashboards
    .map((dashboard) => dashboard.name ?? '')
    .filter((name) => name.startsWith(`Dashboard ${prefix}-`))
    .sort();
}

async function inventoryTenant(workspace: Workspace, key: string): Promise<unknown> {
  const state = JSON.parse(await readFile(workspace.statePath, 'utf8')) as {
    targets: Record<string, { inventory: Record<string, Record<string, { tenant?: string }>> }>;
  };
  return state.targets['local']?.inventory['Dashboard']?.[key]?.tenant;
}

describe('tenants', () => {
  let workspace: Workspace;
  beforeAll(async () => {
    workspace = await shared.workspace({ rateLimit: FAST, sync: { maxDeletes: 100, maxDeletePercent: 100 } });
    await withTenants(workspace);
    await workspace.write('manifests/teams/payments/board.yaml', dashboardYaml({ key: 'tp-pay', target: 'local' }));
    await workspace.write(
      'manifests/teams/search/boards/board.yaml',
      dashboardYaml({ key: 'tp-search', target: 'local' }),
    );
  });
  afterAll(() => workspace.dispose());

  it('groups a markdown plan by tenant, and names the tenant of each change in text and JSON', async () => {
    const markdown = await workspace.run(['plan', '--output', 'markdown']);
    expect(markdown.code, describeRun(markdown)).toBe(0);
    const headings = markdown.stdout.split('\n').filter((line) => line.startsWith('### '));
    expect(headings).toEqual(['### stacksync plan', '### Tenant payments', '### Tenant search']);
    const [, payments = '', search = ''] = markdown.stdout.split(/^### Tenant \w+$/m);
    expect(payments).toMatch(/Dashboard\/tp-pay/);
    expect(payments).not.toMatch(/tp-search/);
    expect(search).toMatch(/Dashboard\/tp-search/);

    const text = await workspace.run(['plan']);
    expect(text.stdout).toMatch(
      /\+ create Dashboard\/tp-pay {2}\(tenant payments, manifests\/teams\/payments\/board\.yaml:\d+\)/,
    );
    const json = await workspace.run(['plan', '--output', 'json']);
    const changes = (JSON.parse(json.stdout) as { changes: { name: string; tenant?: string }[] }).changes;
    expect(changes.map((change) => [change.name, change.tenant]).sort()).toEqual([
      ['tp-pay', 'payments'],
      ['tp-search', 'search'],
    ]);

    const apply = await workspace.run(['apply']);
    expect(apply.code, describeRun(apply)).toBe(0);
    expect(await liveDashboards('tp')).toEqual([dashboardName('tp-pay'), dashboardName('tp-search')]);
    expect(await inventoryTenant(workspace, 'tp-pay')).toBe('payments');
    expect(await inventoryTenant(workspace, 'tp-search')).toBe('search');
  });

  it("refuses a Pipe under teams/payments/ at its line, holding back only payments' writes", async () => {
    await workspace.write('manifests/teams/payments/pipe.yaml', billingPipe('customers'));
    await workspace.write('manifests/teams/payments/board2.yaml', dashboardYaml({ key: 'tp-pay2', target: 'local' }));
    await workspace.write(
      'manifests/teams/search/boards/board2.yaml',
      dashboardYaml({ key: 'tp-search2', target: 'local' }),
    );
    const apply = await workspace.run(['apply']);
    expect(apply.code, describeRun(apply)).toBe(1);
    const output = apply.stdout + apply.stderr;
    expect(output).toMatch(
      /manifests\/teams\/payments\/pipe\.yaml:2(:\d+)?: E_TENANT_VIOLATION: kind: is a Pipe; tenant payments may touch only target local and kinds Dashboard, Alert/,
    );
    expect(output).toMatch(/E_TENANT_VIOLATION/);
    // The other tenant's change applies; this tenant's valid change waits for the fix.
    expect(await liveDashboards('tp')).toEqual([
      dashboardName('tp-pay'),
      dashboardName('tp-search'),
      dashboardName('tp-search2'),
    ]);
    expect(output).toMatch(/tenant payments/);
  });

  it("prunes by tenant: a held-back tenant's orphans stay, another tenant's are deleted", async () => {
    await workspace.remove('manifests/teams/payments/board.yaml');
    await workspace.remove('manifests/teams/search/boards/board.yaml');
    const held = await workspace.run(['apply', '--prune']);
    expect(held.code, describeRun(held)).toBe(1);
    expect(held.stdout + held.stderr).toMatch(/prune held back for tenant payments on target local/);
    expect(await liveDashboards('tp')).toEqual([dashboardName('tp-pay'), dashboardName('tp-search2')]);

    await workspace.remove('manifests/teams/payments/pipe.yaml');
    const fixed = await workspace.run(['apply', '--prune']);
    expect(fixed.code, describeRun(fixed)).toBe(0);
    expect(await liveDashboards('tp')).toEqual([dashboardName('tp-pay2'), dashboardName('tp-search2')]);
  });

  it("refuses a manifest in no tenant's paths, and one in two tenants' paths, naming them", async () => {
    await workspace.write('manifests/stray.yaml', dashboardYaml({ key: 'tp-stray', target: 'local' }));
    const stray = await workspace.run(['validate']);
    expect(stray.code).toBe(1);
    expect(stray.stdout + stray.stderr).toMatch(
      /manifests\/stray\.yaml:1(:\d+)?: E_TENANT_VIOLATION: is in no tenant's paths; .*tenants: payments \(teams\/payments\/\); search \(teams\/search\/\*\*\/\*\.yaml\)/,
    );
    await workspace.remove('manifests/stray.yaml');

    await withTenants(
      workspace,
      '  - name: everyone\n    paths: [teams]\n    targets: [local]\n    kinds: [Dashboard]\n',
    );
    const both = await workspace.run(['validate']);
    expect(both.code).toBe(1);
    expect(both.stdout + both.stderr).toMatch(
      /manifests\/teams\/payments\/board2\.yaml:1(:\d+)?: E_TENANT_VIOLATION: is in the paths of tenants payments and everyone/,
    );
  });
});

describe('tenants in the config', () => {
  let workspace: Workspace;
  let base: string;
  beforeAll(async () => {
    workspace = await shared.workspace({ rateLimit: FAST });
    base = await readFile(workspace.configPath, 'utf8');
  });
  afterAll(() => workspace.dispose());

  it('refuses an unknown target, a repeated name, a path outside the directory and an unknown kind, at their lines', async () => {
    await withTenants(
      workspace,
      [
        'tenants:',
        '  - name: payments',
        '    paths: [/etc/teams]',
        '    targets: [nowhere]',
        '    kinds: [Dashboard]',
        '  - name: payments',
        '    paths: [../elsewhere]',
        '    targets: [local]',
        '    kinds: [Alert]',
        '',
      ].join('\n'),
    );
    const config = await readFile(workspace.configPath, 'utf8');
    const lineOf = (text: string, from = 0): number => config.slice(0, config.indexOf(text, from)).split('\n').length;
    const start = config.indexOf('tenants:');
    const result = await workspace.run(['validate']);
    expect(result.code).toBe(1);
    const output = result.stdout + result.stderr;
    expect(output).toMatch(
      new RegExp(
        `config/stacksync\\.yaml:${lineOf('/etc/teams', start)}:\\d+: E_CONFIG_INVALID: tenants\\[0\\]\\.paths\\[0\\]: must be relative to the manifests directory`,
      ),
    );
    expect(output).toMatch(
      new RegExp(
        `config/stacksync\\.yaml:${lineOf('nowhere', start)}:\\d+: E_CONFIG_INVALID: tenants\\[0\\]\\.targets\\[0\\]: names no target; the targets are local, local-selfhosted`,
      ),
    );
    expect(output).toMatch(
      new RegExp(
        `config/stacksync\\.yaml:${lineOf('name: payments', config.indexOf('name: payments', start) + 1)}:\\d+: E_CONFIG_INVALID: tenants\\[1\\]\\.name: tenant payments is already defined \\(tenants\\[0\\]\\)`,
      ),
    );
    expect(output).toMatch(/tenants\[1\]\.paths\[0\]: must stay inside the manifests directory/);

    await workspace.write(
      'config/stacksync.yaml',
      `${base.replace(/\n?$/, '\n')}tenants:\n  - name: payments\n    paths: [teams/payments/]\n    targets: [local]\n    kinds: [Dashbord]\n`,
    );
    const kind = await workspace.run(['validate']);
    expect(kind.code).toBe(1);
    expect(kind.stdout + kind.stderr).toMatch(/tenants\[0\]\.kinds\[0\]/);
  });
});
