/**
 * `stacksync status` against a running daemon (the built CLI, as a person or a script runs it):
 * the page's facts and table in the terminal, `--output json`, exit 1 once anything is in error,
 * the config's `daemon.listen` as the address, and a clear error when no daemon answers.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderStatusText } from '../../src/cli/status-text.js';
import type { StatusDocument } from '../../src/daemon/status.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { freePort, startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { alertYaml, dashboardYaml } from '../helpers/e2e.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

describe('stacksync status', { timeout: 90_000 }, () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let daemon: RunningDaemon;
  let listen: string;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write('manifests/api.yaml', dashboardYaml({ key: 'api', target: 'local', tiles: ['p99'] }));
    daemon = await startDaemon(workspace);
    listen = daemon.url.replace('http://', '');
    await waitUntil(async () => (await daemon.get('/readyz')).status === 200, 30_000);
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
    await workspace?.dispose();
    await emulator?.close();
  });

  it('prints each target and its resources, and exits 0 when nothing is in error', async () => {
    const result = await workspace.run(['status', '--listen', listen]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Target local:\n {2}last sync: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC, succeeded in [\d.]+ s\n {2}resources: 1 in sync\n {2}rate-budget wait: /m,
    );
    expect(result.stdout).toMatch(/^ {2}KIND +NAME +STATUS +MANIFEST +DETAILS$/m);
    expect(result.stdout).toMatch(/^ {2}Dashboard +api +in sync +manifests\/api\.yaml:1$/m);
  });

  it('prints the /status document with --output json', async () => {
    const result = await workspace.run(['status', '--listen', listen, '--output', 'json']);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as StatusDocument;
    expect(document.version).toBe(1);
    expect(Object.keys(document.targets)).toEqual(['local', 'local-selfhosted']);
    expect(document.targets['local']?.resources).toEqual([
      expect.objectContaining({ kind: 'Dashboard', name: 'api', status: 'in_sync', path: 'manifests/api.yaml' }),
    ]);
  });

  it("asks at the config's daemon.listen when --listen is not given", async () => {
    await workspace.write(
      'config/stacksync.yaml',
      `${await readFile(workspace.configPath, 'utf8')}daemon:\n  listen: ${listen}\n`,
    );
    const result = await workspace.run(['status', '--target', 'local']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Target local:');
    expect(result.stdout).not.toContain('Target local-selfhosted:');
  });

  it('exits 1 once a resource is in error, naming it and why', async () => {
    await workspace.write(
      'manifests/broken.yaml',
      alertYaml({ key: 'broken', target: 'local', dashboard: 'api', tile: 'nope' }),
    );
    await waitUntil(async () => (await daemon.get('/status')).text.includes('"broken"'), 30_000);
    const result = await workspace.run(['status', '--listen', listen]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^ {2}Alert +broken +error +manifests\/broken\.yaml:\d+ +.*no tile named nope/m);
    const json = await workspace.run(['status', '--listen', listen, '--output', 'json']);
    expect(json.code).toBe(1);
  });

  it('says clearly, and exits 1, when no daemon answers: the address and the flag to give', async () => {
    const port = await freePort();
    const result = await workspace.run(['status', '--listen', `127.0.0.1:${port}`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `stacksync: E_DAEMON_UNREACHABLE: no stacksync daemon answered at http://127.0.0.1:${port}/status (ECONNREFUSED); the address came from --listen: start one with \`stacksync run\`, or pass --listen HOST:PORT as it was started with\n`,
    );
  });
});

describe('daemon.listen of the config', { timeout: 90_000 }, () => {
  it('is where run listens without --listen, and where status asks', async () => {
    const emulator = await startTestEmulator();
    const workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
    });
    const port = await freePort();
    await workspace.write(
      'config/stacksync.yaml',
      `${await readFile(workspace.configPath, 'utf8')}daemon:\n  listen: 127.0.0.1:${port}\n`,
    );
    await workspace.write('manifests/api.yaml', dashboardYaml({ key: 'api', target: 'local' }));
    const child = workspace.spawn(['run']);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await waitUntil(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
        45_000,
      );
      const result = await workspace.run(['status']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^ {2}Dashboard +api +in sync +manifests\/api\.yaml:\d+$/m);
    } finally {
      child.kill('SIGTERM');
      await exited;
      await workspace.dispose();
      await emulator.close();
    }
  });
});

describe('the status text', () => {
  it('never overstates: a failed last sync is counted in the header, and uncommitted files are no revision (issue 34, item 9)', () => {
    const target = (lastResult: 'success' | 'failure', uncommitted: boolean) => ({
      syncing: false,
      suspended: false,
      resources: [],
      lastSyncAt: '2026-11-26T10:00:00.000Z',
      lastResult,
      revision: 'abc1234',
      ...(uncommitted ? { uncommitted: true as const } : {}),
    });
    const document: StatusDocument = {
      version: 1,
      generatedAt: '2026-11-26T10:00:00.000Z',
      ready: true,
      targets: { prod: target('failure', true), lab: target('success', false) },
    };
    const text = renderStatusText(document);
    expect(text.split('\n')[0]).toBe(
      'stacksync daemon: the last sync of 1 of 2 targets failed (as of 2026-11-26 10:00:00 UTC)',
    );
    // A target that failed keeps the daemon unready (it never planned): the header still counts it, and waits only for the unsynced.
    expect(renderStatusText({ ...document, ready: false }).split('\n')[0]).toContain(
      ': the last sync of 1 of 2 targets failed (',
    );
    const waiting = renderStatusText({
      ...document,
      ready: false,
      targets: { ...document.targets, new: { syncing: true, suspended: false, resources: [] } },
    });
    expect(waiting.split('\n')[0]).toContain(
      ': waiting for the first sync of 1 of 3 targets; the last sync of 1 of 3 targets failed (',
    );
    expect(text).toContain('  revision: working tree (uncommitted changes) on abc1234\n');
    expect(text).toContain('  revision: abc1234\n');
    const synced = renderStatusText({ ...document, targets: { lab: target('success', false) } });
    expect(synced.split('\n')[0]).toContain('every target has synced, and each last sync succeeded');
  });

  it('puts the fields a drifted resource differs in under it, and more notes under the first', () => {
    const document: StatusDocument = {
      version: 1,
      generatedAt: '2026-11-26T10:00:00.000Z',
      ready: true,
      targets: {
        prod: {
          syncing: false,
          suspended: true,
          resources: [
            {
              kind: 'Dashboard',
              name: 'web',
              status: 'drifted',
              cause: 'live',
              diff: [
                { path: 'tiles[p99].w', before: 6, after: 12 },
                { path: 'tags', after: ['a'] },
              ],
              diffOmitted: 2,
              path: 'm/web.yaml',
              line: 1,
            },
            {
              kind: 'Pipe',
              name: 'orders',
              status: 'error',
              error: 'boom',
              code: 'E_API_UNAVAILABLE',
              state: 'Failed',
              health: 'degraded',
            },
          ],
        },
      },
    };
    expect(renderStatusText(document)).toBe(
      [
        'stacksync daemon: every target has synced (as of 2026-11-26 10:00:00 UTC)',
        '',
        'Target prod (suspended):',
        '  last sync: not synced yet',
        '  resources: 1 drifted, 1 error, 1 degraded',
        '  rate-budget wait: none',
        '',
        '  KIND       NAME    STATUS           MANIFEST      DETAILS',
        '  Dashboard  web     drifted          m/web.yaml:1  edited outside stacksync',
        '                                                    ~ tiles[p99].w: 6 → 12',
        '                                                    + tags: ["a"]',
        '                                                    … and 2 more fields',
        '  Pipe       orders  error, degraded                boom (E_API_UNAVAILABLE)',
        '                                                    live state Failed',
        '',
      ].join('\n'),
    );
  });

  it('says a drift was proposed, on which branch, commit and pull request, and why a proposal was not made', () => {
    const drifted = {
      kind: 'Dashboard' as const,
      name: 'web',
      status: 'drifted' as const,
      cause: 'live' as const,
      proposed: 'stacksync/drift/prod',
      path: 'm/web.yaml',
      line: 1,
    };
    const proposed: StatusDocument = {
      version: 1,
      generatedAt: '2026-11-26T10:00:00.000Z',
      ready: true,
      targets: {
        prod: {
          syncing: false,
          resources: [drifted],
          proposal: {
            branch: 'stacksync/drift/prod',
            commit: '0123456789abcdef0123456789abcdef01234567',
            pullRequest: 'https://github.com/acme/m/pull/7',
          },
        },
      },
    };
    const text = renderStatusText(proposed);
    expect(text).toContain(
      '  drift proposal: drift proposed on stacksync/drift/prod at 0123456789ab, https://github.com/acme/m/pull/7\n',
    );
    expect(text).toMatch(
      /Dashboard +web +drifted +m\/web\.yaml:1 +edited outside stacksync\n +drift proposed on stacksync\/drift\/prod\n/,
    );
    const unavailable: StatusDocument = {
      ...proposed,
      targets: {
        prod: {
          syncing: false,
          resources: [{ ...drifted, proposed: undefined }],
          proposal: {
            branch: 'stacksync/drift/prod',
            code: 'E_PROPOSE_UNAVAILABLE',
            error: 'proposing is unavailable',
          },
        },
      },
    };
    const none = renderStatusText(JSON.parse(JSON.stringify(unavailable)) as StatusDocument);
    expect(none).toContain(
      '  drift proposal: nothing proposed on stacksync/drift/prod; proposing is unavailable (E_PROPOSE_UNAVAILABLE)\n',
    );
    expect(none).not.toContain('drift proposed on');
  });
});
