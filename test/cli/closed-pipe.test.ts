/**
 * Output piped into a reader that stops early (`stacksync --help | head -1`) ends quietly, with
 * the command's own exit status: no EPIPE stack trace. Run through a real shell pipe whose reader
 * (`true`) exits before the CLI writes, and through `head -1` on a plan far larger than a pipe's
 * buffer, so the pipe closes while the plan is still being written.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, sharedEmulator } from '../helpers/workspace.js';

interface PipeResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node CLI ARGS | READER` in bash with pipefail: the status is the CLI's when the reader succeeds. */
function piped(args: string, reader: string, cwd: string, env: Record<string, string> = {}): Promise<PipeResult> {
  const script = `set -o pipefail; "${process.execPath}" "${CLI}" ${args} | ${reader}`;
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['--norc', '--noprofile', '-c', script],
      { cwd, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

const shared = sharedEmulator();

describe('output into a pipe whose reader has gone', () => {
  it.each(['--help', 'plan --help', 'apply --help', '--version'])(
    'stacksync %s | true ends quietly with status 0',
    async (args) => {
      const result = await piped(args, 'true', process.cwd());
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    },
  );

  it('stacksync plan | head -1 prints one line and ends quietly with the plan exit status', async () => {
    const workspace = await shared.workspace();
    for (let index = 0; index < 1500; index++) {
      await workspace.write(
        `manifests/d${index}.yaml`,
        `apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: dashboard-${index}, target: local-selfhosted }\nspec:\n  name: Dashboard number ${index} with a name long enough to fill the pipe\n  tiles: []\n`,
      );
    }
    const full = await workspace.run(['plan']);
    expect(full.stdout.length).toBeGreaterThan(128 * 1024);
    const result = await piped('plan', 'head -1', workspace.dir, workspace.env);
    expect(result.stdout).toBe('Target local-selfhosted:\n');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
