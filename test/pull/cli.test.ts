/**
 * Issue 36, "Done when": `stacksync pull` through the built CLI against the emulator of each
 * profile. A tile renamed, one resized and one added in the console (straight through the API)
 * change only those lines of the manifest, comments and the other document included; `plan
 * --detailed-exitcode` then exits 0. A live change to a member written as `${VAR}` is a conflict
 * at its line, and the file keeps the variable.
 */
import { readFile, stat, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_IDS, type Profile, type RunningEmulator } from '../../src/emulator/index.js';
import { stackOf, updateDashboardOutOfBand, type StackJson } from '../helpers/e2e.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

/** A tile's chart in the form the profile's servers answer. */
function chart(profile: Profile, where: string): string {
  return profile === 'seed'
    ? `      series:\n        - { type: time, dataSource: events, aggFn: count, where: "${where}" }`
    : `      config: { displayType: line, source: logs, select: [{ aggFn: count, where: "${where}" }] }`;
}

function manifest(profile: Profile): string {
  return [
    "# The API team's dashboards; edited in the console, pulled back here.",
    'apiVersion: stacksync/v1',
    'kind: Dashboard',
    'metadata: { name: api }   # matched by name',
    'spec:',
    '  name: API latency',
    '  tiles:',
    '    # the one people look at',
    '    - name: p99',
    '      x: 0',
    '      y: 0',
    '      w: 12',
    '      h: 4',
    chart(profile, 'route:/api'),
    '',
    '    - name: errors',
    '      x: 12',
    '      y: 0',
    '      w: 12',
    '      h: 4',
    chart(profile, 'level:error'),
    '---',
    "# One per team, named with the target's variable.",
    'apiVersion: stacksync/v1',
    'kind: Dashboard',
    'metadata: { name: team }',
    'spec:',
    '  name: "Team ${TEAM}"',
    '  tiles:',
    '    - name: load',
    '      x: 0',
    '      y: 0',
    '      w: 24',
    '      h: 4',
    chart(profile, 'team'),
    '---',
    'apiVersion: stacksync/v1',
    'kind: Alert',
    'metadata: { name: api-slow }',
    'spec:',
    '  name: API slow',
    '  source: tile',
    '  dashboard: api',
    '  tile: p99',
    '  threshold: 500   # ms',
    '  thresholdType: above',
    '  interval: 5m',
    `  channel: ${profile === 'seed' ? '{ type: webhook, webhookId: oncall }' : '{ type: webhook, webhook: on-call }'}`,
    '',
  ].join('\n');
}

const STACK = `/v1/organizations/${DEFAULT_SEED_IDS.organizationId}/services/${DEFAULT_SEED_IDS.serviceId}/stack`;
const AUTH = {
  authorization: `Basic ${Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64')}`,
};

/** A console edit of an alert: read, changed, put back with the members an update takes. */
async function editAlertLive(url: string, name: string, changes: Record<string, unknown>): Promise<void> {
  const stack = await stackOf(url, 'local');
  const alert = stack.alerts.find((each) => each.name === name);
  if (!alert) throw new Error(`no live alert ${name}`);
  const current = (await (await fetch(`${url}${STACK}/alerts/${alert.id}`, { headers: AUTH })).json()) as {
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
  const put = await fetch(`${url}${STACK}/alerts/${alert.id}`, {
    method: 'PUT',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, ...(dashboard !== undefined ? { dashboardId: dashboard } : {}), ...changes }),
  });
  expect(put.status).toBe(200);
}

/** The tile added live, as pull writes it: block style, the server's defaults that equal absent left out. */
const ADDED: Record<Profile, string> = {
  seed: [
    '    - name: saturation',
    '      x: 0',
    '      y: 4',
    '      w: 24',
    '      h: 2',
    '      series:',
    '        - type: time',
    '          dataSource: events',
    '          aggFn: count',
    '          where: level:error',
    '',
  ].join('\n'),
  current: [
    '    - name: saturation',
    '      x: 0',
    '      y: 4',
    '      w: 24',
    '      h: 2',
    '      config:',
    '        displayType: line',
    '        fillNulls: true',
    '        select:',
    '          - aggFn: count',
    '            where: level:error',
    '            whereLanguage: lucene',
    '        source: logs',
    '',
  ].join('\n'),
};

