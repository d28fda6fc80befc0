/**
 * Broken input writes nothing (issue 15, items 1 and 2), through the built CLI against the
 * emulator: manifest errors of a target mean no writes at all to it (the plan still shows what it
 * would do, the other targets go ahead), `--allow-partial` lets the valid ones through, and a
 * directory that cannot be fully read is an error of the whole load, never fewer manifests.
 */
import { execFileSync } from 'node:child_process';
import { chmod, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  dashboardName,
  dashboardYaml,
  describeRun,
  documents,
  liveTarget,
  parseJsonOutput,
  ROUTES,
  writesByRoute,
  type TargetName,
} from '../helpers/e2e.js';
import { canDropPrivileges, unprivilegedCli } from '../helpers/unprivileged.js';
import {
  sharedEmulator,
  emulatorStats,
  resetEmulatorStats,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };
const WIDE_OPEN = { prune: true, maxDeletes: 100, maxDeletePercent: 100 };

const shared = sharedEmulator();

function newWorkspace(): Promise<Workspace> {
  return shared.workspace({ rateLimit: FAST, sync: WIDE_OPEN });
}

async function applyCounting(
  workspace: Workspace,
  args: string[],
  run = (a: string[]) => workspace.run(a),
): Promise<{ result: CliResult; writes: Record<string, number> }> {
  await resetEmulatorStats(shared.emulator.url);
  const result = await run(['apply', ...args]);
  return { result, writes: writesByRoute(await emulatorStats(shared.emulator.url)) };
}

async function liveNames(target: TargetName, prefix: string): Promise<string[]> {
  return (await liveTarget(shared.emulator.url, target)).dashboards
    .map((d) => d.name)
    .filter((name) => name.startsWith(dashboardName(prefix)))
    .sort();
}

const BROKEN_SCHEMA =
  'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata:\n  name: bad\n  target: local\nspec:\n  name: Bad\n  tiles: [ { name: main, x: 0, y: 0, w: 0, h: 4 } ]\n';
const BROKEN_YAML = 'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: bad, target: [local\n';

describe('a target with manifest errors gets no writes', () => {
  let workspace: Workspace;
  beforeAll(async () => {
    workspace = await newWorkspace();
    await workspace.write('manifests/local.yaml', dashboardYaml({ key: 'mix-old', target: 'local' }));
    const first = await workspace.run(['apply']);
    expect(first.code, describeRun(first)).toBe(0);
  });

  it('a schema error in the middle of a file: its siblings are planned but not written; the other target goes ahead', async () => {
    // An update of a live one, the broken one, a new one; and a new one on the other target.
    await workspace.write(
      'manifests/local.yaml',
      documents([
        dashboardYaml({ key: 'mix-old', target: 'local', tags: ['edited'] }),
        BROKEN_SCHEMA,
        dashboardYaml({ key: 'mix-new', target: 'local' }),
      ]),
    );
    await workspace.write('manifests/selfhosted.yaml', dashboardYaml({ key: 'mix-other', target: 'local-selfhosted' }));
    const { result, writes } = await applyCounting(workspace, ['--output', 'json']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(writes, JSON.stringify(writes)).toEqual({ [`POST ${ROUTES.selfDashboards}`]: 1 });

    const json = parseJsonOutput(result);
    const local = json.changes.filter((change) => change.target === 'local' && change.name.startsWith('mix-'));
    expect(local.map((change) => [change.name, change.action, change.result])).toEqual([
      ['mix-new', 'create', 'skipped'],
      ['mix-old', 'update', 'skipped'],
    ]);
    expect(local[0]?.error).toContain('manifests of target local have errors');
    expect(json.errors.length).toBeGreaterThan(0);
    for (const error of json.errors)
      expect(error).toEqual(
        expect.objectContaining({
          code: 'E_MANIFEST_INVALID',
          file: 'manifests/local.yaml',
          line: 25,
          target: 'local',
        }),
      );
    expect(json.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ message: expect.stringContaining('2 changes of target local held back') }),
      ]),
    );
    expect(await liveNames('local', 'mix-')).toEqual([dashboardName('mix-old')]);
    expect(await liveNames('local-selfhosted', 'mix-')).toEqual([dashboardName('mix-other')]);
  });

  it('--allow-partial applies the valid ones, and still exits 1', async () => {
    const { result, writes } = await applyCounting(workspace, ['--allow-partial']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(writes, JSON.stringify(writes)).toEqual({
      [`POST ${ROUTES.managedDashboards}`]: 1,
      [`PUT ${ROUTES.managedDashboard}`]: 1,
    });
    expect(await liveNames('local', 'mix-')).toEqual([dashboardName('mix-new'), dashboardName('mix-old')]);
  });

  it('a document that does not parse holds back every target, and the text output says so in one line per target', async () => {
    await workspace.write(
      'manifests/local.yaml',
      documents([dashboardYaml({ key: 'mix-old', target: 'local', tags: ['again'] }), BROKEN_YAML]),
    );
    await workspace.write(
      'manifests/selfhosted.yaml',
      dashboardYaml({ key: 'mix-other', target: 'local-selfhosted', tags: ['edited'] }),
    );
    const { result, writes } = await applyCounting(workspace, []);
    expect(result.code, describeRun(result)).toBe(1);
    expect(writes).toEqual({});
    expect(result.stdout).toMatch(
      /^not applied: 1 change: E_MANIFEST_BLOCKED: the manifests of target local have errors/m,
    );
    expect(result.stdout).toMatch(
      /^not applied: 1 change: E_MANIFEST_BLOCKED: the manifests of target local-selfhosted have errors/m,
    );
  });
});

