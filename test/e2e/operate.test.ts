/**
 * Operating a running setup (issue 13), end to end against the emulator: suspended resources and
 * targets are read and reported but never written, ignored fields are never diffed or written,
 * prune leaves what `stacksync.io/prune: disabled` marks, one manifest serves several targets
 * with their own variables, and a failed pipe shows as degraded.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  dashboardName,
  dashboardYaml,
  describeRun,
  liveTarget,
  parseJsonOutput,
  updateDashboardOutOfBand,
  type TargetName,
} from '../helpers/e2e.js';
import {
  sharedEmulator,
  emulatorStats,
  resetEmulatorStats,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

const shared = sharedEmulator();

function newWorkspace(): Promise<Workspace> {
  return shared.workspace({ rateLimit: FAST });
}

/** `yaml` with annotations added under its metadata. */
function annotated(yaml: string, annotations: Record<string, string>): string {
  const lines = Object.entries(annotations).map(([key, value]) => `    ${key}: ${JSON.stringify(value)}`);
  return yaml.replace('metadata:\n', `metadata:\n  annotations:\n${lines.join('\n')}\n`);
}

/** Runs the CLI and returns it with the API writes it made. */
async function counting(workspace: Workspace, args: string[]): Promise<{ result: CliResult; writes: number }> {
  await resetEmulatorStats(shared.emulator.url);
  const result = await workspace.run(args);
  return { result, writes: (await emulatorStats(shared.emulator.url)).writes };
}

async function liveDashboard(
  target: TargetName,
  key: string,
): Promise<Awaited<ReturnType<typeof liveTarget>>['dashboards'][number]> {
  const found = (await liveTarget(shared.emulator.url, target)).dashboards.find((d) => d.name === dashboardName(key));
  if (!found) throw new Error(`Dashboard ${key} is not live`);
  return found;
}

/** Changes the width of every tile of a live dashboard, as a person in the UI would. */
async function widenOutOfBand(target: TargetName, key: string, w: number): Promise<void> {
  const live = await liveDashboard(target, key);
  await updateDashboardOutOfBand(shared.emulator.url, target, live.id, {
    name: live.name,
    tags: live.tags,
    tiles: live.tiles.map((tile) => ({ ...tile, w })),
  });
}

describe('suspend', () => {
  it('a suspended resource drifted out of band is reported, and neither apply nor the daemon heals it', async () => {
    const workspace = await newWorkspace();
    const manifest = dashboardYaml({ key: 'susp-web', target: 'local-selfhosted', tiles: [{ name: 'p99', w: 6 }] });
    await workspace.write('manifests/web.yaml', manifest);
    expect((await workspace.run(['apply'])).code).toBe(0);
    await workspace.write('manifests/web.yaml', annotated(manifest, { 'stacksync.io/suspend': 'true' }));
    await widenOutOfBand('local-selfhosted', 'susp-web', 11);

    const plan = parseJsonOutput(await workspace.run(['plan', '--output', 'json']));
    const change = plan.changes.find((c) => c.name === 'susp-web');
    expect(change?.action).toBe('suspended');
    expect(change?.diff).toEqual([{ path: 'tiles[p99].w', before: 11, after: 6 }]);

    const applied = await counting(workspace, ['apply']);
    expect(applied.result.code, describeRun(applied.result)).toBe(0);
    expect(applied.writes).toBe(0);
    const once = await counting(workspace, ['run', '--once']);
    expect(once.result.code, describeRun(once.result)).toBe(0);
    expect(once.writes).toBe(0);
    expect((await liveDashboard('local-selfhosted', 'susp-web')).tiles[0]?.w).toBe(11);

    // Resumed (the annotation removed): the next apply heals it.
    await workspace.write('manifests/web.yaml', manifest);
    expect((await workspace.run(['apply'])).code).toBe(0);
    expect((await liveDashboard('local-selfhosted', 'susp-web')).tiles[0]?.w).toBe(6);
  });

  it('a target suspended in the config gets no writes at all, not even a create', async () => {
    const workspace = await newWorkspace();
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write(
      'config/stacksync.yaml',
      config.replace('variant: self-hosted\n', 'variant: self-hosted\n    suspend: true\n'),
    );
    await workspace.write('manifests/new.yaml', dashboardYaml({ key: 'susp-new', target: 'local-selfhosted' }));
    const applied = await counting(workspace, ['apply']);
    expect(applied.result.code, describeRun(applied.result)).toBe(0);
    expect(applied.writes).toBe(0);
    expect(applied.result.stdout).toContain('target local-selfhosted is suspended');
    expect((await liveTarget(shared.emulator.url, 'local-selfhosted')).dashboards.map((d) => d.name)).not.toContain(
      dashboardName('susp-new'),
    );
  });
});

