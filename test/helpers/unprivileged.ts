/**
 * The built CLI run as an unprivileged user (uid/gid 65534, nobody), for tests of what root alone
 * would read past (file modes). The repository may be cloned under a directory that user cannot
 * enter (a 0700 home, `mktemp -d`), so the CLI runs from a copy in a directory of its own that
 * anyone can read: `dist/cli.js`, the bundle it imports, and the `package.json` and `schemas/` the
 * bundle reads beside it (the bundle needs nothing from node_modules).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmod, cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliResult } from './workspace.js';

const NOBODY = '65534';
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const COPIED = ['dist/cli.js', 'dist/bundle', 'package.json', 'schemas'];

export interface UnprivilegedCli {
  /** Runs `stacksync ARGS` as nobody in `cwd` with `env` (plus PATH, HOME=/tmp, NO_COLOR). */
  run(cwd: string, args: readonly string[], env: Record<string, string>): Promise<CliResult>;
  dispose(): Promise<void>;
}

/** True when this process may switch to another user (root, with util-linux's setpriv). */
export function canDropPrivileges(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * A copy of the built CLI that nobody can run, or the reason there is none (for example, node
 * itself or the temp directory is out of that user's reach).
 */
export async function unprivilegedCli(): Promise<UnprivilegedCli | { reason: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-cli-'));
  for (const path of COPIED) await cp(join(REPO, path), join(dir, path), { recursive: true });
  await openToAll(dir);
  const cli: UnprivilegedCli = {
    run: (cwd, args, env) => runAsNobody(join(dir, 'dist/cli.js'), cwd, args, env),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
  const probe = await cli.run(dir, ['--version'], {});
  if (probe.code === 0) return cli;
  await cli.dispose();
  return {
    reason: `the CLI copied to ${dir} does not run as uid ${NOBODY}: ${probe.stderr.trim().split('\n')[0] ?? ''}`,
  };
}

/** Directories 0755 and files 0644 (0755 if executable), all the way down. */
async function openToAll(path: string): Promise<void> {
  const info = await stat(path);
  if (!info.isDirectory()) return chmod(path, info.mode & 0o100 ? 0o755 : 0o644);
  await chmod(path, 0o755);
  for (const entry of await readdir(path)) await openToAll(join(path, entry));
}

function runAsNobody(
  cliPath: string,
  cwd: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<CliResult> {
  return new Promise((resolve) => {
    const childEnv = {
      PATH: process.env['PATH'] ?? '',
      HOME: '/tmp',
      NO_COLOR: '1',
      STACKSYNC_BUDGET_FILE: 'off',
      ...env,
    };
    let stdout = '';
    let stderr = '';
    const setpriv = [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, cliPath, ...args];
    const child = spawn('setpriv', setpriv, { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => resolve({ code: null, signal: null, stdout, stderr: stderr + String(error) }));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