describe('a manifests directory that cannot be fully read prunes nothing', () => {
  let workspace: Workspace;
  let prefix: string;
  let round = 0;
  beforeEach(async () => {
    workspace = await newWorkspace();
    prefix = `unr${round++}-`;
    await workspace.write('manifests/root.yaml', dashboardYaml({ key: `${prefix}root`, target: 'local' }));
    await workspace.write(
      'manifests/team/team.yaml',
      documents([
        dashboardYaml({ key: `${prefix}a`, target: 'local' }),
        dashboardYaml({ key: `${prefix}b`, target: 'local-selfhosted' }),
      ]),
    );
    const first = await workspace.run(['apply']);
    expect(first.code, describeRun(first)).toBe(0);
  });

  it.each([
    [
      'a directory that became a broken symlink',
      'is a broken symlink (ENOENT)',
      (dir: string) => symlink(join(dir, 'gone'), join(dir, 'team')),
    ],
    [
      'a directory that became a symlink loop',
      'is a symlink that loops back on itself (ELOOP)',
      (dir: string) => symlink('team', join(dir, 'team')),
    ],
  ])('%s: validate fails, apply --prune deletes nothing', async (_name, message, replace) => {
    await workspace.remove('manifests/team');
    await replace(workspace.manifestsDir);
    const validate = await workspace.run(['validate']);
    expect(validate.code, describeRun(validate)).toBe(1);
    expect(validate.stdout).toContain(`manifests/team: E_MANIFEST_PARSE: ${message}`);
    const { result, writes } = await applyCounting(workspace, ['--prune']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(writes).toEqual({});
    expect(await liveNames('local', prefix)).toEqual([dashboardName(`${prefix}a`), dashboardName(`${prefix}root`)]);
    expect(await liveNames('local-selfhosted', prefix)).toEqual([dashboardName(`${prefix}b`)]);
  });

  // Root reads a directory whatever its mode, so this runs the CLI as an unprivileged user.
  it.skipIf(!canDropPrivileges())(
    'a subdirectory the user cannot enter (run as an unprivileged user; needs root and setpriv)',
    async (ctx) => {
      const cli = await unprivilegedCli();
      if ('reason' in cli) return ctx.skip(cli.reason);
      try {
        // The workspace (config, state, key) belongs to nobody now, so only the chmod under test stops the reader.
        execFileSync('chown', ['-R', '65534:65534', workspace.dir]);
        const asNobody = (args: string[]): Promise<CliResult> => cli.run(workspace.dir, args, workspace.env);
        for (const mode of [0o000, 0o644]) {
          await chmod(join(workspace.manifestsDir, 'team'), mode);
          const { result, writes } = await applyCounting(workspace, ['--prune'], asNobody);
          expect(result.code, describeRun(result)).toBe(1);
          expect(result.stdout + result.stderr).toContain('manifests/team');
          expect(writes).toEqual({});
        }
        expect(await liveNames('local', prefix)).toEqual([dashboardName(`${prefix}a`), dashboardName(`${prefix}root`)]);
      } finally {
        await cli.dispose();
      }
    },
  );
});
