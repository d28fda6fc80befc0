/**
 * The `export` command through commander, in-process (no spawn): flags, output and errors.
 * The last test runs the built CLI and switches itself on once the lead wires `exportCommand`
 * into `src/cli/commands.ts`.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { commandFactories } from '../../src/cli/commands.js';
import { exportCommand } from '../../src/cli/export.js';
import { buildProgram } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { describeRun } from '../helpers/e2e.js';
import { KIND_LIST } from '../helpers/kinds.js';
import { DEFAULT_ENV, createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';
import { populate } from './live-fixtures.js';

interface Captured {
  code: number | undefined;
  stdout: string;
  stderr: string;
}

async function runExport(args: string[]): Promise<Captured> {
  const captured: Captured = { code: undefined, stdout: '', stderr: '' };
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((captured.stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((captured.stderr += String(chunk)), true));
  try {
    await buildProgram((code) => (captured.code = code), [exportCommand]).parseAsync(['export', ...args], {
      from: 'user',
    });
  } finally {
    vi.restoreAllMocks();
  }
  return captured;
}

describe('stacksync export (command)', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    await populate(emulator.url, 'local');
    await populate(emulator.url, 'local-selfhosted');
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    for (const [name, value] of Object.entries(DEFAULT_ENV)) vi.stubEnv(name, value);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    vi.unstubAllEnvs();
    await workspace?.dispose();
    await emulator?.close();
  });

  it('exports the default target and says what it wrote and what to run next', async () => {
    const out = join(workspace.dir, 'all');
    const result = await runExport(['-c', workspace.configPath, '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('wrote dashboards/api-latency.yaml\n');
    expect(result.stdout).toContain('wrote pipes/orders-kafka.yaml\n');
    expect(result.stdout).toMatch(/Exported 4 pipes, 2 dashboards, 3 alerts from target local to /);
    expect(result.stdout).toMatch(/Next: stacksync plan -c .* --target local/);
  });

  it('links each file to its schema by a relative path, also outside any repository', async () => {
    const out = join(workspace.dir, 'linked');
    expect(existsSync(join(workspace.dir, '.git'))).toBe(false);
    const result = await runExport(['-c', workspace.configPath, '--out', out, '--kind', 'Dashboard']);
    expect(result.code).toBe(0);
    const file = join(out, 'dashboards', 'api-latency.yaml');
    const reference = /^# yaml-language-server: \$schema=(.+)$/m.exec(await readFile(file, 'utf8'))?.[1] ?? '';
    expect(reference).not.toMatch(/^[a-z]+:/);
    expect(isAbsolute(reference)).toBe(false);
    expect(JSON.parse(await readFile(resolve(dirname(file), reference), 'utf8'))).toMatchObject({
      title: expect.stringMatching(/dashboard/i),
    });
  });

  it('--kind limits what is written (case-insensitive, repeatable)', async () => {
    const out = join(workspace.dir, 'some');
    const result = await runExport([
      '-c',
      workspace.configPath,
      '--target',
      'local-selfhosted',
      '--out',
      out,
      '--kind',
      'dashboard',
      '--kind',
      'Alerts',
    ]);
    expect(result.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['alerts', 'dashboards']);
  });

  it('warns that a self-hosted target has no pipes when asked for them', async () => {
    const result = await runExport([
      '-c',
      workspace.configPath,
      '--target',
      'local-selfhosted',
      '--out',
      join(workspace.dir, 'pipes'),
      '--kind',
      'Pipe',
    ]);
    expect(result.stderr).toContain('target local-selfhosted (self-hosted, api profile seed) has no pipes');
    expect(result.stdout).toContain('Exported nothing');
  });

  it.each([
    [['--out', 'x', '--kind', 'Widget'], new RegExp(`must be one of ${KIND_LIST}`)],
    [['--kind', 'Pipe'], /required option '--out <dir>'/],
  ])('rejects bad flags %j', async (args, message) => {
    const result = runExport(['-c', workspace.configPath, ...args]);
    await expect(result).rejects.toMatchObject({
      code: expect.stringMatching(/^commander\./),
      message: expect.stringMatching(message),
    });
    await result.catch(() => undefined);
  });

  it('names the configured targets when asked for another', async () => {
    await expect(
      runExport(['-c', workspace.configPath, '--target', 'prod', '--out', join(workspace.dir, 'none')]),
    ).rejects.toMatchObject({
      code: 'E_USAGE',
      message: 'target prod is not configured (configured: local, local-selfhosted)',
    });
  });

  it.runIf(commandFactories.includes(exportCommand))(
    'the built CLI: export --adopt, then plan --detailed-exitcode exits 0',
    async () => {
      const exported = await workspace.run(['export', '--out', 'manifests', '--adopt']);
      expect(exported.code, describeRun(exported)).toBe(0);
      const plan = await workspace.run(['plan', '--detailed-exitcode', '--target', 'local']);
      expect(plan.code, describeRun(plan)).toBe(0);
    },
  );
});
