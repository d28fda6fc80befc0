/**
 * `sync.markManaged` end to end, the built CLI against the emulator on both profiles
 * (docs/ownership.md, "The managed-by mark"): what apply creates, updates or adopts carries
 * `managed-by:stacksync` beside the manifest's own tags, and the mark is never a difference.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CURRENT_IDS, type RunningEmulator } from '../../src/emulator/index.js';
import {
  createDashboardOutOfBand,
  dashboardName,
  dashboardYaml,
  describeRun,
  liveTarget,
  named,
  stackOf,
  updateDashboardOutOfBand,
} from '../helpers/e2e.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const MARK = 'managed-by:stacksync';
const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

describe('sync.markManaged on the seed profile', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: FAST, sync: { markManaged: true } });
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('marks what apply creates, keeps the manifest tags, and plans clean afterwards', async () => {
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: 'local-selfhosted', tags: ['team:web'] }),
    );
    await workspace.write('manifests/bare.yaml', dashboardYaml({ key: 'bare', target: 'local' }));
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const web = (await liveTarget(emulator.url, 'local-selfhosted')).dashboards.find(
      (dashboard) => dashboard.name === dashboardName('web'),
    );
    const bare = (await liveTarget(emulator.url, 'local')).dashboards.find(
      (dashboard) => dashboard.name === dashboardName('bare'),
    );
    expect(web?.tags).toEqual(['team:web', MARK]);
    expect(bare?.tags).toEqual([MARK]);
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
  });

  it('keeps the mark through an update of the manifest tags, and a tag added in the UI to a manifest without tags is no change', async () => {
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({
        key: 'web',
        target: 'local-selfhosted',
        tags: ['team:web', 'tier:1'],
        tiles: [{ name: 'main', w: 6 }],
      }),
    );
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const web = (await liveTarget(emulator.url, 'local-selfhosted')).dashboards.find(
      (dashboard) => dashboard.name === dashboardName('web'),
    );
    expect(web?.tags).toEqual(['team:web', 'tier:1', MARK]);

    const bare = (await liveTarget(emulator.url, 'local')).dashboards.find(
      (dashboard) => dashboard.name === dashboardName('bare'),
    );
    if (!bare) throw new Error('bare is gone');
    await updateDashboardOutOfBand(emulator.url, 'local', bare.id, {
      name: bare.name,
      tags: ['ui', MARK],
      tiles: bare.tiles,
    });
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
    expect(plan.stdout).not.toContain(MARK);
  });

  it('export writes the manifest tags, never the mark', async () => {
    const exported = await workspace.run(['export', '--target', 'local-selfhosted', '--out', 'exported']);
    expect(exported.code, describeRun(exported)).toBe(0);
    const files = await readdir(join(workspace.dir, 'exported'), { recursive: true });
    const texts = await Promise.all(
      files
        .filter((file) => file.endsWith('.yaml'))
        .map((file) => readFile(join(workspace.dir, 'exported', file), 'utf8')),
    );
    const all = texts.join('\n');
    expect(all).toContain('team:web');
    expect(all).not.toContain(MARK);
  });

  it('adds the mark with the update an adoption sends, beside the live tags', async () => {
    const found = await createDashboardOutOfBand(emulator.url, 'local-selfhosted', dashboardName('found'));
    await updateDashboardOutOfBand(emulator.url, 'local-selfhosted', found.id, {
      name: found.name,
      tags: ['made-in-ui'],
      tiles: found.tiles,
    });
    await workspace.write(
      'manifests/found.yaml',
      dashboardYaml({ key: 'found', target: 'local-selfhosted', tiles: [{ name: 'main', w: 8 }] }),
    );
    const applied = await workspace.run(['apply', '--adopt']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const live = (await liveTarget(emulator.url, 'local-selfhosted')).dashboards.find(
      (dashboard) => dashboard.id === found.id,
    );
    expect(live?.tags).toEqual(['made-in-ui', MARK]);
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
  });
});

describe('sync.markManaged on the current profile', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;

  beforeAll(async () => {
    emulator = await startTestEmulator({ profile: 'current' });
    workspace = await createWorkspace(emulator.url, {
      rateLimit: FAST,
      apiProfile: 'current',
      sync: { markManaged: true },
    });
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('marks dashboards and saved searches, keeps their own tags, and plans clean afterwards', async () => {
    await workspace.write(
      'manifests/shop.yaml',
      `apiVersion: stacksync/v1
kind: Source
metadata: { name: shop-logs, target: local }
spec:
  name: Shop logs
  kind: log
  connectionId: "${DEFAULT_CURRENT_IDS.service.connection}"
  from: { databaseName: otel, tableName: shop_logs }
  timestampValueExpression: Timestamp
  defaultTableSelectExpression: Timestamp, Body
---
apiVersion: stacksync/v1
kind: SavedSearch
metadata: { name: shop-errors, target: local }
spec:
  name: Shop errors
  source: shop-logs
  where: "level:error"
  tags: [shop]
---
apiVersion: stacksync/v1
kind: SavedSearch
metadata: { name: shop-all, target: local }
spec:
  name: Shop all
  source: shop-logs
`,
    );
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: 'local', tags: ['team:web'] }).replace(
        'dataSource: events',
        'source: shop-logs',
      ),
    );
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const stack = await stackOf(emulator.url, 'local');
    expect(named(stack.savedSearches, 'Shop errors')['tags']).toEqual(['shop', MARK]);
    expect(named(stack.savedSearches, 'Shop all')['tags']).toEqual([MARK]);
    expect(named(stack.dashboards, dashboardName('web'))['tags']).toEqual(['team:web', MARK]);
    // Sources have no tags: nothing is added to them.
    expect(named(stack.sources, 'Shop logs')).not.toHaveProperty('tags');
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
  });
});
