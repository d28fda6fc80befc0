/**
 * A process that cannot start what it was asked to exits at once, non-zero, naming the flag or
 * file to change (issue 25, item 7): in a pod, that is what lets Kubernetes restart it. Two
 * daemons on one port, a config that cannot be read, a state file another process keeps locked.
 * The bound on the time from the error to the exit is the promise (a second); the bound on the
 * whole run only says that the process ended by itself (today's failure is that it never did).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockPathFor } from '../../src/state/lock.js';
import { freePort, startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { dashboardYaml } from '../helpers/e2e.js';
import { sharedEmulator, type Workspace } from '../helpers/workspace.js';

/** How long a failed start may take from its error line to its exit. */
const EXIT_AFTER_ERROR_MS = 1_000;
/** Beyond this the process is taken to hang, and is killed. */
const HANG_MS = 15_000;

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from the last output on stderr (the error) to the exit. */
  afterError: number;
  /** Milliseconds from the first output on stderr to the exit. */
  afterFirstLine: number;
}

/** Runs `stacksync ARGS` in the workspace until it exits by itself; rejects when it hangs. */
function runToEnd(workspace: Workspace, args: readonly string[]): Promise<Ended> {
  const child = workspace.spawn(args);
  let stdout = '';
  let stderr = '';
  let firstAt: number | undefined;
  let lastAt: number | undefined;
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => {
    lastAt = Date.now();
    firstAt ??= lastAt;
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `stacksync ${args.join(' ')} was still running after ${HANG_MS} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, HANG_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const now = Date.now();
      resolve({ code, stdout, stderr, afterError: now - (lastAt ?? now), afterFirstLine: now - (firstAt ?? now) });
    });
  });
}

function describeEnd(ended: Ended): string {
  return `exit ${ended.code}, ${ended.afterError} ms after its last line on stderr\nstdout:\n${ended.stdout}\nstderr:\n${ended.stderr}`;
}

/** Exited 1 by itself, soon after saying why, and the reason names `names`. */
function expectFailedFast(ended: Ended, ...names: string[]): void {
  expect(ended.code, describeEnd(ended)).toBe(1);
  expect(ended.afterError, describeEnd(ended)).toBeLessThan(EXIT_AFTER_ERROR_MS);
  for (const name of names) expect(ended.stderr, describeEnd(ended)).toContain(name);
}

const shared = sharedEmulator();

describe('two daemons on one port', () => {
  let first: RunningDaemon;
  let workspace: Workspace;
  let port: string;
  beforeAll(async () => {
    workspace = await shared.workspace();
    await workspace.write('manifests/d.yaml', dashboardYaml({ key: 'ff-port', target: 'local' }));
    first = await startDaemon(workspace, ['--log-level', 'warn']);
    port = new URL(first.url).port;
  });
  afterAll(async () => {
    await first?.stop();
  });

  it('the second exits 1 naming the address and --listen; the first serves on', async () => {
    const second = await runToEnd(workspace, ['run', '--listen', `127.0.0.1:${port}`]);
    expectFailedFast(second, `cannot listen on 127.0.0.1:${port}`, 'already in use', '--listen');
    expect((await first.get('/healthz')).status).toBe(200);
  });

  it('--embedded (the README tour while npm start runs): exits 1, and starts no emulator of its own first', async () => {
    const other = await shared.workspace();
    const second = await runToEnd(other, ['run', '--embedded', '--listen', `127.0.0.1:${port}`]);
    expectFailedFast(second, `cannot listen on 127.0.0.1:${port}`, '--listen');
    expect(second.stdout, describeEnd(second)).not.toContain('built-in emulator');
    expect(existsSync(join(other.dir, '.stacksync', 'embedded')), 'the embedded emulator wrote its data').toBe(false);
  });

  it('a port that is not one of this machine: exits 1 naming --listen', async () => {
    // 192.0.2.0/24 is TEST-NET-1: never an address of a test machine.
    const second = await runToEnd(workspace, ['run', '--listen', `192.0.2.1:${await freePort()}`]);
    expectFailedFast(second, 'cannot listen on 192.0.2.1:', '--listen');
  });
});

describe('a config that cannot be read', () => {
  it.each([
    ['a file that is not there', 'missing.yaml', 'missing.yaml'],
    ['a directory', 'manifests', 'config file manifests is not a regular file'],
  ])('%s: run exits 1 naming it', async (_name, path, message) => {
    const workspace = await shared.workspace();
    const ended = await runToEnd(workspace, ['run', '-c', path, '--listen', `127.0.0.1:${await freePort()}`]);
    expectFailedFast(ended, 'E_CONFIG_INVALID', message);
  });

  it('a control token its variable does not hold: run exits 1 naming the variable', async () => {
    const workspace = await shared.workspace();
    await writeFile(
      workspace.configPath,
      `${await readFile(workspace.configPath, 'utf8')}control: { token: { fromEnv: FF_CONTROL_TOKEN } }\n`,
    );
    const ended = await runToEnd(workspace, ['run', '--listen', `127.0.0.1:${await freePort()}`]);
    expectFailedFast(ended, 'FF_CONTROL_TOKEN');
  });
});

describe('a state file another process keeps locked', () => {
  let workspace: Workspace;
  beforeAll(async () => {
    workspace = await shared.workspace();
    await workspace.write('manifests/d.yaml', dashboardYaml({ key: 'ff-lock', target: 'local' }));
    // This test process stands in for a live holder on the same host.
    await workspace.write('.stacksync/.keep', '');
    await writeFile(
      lockPathFor(workspace.statePath),
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        command: 'run',
        since: '2026-11-20T10:00:00.000Z',
        token: 'held-elsewhere',
      }),
    );
  });

  it.each([['apply'], ['run', '--once']])(
    '%s: waits --lock-timeout and no longer, then exits 1 naming it',
    async (...command) => {
      const ended = await runToEnd(workspace, [...command, '--lock-timeout', '1s']);
      expectFailedFast(ended, 'E_STATE_LOCKED', 'waited 1 s (--lock-timeout)');
      // Its first line says it waits; it exits within the second it was given, and one more.
      expect(ended.stderr.split('\n')[0], describeEnd(ended)).toContain('waiting up to 1 s (--lock-timeout)');
      expect(ended.afterFirstLine, describeEnd(ended)).toBeLessThan(1_000 + EXIT_AFTER_ERROR_MS);
    },
  );
});
