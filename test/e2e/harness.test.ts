import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { createWorkspace, emulatorStats, startTestEmulator, type Workspace } from '../helpers/workspace.js';

describe('e2e harness', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url);
  });
  afterAll(async () => {
    await workspace.dispose();
    await emulator.close();
  });

  it('runs the built CLI in a workspace whose config reaches the emulator', async () => {
    const result = await workspace.run(['plan', '--detailed-exitcode']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No changes');
    const stats = await emulatorStats(emulator.url);
    expect(stats.writes).toBe(0);
    expect(stats.total).toBeGreaterThan(0);
  });
});
