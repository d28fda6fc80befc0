/**
 * Two processes, one state file (issue 12): the state lock lets a daemon and a one-off `apply`
 * write the same state file without either losing the other's records; a second writer waits
 * (`--lock-timeout`), then exits 1 naming the holder; a lock left by a dead process is taken over.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { lockPathFor } from '../../src/state/lock.js';
import { startDaemon } from '../helpers/daemon.js';
import {
  dashboardYaml,
  describeRun,
  dump,
  expectExactly,
  expectStateMatchesLive,
  generateFleet,
  liveOf,
  mergeFleets,
  readState,
  waitFor,
  writeFiles,
  type Fleet,
} from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

/** `stacksync ARGS` started in the workspace: its stderr so far, and its result once it exits. */
function startCli(workspace: Workspace, args: readonly string[]): { stderr: () => string; done: Promise<CliResult> } {
  const child = workspace.spawn(args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { stderr: () => stderr, done };
}

/** The fleet's files moved from manifests/ to `dir`/. */
function movedTo(dir: string, fleet: Fleet): Fleet {
  return {
    ...fleet,
    files: new Map([...fleet.files].map(([path, text]) => [path.replace(/^manifests\//, `${dir}/`), text])),
  };
}

describe('a daemon and an apply on one state file at once', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    // Every request takes 150 ms and each target sends one at a time, so the daemon's first sync
    // (16 creates) holds the lock for seconds: the apply started meanwhile has to wait for it.
    emulator = await startTestEmulator({ faults: 'latency=150ms' });
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 1 } });
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('serialises their writes and loses no record of either', async () => {
    // The daemon reconciles manifests/; the apply another directory, on the same targets and state file.
    const daemonFleet = generateFleet({
      target: 'local-selfhosted',
      prefix: 'dm',
      dashboards: 16,
      tilesPerDashboard: 1,
      alertsPerDashboard: 0,
    });
    const applyManaged = generateFleet({
      target: 'local',
      prefix: 'ap',
      dashboards: 4,
      tilesPerDashboard: 1,
      alertsPerDashboard: 1,
    });
    const applySelfHosted = generateFleet({
      target: 'local-selfhosted',
      prefix: 'aq',
      dashboards: 4,
      tilesPerDashboard: 1,
      alertsPerDashboard: 0,
    });
    await writeFiles(workspace, daemonFleet.files);
    await writeFiles(workspace, movedTo('other', mergeFleets([applyManaged, applySelfHosted])).files);

    const daemon = await startDaemon(workspace, ['--log-level', 'warn']);
    try {
      // 1. The daemon's first sync is writing, so it holds the lock; it is frozen there (SIGSTOP) so
      //    that the apply surely meets the lock, however slowly the apply starts on a loaded machine.
      await waitFor(async () => (await emulatorStats(emulator.url)).writes >= 1, 20_000);
      daemon.child.kill('SIGSTOP');
      const frozen = await emulatorStats(emulator.url);
      expect(frozen.writes, "the daemon's first sync ended before it could be frozen").toBeLessThan(16);
      expect(JSON.parse(await readFile(lockPathFor(workspace.statePath), 'utf8'))).toMatchObject({
        command: 'run',
        pid: daemon.child.pid,
      });

      // 2. The apply waits for it; once the daemon goes on and lets go, it plans from the daemon's
      //    records and writes its own.
      const apply = startCli(workspace, ['apply', '-m', 'other', '--lock-timeout', '60s']);
      // One progress line while it waits, naming the holder.
      await waitFor(
        () =>
          apply
            .stderr()
            .includes(`the state (${workspace.statePath}) is locked by stacksync run, pid ${daemon.child.pid}`),
        30_000,
        50,
      );
      daemon.child.kill('SIGCONT');
      const applied = await apply.done;
      expect(applied.code, describeRun(applied)).toBe(0);

      // 3. The daemon's next sync writes again: from a fresh read, so the apply's records stay.
      await workspace.write(
        'manifests/dm/dm-d0.yaml',
        dashboardYaml({ key: 'dm-d0', target: 'local-selfhosted', tiles: [{ name: 't0', w: 6 }] }),
      );
      await waitFor(
        async () =>
          liveOf(await dump(emulator.url), 'local-selfhosted').dashboards.some(
            (d) => d.name === 'Dashboard dm-d0' && d.tiles[0]?.w === 6,
          ),
        30_000,
        100,
      );
      await waitFor(() => !existsSync(lockPathFor(workspace.statePath)), 30_000);
    } finally {
      daemon.child.kill('SIGCONT');
      expect((await daemon.stop()).code).toBe(0);
    }

    // Every resource once, and the state file names each of them: nothing lost, nothing doubled.
    const data = await dump(emulator.url);
    const state = await readState(workspace.statePath);
    const selfHosted = mergeFleets([daemonFleet, applySelfHosted]);
    expectExactly(liveOf(data, 'local'), { dashboards: applyManaged.dashboardNames, alerts: applyManaged.alertNames });
    expectExactly(liveOf(data, 'local-selfhosted'), { dashboards: selfHosted.dashboardNames, alerts: [] });
    expectStateMatchesLive(state, data, 'local', applyManaged);
    expectStateMatchesLive(state, data, 'local-selfhosted', selfHosted);
    expect(existsSync(`${workspace.statePath}.journal`)).toBe(false);

    // A lost record would show again as a create, or as a same-named resource in the way: applying
    // both directories again writes nothing and succeeds.
    await resetEmulatorStats(emulator.url);
    for (const dir of ['manifests', 'other']) {
      const again = await workspace.run(['apply', '-m', dir]);
      expect(again.code, describeRun(again)).toBe(0);
    }
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
  }, 120_000);
});

describe('apply and a state lock held by another process', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 2 } });
    await writeFiles(
      workspace,
      generateFleet({ target: 'local', prefix: 'lk', dashboards: 1, tilesPerDashboard: 1, alertsPerDashboard: 0 })
        .files,
    );
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  async function holdLock(pid: number): Promise<void> {
    await writeFiles(workspace, new Map([['.stacksync/.keep', '']]));
    const holder = {
      pid,
      host: hostname(),
      command: 'run',
      since: '2026-11-20T10:00:00.000Z',
      token: 'held-elsewhere',
    };
    await writeFile(lockPathFor(workspace.statePath), JSON.stringify(holder));
  }

  it('gives up after --lock-timeout with exit 1 and a message naming the holder, writing nothing', async () => {
    // This test process stands in for a live holder on the same host.
    await holdLock(process.pid);
    const result = await workspace.run(['apply', '--lock-timeout', '1s']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toContain('E_STATE_LOCKED');
    expect(result.stderr).toContain(
      `is locked by \`stacksync run\` (pid ${process.pid} on host ${hostname()}, since 2026-11-20T10:00:00.000Z); waited 1 s (--lock-timeout)`,
    );
    expect((await emulatorStats(emulator.url)).writes).toBe(0);
    expect(existsSync(workspace.statePath)).toBe(false);
  });

  it('takes over a lock left by a process that is gone, with a warning, and applies', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = gone.pid ?? 0;
    await new Promise((resolve) => gone.on('exit', resolve));
    await holdLock(pid);
    const result = await workspace.run(['apply', '--lock-timeout', '0']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stderr).toContain('took over the state lock of a stacksync process that is gone');
    expect(result.stderr).toContain(`pid ${pid}`);
    expect(Object.keys((await readState(workspace.statePath)).targets['local']?.inventory.Dashboard ?? {})).toEqual([
      'lk-d0',
    ]);
    expect(existsSync(lockPathFor(workspace.statePath))).toBe(false);
  });
});
