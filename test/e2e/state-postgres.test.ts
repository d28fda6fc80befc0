/**
 * The state in PostgreSQL end to end, through the built CLI against a real server this file
 * starts: apply and plan on a shared state, `state show`, a file state migrated into the database
 * that then plans clean, `state unlock` of a holder that is gone, and an apply that waits for the
 * lock while a plan reads without it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { openPostgresBackend } from '../../src/state/postgres.js';
import { dashboardYaml, describeRun } from '../helpers/e2e.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { expectHeldLockThenUnlock } from '../helpers/shared-state.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const FAST = { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } };

/** Points a workspace's config at the PostgreSQL state `name`, its URL in STACKSYNC_STATE_URL. */
async function usePostgres(workspace: Workspace, url: string, name: string): Promise<void> {
  const config = await readFile(workspace.configPath, 'utf8');
  await writeFile(
    workspace.configPath,
    config.replace(
      /^state: .*$/m,
      `state: { backend: postgres, url: { fromEnv: STACKSYNC_STATE_URL }, name: ${name} }`,
    ),
  );
  workspace.env['STACKSYNC_STATE_URL'] = url;
}

describe('the state in PostgreSQL', () => {
  let emulator: RunningEmulator;
  let postgres: RunningPostgres;
  let url: string;
  const workspaces: Workspace[] = [];
  const workspace = async (): Promise<Workspace> => {
    const made = await createWorkspace(emulator.url, FAST);
    workspaces.push(made);
    return made;
  };

  beforeAll(async () => {
    [emulator, postgres] = await Promise.all([startTestEmulator(), startPostgres()]);
    url = await postgres.createDatabase('stacksync');
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workspaces.map((w) => w.dispose()));
    await emulator?.close();
    await postgres?.stop();
  });

  it('applies, then plans clean from the database; state show counts what it owns', async () => {
    const ws = await workspace();
    await usePostgres(ws, url, 'shared');
    await ws.write('manifests/a.yaml', dashboardYaml({ key: 'pg-a', target: 'local' }));
    await ws.write('manifests/b.yaml', dashboardYaml({ key: 'pg-b', target: 'local-selfhosted' }));
    const applied = await ws.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const plan = await ws.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);

    const shown = await ws.run(['state', 'show', '--output', 'json']);
    expect(shown.code, describeRun(shown)).toBe(0);
    const summary = JSON.parse(shown.stdout) as {
      backend: string;
      location: string;
      serial: number;
      lineage: string;
      lock: unknown;
      targets: Record<string, { resources: Record<string, number> }>;
    };
    expect(summary).toMatchObject({
      backend: 'postgres',
      lock: null,
      targets: { local: { resources: { Dashboard: 1 } }, 'local-selfhosted': { resources: { Dashboard: 1 } } },
    });
    expect(summary.serial).toBeGreaterThan(0);
    expect(summary.lineage).toMatch(/^[0-9a-f-]{36}$/);
    const text = await ws.run(['state', 'show']);
    expect(text.stdout).toMatch(/target local: 1 Dashboard/);
  });

  it('takes a file state by migrate --to, and the copy plans clean', async () => {
    const ws = await workspace();
    await ws.write('manifests/m.yaml', dashboardYaml({ key: 'pg-migrated', target: 'local' }));
    const applied = await ws.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const before = JSON.parse((await ws.run(['state', 'show', '--output', 'json'])).stdout) as {
      lineage: string;
      serial: number;
    };
    expect(before.lineage).toMatch(/^[0-9a-f-]{36}$/);
    expect(before.serial).toBeGreaterThan(0);
    const fileConfig = await readFile(ws.configPath, 'utf8');
    await ws.write(
      'config/postgres.yaml',
      fileConfig.replace(
        /^state: .*$/m,
        'state: { backend: postgres, url: { fromEnv: STACKSYNC_STATE_URL }, name: migrated }',
      ),
    );
    const migrated = await ws.run(['state', 'migrate', '--to', 'config/postgres.yaml'], {
      env: { STACKSYNC_STATE_URL: url },
    });
    expect(migrated.code, describeRun(migrated)).toBe(0);
    // The URL came from a secret reference, so it is masked like any secret of the run (docs/security.md).
    expect(migrated.stdout).toMatch(
      /copied 2 target\(s\) from .*state\.json to \(sensitive\) \(state "migrated"\), and read them back the same/,
    );
    const plan = await ws.run(['plan', '--detailed-exitcode', '-c', 'config/postgres.yaml'], {
      env: { STACKSYNC_STATE_URL: url },
    });
    expect(plan.code, describeRun(plan)).toBe(0);
    // The copy is the same history: same lineage.
    const after = JSON.parse(
      (
        await ws.run(['state', 'show', '--output', 'json', '-c', 'config/postgres.yaml'], {
          env: { STACKSYNC_STATE_URL: url },
        })
      ).stdout,
    ) as { lineage: string };
    expect(after.lineage).toBe(before.lineage);
    // Into a state that is not empty: refused, nothing changed.
    const again = await ws.run(['state', 'migrate', '--to', 'config/postgres.yaml'], {
      env: { STACKSYNC_STATE_URL: url },
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is not empty; migrate copies only into an empty state/);
  });

  it('makes apply wait for the lock while a plan reads without it; unlock breaks it by its id', async () => {
    const ws = await workspace();
    await usePostgres(ws, url, 'locked');
    await ws.write('manifests/l.yaml', dashboardYaml({ key: 'pg-locked', target: 'local' }));
    const other = openPostgresBackend({ url, name: 'locked' });
    const held = await other.lock({ command: 'run', timeoutMs: 0 });
    await expectHeldLockThenUnlock({
      ws,
      emulatorUrl: emulator.url,
      other,
      held,
      dashboard: 'pg-locked',
      whileHeld: async (apply) => {
        expect(apply.stderr).not.toContain('STACKSYNC_STATE_URL');
        const wrong = await ws.run(['state', 'unlock', 'not-the-id']);
        expect(wrong.code).toBe(1);
        expect(wrong.stdout).toContain(`held by stacksync run (pid ${process.pid}`);
      },
    });
    const plan = await ws.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
  });
});