describe('ignore rules and prune: disabled', () => {
  it('a field listed in spec.ignoreDifferences and changed out of band causes no write', async () => {
    const workspace = await newWorkspace();
    const manifest = dashboardYaml({ key: 'ign-web', target: 'local-selfhosted', tiles: [{ name: 'p99', w: 6 }] });
    await workspace.write('manifests/web.yaml', manifest);
    expect((await workspace.run(['apply'])).code).toBe(0);
    await workspace.write('manifests/web.yaml', `${manifest}  ignoreDifferences: ["tiles[p99].w"]\n`);
    expect((await workspace.run(['apply'])).code, 'recording the new manifest').toBe(0);
    await widenOutOfBand('local-selfhosted', 'ign-web', 11);

    const plan = parseJsonOutput(await workspace.run(['plan', '--output', 'json']));
    expect(plan.changes.find((c) => c.name === 'ign-web')?.action).toBe('unchanged');
    const applied = await counting(workspace, ['apply']);
    expect(applied.result.code, describeRun(applied.result)).toBe(0);
    expect(applied.writes).toBe(0);
    expect((await liveDashboard('local-selfhosted', 'ign-web')).tiles[0]?.w).toBe(11);
  });

  it('the annotation form ignores as well; a field not listed is still healed, keeping the ignored live value', async () => {
    const workspace = await newWorkspace();
    const manifest = dashboardYaml({
      key: 'ign-ann',
      target: 'local-selfhosted',
      tiles: [{ name: 'p99', w: 6, h: 4 }],
    });
    await workspace.write(
      'manifests/web.yaml',
      annotated(manifest, { 'stacksync.io/ignore-differences': 'tiles[p99].w' }),
    );
    expect((await workspace.run(['apply'])).code).toBe(0);
    const live = await liveDashboard('local-selfhosted', 'ign-ann');
    await updateDashboardOutOfBand(shared.emulator.url, 'local-selfhosted', live.id, {
      name: live.name,
      tags: live.tags,
      tiles: live.tiles.map((tile) => ({ ...tile, w: 9, h: 2 })),
    });
    const applied = await counting(workspace, ['apply']);
    expect(applied.result.code, describeRun(applied.result)).toBe(0);
    expect(applied.writes).toBe(1);
    expect((await liveDashboard('local-selfhosted', 'ign-ann')).tiles[0]).toMatchObject({ w: 9, h: 4 });
  });

  it('a resource applied with stacksync.io/prune: disabled survives apply --prune after its manifest is removed', async () => {
    const workspace = await newWorkspace();
    await workspace.write(
      'manifests/kept.yaml',
      annotated(dashboardYaml({ key: 'np-kept', target: 'local-selfhosted' }), { 'stacksync.io/prune': 'disabled' }),
    );
    await workspace.write('manifests/gone.yaml', dashboardYaml({ key: 'np-gone', target: 'local-selfhosted' }));
    expect((await workspace.run(['apply'])).code).toBe(0);
    await workspace.remove('manifests/kept.yaml');
    await workspace.remove('manifests/gone.yaml');
    await workspace.write('manifests/other.yaml', dashboardYaml({ key: 'np-other', target: 'local-selfhosted' }));
    const pruned = await workspace.run(['apply', '--prune', '--force']);
    expect(pruned.code, describeRun(pruned)).toBe(0);
    const names = (await liveTarget(shared.emulator.url, 'local-selfhosted')).dashboards.map((d) => d.name);
    expect(names).toContain(dashboardName('np-kept'));
    expect(names).not.toContain(dashboardName('np-gone'));
  });
});

