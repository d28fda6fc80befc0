/**
 * Crash safety (issue 5): `apply --prune` of 100 dashboards and alerts is killed with SIGKILL at
 * random points, round after round, while the desired state moves (updates, deletes, re-creates).
 * After every kill the state file is valid and nothing is duplicated; after the rounds, one more
 * apply reaches exactly the desired state.
 *
 * `STACKSYNC_CRASH_ROUNDS` (default 10) sets the rounds; `STACKSYNC_CRASH_SEED` replays a run (the
 * seed is printed).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  alertName,
  alertYaml,
  dashboardName,
  dashboardYaml,
  describeRun,
  documents,
  dump,
  duplicates,
  expectExactly,
  expectStateMatchesLive,
  liveOf,
  readState,
  TARGETS,
  type TargetName,
} from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

const ROUNDS = Number(process.env['STACKSYNC_CRASH_ROUNDS'] ?? 10);
const SEED = Number(process.env['STACKSYNC_CRASH_SEED'] ?? Date.now() % 2 ** 31);

/** mulberry32: a small seeded PRNG, so a failing run can be replayed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Per target: 20 dashboards with 2 tiles, 30 alerts (100 resources over both targets). */
const DASHBOARDS = 20;
const ALERTS_PER_DASHBOARD = [2, 1];

interface Generation {
  /** Dashboards left out (so pruned), by index. */
  without: Set<number>;
  threshold: number;
}

/** The desired state moves each round: all, then a third removed and thresholds changed, then all again. */
function generation(round: number): Generation {
  if (round % 3 === 1) return { without: new Set([0, 3, 6, 9, 12, 15, 18]), threshold: 200 + round };
  return { without: new Set(), threshold: 100 + round };
}

interface Desired {
  dashboards: string[];
  alerts: string[];
}

async function writeDesired(workspace: Workspace, gen: Generation): Promise<Map<TargetName, Desired>> {
  const desired = new Map<TargetName, Desired>();
  await workspace.remove('manifests');
  for (const target of TARGETS) {
    const keys: Desired = { dashboards: [], alerts: [] };
    const prefix = target === 'local' ? 'cm' : 'cs';
    for (let d = 0; d < DASHBOARDS; d++) {
      if (gen.without.has(d)) continue;
      const key = `${prefix}-d${d}`;
      const alerts = ALERTS_PER_DASHBOARD.flatMap((_, a) => (d % 2 === 0 || a === 0 ? [`${key}-a${a}`] : []));
      const parts = [dashboardYaml({ key, target, tiles: ['t0', 't1'] })];
      alerts.forEach((alert, a) => {
        parts.push(alertYaml({ key: alert, target, dashboard: key, tile: `t${a}`, threshold: gen.threshold }));
      });
      await workspace.write(`manifests/${target}/${key}.yaml`, documents(parts));
      keys.dashboards.push(key);
      keys.alerts.push(...alerts);
    }
    desired.set(target, keys);
  }
  return desired;
}

function count(desired: Map<TargetName, Desired>): number {
  return [...desired.values()].reduce((sum, keys) => sum + keys.dashboards.length + keys.alerts.length, 0);
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

describe(`apply killed with SIGKILL at random points (${ROUNDS} rounds, seed ${SEED})`, () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  const random = prng(SEED);

  beforeAll(async () => {
    emulator = await startTestEmulator();
    // Slow enough that a kill lands mid-apply: a round of 60-100 writes takes 1-2 s.
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 50, perSeconds: 1, concurrency: 4 },
      sync: { maxDeletes: 1000, maxDeletePercent: 100 },
    });
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  /** After any kill: the state file parses and validates, and nothing is live twice. */
  async function expectConsistent(round: number): Promise<void> {
    if (existsSync(workspace.statePath))
      await expect(readState(workspace.statePath), `round ${round}: state file`).resolves.toBeDefined();
    const data = await dump(emulator.url);
    for (const target of TARGETS) {
      const live = liveOf(data, target);
      expect(
        duplicates(live.dashboards.map((d) => d.name)),
        `round ${round}: duplicate dashboards on ${target}`,
      ).toEqual([]);
      expect(duplicates(live.alerts.map((a) => a.name)), `round ${round}: duplicate alerts on ${target}`).toEqual([]);
    }
  }

  /** Spawns apply and kills it: after a random delay, or once a random number of writes happened. */
  async function killedApply(round: number): Promise<string> {
    await resetEmulatorStats(emulator.url);
    const child = workspace.spawn(['apply', '--prune']);
    const exit = exited(child);
    let how: string;
    if (random() < 0.4) {
      const ms = 300 + Math.floor(random() * 1000);
      await Promise.race([delay(ms), exit]);
      how = `after ${ms} ms`;
    } else {
      const writes = 1 + Math.floor(random() * 60);
      const deadline = Date.now() + 15_000;
      while (child.exitCode === null && Date.now() < deadline && (await emulatorStats(emulator.url)).writes < writes)
        await delay(5);
      how = `after ${writes} writes`;
    }
    const killed = child.kill('SIGKILL');
    const { code, signal } = await exit;
    const writes = (await emulatorStats(emulator.url)).writes;
    return `round ${round}: killed ${how} (${killed && signal === 'SIGKILL' ? `killed, ${writes} writes` : `had exited ${String(code)} first, ${writes} writes`})`;
  }

  it('leaves a valid state and no duplicate after every kill, and converges exactly afterwards', async () => {
    const log: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await writeDesired(workspace, generation(round));
      log.push(await killedApply(round));
      await expectConsistent(round);
    }
    console.info(`seed ${SEED}\n${log.join('\n')}`);

    // The final desired state: everything, at its own threshold.
    const desired = await writeDesired(workspace, { without: new Set(), threshold: 999 });
    expect(count(desired)).toBe(100);
    const final = await workspace.run(['apply', '--prune'], { timeoutMs: 60_000 });
    expect(final.code, `seed ${SEED}\n${describeRun(final)}`).toBe(0);

    const data = await dump(emulator.url);
    const state = await readState(workspace.statePath);
    for (const target of TARGETS) {
      const keys = desired.get(target) ?? { dashboards: [], alerts: [] };
      expectExactly(liveOf(data, target), {
        dashboards: keys.dashboards.map(dashboardName),
        alerts: keys.alerts.map(alertName),
      });
      expectStateMatchesLive(state, data, target, keys);
      for (const alert of liveOf(data, target).alerts) expect(alert.threshold).toBe(999);
    }
    const plan = await workspace.run(['plan', '--prune', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
  }, 120_000);
});
