/**
 * scripts/check-workflow-scripts.mjs: shellcheck over the run: scripts of the workflows we ship.
 * shellcheck is Debian's package, not an npm one, so the checks that need it run only where it
 * is installed (`apt-get install shellcheck`; GitHub's Ubuntu runners have it, and the release
 * workflow runs the script); without it the script must say so and step aside.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './workflow.js';

const exec = promisify(execFile);
const SCRIPT = join(ROOT, 'scripts/check-workflow-scripts.mjs');
const hasShellcheck = spawnSync('shellcheck', ['--version']).status === 0;

// In CI a skipped check is a check that does not exist: .ci/run installs ShellCheck, so its absence there fails.
it.runIf(!hasShellcheck && process.env['CI'] === 'true')('has shellcheck in CI', () => {
  expect.fail("no shellcheck on the PATH: .ci/run installs Debian's shellcheck");
});

async function check(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await exec(process.execPath, [SCRIPT, ...args], { cwd: ROOT, env });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-shellcheck-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('scripts/check-workflow-scripts.mjs', () => {
  it('says shellcheck is not installed, and skips, where it is not', async () => {
    const result = await check([], { PATH: dir });
    expect(result).toEqual({
      code: 0,
      stdout: 'shellcheck not installed; skipping the check of workflow run: scripts (apt-get install shellcheck)\n',
    });
  });

  it.skipIf(!hasShellcheck)('finds nothing in the workflows we ship', async () => {
    const result = await check([]);
    expect(result.stdout).toMatch(/run: script\(s\) in [2-9] workflow\(s\), 0 finding\(s\)/);
    expect(result.code).toBe(0);
  });

  it.skipIf(!hasShellcheck)('reports a finding at its line in the workflow, checks bash only, and fails', async () => {
    const workflow = join(dir, 'broken.yml');
    await writeFile(
      workflow,
      [
        'on: push',
        'jobs:',
        '  one:',
        '    runs-on: ubuntu-latest',
        '    steps:',
        '      - name: list',
        '        run: |',
        '          echo "${{ github.ref }}"',
        '          for f in $(ls *.txt); do echo "$f"; done',
        '      - shell: pwsh',
        '        run: Write-Host $unquoted',
        '',
      ].join('\n'),
    );
    const result = await check([workflow]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/broken\.yml:9:20: error: .* \[SC2045\] \(job one, step "list"\)/);
    expect(result.stdout).toContain('1 run: script(s) in 1 workflow(s)');
  });
});
