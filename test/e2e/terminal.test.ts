/**
 * What a person reads in the terminal is true and short, and what a log collector reads is JSON
 * only (issue 26): every error line carries its stable code; a retry is one line, not the failure
 * again; a wait for the rate budget is told when it starts, with its length; the closing line of
 * an applied plan counts what happened; a failed sync is an error; "from Git" only for a committed
 * revision; files are named as plan names them, in the console, the logs and /status alike.
 *
 * Run with the built CLI. Failures come from an emulator serving today's services (`--profile
 * current`), which refuses the example's dashboard once its tile asks for what it cannot compute.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { dashboardName, dashboardYaml, describeRun, liveTarget, updateDashboardOutOfBand } from '../helpers/e2e.js';
import { sharedEmulator, type CliResult } from '../helpers/workspace.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const current = sharedEmulator({ profile: 'current' });
const seed = sharedEmulator();

/**
 * The example's dashboard and alert, its tiles written so that only the server can refuse them:
 * an average with nothing to average (the client cannot tell; the seed's `series` form it would
 * refuse before sending). Only `plan` asks the server first, so apply and the daemon send it.
 */
async function refusedDashboard(): Promise<string> {
  const example = await readFile(join(REPO, 'manifests', 'selfhosted-service-health.yaml'), 'utf8');
  const tiles = /^ {2}tiles:\n[\s\S]*?(?=^---$)/m;
  expect(example).toMatch(tiles);
  return example.replace(
    tiles,
    '  tiles:\n    - { name: error-logs, x: 0, y: 0, w: 12, h: 4, config: { displayType: line, source: logs, select: [{ aggFn: avg }] } }\n',
  );
}

