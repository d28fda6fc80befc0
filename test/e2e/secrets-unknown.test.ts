/**
 * Plans without production secrets (issue 34, item 10): `validate` needs no secret value; `plan`
 * shows a write-only member it cannot resolve as unknown and plans everything else; `apply`
 * refuses only the write that would send it, and a missing secret of a pipe whose credentials were
 * sent before holds back nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { UNKNOWN_IN_PLAN } from '../../src/model/plan.js';
import { dashboardYaml, describeRun, parseJsonOutput, ROUTES, writesByRoute } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };
const PASSWORD = 'unknown-e2e-Pa55word-6d1f';
const PIPE = `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: orders-kafka
  target: local
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.kafka}
  source:
    kafka:
      credentials:
        username: orders
        password: { fromEnv: UNKNOWN_E2E_PASSWORD }
  settings:
    streaming_max_insert_wait_ms: 2500
`;

let emulator: RunningEmulator;
let workspace: Workspace;

function run(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return workspace.run(args, { env });
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  workspace = await createWorkspace(emulator.url, { rateLimit: FAST });
  await workspace.write('manifests/pipe.yaml', PIPE);
  await workspace.write('manifests/api.yaml', dashboardYaml({ key: 'api', target: 'local', tiles: ['p99'] }));
});

afterAll(async () => {
  await workspace?.dispose();
  await emulator?.close();
});

describe('without the secret, before it was ever sent', () => {
  it('validate passes, saying the value is unknown here', async () => {
    const result = await run(['validate']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toMatch(
      /pipe\.yaml:12:\d+: warning: spec.source.kafka.credentials.password: env var UNKNOWN_E2E_PASSWORD is not set: unknown in this plan/,
    );
    expect(result.stdout).not.toMatch(/E_SECRET_MISSING:/);
  });

  it('plan shows the member as unknown and plans everything else', async () => {
    const result = await run(['plan', '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    const plan = parseJsonOutput(result);
    expect(plan.errors).toEqual([]);
    const pipe = plan.changes.find((change) => change.kind === 'Pipe');
    expect(pipe?.action).toBe('update');
    expect(pipe?.diff).toContainEqual({ path: 'source.kafka.credentials', after: UNKNOWN_IN_PLAN });
    expect(plan.changes.find((change) => change.kind === 'Dashboard')?.action).toBe('create');
    const text = await run(['plan']);
    expect(text.stdout).toContain(`+ source.kafka.credentials: ${UNKNOWN_IN_PLAN}`);
    expect(text.stdout).toContain(
      'apply needs source.kafka.credentials.password: env var UNKNOWN_E2E_PASSWORD is not set',
    );
  });

  it('apply refuses the pipe alone and writes the rest', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await run(['apply']);
    expect(result.code, describeRun(result)).toBe(1);
    const writes = writesByRoute(await emulatorStats(emulator.url));
    expect(writes[`POST ${ROUTES.managedDashboards}`]).toBe(1);
    expect(writes[`PATCH ${ROUTES.managedPipe}`]).toBeUndefined();
    expect(result.stdout).toMatch(
      /failed: local\/Pipe\/orders-kafka: E_SECRET_MISSING: not applied: it sends source\.kafka\.credentials\.password: env var UNKNOWN_E2E_PASSWORD is not set/,
    );
  });
});

describe('once the credentials were sent', () => {
  beforeAll(async () => {
    const applied = await run(['apply'], { UNKNOWN_E2E_PASSWORD: PASSWORD });
    expect(applied.code, describeRun(applied)).toBe(0);
    await workspace.write(
      'manifests/api.yaml',
      dashboardYaml({ key: 'api', target: 'local', tiles: ['p99', 'errors'] }),
    );
  });

  it('a plan without the secret shows no change of the pipe it cannot know', async () => {
    const result = await run(['plan', '--output', 'json']);
    expect(result.code, describeRun(result)).toBe(0);
    const plan = parseJsonOutput(result);
    expect(plan.changes.find((change) => change.kind === 'Pipe')?.action).toBe('unchanged');
    expect(plan.changes.find((change) => change.kind === 'Dashboard')?.action).toBe('update');
  });

  it('apply without the secret writes the rest of the target', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await run(['apply']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(writesByRoute(await emulatorStats(emulator.url))).toEqual({ [`PUT ${ROUTES.managedDashboard}`]: 1 });
  });
});
