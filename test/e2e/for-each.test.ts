/**
 * `metadata.forEach` end to end (issue 37): one alert manifest over services × severities creates
 * one alert per item; removing a service prunes its alerts; an error in one item names the item
 * and the others still apply (it holds back that item alone); two items with
 * one name, and a template beyond the item cap, are refused at their lines; a renamed item is a
 * delete and a create; `fromFile` items.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardYaml, describeRun, liveTarget } from '../helpers/e2e.js';
import { sharedEmulator, type Workspace } from '../helpers/workspace.js';

const shared = sharedEmulator();
const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

/** An alert template over `forEach` (YAML flow text), on the dashboard `${prefix}-board`. */
function alertTemplate(
  prefix: string,
  forEach: string,
  name = `${prefix}-\${service}-\${severity}`,
  extra = '',
): string {
  return [
    'apiVersion: stacksync/v1',
    'kind: Alert',
    'metadata:',
    `  name: ${name}`,
    '  target: local',
    `  forEach: ${forEach}`,
    'spec:',
    `  name: "${prefix} \${service} \${severity}"`,
    '  source: tile',
    `  dashboard: ${prefix}-board`,
    '  tile: main',
    `  threshold: ${extra || '100'}`,
    '  thresholdType: above',
    '  interval: 5m',
    '  channel: { type: webhook, webhookId: oncall }',
    '',
  ].join('\n');
}

async function liveAlertNames(prefix: string): Promise<string[]> {
  return (await liveTarget(shared.emulator.url, 'local')).alerts
    .map((alert) => alert.name ?? '')
    .filter((name) => name.startsWith(`${prefix} `))
    .sort();
}

async function workspaceWithBoard(prefix: string): Promise<Workspace> {
  const workspace = await shared.workspace({ rateLimit: FAST, sync: { maxDeletes: 100, maxDeletePercent: 100 } });
  await workspace.write(`manifests/${prefix}-board.yaml`, dashboardYaml({ key: `${prefix}-board`, target: 'local' }));
  return workspace;
}

describe('forEach over services × severities', () => {
  let workspace: Workspace;
  beforeAll(async () => {
    workspace = await workspaceWithBoard('fe');
  });
  afterAll(() => workspace.dispose());

  it('creates one alert per item, and prunes the items removed from the list', async () => {
    await workspace.write(
      'manifests/alerts.yaml',
      alertTemplate('fe', '{ service: [payments, search, checkout], severity: [page, ticket] }'),
    );
    const first = await workspace.run(['apply']);
    expect(first.code, describeRun(first)).toBe(0);
    expect(await liveAlertNames('fe')).toEqual(
      ['checkout page', 'checkout ticket', 'payments page', 'payments ticket', 'search page', 'search ticket'].map(
        (rest) => `fe ${rest}`,
      ),
    );

    await workspace.write(
      'manifests/alerts.yaml',
      alertTemplate('fe', '{ service: [payments, checkout], severity: [page, ticket] }'),
    );
    const plan = await workspace.run(['plan', '--prune']);
    expect(plan.stdout).toMatch(/fe-search-page/);
    expect(plan.stdout).toMatch(/fe-search-ticket/);
    const second = await workspace.run(['apply', '--prune']);
    expect(second.code, describeRun(second)).toBe(0);
    expect(await liveAlertNames('fe')).toEqual([
      'fe checkout page',
      'fe checkout ticket',
      'fe payments page',
      'fe payments ticket',
    ]);
  });

  it('shows a renamed item as a delete and a create', async () => {
    await workspace.write(
      'manifests/alerts.yaml',
      alertTemplate('fe', '{ service: [payments, billing], severity: [page, ticket] }'),
    );
    const plan = await workspace.run(['plan', '--prune']);
    expect(plan.stdout, describeRun(plan)).toMatch(/- delete Alert\/fe-checkout-page/);
    expect(plan.stdout).toMatch(/- delete Alert\/fe-checkout-ticket/);
    expect(plan.stdout).toMatch(/\+ create Alert\/fe-billing-page/);
    expect(plan.stdout).toMatch(/Plan: 2 to create, 0 to update, 2 to delete/);
  });
});

