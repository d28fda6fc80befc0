/**
 * A pipeId written in upper case names the same pipe (issue 15, item 5): UUIDs compare
 * case-insensitively, so the plan updates the live pipe instead of reporting it missing, and the
 * PATCH goes to the id as the API spells it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { describeRun, parseJsonOutput, ROUTES, writesByRoute } from '../helpers/e2e.js';
import { createWorkspace, emulatorStats, startTestEmulator, type Workspace } from '../helpers/workspace.js';

describe('a pipeId in upper case', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  const id = DEFAULT_SEED_IDS.pipes.kafka;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write(
      'manifests/pipes.yaml',
      `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: orders
spec:
  pipeId: ${id.toUpperCase()}
  name: orders-renamed
`,
    );
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('is the live pipe of that UUID: planned as an update and applied to it', async () => {
    expect(id).not.toBe(id.toUpperCase());
    const plan = await workspace.run(['plan', '--target', 'local', '--output', 'json']);
    expect(plan.code, describeRun(plan)).toBe(0);
    expect(parseJsonOutput(plan).changes).toMatchObject([{ kind: 'Pipe', name: 'orders', action: 'update', id }]);

    const apply = await workspace.run(['apply', '--target', 'local']);
    expect(apply.code, describeRun(apply)).toBe(0);
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({ [`PATCH ${ROUTES.managedPipe}`]: 1 });
    expect(emulator.state().organizations[0]?.services[0]?.pipes.find((pipe) => pipe.id === id)?.name).toBe(
      'orders-renamed',
    );
  });
});
