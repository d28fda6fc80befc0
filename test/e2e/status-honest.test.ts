/**
 * A status that never overstates, through a real daemon (issue 34, item 9): `stacksync run` on a
 * git checkout with an uncommitted edit, and a target whose every sync fails (its token is
 * refused). `/status`, `stacksync status` and the page all say "working tree (uncommitted
 * changes)" for what was synced, never "every target has synced, and each last sync succeeded"
 * while a target failed, and their header counts the failed target.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardYaml } from '../helpers/e2e.js';
import { startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { sharedEmulator, type Workspace } from '../helpers/workspace.js';

const FAILED = 'the last sync of 1 of 3 targets failed';
const UNCOMMITTED = 'working tree (uncommitted changes)';

interface Status {
  targets: Record<
    string,
    { lastResult?: 'success' | 'failure'; revision?: string; uncommitted?: true; lastError?: string }
  >;
}

describe('the status of a daemon over a dirty checkout and a failing target', { timeout: 120_000 }, () => {
  const shared = sharedEmulator();
  let workspace: Workspace;
  let daemon: RunningDaemon;
  let commit: string;

  beforeAll(async () => {
    workspace = await shared.workspace({ rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    // A third target whose token the server refuses (401: not retried), so each of its syncs fails at once.
    const config = await readFile(workspace.configPath, 'utf8');
    const refused = `  - name: refused\n    variant: self-hosted\n    baseUrl: ${shared.emulator.url}\n    auth:\n      token: { fromEnv: REFUSED_TOKEN }\n`;
    await workspace.write(
      'config/stacksync.yaml',
      config.replace('defaultTarget: local', `${refused}defaultTarget: local`),
    );
    await workspace.write('.gitignore', '.stacksync/\n');
    await workspace.write('manifests/web.yaml', dashboardYaml({ key: 'web', target: 'local-selfhosted' }));
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
        cwd: workspace.dir,
        encoding: 'utf8',
      }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'manifests');
    commit = git('rev-parse', 'HEAD');
    // The edit the daemon syncs is not in that commit.
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: 'local-selfhosted', tiles: ['p99', 'errors'] }),
    );
    daemon = await startDaemon(workspace, [], { REFUSED_TOKEN: 'not-the-token' });
    // Every target has finished a sync (the refused one keeps the daemon unready: /readyz stays 503).
    const synced = async (): Promise<boolean> =>
      Object.values((JSON.parse((await daemon.get('/status')).text) as Status).targets).every(
        (target) => target.lastResult !== undefined,
      );
    await waitUntil(synced, 60_000, 200).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${daemon.output().stderr}`);
    });
  }, 90_000);
  afterAll(async () => {
    await daemon?.stop();
  });

  it('/status: the synced targets carry the commit and uncommitted: true; the refused one failed', async () => {
    const status = JSON.parse((await daemon.get('/status')).text) as Status;
    expect(status.targets['refused']?.lastResult, JSON.stringify(status.targets['refused'])).toBe('failure');
    // It never planned, so the daemon is not ready: what the header must count, not wait for.
    expect((await daemon.get('/readyz')).status).toBe(503);
    for (const target of ['local', 'local-selfhosted']) {
      expect(status.targets[target], target).toMatchObject({ lastResult: 'success', uncommitted: true });
      expect(
        commit.startsWith(status.targets[target]?.revision ?? '-'),
        `${target}: ${status.targets[target]?.revision}`,
      ).toBe(true);
    }
  });

  it('stacksync status: its header counts the failed target, and the revision is the working tree', async () => {
    const shown = await workspace.run(['status', '--listen', daemon.url.replace('http://', '')]);
    // A failed last sync is something wrong: status exits 1.
    expect(shown.code, shown.stderr).toBe(1);
    const [header] = shown.stdout.split('\n');
    expect(header).toContain(FAILED);
    expect(header).not.toContain('each last sync succeeded');
    expect(shown.stdout).toContain(`revision: ${UNCOMMITTED} on `);
  });

  it('the page says the same', async () => {
    const page = await daemon.get('/');
    expect(page.status).toBe(200);
    // The page's text, without its markup, scripts and styles.
    const text = page.text
      .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
    expect(text).toContain(FAILED);
    expect(text).not.toContain('each last sync succeeded');
    expect(text).toContain(UNCOMMITTED);
  });
});
