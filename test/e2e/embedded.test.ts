/**
 * The README's first command: `npm start` is `stacksync run` in a clone with no config file, which
 * runs against the built-in emulator. Run here on a copy of the repository's example manifests
 * and its config/ directory:
 * the first sync applies every one of them (nothing held back), and SIGTERM stops it cleanly.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/workspace.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('stacksync run with no config file (npm start)', () => {
  it('applies the example manifests to the built-in emulator, says what to try, and stops on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'stacksync-embedded-'));
    await cp(join(REPO, 'manifests'), join(dir, 'manifests'), { recursive: true });
    await cp(join(REPO, 'examples', 'secrets'), join(dir, 'examples', 'secrets'), { recursive: true });
    // A fresh clone has config/ with the configs to start from; none of them is at the default path.
    await cp(join(REPO, 'config'), join(dir, 'config'), { recursive: true });
    // …and is a git checkout at a commit: its manifests are applied "from Git".
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: dir, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'a fresh clone');
    const child = spawn(process.execPath, [CLI, 'run', '--listen', '127.0.0.1:0'], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (!stdout.includes('First sync done') && Date.now() < deadline && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGTERM');
    const code = await exited;
    const output = `--- stdout\n${stdout}\n--- stderr\n${stderr}`;
    expect(stdout, output).toContain('no config file found, so running against the built-in emulator');
    expect(stdout, output).toContain('First sync done');
    expect(stdout, output).toMatch(/local: initial sync applied \d+ changes from Git:/);
    expect(stdout, output).toMatch(/local-selfhosted: initial sync applied \d+ changes from Git:/);
    expect(stdout, output).not.toMatch(/; \d+ (failed|not applied)|result: (failed|skipped)|Errors:/);
    expect(stdout.match(/^Result: .*$/gm) ?? [], output).toEqual([expect.stringMatching(/ 0 failed, 0 not applied, /), expect.stringMatching(/ 0 failed, 0 not applied, /)]);
    // A person reads this, pipe or not: human lines on both streams, files named as plan names them.
    expect(stdout, output).toContain('(manifests/dashboard-api-latency.yaml:');
    expect(`${stdout}${stderr}`, output).not.toContain(dir);
    expect(stderr, output).not.toContain('{"level"');
    expect(stderr, output).toMatch(/^\d\d:\d\d:\d\d INFO  listening/m);
    expect(code, output).toBe(0);
  });
});
