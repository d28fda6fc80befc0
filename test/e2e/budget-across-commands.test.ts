/**
 * The rate budget across commands (docs/apply.md#the-budget-across-commands): the server counts
 * requests for a window after they arrive, so an `apply` a moment after a `plan` meets the plan's
 * reads in it. The apply's estimate says that wait before it happens, and the apply takes about as
 * long as it said, paced by the client (the server refuses nothing); a plan that waits for its
 * budget says so once on stderr instead of going quiet.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dashboardYaml, describeRun, documents } from '../helpers/e2e.js';
import { createWorkspace, emulatorStats, startTestEmulator, type Workspace } from '../helpers/workspace.js';

/** The server's budget and the client's: 6 requests in any 15 s. */
const BUDGET = { requests: 6, perSeconds: 15, concurrency: 2 };

/** Runs `stacksync ARGS`, noting when its first stdout arrived and when it exited (ms, this clock). */
function timedRun(
  workspace: Workspace,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; firstOutputAt: number; exitedAt: number }> {
  return new Promise((resolve, reject) => {
    const child = workspace.spawn(args);
    let stdout = '';
    let stderr = '';
    let firstOutputAt = 0;
    child.stdout?.on('data', (chunk: Buffer) => {
      if (firstOutputAt === 0) firstOutputAt = performance.now();
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, firstOutputAt, exitedAt: performance.now() }));
  });
}

describe('a plan, then an apply at once, on a small budget', { timeout: 120_000 }, () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    emulator = await startTestEmulator({ rateLimit: BUDGET.requests, rateWindowMs: BUDGET.perSeconds * 1000 });
    workspace = await createWorkspace(emulator.url, { rateLimit: BUDGET });
    workspace.env['STACKSYNC_BUDGET_FILE'] = join(workspace.dir, 'cache', 'budgets.json');
    await workspace.write(
      'manifests/boards.yaml',
      documents(['one', 'two', 'three'].map((key) => dashboardYaml({ key, target: 'local' }))),
    );
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('estimates the wait the plan’s reads impose on the apply, and the apply takes that long, refused nothing', async () => {
    const planned = await workspace.run(['plan', '--target', 'local', '--no-server-validate']);
    expect(planned.code, describeRun(planned)).toBe(0);
    const applied = await timedRun(workspace, ['apply', '--target', 'local']);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);

    // The estimate is printed with the plan, before the first write: it says the wait and why.
    const line = /^Apply: .*$/m.exec(applied.stdout)?.[0] ?? '';
    const said =
      /, (?:≈ (\d+) s|< 1 s) at 6 requests \/ 15 s, 2 at a time; ≈ (\d+) s of it a wait: (\d+) requests of the last 15 s still count against the budget\.$/.exec(
        line,
      );
    expect(said, line).not.toBeNull();
    const [, total, wait, spent] = said!.map(Number) as [number, number, number, number];
    // The plan's three reads and the apply's own are in the window: the three creates wait for the
    // plan's to leave it, most of the 15 s (the commands start in a second or two, a few on a loaded machine).
    expect(spent).toBeGreaterThanOrEqual(6);
    expect(wait).toBeGreaterThanOrEqual(5);
    expect(total).toBeGreaterThanOrEqual(wait);
    // From the plan on stdout to the exit: the writes took the time estimated (10 %, plus a second for the exit).
    const tookSeconds = (applied.exitedAt - applied.firstOutputAt) / 1000;
    expect(tookSeconds).toBeGreaterThanOrEqual(total * 0.9 - 0.5);
    expect(tookSeconds).toBeLessThanOrEqual(total * 1.1 + 1.5);
    // The client waited out the window itself: the server refused nothing.
    expect((await emulatorStats(emulator.url)).throttled).toBe(0);
  });
});

describe('a plan that waits for its rate budget', { timeout: 120_000 }, () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    // One request per 4 s: the self-hosted target's second list waits for the first's token.
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1, perSeconds: 4, concurrency: 1 } });
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('says so once on stderr, naming the target and its budget, as the wait starts', async () => {
    const planned = await workspace.run(['plan', '--target', 'local-selfhosted', '--no-server-validate']);
    expect(planned.code, describeRun(planned)).toBe(0);
    const waits = planned.stderr.split('\n').filter((text) => text.includes('for the rate budget'));
    expect(waits, planned.stderr).toHaveLength(1);
    expect(waits[0]).toMatch(
      /^stacksync: waiting [34]\.\ds for the rate budget of local-selfhosted \(1 request \/ 4 s\)$/,
    );
  });
});
