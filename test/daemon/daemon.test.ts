/**
 * The daemon against the emulator on loopback: watch → sync → heal/report, readiness, metrics,
 * git-sync swaps, and a broken manifest that blocks prune but nothing else.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { readFile, rename, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSession, type Session } from '../../src/cli/context.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/support/logger.js';
import { apiHooksFor, createMetrics, type Metrics } from '../../src/daemon/metrics.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { liveTarget } from '../helpers/e2e.js';
import { createWorkspace, emulatorStats, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

function dashboard(key: string, name: string, width = 6, target = 'local-selfhosted'): string {
  return `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: ${key}, target: ${target} }
spec:
  name: ${name}
  tiles:
    - { name: p99, x: 0, y: 0, w: ${width}, h: 4, series: [ { type: time, dataSource: events, aggFn: avg } ] }
`;
}

function alert(key: string, dashboardKey: string, target = 'local-selfhosted'): string {
  return `apiVersion: stacksync/v1
kind: Alert
metadata: { name: ${key}, target: ${target} }
spec:
  name: ${key}
  threshold: 1
  thresholdType: above
  interval: 5m
  source: tile
  dashboard: ${dashboardKey}
  tile: p99
  channel: { type: webhook, webhookId: hook }
`;
}

interface LiveDashboard {
  id: string;
  name: string;
  tiles: { name: string; w: number }[];
}

async function selfHostedDashboards(emulator: RunningEmulator): Promise<LiveDashboard[]> {
  const response = await fetch(`${emulator.url}/api/v2/dashboards`, {
    headers: { authorization: 'Bearer emulator-token' },
  });
  return ((await response.json()) as { data: LiveDashboard[] }).data;
}

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Running {
  daemon: Daemon;
  session: Session;
  metrics: Metrics;
}

async function start(
  workspace: Workspace,
  manifestsDir = workspace.manifestsDir,
  extra: { dryRun?: boolean } = {},
): Promise<Running> {
  const metrics = createMetrics();
  const logger = createLogger({ level: 'silent' });
  const session = await openSession(
    { config: workspace.configPath, manifests: manifestsDir },
    {
      writeKey: true,
      state: { mode: 'guarded', command: 'run', lockTimeoutMs: 5_000 },
      env: workspace.env,
      logger,
      clientOptions: { hooksFor: (target) => apiHooksFor(metrics, target) },
    },
  );
  const daemon = await startDaemon({
    context: session.context,
    metrics,
    logger,
    dryRun: extra.dryRun === true,
    listen: { host: '127.0.0.1', port: 0 },
    debounceMs: 100,
    drainMs: 300,
    closeClients: () => session.clients.close(),
    stateGuard: session.guard,
  });
  return { daemon, session, metrics };
}

async function metricValue(running: Running, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await running.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = metric?.values.find((v) =>
    Object.entries(labels).every(([key, want]) => String(v.labels[key]) === want),
  );
  return Number(value?.value ?? 0);
}

describe('stacksync run (daemon)', () => {
  let emulator: RunningEmulator;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function workspaceWith(files: Record<string, string>, sync?: Record<string, unknown>): Promise<Workspace> {
    const workspace = await createWorkspace(emulator.url, { rateLimit: FAST, ...(sync ? { sync } : {}) });
    cleanups.push(() => workspace.dispose());
    for (const [path, text] of Object.entries(files)) await workspace.write(path, text);
    return workspace;
  }

  async function running(workspace: Workspace, manifestsDir?: string, extra?: { dryRun?: boolean }): Promise<Running> {
    const result = await start(workspace, manifestsDir, extra);
    cleanups.push(async () => {
      await result.daemon.stop();
      await result.session.close();
    });
    return result;
  }

  it('syncs at start, flips /readyz, serves the metrics docs/reference/metrics.md names, and applies a file edit', async () => {
    const workspace = await workspaceWith({
      'manifests/d.yaml': dashboard('edit-me', 'Edit me', 6) + '---\n' + alert('edit-alert', 'edit-me'),
    });
    const { daemon } = await running(workspace);
    await eventually(
      async () => (await fetch(`${daemon.url}/readyz`)).status,
      (status) => status === 200,
    );
    const live = await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.some((d) => d.name === 'Edit me'),
    );
    expect(live.find((d) => d.name === 'Edit me')?.tiles[0]?.w).toBe(6);

    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    for (const name of [
      'reconcile_total',
      'reconcile_duration_seconds',
      'resources',
      'apply_operations_total',
      'api_requests_total',
      'api_request_duration_seconds',
      'api_retries_total',
      'queue_depth',
      'last_successful_sync_timestamp_seconds',
      'manifest_errors',
      'drift_seconds',
      'rate_limit_wait_seconds_total',
    ]) {
      expect(metrics).toContain(`# TYPE stacksync_${name} `);
    }
    expect(metrics).toMatch(
      /stacksync_api_requests_total\{target="local-selfhosted",method="GET",route="\/api\/v2\/dashboards",code="200"\} [1-9]/,
    );
    expect(metrics).not.toMatch(/route="[^"]*[0-9a-f]{24}/);

    await workspace.write(
      'manifests/d.yaml',
      dashboard('edit-me', 'Edit me', 9) + '---\n' + alert('edit-alert', 'edit-me'),
    );
    const edited = await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.find((d) => d.name === 'Edit me')?.tiles[0]?.w === 9,
    );
    expect(edited.filter((d) => d.name === 'Edit me')).toHaveLength(1);
    const status = (await (await fetch(`${daemon.url}/status`)).json()) as {
      ready: boolean;
      targets: Record<
        string,
        { rateLimitWaitSeconds: number; resources: { kind: string; name: string; status: string }[] }
      >;
    };
    expect(status.ready).toBe(true);
    for (const target of ['local', 'local-selfhosted'])
      expect(status.targets[target]?.rateLimitWaitSeconds).toBeGreaterThanOrEqual(0);
    expect(status.targets['local-selfhosted']?.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'Dashboard', name: 'edit-me', status: 'in_sync' }),
        expect.objectContaining({ kind: 'Alert', name: 'edit-alert', status: 'in_sync' }),
      ]),
    );
  });

  it('turns a burst of 500 file events into one sync', async () => {
    const workspace = await workspaceWith({ 'manifests/burst.yaml': dashboard('burst', 'Burst', 4) });
    const run = await running(workspace);
    await eventually(
      async () => run.daemon.ready(),
      (ready) => ready,
    );
    await run.daemon.scheduler.idle();
    const before = await metricValue(run, 'stacksync_reconcile_total', {
      target: 'local-selfhosted',
      result: 'success',
    });
    // Synchronous writes in one tick: the watcher sees all 500 events as one burst however loaded the machine is.
    for (let i = 0; i < 500; i++)
      writeFileSync(join(workspace.manifestsDir, 'burst.yaml'), dashboard('burst', 'Burst', 4) + `# edit ${i}\n`);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await run.daemon.scheduler.idle();
    const after = await metricValue(run, 'stacksync_reconcile_total', {
      target: 'local-selfhosted',
      result: 'success',
    });
    expect(after - before).toBe(1);
  });

  it('syncs only the targets whose documents a saved file holds, before or after the edit', async () => {
    const workspace = await workspaceWith({
      'manifests/mine.yaml': dashboard('mine', 'Mine', 4),
      'manifests/theirs.yaml': dashboard('theirs', 'Theirs', 4, 'local'),
    });
    const run = await running(workspace);
    await eventually(
      async () => run.daemon.ready(),
      (ready) => ready,
    );
    await run.daemon.scheduler.idle();
    const syncs = async () => ({
      local: await metricValue(run, 'stacksync_reconcile_total', { target: 'local', result: 'success' }),
      selfHosted: await metricValue(run, 'stacksync_reconcile_total', {
        target: 'local-selfhosted',
        result: 'success',
      }),
    });
    const before = await syncs();
    await workspace.write('manifests/mine.yaml', dashboard('mine', 'Mine', 8));
    await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.find((d) => d.name === 'Mine')?.tiles[0]?.w === 8,
    );
    await run.daemon.scheduler.idle();
    const edited = await syncs();
    expect(edited.selfHosted).toBeGreaterThan(before.selfHosted);
    expect(edited.local, 'the other target did not sync').toBe(before.local);

    // Moved to the other target: both sync, the one it left and the one it joined.
    await workspace.write('manifests/mine.yaml', dashboard('mine', 'Mine', 8, 'local'));
    await eventually(syncs, (now) => now.local > edited.local && now.selfHosted > edited.selfHosted);
  });

  it('heals an out-of-band change at resync', async () => {
    const workspace = await workspaceWith({ 'manifests/heal.yaml': dashboard('heal', 'Heal me', 5) });
    const run = await running(workspace);
    const [live] = (
      await eventually(
        () => selfHostedDashboards(emulator),
        (list) => list.some((d) => d.name === 'Heal me'),
      )
    ).filter((d) => d.name === 'Heal me');
    await run.daemon.scheduler.idle();
    await fetch(`${emulator.url}/api/v2/dashboards/${live?.id}`, {
      method: 'PUT',
      headers: { authorization: 'Bearer emulator-token', 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Heal me',
        tiles: [
          { name: 'p99', x: 0, y: 0, w: 11, h: 4, series: [{ type: 'time', dataSource: 'events', aggFn: 'avg' }] },
        ],
      }),
    });
    run.daemon.scheduler.trigger('resync');
    const healed = await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.find((d) => d.name === 'Heal me')?.tiles[0]?.w === 5,
    );
    expect(healed.filter((d) => d.name === 'Heal me')).toHaveLength(1);
  });

  it('only reports drift with sync.drift: report, and never writes in a dry run', async () => {
    const workspace = await workspaceWith(
      { 'manifests/report.yaml': dashboard('report', 'Report only', 3) },
      { drift: 'report' },
    );
    const run = await running(workspace);
    await eventually(
      async () => run.daemon.ready(),
      (ready) => ready,
    );
    expect((await selfHostedDashboards(emulator)).some((d) => d.name === 'Report only')).toBe(false);
    const status = run.daemon.status.target('local-selfhosted');
    // Not drift: a manifest from Git waiting to be applied.
    expect(status?.resources).toEqual([
      expect.objectContaining({ kind: 'Dashboard', name: 'report', status: 'drifted', cause: 'git' }),
    ]);
    expect(
      await metricValue(run, 'stacksync_resources', {
        target: 'local-selfhosted',
        kind: 'Dashboard',
        status: 'drifted',
      }),
    ).toBe(1);

    const dry = await workspaceWith({ 'manifests/dry.yaml': dashboard('dry', 'Dry run', 3) });
    const before = (await emulatorStats(emulator.url)).writes;
    const dryRun = await running(dry, undefined, { dryRun: true });
    await eventually(
      async () => dryRun.daemon.ready(),
      (ready) => ready,
    );
    await dryRun.daemon.scheduler.idle();
    expect((await emulatorStats(emulator.url)).writes).toBe(before);
  });

  it('shows a resource whose manifest is gone as orphan in /status and the resources gauge, and leaves it alone', async () => {
    const workspace = await workspaceWith({
      'manifests/keep.yaml': dashboard('keep', 'Keep me', 4),
      'manifests/drop.yaml': dashboard('drop', 'Drop me', 4),
    });
    const run = await running(workspace);
    await eventually(
      async () => run.daemon.ready(),
      (ready) => ready,
    );
    await run.daemon.scheduler.idle();
    await workspace.remove('manifests/drop.yaml');
    const status = await eventually(
      async () => run.daemon.status.target('local-selfhosted')?.resources ?? [],
      (resources) => resources.some((resource) => resource.status === 'orphan'),
    );
    expect(status).toEqual([
      expect.objectContaining({ kind: 'Dashboard', name: 'drop', status: 'orphan' }),
      expect.objectContaining({ kind: 'Dashboard', name: 'keep', status: 'in_sync' }),
    ]);
    expect(
      await metricValue(run, 'stacksync_resources', {
        target: 'local-selfhosted',
        kind: 'Dashboard',
        status: 'orphan',
      }),
    ).toBe(1);
    expect((await selfHostedDashboards(emulator)).some((d) => d.name === 'Drop me')).toBe(true);
  });

  it("follows git-sync's atomic symlink swap", async () => {
    const workspace = await workspaceWith({
      'checkout/rev1/s.yaml': dashboard('swap', 'Swapped', 2),
      'checkout/rev2/s.yaml': dashboard('swap', 'Swapped', 7),
    });
    const link = join(workspace.dir, 'checkout', 'current');
    await symlink(join(workspace.dir, 'checkout', 'rev1'), link);
    await running(workspace, link);
    await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.find((d) => d.name === 'Swapped')?.tiles[0]?.w === 2,
    );
    await symlink(join(workspace.dir, 'checkout', 'rev2'), `${link}.tmp`);
    await rename(`${link}.tmp`, link);
    const swapped = await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.find((d) => d.name === 'Swapped')?.tiles[0]?.w === 7,
    );
    expect(swapped.filter((d) => d.name === 'Swapped')).toHaveLength(1);
  });

  it('reads the revision the link names at every sync, even a swap the watcher never saw, and watches it from then on', async () => {
    const workspace = await workspaceWith({
      'a/rev1/s.yaml': dashboard('fresh', 'Fresh', 2),
      'b/rev2/s.yaml': dashboard('fresh', 'Fresh', 7),
    });
    await symlink('rev1', join(workspace.dir, 'a', 'current'));
    await symlink('rev2', join(workspace.dir, 'b', 'current'));
    await symlink('a', join(workspace.dir, 'outer'));
    const run = await running(workspace, join(workspace.dir, 'outer', 'current'));
    await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.find((d) => d.name === 'Fresh')?.tiles[0]?.w === 2,
    );
    await run.daemon.scheduler.idle();
    // The link above the watched one moves: no watcher event; the next sync (a reload) still reads rev2.
    await symlink('b', join(workspace.dir, 'outer.tmp'));
    await rename(join(workspace.dir, 'outer.tmp'), join(workspace.dir, 'outer'));
    run.daemon.reload();
    await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.find((d) => d.name === 'Fresh')?.tiles[0]?.w === 7,
    );
    // And the watcher follows what that sync saw: an edit in rev2 is applied without a reload.
    await workspace.write('b/rev2/s.yaml', dashboard('fresh', 'Fresh', 9));
    await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.find((d) => d.name === 'Fresh')?.tiles[0]?.w === 9,
    );
  });

  it('writes nothing to a target whose manifests break, keeps reconciling the others, and blocks prune', async () => {
    const workspace = await workspaceWith(
      {
        'manifests/keep.yaml': dashboard('keep', 'Keep', 4),
        'manifests/gone.yaml': dashboard('gone', 'Gone', 4),
        'manifests/other.yaml': dashboard('other', 'Other', 4),
        'manifests/managed.yaml': dashboard('managed', 'Managed elsewhere', 4, 'local'),
      },
      { prune: true, maxDeletePercent: 100 },
    );
    const run = await running(workspace);
    await eventually(
      () => selfHostedDashboards(emulator),
      (list) => ['Keep', 'Gone', 'Other'].every((name) => list.some((d) => d.name === name)),
    );
    await run.daemon.scheduler.idle();
    // Broken first, so no sync can see the removal without the error.
    await workspace.write(
      'manifests/other.yaml',
      'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: other, target: local-selfhosted }\nspec: { name: Other, tiles: [ { name: p99, x: 99 } ] }\n',
    );
    await workspace.remove('manifests/gone.yaml');
    await workspace.write('manifests/keep.yaml', dashboard('keep', 'Keep', 8));
    await workspace.write('manifests/managed.yaml', dashboard('managed', 'Managed elsewhere', 8, 'local'));
    await eventually(
      async () => (await liveTarget(emulator.url, 'local')).dashboards,
      (list) => list.find((d) => d.name === 'Managed elsewhere')?.tiles[0]?.w === 8,
    );
    await eventually(
      async () => run.daemon.status.target('local-selfhosted')?.resources ?? [],
      (resources) => resources.some((r) => r.name === 'other' && r.status === 'error'),
    );
    await run.daemon.scheduler.idle();
    const live = await selfHostedDashboards(emulator);
    expect(live.map((d) => d.name)).toEqual(expect.arrayContaining(['Gone', 'Other']));
    expect(live.find((d) => d.name === 'Keep')?.tiles[0]?.w).toBe(4);
    const status = run.daemon.status.target('local-selfhosted');
    expect(status?.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'Dashboard', name: 'other', status: 'error' }),
        expect.objectContaining({ kind: 'Dashboard', name: 'keep', status: 'error', code: 'E_MANIFEST_BLOCKED' }),
      ]),
    );
    expect(await metricValue(run, 'stacksync_manifest_errors', { target: 'local-selfhosted' })).toBeGreaterThan(0);

    // Fixed: the held-back update and the prune both happen.
    await workspace.write('manifests/other.yaml', dashboard('other', 'Other', 4));
    await eventually(
      () => selfHostedDashboards(emulator),
      (list) => !list.some((d) => d.name === 'Gone') && list.find((d) => d.name === 'Keep')?.tiles[0]?.w === 8,
    );
  });

  it('reports the revision it applied when the checkout is a git worktree', async () => {
    const workspace = await workspaceWith({ 'repo/manifests/r.yaml': dashboard('rev', 'Revision', 3) });
    const repo = join(workspace.dir, 'repo');
    const git = (...args: string[]): string =>
      execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        encoding: 'utf8',
      }).trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'manifests');
    const head = git('rev-parse', 'HEAD');
    const { daemon } = await running(workspace, join(repo, 'manifests'));
    await eventually(
      async () => daemon.ready(),
      (ready) => ready,
    );
    const status = (await (await fetch(`${daemon.url}/status`)).json()) as {
      targets: Record<string, { revision?: string }>;
    };
    expect(status.targets['local-selfhosted']?.revision).toBe(head);
  });

  it("keeps syncing the other targets while one target's API is down", async () => {
    const workspace = await workspaceWith({ 'manifests/up.yaml': dashboard('up', 'Still up', 3) });
    // The managed target points at a port nothing listens on: its sync keeps retrying.
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write(
      'config/stacksync.yaml',
      config.replace(`baseUrl: ${emulator.url}`, 'baseUrl: http://127.0.0.1:9'),
    );
    const run = await running(workspace);
    await eventually(
      () => selfHostedDashboards(emulator),
      (list) => list.some((d) => d.name === 'Still up'),
    );
    await eventually(
      async () => run.daemon.status.target('local-selfhosted')?.lastResult,
      (result) => result === 'success',
    );
    expect(run.daemon.status.target('local')?.lastResult).not.toBe('success');

    // Stopping does not wait out the down target's retries: the clients are closed after the drain time.
    await run.daemon.stop();
    expect(run.daemon.status.target('local')?.lastError).toContain('the client was closed');
  });

  it('exits 0 on SIGTERM during an apply, with a valid state file, and the next run finishes without duplicates', async () => {
    const slow = await startTestEmulator({ faults: 'latency=40ms' });
    cleanups.push(() => slow.close());
    const workspace = await createWorkspace(slow.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 2 } });
    cleanups.push(() => workspace.dispose());
    const docs = Array.from({ length: 60 }, (_, i) => dashboard(`d${i}`, `Dash ${i}`, 4));
    await workspace.write('manifests/many.yaml', docs.join('---\n'));
    const child = workspace.spawn(['run', '--listen', '127.0.0.1:0', '--log-level', 'warn']);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await eventually(
      () => emulatorStats(slow.url),
      (stats) => stats.writes >= 10,
      15_000,
    );
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('E_INTERNAL');
    expect(code).toBe(0);
    const state = JSON.parse(await readFile(workspace.statePath, 'utf8')) as {
      targets: Record<string, { inventory: { Dashboard: Record<string, unknown> } }>;
    };
    const recorded = Object.keys(state.targets['local-selfhosted']?.inventory.Dashboard ?? {}).length;
    expect(recorded).toBeGreaterThan(0);

    const again = await workspace.run(['apply']);
    expect(again.code).toBe(0);
    const live = (await (
      await fetch(`${slow.url}/api/v2/dashboards`, { headers: { authorization: 'Bearer emulator-token' } })
    ).json()) as { data: { name: string }[] };
    const names = live.data.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((name) => name.startsWith('Dash '))).toHaveLength(60);
  });
});
