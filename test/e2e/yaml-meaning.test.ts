/**
 * One YAML meaning (issue 25, item 3), through the built CLI: a manifest means what `yaml` (the
 * reader of every error message, and the one editors use) makes of it under YAML 1.2's core
 * schema, whichever reader the CLI happens to use for speed. A file with lone-CR line ends is a
 * YAML error there, so it is one here, at its file and line, and nothing is written; a tag asking
 * for a type stacksync does not read (`!!binary`, `!!timestamp`, `!!set`, …) or a `%YAML 1.1`
 * directive is an error at its line, never a crash (`E_INTERNAL`) and never silently applied.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { dashboardName, describeRun, parseJsonOutput, writesByRoute } from '../helpers/e2e.js';
import {
  emulatorStats,
  resetEmulatorStats,
  sharedEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };
const shared = sharedEmulator();

/** A dashboard manifest, one line per element of the array, so line ends can be chosen. */
function dashboardLines(key: string, nameValue = `"${dashboardName(key)}"`): string[] {
  return [
    'apiVersion: stacksync/v1',
    'kind: Dashboard',
    'metadata:',
    `  name: ${key}`,
    '  target: local',
    'spec:',
    `  name: ${nameValue}`,
    '  tags: [yaml]',
    '  tiles: []',
  ];
}

function expectNoCrash(result: CliResult): void {
  expect(result.stdout + result.stderr, describeRun(result)).not.toMatch(/E_INTERNAL|TypeError|at .*\.js:\d+/);
}

/** validate, then `apply --output json`: both refuse `file` at `line` with `message`, and nothing is written. */
async function expectRefused(
  workspace: Workspace,
  file: string,
  line: number,
  message: RegExp,
  applyArgs: string[] = [],
): Promise<void> {
  const validate = await workspace.run(['validate']);
  expect(validate.code, describeRun(validate)).toBe(1);
  expectNoCrash(validate);
  expect(validate.stdout).toMatch(new RegExp(`${file}:${line}:\\d+: .*${message.source}`));

  await resetEmulatorStats(shared.emulator.url);
  const apply = await workspace.run(['apply', '--output', 'json', ...applyArgs]);
  expect(apply.code, describeRun(apply)).toBe(1);
  expectNoCrash(apply);
  const errors = parseJsonOutput(apply).errors.filter((error) => error.file === file);
  expect(errors, describeRun(apply)).toEqual([
    expect.objectContaining({ code: 'E_MANIFEST_PARSE', file, line, message: expect.stringMatching(message) }),
  ]);
  expect(writesByRoute(await emulatorStats(shared.emulator.url))).toEqual({});
}

describe('a manifest means what yaml reads in it, through the CLI', () => {
  it('lone-CR line ends are an error at the first one (YAML readers disagree on them), so a file of them deletes nothing; CRLF reads as LF', async () => {
    const workspace = await shared.workspace({
      rateLimit: FAST,
      sync: { prune: true, maxDeletes: 100, maxDeletePercent: 100 },
    });
    const lines = ['# dashboards of the yaml team', ...dashboardLines('yaml-cr')];
    await workspace.write('manifests/cr.yaml', `${lines.join('\n')}\n`);
    const first = await workspace.run(['apply']);
    expect(first.code, describeRun(first)).toBe(0);

    // To yaml this is one comment line: an empty file, whose dashboard --prune would delete.
    await workspace.write('manifests/cr.yaml', `${lines.join('\r')}\r`);
    await expectRefused(workspace, 'manifests/cr.yaml', 1, /a line ends with CR alone.*LF or CRLF/, ['--prune']);

    await workspace.write('manifests/cr.yaml', `${lines.join('\r\n')}\r\n`);
    await resetEmulatorStats(shared.emulator.url);
    const apply = await workspace.run(['apply', '--prune']);
    expect(apply.code, describeRun(apply)).toBe(0);
    expect((await emulatorStats(shared.emulator.url)).writes).toBe(0);
  });

  it.each([
    ['!!binary', '!!binary aGVsbG8=', /YAML tag tag:yaml\.org,2002:binary is not read/],
    ['!!timestamp', '!!timestamp 2001-12-14', /YAML tag tag:yaml\.org,2002:timestamp is not read/],
    ['!!set', '!!set { a, b }', /YAML tag tag:yaml\.org,2002:set is not read/],
    ['!!omap', '!!omap [ a: 1 ]', /YAML tag tag:yaml\.org,2002:omap is not read/],
    ['a local tag', '!secret x', /unknown YAML tag !secret/],
    ['!!float on an integer', '!!float 1', /does not fit its YAML tag tag:yaml\.org,2002:float/],
  ])('a value tagged %s is an error at its line, never a crash', async (_name, value, message) => {
    const workspace = await shared.workspace({ rateLimit: FAST });
    await workspace.write('manifests/tagged.yaml', `${dashboardLines('yaml-tag', value).join('\n')}\n`);
    await expectRefused(workspace, 'manifests/tagged.yaml', 7, message);
  });

  it('a %YAML 1.1 directive is an error at its line: stacksync reads YAML 1.2 only', async () => {
    const workspace = await shared.workspace({ rateLimit: FAST });
    await workspace.write(
      'manifests/v11.yaml',
      `# YAML 1.1 reads yes as true\n%YAML 1.1\n---\n${dashboardLines('yaml-v11', 'yes').join('\n')}\n`,
    );
    await expectRefused(workspace, 'manifests/v11.yaml', 2, /%YAML 1\.1 directive: stacksync reads YAML 1\.2 only/);
  });

  it('a !!binary value in the config is an error at its line, never a crash', async () => {
    const workspace = await shared.workspace({ rateLimit: FAST });
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write(
      'config/stacksync.yaml',
      config.replace('variant: managed', 'variant: !!binary bWFuYWdlZA=='),
    );
    const plan = await workspace.run(['plan']);
    expect(plan.code, describeRun(plan)).not.toBe(0);
    expectNoCrash(plan);
    expect(plan.stderr).toMatch(/config\/stacksync\.yaml:3:\d+: YAML tag tag:yaml\.org,2002:binary is not read/);
  });
});