describe('errors in a forEach manifest', () => {
  let workspace: Workspace;
  beforeAll(async () => {
    workspace = await workspaceWithBoard('fx');
  });
  afterAll(() => workspace.dispose());

  it('names the item at the template line, and the other items apply', async () => {
    // The interval of one item is no interval: only (service=search, severity=bad) is wrong.
    await workspace.write(
      'manifests/alerts.yaml',
      alertTemplate('fx', '{ service: [payments, search], severity: [page, bad] }')
        .replace('interval: 5m', 'interval: "${severity}"')
        .replace('severity: [page, bad]', 'severity: [5m, bad]'),
    );
    const validate = await workspace.run(['validate']);
    expect(validate.code).not.toBe(0);
    const output = validate.stdout + validate.stderr;
    expect(output).toMatch(/manifests\/alerts\.yaml:\d+(:\d+)? \(service=payments, severity=bad\)/);
    expect(output).toMatch(/manifests\/alerts\.yaml:\d+(:\d+)? \(service=search, severity=bad\)/);
    expect(output).not.toMatch(/severity=5m\)/);
    const plan = await workspace.run(['plan']);
    expect(plan.stdout + plan.stderr).toMatch(/\(service=search, severity=bad\)/);
    expect(plan.stdout).toMatch(/fx-payments-5m/);
    // An item's error holds back only that item: no --allow-partial needed for the others.
    const apply = await workspace.run(['apply']);
    expect(apply.code, describeRun(apply)).toBe(1);
    expect(await liveAlertNames('fx'), describeRun(apply)).toEqual(['fx payments 5m', 'fx search 5m']);
  });

  it('applies the other five of 3 services × 2 severities when one item is invalid, and exits 1', async () => {
    const rows = ['payments', 'search', 'checkout'].flatMap((service) =>
      ['page', 'ticket'].map((severity) => ({
        service,
        severity,
        interval: service === 'search' && severity === 'ticket' ? 'soon' : '5m',
      })),
    );
    await workspace.write(
      'manifests/five/items.yaml',
      rows
        .map((row) => `- { service: ${row.service}, severity: ${row.severity}, interval: ${row.interval} }`)
        .join('\n') + '\n',
    );
    const template = alertTemplate('f5', '{ fromFile: items.yaml }')
      .replace('interval: 5m', 'interval: "${interval}"')
      .replace('dashboard: f5-board', 'dashboard: fx-board');
    await workspace.write('manifests/five/alerts.yaml', template);
    const line = template.split('\n').findIndex((text) => text.includes('interval: "${interval}"')) + 1;
    const apply = await workspace.run(['apply']);
    expect(apply.code, describeRun(apply)).toBe(1);
    expect(apply.stdout + apply.stderr).toMatch(
      new RegExp(
        `manifests/five/alerts\\.yaml:${line}:\\d+: E_MANIFEST_INVALID: \\(service=search, severity=ticket, interval=soon\\) spec\\.interval: must be one of`,
      ),
    );
    expect(await liveAlertNames('f5')).toEqual([
      'f5 checkout page',
      'f5 checkout ticket',
      'f5 payments page',
      'f5 payments ticket',
      'f5 search page',
    ]);
    await workspace.remove('manifests/five/alerts.yaml');
    await workspace.remove('manifests/five/items.yaml');
  });

  it('refuses two items that give one name, naming both', async () => {
    await workspace.write(
      'manifests/alerts.yaml',
      alertTemplate('fx', '{ service: [payments, search], severity: [page] }', 'fx-${severity}'),
    );
    const validate = await workspace.run(['validate']);
    expect(validate.code).not.toBe(0);
    const output = validate.stdout + validate.stderr;
    expect(output).toMatch(
      /\(service=search, severity=page\).*gives the name fx-page, as item \(service=payments, severity=page\) does/,
    );
    expect(output).toMatch(
      /\(service=payments, severity=page\).*gives the name fx-page, as item \(service=search, severity=page\) does/,
    );
  });

  it('refuses a template of more items than the cap, at its forEach line', async () => {
    const services = Array.from({ length: 501 }, (_, i) => `s${i}`).join(', ');
    await workspace.write(
      'manifests/alerts.yaml',
      alertTemplate('fx', `{ service: [${services}], severity: [page, ticket] }`),
    );
    const validate = await workspace.run(['validate']);
    expect(validate.code).not.toBe(0);
    expect(validate.stdout + validate.stderr).toMatch(
      /manifests\/alerts\.yaml:6(:\d+)?.*stands for 1002 items, more than the 1000/,
    );
  });

  it('refuses a variable no item or target sets, at its line', async () => {
    await workspace.write(
      'manifests/alerts.yaml',
      alertTemplate('fx', '{ service: [payments], severity: [page] }').replace(
        'source: tile',
        'source: tile\n  message: "${team}"',
      ),
    );
    const validate = await workspace.run(['validate']);
    expect(validate.code).not.toBe(0);
    expect(validate.stdout + validate.stderr).toMatch(
      /manifests\/alerts\.yaml:10(:\d+)? \(service=payments, severity=page\).*\$\{team\}/,
    );
  });
});

describe('forEach fromFile', () => {
  let workspace: Workspace;
  beforeAll(async () => {
    workspace = await workspaceWithBoard('ff');
  });
  afterAll(() => workspace.dispose());

  it('takes its items from a YAML list beside the manifest, which is not read as a manifest', async () => {
    await workspace.write(
      'manifests/alerts/services.yaml',
      '- { service: payments, severity: page }\n- { service: search, severity: ticket }\n',
    );
    await workspace.write('manifests/alerts/alerts.yaml', alertTemplate('ff', '{ fromFile: services.yaml }'));
    const apply = await workspace.run(['apply']);
    expect(apply.code, describeRun(apply)).toBe(0);
    expect(await liveAlertNames('ff')).toEqual(['ff payments page', 'ff search ticket']);
  });

  it('refuses a fromFile that is not in the manifests directory', async () => {
    await workspace.write(
      'manifests/alerts/alerts.yaml',
      alertTemplate('ff', '{ fromFile: ../../config/stacksync.yaml }'),
    );
    const validate = await workspace.run(['validate']);
    expect(validate.code).not.toBe(0);
    expect(validate.stdout + validate.stderr).toMatch(/is not a \.yaml or \.yml file in the manifests directory/);
  });
});