describe('variables', () => {
  async function withVars(workspace: Workspace): Promise<void> {
    const config = await readFile(workspace.configPath, 'utf8');
    const withLocal = config.replace(
      'variant: managed\n',
      'variant: managed\n    vars: { ENV: prod, WIDTH: "7", HOOK: { fromEnv: HOOK_PROD } }\n',
    );
    await workspace.write(
      'config/stacksync.yaml',
      withLocal.replace(
        'variant: self-hosted\n',
        'variant: self-hosted\n    vars: { ENV: staging, WIDTH: "3", HOOK: plain-hook }\n',
      ),
    );
  }

  const manifest = (extraTags = ''): string =>
    [
      'apiVersion: stacksync/v1',
      'kind: Dashboard',
      'metadata:',
      '  name: vars-web',
      '  target: [local, local-selfhosted]',
      'spec:',
      '  name: "Web ${ENV}"',
      `  tags: ["env:\${ENV}", "hook:\${HOOK}"${extraTags}]`,
      '  tiles:',
      '    - { name: main, x: 0, y: 0, w: 6, h: 4, series: [{ type: time, dataSource: events, aggFn: count, where: "env:${ENV}" }] }',
      '',
    ].join('\n');

  it('one manifest is applied to two targets, each with its own values; a secret value never shows', async () => {
    const workspace = await newWorkspace();
    await withVars(workspace);
    await workspace.write('manifests/web.yaml', manifest());
    const env = { HOOK_PROD: 'hook-s3cr3t' };
    const plan = await workspace.run(['plan'], { env });
    expect(plan.code, describeRun(plan)).toBe(0);
    expect(plan.stdout).not.toContain('hook-s3cr3t');
    expect(plan.stdout).toContain('(sensitive)');
    const json = await workspace.run(['plan', '--output', 'json'], { env });
    expect(json.stdout).not.toContain('hook-s3cr3t');

    const applied = await workspace.run(['apply'], { env });
    expect(applied.code, describeRun(applied)).toBe(0);
    expect(`${applied.stdout}${applied.stderr}`).not.toContain('hook-s3cr3t');
    const prod = (await liveTarget(shared.emulator.url, 'local')).dashboards.find((d) => d.name === 'Web prod');
    const staging = (await liveTarget(shared.emulator.url, 'local-selfhosted')).dashboards.find(
      (d) => d.name === 'Web staging',
    );
    expect(prod?.tags).toEqual(['env:prod', 'hook:hook-s3cr3t']);
    expect(staging?.tags).toEqual(['env:staging', 'hook:plain-hook']);
    expect(await readFile(workspace.statePath, 'utf8')).not.toContain('hook-s3cr3t');
  });

  it('an unset variable is a file:line error at validate, for each target that lacks it', async () => {
    const workspace = await newWorkspace();
    await withVars(workspace);
    await workspace.write('manifests/web.yaml', manifest(', "region:${REGION}"'));
    const validate = await workspace.run(['validate'], { env: { HOOK_PROD: 'x' } });
    expect(validate.code, describeRun(validate)).toBe(1);
    expect(validate.stdout).toMatch(/manifests\/web\.yaml:8:\d+.*\$\{REGION\} is not set for target local\b/);
    expect(validate.stdout).toMatch(/\$\{REGION\} is not set for target local-selfhosted/);
  });
});
