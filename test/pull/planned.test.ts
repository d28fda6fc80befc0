/**
 * `pullPlanned`, the path `stacksync pull` and the daemon's `sync.drift: propose` share: from a
 * plan already made, only the changes it is given are pulled. The daemon hands it the drift of
 * its sync; a change waiting in Git (a manifest edited since it was applied) is never pulled back
 * over the edit, which would revert Git to the live value (docs/pull.md, "For contributors").
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, type Session } from '../../src/cli/context.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { computePlan, planRequestFor, type RunPlan } from '../../src/reconcile/reconcile.js';
import { pullPlanned } from '../../src/reconcile/pull.js';
import { createLogger } from '../../src/support/logger.js';
import { dashboardYaml, liveTarget, updateDashboardOutOfBand } from '../helpers/e2e.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

describe('pullPlanned: only the changes it is given', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  let session: Session;
  let run: RunPlan;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    await workspace.write('manifests/a.yaml', dashboardYaml({ key: 'a', target: 'local' }));
    await workspace.write('manifests/b.yaml', dashboardYaml({ key: 'b', target: 'local' }));
    const applied = await workspace.run(['apply', '--target', 'local']);
    expect(applied.code, applied.stderr).toBe(0);
    // Both resized live; a.yaml then also edited in Git, so a's change is one to apply, b's is drift.
    for (const dashboard of (await liveTarget(emulator.url, 'local')).dashboards) {
      await updateDashboardOutOfBand(emulator.url, 'local', dashboard.id, {
        name: dashboard.name,
        tags: dashboard.tags,
        tiles: dashboard.tiles.map((tile) => ({ ...tile, w: 6 })),
      });
    }
    await workspace.write(
      'manifests/a.yaml',
      dashboardYaml({ key: 'a', target: 'local', tiles: [{ name: 'main', h: 8 }] }),
    );
    session = await openSession(
      { config: workspace.configPath, manifests: workspace.manifestsDir },
      { writeKey: false, env: workspace.env, state: { mode: 'read' }, logger: createLogger({ level: 'silent' }) },
    );
    run = await computePlan(
      session.context,
      planRequestFor(session.context.config, { targets: ['local'], prune: false, adopt: false }),
    );
  }, 60_000);

  afterAll(async () => {
    await session?.close();
    await workspace?.dispose();
    await emulator?.close();
  });

  it('given the drifted changes, writes only the drifted resource; given none, every differing one', async () => {
    const changes = run.targets[0]?.changes ?? [];
    expect(
      changes.filter((change) => change.action === 'update').map((change) => [change.name, change.drift === true]),
    ).toEqual([
      ['a', false],
      ['b', true],
    ]);
    const drifted = changes.filter((change) => change.drift === true);
    const only = await pullPlanned(session.context, run, { changes: drifted });
    expect(only.files.map((file) => file.path)).toEqual([join(workspace.manifestsDir, 'b.yaml')]);
    const b = await readFile(join(workspace.manifestsDir, 'b.yaml'), 'utf8');
    expect(only.files[0]?.after).toBe(b.replace('      w: 12\n', '      w: 6\n'));
    expect(only).toMatchObject({ conflicts: [], deleted: [], errors: [] });

    // Unrestricted (what `stacksync pull` does), a's file would be rewritten too: the restriction is what keeps Git's edit.
    const all = await pullPlanned(session.context, run, {});
    expect(all.files.map((file) => file.path).sort()).toEqual([
      join(workspace.manifestsDir, 'a.yaml'),
      join(workspace.manifestsDir, 'b.yaml'),
    ]);
  });
});
