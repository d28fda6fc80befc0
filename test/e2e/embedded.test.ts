/**
 * The README's first command: `npm start` is `stacksync run` in a clone with no config file, which
 * runs against the built-in emulator. Run here on a copy of the repository's example manifests
 * and its config/ directory:
 * the first sync applies every one of them (nothing held back), and SIGTERM stops it cleanly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { cloneRepository, type Workspace } from '../helpers/workspace.js';

let workspace: Workspace | undefined;
let daemon: RunningDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await workspace?.dispose();
  workspace = undefined;
});

describe('stacksync run with no config file (npm start)', () => {
  it('applies the example manifests to the built-in emulator, says what to try, and stops on SIGTERM', async () => {
    // A fresh clone has config/ with the configs to start from, none of them at the default path,
    // and is a git checkout at a commit: its manifests are applied "from Git".
    workspace = await cloneRepository({ git: true });
    daemon = await startDaemon(workspace);
    const running = daemon;
    await waitUntil(() => running.output().stdout.includes('First sync done'), 60_000);
    // The hint works as printed: it names the address this daemon listens on, not the default (issue 34, item 6).
    const hint = /`npx stacksync (status[^`]*)`/.exec(running.output().stdout)?.[1];
    expect(hint, running.output().stdout).toBe(`status --listen ${new URL(running.url).host}`);
    const status = await workspace.run((hint ?? '').split(' '));
    expect(status.stdout + status.stderr).not.toMatch(/cannot reach|E_DAEMON_UNREACHABLE|ECONNREFUSED/);
    expect(status.stdout).toContain('local-selfhosted');
    const { code } = await running.stop();
    const { stdout, stderr } = running.output();
    const output = `--- stdout\n${stdout}\n--- stderr\n${stderr}`;
    expect(stdout, output).toContain('no config file found, so running against the built-in emulator');
    expect(stdout, output).toContain('First sync done');
    expect(stdout, output).toMatch(/local: initial sync applied \d+ changes from Git:/);
    expect(stdout, output).toMatch(/local-selfhosted: initial sync applied \d+ changes from Git:/);
    expect(stdout, output).not.toMatch(/; \d+ (failed|not applied)|result: (failed|skipped)|Errors:/);
    expect(stdout.match(/^Result: .*$/gm) ?? [], output).toEqual([
      expect.stringMatching(/ 0 failed, 0 skipped, 0 not applied, 0 waiting, /),
      expect.stringMatching(/ 0 failed, 0 skipped, 0 not applied, 0 waiting, /),
    ]);
    // A person reads this, pipe or not: human lines on both streams, files named as plan names them.
    expect(stdout, output).toContain('(manifests/dashboard-api-latency.yaml:');
    expect(`${stdout}${stderr}`, output).not.toContain(workspace.dir);
    expect(stderr, output).not.toContain('{"level"');
    expect(stderr, output).toMatch(/^\d\d:\d\d:\d\d INFO {2}listening/m);
    expect(code, output).toBe(0);
  }, 120_000);
});
