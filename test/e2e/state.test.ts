/**
 * The state file end to end (issue 5): private modes for the file and its HMAC key, and a corrupt
 * or misshapen state stops plan and apply with a clear error, never a silent reset, and no write.
 */
import { chmod, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dashboardYaml, describeRun } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

describe('the state file', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write('manifests/a.yaml', dashboardYaml({ key: 'a', target: 'local' }));
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('and its HMAC key are private to the user (0600, directory 0700)', async () => {
    expect((await stat(workspace.statePath)).mode & 0o777).toBe(0o600);
    expect((await stat(join(workspace.dir, '.stacksync', 'state.key'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(workspace.dir, '.stacksync'))).mode & 0o777).toBe(0o700);
  });

  it.each([
    ['truncated JSON', (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ['another version', (text: string) => text.replace('"version": 1', '"version": 7')],
    ['a wrong shape', (text: string) => text.replace('"intents": []', '"intents": {}')],
  ])('with %s stops plan and apply with E_STATE_CORRUPT, writes nothing and keeps the file', async (_, corrupt) => {
    const good = await readFile(workspace.statePath, 'utf8');
    const bad = corrupt(good);
    expect(bad).not.toBe(good);
    await workspace.write('.stacksync/state.json', bad);
    await chmod(workspace.statePath, 0o600);
    // A change waits, so a reset state would show (and apply would write).
    await workspace.write('manifests/b.yaml', dashboardYaml({ key: 'b', target: 'local' }));
    try {
      await resetEmulatorStats(emulator.url);
      for (const command of [['plan'], ['apply'], ['apply', '--prune', '--force']]) {
        const result = await workspace.run(command);
        expect(result.code, describeRun(result)).toBe(1);
        expect(result.stderr).toContain('E_STATE_CORRUPT');
        expect(result.stderr).toContain(workspace.statePath);
        expect(result.stderr).toMatch(/never resets it/);
      }
      expect((await emulatorStats(emulator.url)).writes).toBe(0);
      expect(await readFile(workspace.statePath, 'utf8')).toBe(bad);
    } finally {
      await workspace.write('.stacksync/state.json', good);
      await workspace.remove('manifests/b.yaml');
    }
  });

  it('a key readable by others is refused by apply', async () => {
    const key = join(workspace.dir, '.stacksync', 'state.key');
    await chmod(key, 0o644);
    try {
      const result = await workspace.run(['apply']);
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stderr).toMatch(/chmod 600/);
    } finally {
      await chmod(key, 0o600);
    }
    const ok = await workspace.run(['plan', '--detailed-exitcode']);
    expect(ok.code, describeRun(ok)).toBe(0);
  });
});