type Tile = Record<string, unknown> & { id?: string; name: string; w?: number };

async function liveDashboard(url: string, name: string): Promise<StackJson & { tiles: Tile[]; tags?: string[] }> {
  const stack = await stackOf(url, 'local');
  const found = stack.dashboards.find((dashboard) => dashboard.name === name);
  if (!found) throw new Error(`no live dashboard ${name}`);
  return found as StackJson & { tiles: Tile[]; tags?: string[] };
}

/** An edit made in the console: the dashboard as read, changed, put back whole. */
async function editLive(
  url: string,
  name: string,
  change: (dashboard: { name: string; tiles: Tile[] }) => { name: string; tiles: Tile[] },
): Promise<void> {
  const live = await liveDashboard(url, name);
  const edited = change({ name: String(live.name), tiles: live.tiles.map((tile) => ({ ...tile })) });
  await updateDashboardOutOfBand(url, 'local', live.id, {
    name: edited.name,
    tags: live.tags ?? [],
    tiles: edited.tiles,
  } as never);
}

describe.each(['seed', 'current'] as const)('stacksync pull against the %s profile', (profile) => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let file: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({ profile });
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      apiProfile: profile,
    });
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write(
      'config/stacksync.yaml',
      config.replace('  - name: local\n', '  - name: local\n    vars: { TEAM: payments }\n'),
    );
    file = join(workspace.manifestsDir, 'dashboards.yaml');
    await workspace.write('manifests/dashboards.yaml', manifest(profile));
    const apply = await workspace.run(['apply', '--target', 'local']);
    expect(apply.code, apply.stderr).toBe(0);
  });

  afterAll(async () => {
    await workspace.dispose();
    await emulator.close();
  });

  it('exits 0 and writes nothing when nothing differs', async () => {
    const pull = await workspace.run(['pull', '--target', 'local']);
    expect(pull.stderr).toBe('');
    expect(pull.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(manifest(profile));
  });

  it('writes a renamed, a resized and an added tile into only their lines; plan then shows no change', async () => {
    await editLive(emulator.url, 'API latency', (dashboard) => {
      const [p99, errors] = dashboard.tiles;
      if (!p99 || !errors) throw new Error('tiles missing');
      const added: Tile = { ...errors, name: 'saturation', x: 0, y: 4, w: 24, h: 2 };
      delete added.id;
      return { ...dashboard, tiles: [{ ...p99, w: 18 }, { ...errors, name: 'failures' }, added] };
    });
    await chmod(file, 0o640);
    const before = await readFile(file, 'utf8');

    const dry = await workspace.run(['pull', '--target', 'local', '--dry-run']);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(2);
    expect(dry.stdout).toContain('--- a/');
    expect(dry.stdout).toContain('-      w: 12\n+      w: 18');
    expect(dry.stdout).toContain('-    - name: errors\n+    - name: failures');
    expect(dry.stdout).toContain('+    - name: saturation\n');
    expect(await readFile(file, 'utf8')).toBe(before);

    const pull = await workspace.run(['pull', '--target', 'local']);
    expect(pull.stderr).toBe('');
    expect(pull.code).toBe(2);
    expect(pull.stdout).toMatch(/pulled .*dashboards\.yaml/);
    const after = await readFile(file, 'utf8');
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    // Everything before the resized member and the whole second document, byte for byte.
    expect(after.startsWith(before.slice(0, before.indexOf('      w: 12')))).toBe(true);
    expect(after.endsWith(before.slice(before.indexOf('---\n')))).toBe(true);
    // Exactly three edits: the resized member, the renamed tile's name, the new tile at the end of the list.
    const first = before.indexOf('      w: 12');
    const expected = `${before.slice(0, first)}      w: 18${before.slice(first + '      w: 12'.length)}`
      .replace('    - name: errors\n', '    - name: failures\n')
      .replace('\n---\n', `\n${ADDED[profile]}---\n`);
    expect(after).toBe(expected);

    const plan = await workspace.run(['plan', '--detailed-exitcode', '--target', 'local']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const again = await workspace.run(['pull', '--target', 'local']);
    expect(again.code).toBe(0);
  });

  it('reports a live change to a ${VAR} member as a conflict at its line and keeps the variable; the rest is pulled', async () => {
    await editLive(emulator.url, 'Team payments', (dashboard) => ({
      name: 'Team billing',
      tiles: dashboard.tiles.map((tile) => ({ ...tile, h: 6 })),
    }));
    const before = await readFile(file, 'utf8');
    const line = before.split('\n').indexOf('  name: "Team ${TEAM}"') + 1;
    const pull = await workspace.run(['pull', '--target', 'local', 'Dashboard/team']);
    expect(pull.code).toBe(1);
    expect(pull.stderr).toContain(
      `dashboards.yaml:${line}: conflict: Dashboard team name is written with a variable, so it is not written; live: "Team billing"`,
    );
    const after = await readFile(file, 'utf8');
    expect(after).toContain('  name: "Team ${TEAM}"\n');
    // Only the second document's tile height: the first document's lines are as they were.
    const second = before.indexOf('---\n');
    expect(after).toBe(before.slice(0, second) + before.slice(second).replace('      h: 4\n', '      h: 6\n'));
    // The conflict stays until the variable or the console changes: pull keeps saying so.
    expect((await workspace.run(['pull', '--target', 'local', 'Dashboard/team'])).code).toBe(1);
  });

  it("writes an alert's threshold changed live into its line, comment kept", async () => {
    await editAlertLive(emulator.url, 'API slow', { threshold: 900 });
    const before = await readFile(file, 'utf8');
    const pull = await workspace.run(['pull', '--target', 'local', '--kind', 'alert']);
    expect(pull.stderr).toBe('');
    expect(pull.code).toBe(2);
    expect(await readFile(file, 'utf8')).toBe(before.replace('  threshold: 500   # ms', '  threshold: 900   # ms'));
    const plan = await workspace.run(['plan', '--detailed-exitcode', '--target', 'local', '--output', 'json']);
    expect(
      JSON.parse(plan.stdout).changes.filter(
        (change: { kind: string; action: string }) => change.kind === 'Alert' && change.action !== 'unchanged',
      ),
    ).toEqual([]);
  });

  it('reports a managed resource deleted live with its manifest, and deletes no file', async () => {
    const team = await liveDashboard(emulator.url, 'Team billing');
    expect(
      (await fetch(`${emulator.url}${STACK}/dashboards/${team.id}`, { method: 'DELETE', headers: AUTH })).status,
    ).toBeLessThan(300);
    const before = await readFile(file, 'utf8');
    // The document's line: where its first member (apiVersion) is.
    const line = before.split('\n').indexOf('metadata: { name: team }') - 1;
    const pull = await workspace.run(['pull', '--target', 'local', 'Dashboard/team']);
    expect(pull.code).toBe(1);
    expect(pull.stderr).toContain(
      `dashboards.yaml:${line}: Dashboard team was deleted live: remove its manifest to let it go, or apply to create it again`,
    );
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('does not pull a live resource stacksync does not manage', async () => {
    const ops = [
      'apiVersion: stacksync/v1',
      'kind: Dashboard',
      'metadata: { name: ops }',
      'spec:',
      '  name: Ops',
      '  tags: [git]',
      '  tiles: []',
      '',
    ].join('\n');
    await workspace.write('manifests/ops.yaml', ops);
    // Made in the console under the same name, never adopted: plan shows it as adopt, pull leaves it.
    await fetch(`${emulator.url}${STACK}/dashboards`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ops', tags: ['console'], tiles: [] }),
    });
    const pull = await workspace.run(['pull', '--target', 'local', 'Dashboard/ops']);
    expect(pull.stderr).toBe('');
    expect(pull.code).toBe(0);
    expect(await readFile(join(workspace.manifestsDir, 'ops.yaml'), 'utf8')).toBe(ops);
    const plan = await workspace.run(['plan', '--target', 'local', '--output', 'json']);
    expect(JSON.parse(plan.stdout).changes.find((change: { name: string }) => change.name === 'ops')?.action).toBe(
      'adopt',
    );
  });
});
