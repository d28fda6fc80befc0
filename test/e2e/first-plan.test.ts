/**
 * The first pull request of a new repository (issue 25, item 6): `plan --out` runs before any
 * state key exists, and `apply --plan` applies what was reviewed. The plan's HMACs are made under
 * a key derived for it from the targets' credentials (reconcile/plan-key.ts), which the first
 * apply makes the state key. A plan edited, cut short, checked with other credentials, or made
 * against a state that has since got its key is still refused, writing nothing and creating no key.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { keyPathFor } from '../../src/state/hmac.js';
import {
  alertYaml,
  dashboardName,
  dashboardYaml,
  describeRun,
  documents,
  liveTarget,
  readState,
  ROUTES,
  writesByRoute,
} from '../helpers/e2e.js';
import {
  emulatorStats,
  resetEmulatorStats,
  sharedEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

const PASSWORD = 'first-pr-Pa55"word\\ü-91c2';
const PLAN = 'artifacts/plan.json';

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
        password: { fromEnv: FIRST_KAFKA_PASSWORD }
  settings:
    streaming_max_insert_wait_ms: 2500
`;

const PLANNED_WRITES = {
  [`POST ${ROUTES.managedDashboards}`]: 1,
  [`POST ${ROUTES.managedAlerts}`]: 1,
  [`PATCH ${ROUTES.managedPipe}`]: 1,
  [`POST ${ROUTES.selfDashboards}`]: 1,
};

const shared = sharedEmulator();

describe('the first pull request of a new repository', () => {
  let workspace: Workspace;
  let planText: string;
  const outputs: string[] = [];
  const run = async (args: string[], env: Record<string, string> = {}): Promise<CliResult> => {
    const result = await workspace.run(args, { env: { FIRST_KAFKA_PASSWORD: PASSWORD, ...env } });
    outputs.push(result.stdout, result.stderr);
    return result;
  };
  /** `apply --plan` of `text` as the plan file: refused, writing nothing, creating no state. */
  const expectRefused = async (
    text: string,
    code: string,
    message: string,
    env: Record<string, string> = {},
  ): Promise<void> => {
    await workspace.write('artifacts/other.json', text);
    await resetEmulatorStats(shared.emulator.url);
    const result = await run(['apply', '--plan', 'artifacts/other.json'], env);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr, describeRun(result)).toContain(code);
    expect(result.stderr, describeRun(result)).toContain(message);
    expect(writesByRoute(await emulatorStats(shared.emulator.url))).toEqual({});
    expect(existsSync(keyPathFor(workspace.statePath)), 'a state key was created').toBe(false);
    expect(existsSync(workspace.statePath), 'a state file was created').toBe(false);
  };
  const edited = (
    change: (
      saved: Record<string, unknown> & { changes: Record<string, unknown>; request: Record<string, unknown> },
    ) => void,
  ): string => {
    const data = JSON.parse(planText) as {
      saved: Record<string, unknown> & { changes: Record<string, unknown>; request: Record<string, unknown> };
    };
    change(data.saved);
    return JSON.stringify(data, null, 2);
  };

  beforeAll(async () => {
    workspace = await shared.workspace({ rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write(
      'manifests/api.yaml',
      documents([
        dashboardYaml({ key: 'fp-api', target: 'local', tiles: ['p99'] }),
        alertYaml({ key: 'fp-api-slow', target: 'local', dashboard: 'fp-api', tile: 'p99', threshold: 500 }),
      ]),
    );
    await workspace.write('manifests/web.yaml', dashboardYaml({ key: 'fp-web', target: 'local-selfhosted' }));
    await workspace.write('manifests/orders-pipe.yaml', PIPE);
  });

  it('plan --out saves a plan without creating a state key, and says how it will be checked', async () => {
    const result = await run(['plan', '--out', PLAN, '--detailed-exitcode']);
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr).toContain('there is no state key');
    expect(result.stderr).toContain('sealed with a key derived from the targets’ credentials');
    expect(existsSync(keyPathFor(workspace.statePath))).toBe(false);
    planText = await readFile(join(workspace.dir, PLAN), 'utf8');
    const saved = (JSON.parse(planText) as { saved: { keySalt?: string; seal?: string } }).saved;
    expect(saved.keySalt).toMatch(/^[0-9a-f]{32}$/);
    expect(saved.seal).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an edited plan is refused: a planned write dropped, the request widened, a digest replaced', async () => {
    await expectRefused(
      edited((saved) => delete saved.changes['local/Alert/fp-api-slow']),
      'E_PLAN_INVALID',
      'was changed after plan wrote it',
    );
    await expectRefused(
      edited((saved) => (saved.request['prune'] = true)),
      'E_PLAN_INVALID',
      'was changed after plan wrote it',
    );
    await expectRefused(
      edited((saved) => ((saved.changes['local/Dashboard/fp-api'] as { writes: string }).writes = '0'.repeat(64))),
      'E_PLAN_INVALID',
      'was changed after plan wrote it',
    );
  });

  it('a plan with a salt of its own (and so a key of its own) is refused', async () => {
    await expectRefused(
      edited((saved) => (saved['keySalt'] = 'ab'.repeat(16))),
      'E_PLAN_STALE',
      'those given to apply are not the ones plan had',
    );
  });

  it('a plan cut short is refused', async () => {
    await expectRefused(planText.slice(0, Math.floor(planText.length / 2)), 'E_PLAN_INVALID', 'is not JSON');
  });

  it('apply with other credentials than plan had refuses it, before any request', async () => {
    await expectRefused(planText, 'E_PLAN_STALE', 'those given to apply are not the ones plan had', {
      STACKSYNC_TOKEN: 'another-token',
    });
  });

  it('apply --plan applies exactly the reviewed writes, and makes the plan’s key the state key', async () => {
    // A second pull request, planned before the first is applied: also without a state key.
    const second = await run(['plan', '--out', 'artifacts/second.json']);
    expect(second.code, describeRun(second)).toBe(0);
    await resetEmulatorStats(shared.emulator.url);
    const result = await run(['apply', '--plan', PLAN]);
    expect(result.code, describeRun(result)).toBe(0);
    expect(writesByRoute(await emulatorStats(shared.emulator.url))).toEqual(PLANNED_WRITES);
    expect((await liveTarget(shared.emulator.url, 'local')).dashboards.map((d) => d.name)).toContain(
      dashboardName('fp-api'),
    );
    expect(existsSync(keyPathFor(workspace.statePath))).toBe(true);
    expect(Object.keys((await readState(workspace.statePath)).targets['local']?.secretHashes ?? {}).sort()).toEqual([
      'Pipe/orders-kafka:source.kafka.credentials.password',
      'Pipe/orders-kafka:source.kafka.credentials.username',
    ]);
  });

  it('what it recorded is under the state key: the next plan finds nothing to do, the credential included', async () => {
    const result = await run(['plan', '--detailed-exitcode']);
    expect(result.code, describeRun(result)).toBe(0);
  });

  it('replayed, it is refused: its writes are done', async () => {
    await resetEmulatorStats(shared.emulator.url);
    const result = await run(['apply', '--plan', PLAN]);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toContain('E_PLAN_STALE');
    expect(result.stderr).toContain('local/Dashboard/fp-api: is no longer a change to make (it was planned as create)');
    expect(writesByRoute(await emulatorStats(shared.emulator.url))).toEqual({});
  });

  it('a plan made before the state had a key is refused once it has another', async () => {
    await resetEmulatorStats(shared.emulator.url);
    const result = await run(['apply', '--plan', 'artifacts/second.json']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toContain(
      'state key: the plan was made before the state had a key, and the state has one now that is not this plan’s',
    );
    expect(writesByRoute(await emulatorStats(shared.emulator.url))).toEqual({});
  });

  it('no output and no plan file held the credential, escaped or not', async () => {
    const files = [
      planText,
      await readFile(join(workspace.dir, 'artifacts/second.json'), 'utf8'),
      await readFile(workspace.statePath, 'utf8'),
    ];
    for (const text of [...outputs, ...files]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(JSON.stringify(PASSWORD).slice(1, -1));
    }
  });
});
