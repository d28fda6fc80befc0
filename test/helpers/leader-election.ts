/**
 * Two `run --leader-elect` daemons on one shared state, one manifests directory and one emulator,
 * through the built CLI (docs/daemon.md, "Two replicas, one writer"): exactly one writes, `/status`
 * says leader and standby, an `apply` meanwhile times out naming the daemon while `plan` runs,
 * and after kill -9 of the leader the other applies a new manifest within 30 s, creating nothing
 * twice; then a third process plans clean. Any backend: the suite takes the config's `state:`
 * block (and the environment it needs), so each backend's test file calls it with its own.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dashboardName, dashboardYaml, describeRun, liveTarget } from './e2e.js';
import { metricSum, startDaemon, waitUntil, type RunningDaemon } from './daemon.js';
import { createWorkspace, startTestEmulator, type Workspace } from './workspace.js';

/** The config's `state:` block for one backend, as one line of YAML flow (`{ backend: postgres, … }`), and the variables it reads. */
export interface SharedState {
  block: string;
  env?: Record<string, string>;
  /**
   * `--lease-duration` of both daemons; default 5 s. A lease backend (Kubernetes) takes over
   * after kill -9 only once the lease went unrenewed that long, so its file passes a shorter one.
   */
  leaseDuration?: string;
}

const FAST = { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } };
/** Short, so a standby tries often; takeover after kill -9 still waits for what the backend frees. */
const DEFAULT_LEASE = '5s';

interface StatusDocument {
  role?: string;
  ready: boolean;
  leader?: { host: string; pid: number; command: string; since: string };
}

async function statusOf(daemon: RunningDaemon): Promise<StatusDocument> {
  return JSON.parse((await daemon.get('/status')).text) as StatusDocument;
}

async function apiWrites(daemon: RunningDaemon): Promise<number> {
  const text = (await daemon.get('/metrics')).text;
  return ['POST', 'PUT', 'PATCH', 'DELETE'].reduce(
    (sum, method) => sum + metricSum(text, 'stacksync_api_requests_total', { method }),
    0,
  );
}

export function describeLeaderElection(
  name: string,
  sharedState: () => Promise<SharedState>,
  teardown: () => Promise<void> = async () => undefined,
): void {
  describe(`run --leader-elect on ${name}`, () => {
    let emulator: RunningEmulator;
    let ws: Workspace;
    const daemons: RunningDaemon[] = [];
    let lease: string[] = [];

    beforeAll(async () => {
      const [started, state] = await Promise.all([startTestEmulator(), sharedState()]);
      emulator = started;
      ws = await createWorkspace(emulator.url, FAST);
      const config = await readFile(ws.configPath, 'utf8');
      await writeFile(ws.configPath, config.replace(/^state: .*$/m, `state: ${state.block}`));
      Object.assign(ws.env, state.env ?? {});
      lease = ['--leader-elect', '--lease-duration', state.leaseDuration ?? DEFAULT_LEASE];
    }, 90_000);
    afterAll(async () => {
      await Promise.all(daemons.map((daemon) => daemon.stop(5_000)));
      await ws?.dispose();
      await emulator?.close();
      await teardown();
    });

    it('has one writer, which another replaces after kill -9; nothing is created twice', async () => {
      await ws.write('manifests/first.yaml', dashboardYaml({ key: 'le-first', target: 'local' }));
      const first = await startDaemon(ws, lease);
      daemons.push(first);
      await waitUntil(async () => (await statusOf(first)).role === 'leader', 30_000, 200);
      const second = await startDaemon(ws, lease);
      daemons.push(second);
      // A standby names the leader once its first try at the lease has told it who holds it.
      await waitUntil(async () => (await statusOf(second)).leader !== undefined, 30_000, 200);

      // The leader applies; the standby is ready, names the leader, and sends nothing.
      await waitUntil(async () => (await first.get('/readyz')).status === 200, 30_000, 200);
      expect((await liveTarget(emulator.url, 'local')).dashboards.map((d) => d.name)).toContain(
        dashboardName('le-first'),
      );
      const standby = await statusOf(second);
      expect(standby).toMatchObject({
        role: 'standby',
        ready: true,
        leader: { pid: first.child.pid, command: 'run --leader-elect' },
      });
      expect((await second.get('/readyz')).status).toBe(200);
      expect(await apiWrites(first)).toBeGreaterThan(0);
      expect(await apiWrites(second)).toBe(0);
      expect(metricSum((await first.get('/metrics')).text, 'stacksync_leader')).toBe(1);
      expect(metricSum((await second.get('/metrics')).text, 'stacksync_leader')).toBe(0);
      const shown = await ws.run(['status', '--listen', second.url.replace('http://', '')]);
      expect(shown.stdout, describeRun(shown)).toMatch(/standby, not reconciling; the leader is pid \d+ on host/);

      // CI or a laptop meanwhile: plan reads without the lock; apply waits, then says why waiting cannot help.
      const plan = await ws.run(['plan', '--detailed-exitcode']);
      expect(plan.code, describeRun(plan)).toBe(0);
      const apply = await ws.run(['apply', '--lock-timeout', '2s']);
      expect(apply.code, describeRun(apply)).toBe(1);
      expect(apply.stderr).toContain('E_STATE_LOCKED');
      expect(apply.stderr).toMatch(/is locked by stacksync run --leader-elect, pid \d+ on .*; waiting up to 2 s/);
      expect(apply.stderr).toContain('That is a daemon elected leader');

      // kill -9 of the leader: the standby takes over and applies a new manifest.
      first.child.kill('SIGKILL');
      await ws.write('manifests/second.yaml', dashboardYaml({ key: 'le-second', target: 'local' }));
      await waitUntil(async () => (await statusOf(second)).role === 'leader', 30_000, 200);
      await waitUntil(
        async () =>
          (await liveTarget(emulator.url, 'local')).dashboards.some((d) => d.name === dashboardName('le-second')),
        30_000,
        250,
      );
      expect(second.output().stderr + second.output().stdout).toMatch(/leader: this daemon holds the state lease/);
      expect(await apiWrites(second)).toBeGreaterThan(0);
      await waitUntil(async () => (await second.get('/readyz')).status === 200, 30_000, 200);

      const names = (await liveTarget(emulator.url, 'local')).dashboards.map((d) => d.name);
      expect(names.filter((n) => n === dashboardName('le-first'))).toHaveLength(1);
      expect(names.filter((n) => n === dashboardName('le-second'))).toHaveLength(1);

      // A third process plans on the state the new leader keeps: nothing to do.
      const third = await ws.run(['plan', '--detailed-exitcode']);
      expect(third.code, describeRun(third)).toBe(0);

      // A lock broken under the leader (state unlock): it stands by at once, then takes the free lease again.
      const shownState = await ws.run(['state', 'show', '--output', 'json']);
      const lock = (JSON.parse(shownState.stdout) as { lock: { token: string; pid: number } | null }).lock;
      expect(lock?.pid, describeRun(shownState)).toBe(second.child.pid);
      const unlocked = await ws.run(['state', 'unlock', lock?.token ?? '']);
      expect(unlocked.code, describeRun(unlocked)).toBe(0);
      await waitUntil(
        () => /standby: lost the state lease/.test(second.output().stderr + second.output().stdout),
        30_000,
        200,
      );
      await waitUntil(async () => (await statusOf(second)).role === 'leader', 30_000, 200);
      const again = await ws.run(['plan', '--detailed-exitcode']);
      expect(again.code, describeRun(again)).toBe(0);
    }, 240_000);
  });
}