/** Every line of `text` as a JSON record; throws on a line that is not one. */
function records(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON record: ${line}`);
      }
    });
}

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };
let daemon: RunningDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

describe('apply --output text', () => {
  it('puts the stable code on every line about a failure: progress, results', async () => {
    const workspace = await current.workspace({ apiProfile: 'current' });
    await workspace.write('manifests/health.yaml', await refusedDashboard());
    const result = await workspace.run(['apply', '--target', 'local-selfhosted']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^failed Dashboard\/service-health: E_API_VALIDATION: POST \/api\/v2\/dashboards: HTTP 400/m,
    );
    expect(result.stderr).toMatch(
      /^skipped Alert\/error-spike: E_DEPENDENCY_FAILED: depends on Dashboard\/service-health, which failed$/m,
    );
    expect(result.stdout).toMatch(/^failed: local-selfhosted\/Dashboard\/service-health: E_API_VALIDATION: POST/m);
    expect(result.stdout).toMatch(/^skipped: local-selfhosted\/Alert\/error-spike: E_DEPENDENCY_FAILED: depends on/m);
    // The plan's own line counted what was planned ("0 errors"); the last line counts what happened.
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      'Result: 0 created, 0 updated, 0 deleted, 0 adopted, 1 failed, 1 skipped, 0 not applied, 0 waiting, 0 unchanged.',
    );
  });
});

describe('a wait for the rate budget', () => {
  it('is told when it starts, with how long it lasts, before the change that waited', async () => {
    // Two requests per 2 s: the plan's two list calls spend the first window, so the creates wait.
    const workspace = await seed.workspace({ rateLimit: { requests: 2, perSeconds: 2, concurrency: 1 } });
    for (const key of ['one', 'two'])
      await workspace.write(`manifests/${key}.yaml`, dashboardYaml({ key, target: 'local-selfhosted' }));
    const result = await workspace.run(['apply', '--target', 'local-selfhosted']);
    expect(result.code, describeRun(result)).toBe(0);
    const lines = result.stderr.split('\n');
    const wait = lines.findIndex((line) =>
      /^waiting \d+\.\ds for the rate budget of local-selfhosted \(2 requests \/ 2 s\)$/.test(line),
    );
    const created = lines.findIndex((line) => line.startsWith('created Dashboard/one'));
    expect(wait, result.stderr).toBeGreaterThanOrEqual(0);
    expect(wait, result.stderr).toBeLessThan(created);
    expect(Number(/waiting (\d+\.\d)s/.exec(lines[wait] ?? '')?.[1])).toBeGreaterThan(1);
  });

  it('is a record among records when the logs are JSON (apply --output json, not a terminal)', async () => {
    const workspace = await seed.workspace({ rateLimit: { requests: 2, perSeconds: 2, concurrency: 1 } });
    await workspace.write('manifests/three.yaml', dashboardYaml({ key: 'three', target: 'local-selfhosted' }));
    const result = await workspace.run([
      'apply',
      '--target',
      'local-selfhosted',
      '--output',
      'json',
      '--log-level',
      'info',
    ]);
    expect(result.code, describeRun(result)).toBe(0);
    const told = records(result.stderr);
    expect(told.map((record) => record['msg'])).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^waiting \d+\.\ds for the rate budget of local-selfhosted \(2 requests \/ 2 s\)$/),
        expect.stringMatching(/^created Dashboard\/three /),
        expect.stringMatching(/^Apply local-selfhosted: 1 created/),
      ]),
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ summary: { create: 1 } });
  });
});

describe('the daemon', () => {
  it('off a terminal writes JSON records only: a failed sync is an error, each retry one record, files named as plan names them', async () => {
    const workspace = await current.workspace({ apiProfile: 'current', rateLimit: FAST });
    await workspace.write('manifests/health.yaml', await refusedDashboard());
    daemon = await startDaemon(workspace);
    const running = daemon;
    await waitUntil(
      () =>
        records(running.output().stderr).filter((record) => String(record['msg']).startsWith('retrying')).length >= 2,
      15_000,
    );
    await workspace.write('manifests/extra.yaml', '# nothing yet\n');
    await waitUntil(
      () => records(running.output().stderr).some((record) => record['msg'] === 'manifests changed'),
      15_000,
    );
    const { stdout, stderr } = running.output();
    expect(records(stderr).find((record) => record['msg'] === 'manifests changed')).toMatchObject({
      paths: [join('manifests', 'extra.yaml')],
    });
    expect(stdout).toBe('');
    const told = records(stderr);
    const failed = told.filter((record) => String(record['msg']).startsWith('sync failed'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      level: 50,
      target: 'local-selfhosted',
      code: 'E_API_VALIDATION',
      next: { trigger: 'retry' },
    });
    const change = told.filter((record) => String(record['msg']).startsWith('failed Dashboard/service-health'));
    expect(change).toEqual([
      expect.objectContaining({ level: 50, code: 'E_API_VALIDATION', file: join('manifests', 'health.yaml'), line: 5 }),
    ]);
    const retries = told.filter((record) => String(record['msg']).startsWith('retrying'));
    for (const retry of retries) {
      expect(retry).toMatchObject({ level: 50, target: 'local-selfhosted', code: 'E_API_VALIDATION' });
      expect(String(retry['msg'])).toMatch(
        /^retrying Dashboard\/service-health and Alert\/error-spike in \d+ s: E_API_VALIDATION: POST \/api\/v2\/dashboards: HTTP 400/,
      );
    }
    const status = JSON.parse((await running.get('/status')).text) as {
      targets: Record<string, { resources: { name: string; file?: string }[] }>;
    };
    const files = (status.targets['local-selfhosted']?.resources ?? []).map((resource) => resource.file);
    expect(files).toEqual([join('manifests', 'health.yaml'), join('manifests', 'health.yaml')]);
    expect(stderr).not.toContain(workspace.dir);
  });

  it('with --log-format human tells the failure once, then one line per retry, and counts what happened', async () => {
    const workspace = await current.workspace({ apiProfile: 'current', rateLimit: FAST });
    await workspace.write('manifests/health.yaml', await refusedDashboard());
    daemon = await startDaemon(workspace, ['--log-format', 'human']);
    const running = daemon;
    await waitUntil(() => (running.output().stdout.match(/ retrying /g) ?? []).length >= 2, 15_000);
    const { stdout, stderr } = running.output();
    const lines = stdout.split('\n').filter((line) => line !== '');
    expect(lines.filter((line) => line.startsWith('Target local-selfhosted:'))).toHaveLength(1);
    expect(stdout).toContain('local-selfhosted: initial sync applied nothing; 1 failed; 1 skipped:');
    expect(stdout).toContain('  + create Dashboard/service-health  (manifests/health.yaml:5)');
    expect(stdout).toMatch(
      /^Result: 0 created, 0 updated, 0 deleted, 0 adopted, 1 failed, 1 skipped, 0 not applied, 0 waiting, 0 unchanged\.$/m,
    );
    expect(stdout).not.toMatch(/\b0 errors\b/);
    const delays = lines
      .filter((line) => / retrying /.test(line))
      .map(
        (line) =>
          /^\[\d\d:\d\d:\d\d\] local-selfhosted: retrying Dashboard\/service-health and Alert\/error-spike in (\d+) s: E_API_VALIDATION: /.exec(
            line,
          )?.[1],
      );
    expect(delays.slice(0, 2)).toEqual(['1', '2']);
    expect(stderr).not.toContain('{"level"');
    expect(`${stdout}${stderr}`).not.toContain(workspace.dir);
  });

  it('heals drift without a "toApply: 0", and logs each change it made', async () => {
    const workspace = await seed.workspace({ rateLimit: FAST });
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: 'local-selfhosted', tiles: [{ name: 'p99', w: 6 }] }),
    );
    const first = await workspace.run(['run', '--once', '--log-format', 'json']);
    expect(first.code, describeRun(first)).toBe(0);
    const live = (await liveTarget(seed.emulator.url, 'local-selfhosted')).dashboards.find(
      (d) => d.name === dashboardName('web'),
    );
    if (!live) throw new Error('Dashboard web is not live');
    await updateDashboardOutOfBand(seed.emulator.url, 'local-selfhosted', live.id, {
      name: live.name,
      tags: live.tags,
      tiles: live.tiles.map((tile) => ({ ...tile, w: 11 })),
    });
    const healed = await workspace.run(['run', '--once', '--log-format', 'json']);
    expect(healed.code, describeRun(healed)).toBe(0);
    expect(healed.stdout).toBe('');
    const told = records(healed.stderr);
    const sync = told.find(
      (record) => record['target'] === 'local-selfhosted' && String(record['msg']).startsWith('sync finished'),
    );
    expect(sync).toMatchObject({
      level: 30,
      drift: 1,
      msg: 'sync finished: healed 1 drift (a live edit made outside stacksync)',
    });
    expect(sync).not.toHaveProperty('toApply');
    expect(told).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 30, msg: 'updated Dashboard/web', file: join('manifests', 'web.yaml') }),
      ]),
    );
  });
});

describe('"from Git"', () => {
  function git(cwd: string, ...args: string[]): void {
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
      cwd,
      stdio: 'ignore',
    });
  }

  async function runOnce(workspace: { run(args: readonly string[]): Promise<CliResult> }): Promise<string> {
    const result = await workspace.run(['run', '--once']);
    expect(result.code, describeRun(result)).toBe(0);
    return result.stdout;
  }

  it('is said only of a committed revision; uncommitted edits are applied from the working tree', async () => {
    const workspace = await seed.workspace({ rateLimit: FAST });
    await workspace.write(
      'manifests/git-web.yaml',
      dashboardYaml({ key: 'git-web', target: 'local-selfhosted', tiles: [{ name: 'p99', w: 6 }] }),
    );
    git(workspace.dir, 'init', '-q', '-b', 'main');
    git(workspace.dir, 'add', 'manifests');
    git(workspace.dir, 'commit', '-q', '-m', 'web');
    expect(await runOnce(workspace)).toContain('local-selfhosted: initial sync applied 1 change from Git:');
    await workspace.write(
      'manifests/git-web.yaml',
      dashboardYaml({ key: 'git-web', target: 'local-selfhosted', tiles: [{ name: 'p99', w: 8 }] }),
    );
    expect(await runOnce(workspace)).toContain(
      'local-selfhosted: initial sync applied 1 change from the working tree:',
    );
    git(workspace.dir, 'commit', '-q', '-am', 'wider');
    await workspace.write(
      'manifests/git-web.yaml',
      dashboardYaml({ key: 'git-web', target: 'local-selfhosted', tiles: [{ name: 'p99', w: 8 }] }),
    );
    expect(await runOnce(workspace)).toContain('local-selfhosted: in sync (1 resources, initial)');
  });
});
