/**
 * `stacksync state forget` end to end, the built CLI against the emulator on both profiles
 * (docs/ownership.md, "Letting go of a resource"): a resource leaves the inventory without being
 * deleted, its managed-by mark taken off with one update that keeps everything else as it is
 * live; a manifest still naming it then plans as `= adopt`. `--dry-run` changes nothing, and a
 * resource the inventory does not hold is an error that changes nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CURRENT_IDS, type RunningEmulator } from '../../src/emulator/index.js';
import {
  dashboardName,
  dashboardYaml,
  describeRun,
  liveTarget,
  named,
  parseJsonOutput,
  readState,
  stackOf,
  TARGETS,
  writesSince,
  type TargetName,
} from '../helpers/e2e.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const MARK = 'managed-by:stacksync';
const FAST = { requests: 1000, perSeconds: 1, concurrency: 4 };

async function liveDashboard(
  url: string,
  target: TargetName,
  key: string,
): Promise<{ id: string; tags?: string[]; tiles: unknown[] } & Record<string, unknown>> {
  const found = (await liveTarget(url, target)).dashboards.find((dashboard) => dashboard.name === dashboardName(key));
  if (!found) throw new Error(`${dashboardName(key)} is not live on ${target}`);
  return found as unknown as { id: string; tags?: string[]; tiles: unknown[] } & Record<string, unknown>;
}

async function inventory(
  workspace: Workspace,
  target: string,
  kind: 'Dashboard' | 'SavedSearch',
): Promise<Record<string, { id: string }>> {
  return (await readState(workspace.statePath)).targets[target]?.inventory[kind] ?? {};
}

async function planChange(
  workspace: Workspace,
  target: string,
  kind: string,
  name: string,
): Promise<{ action: string; id?: string } | undefined> {
  const plan = await workspace.run(['plan', '--output', 'json']);
  expect(plan.code, describeRun(plan)).toBe(0);
  return parseJsonOutput(plan).changes.find(
    (change) => change.target === target && change.kind === kind && change.name === name,
  );
}

describe('state forget on the seed profile', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    workspace = await createWorkspace(emulator.url, { rateLimit: FAST, sync: { markManaged: true } });
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({
        key: 'web',
        target: 'local-selfhosted',
        tags: ['team:web', 'tier:1'],
        tiles: ['main', 'errors'],
      }),
    );
    await workspace.write('manifests/bare.yaml', dashboardYaml({ key: 'bare', target: 'local' }));
    await workspace.write('manifests/gone.yaml', dashboardYaml({ key: 'gone', target: 'local', tags: ['team:ops'] }));
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it('--dry-run says what it would do and changes neither the API nor the state', async () => {
    const before = await liveDashboard(emulator.url, 'local-selfhosted', 'web');
    expect(before.tags).toEqual(['team:web', 'tier:1', MARK]);
    const writes = await writesSince(emulator.url);
    const result = await workspace.run(['state', 'forget', 'local-selfhosted', 'Dashboard/web', '--dry-run']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toContain(
      `would forget Dashboard/web (id ${before.id}): would take the mark ${MARK} off its tags`,
    );
    expect(await writesSince(emulator.url)).toBe(writes);
    expect(await liveDashboard(emulator.url, 'local-selfhosted', 'web')).toEqual(before);
    expect((await inventory(workspace, 'local-selfhosted', 'Dashboard'))['web']?.id).toBe(before.id);
  });

  it('a resource the inventory does not hold is an error naming it, and nothing changes', async () => {
    const before = await liveDashboard(emulator.url, 'local-selfhosted', 'web');
    const writes = await writesSince(emulator.url);
    const result = await workspace.run(['state', 'forget', 'local-selfhosted', 'Dashboard/web', 'Dashboard/nowhere']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toMatch(
      /Dashboard\/nowhere is not in the inventory of target local-selfhosted.*nothing was changed/,
    );
    expect(await writesSince(emulator.url)).toBe(writes);
    expect(await liveDashboard(emulator.url, 'local-selfhosted', 'web')).toEqual(before);
    expect((await inventory(workspace, 'local-selfhosted', 'Dashboard'))['web']?.id).toBe(before.id);
  });

  it('takes the mark off with one update, keeps the other tags and the tiles, forgets it, and the manifest then plans as adopt', async () => {
    const before = await liveDashboard(emulator.url, 'local-selfhosted', 'web');
    const writes = await writesSince(emulator.url);
    const result = await workspace.run(['state', 'forget', 'local-selfhosted', 'Dashboard/web']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toContain(`forgot Dashboard/web (id ${before.id}): took the mark ${MARK} off its tags`);
    expect(await writesSince(emulator.url)).toBe(writes + 1);
    const after = await liveDashboard(emulator.url, 'local-selfhosted', 'web');
    expect(after.tags).toEqual(['team:web', 'tier:1']);
    expect(after.tiles).toEqual(before.tiles);
    expect(await inventory(workspace, 'local-selfhosted', 'Dashboard')).not.toHaveProperty('web');
    expect(await planChange(workspace, 'local-selfhosted', 'Dashboard', 'web')).toMatchObject({
      action: 'adopt',
      id: before.id,
    });
  });

  it('on the managed variant too, a dashboard whose only tag is the mark is left without tags', async () => {
    const before = await liveDashboard(emulator.url, 'local', 'bare');
    expect(before.tags).toEqual([MARK]);
    const result = await workspace.run(['state', 'forget', 'local', 'Dashboard/bare']);
    expect(result.code, describeRun(result)).toBe(0);
    const after = await liveDashboard(emulator.url, 'local', 'bare');
    expect(after.tags ?? []).toEqual([]);
    expect(after.tiles).toEqual(before.tiles);
    expect(await inventory(workspace, 'local', 'Dashboard')).not.toHaveProperty('bare');
    expect(await planChange(workspace, 'local', 'Dashboard', 'bare')).toMatchObject({ action: 'adopt', id: before.id });
  });

  it('lets go of an orphan without deleting it: the mark goes, and prune no longer deletes it', async () => {
    await workspace.remove('manifests/gone.yaml');
    expect(await planChange(workspace, 'local', 'Dashboard', 'gone')).toMatchObject({ action: 'orphan' });
    const result = await workspace.run(['state', 'forget', 'local', 'Dashboard/gone']);
    expect(result.code, describeRun(result)).toBe(0);
    expect((await liveDashboard(emulator.url, 'local', 'gone')).tags).toEqual(['team:ops']);
    const pruned = await workspace.run(['plan', '--prune', '--output', 'json']);
    expect(pruned.code, describeRun(pruned)).toBe(0);
    expect(parseJsonOutput(pruned).changes.filter((change) => change.name === 'gone')).toEqual([]);
  });
});

/** A source, and a saved search on it with tags of its own, on one target of the current profile. */
function shopYaml(target: TargetName): string {
  const connection = target === 'local' ? DEFAULT_CURRENT_IDS.service.connection : DEFAULT_CURRENT_IDS.team.connection;
  return `apiVersion: stacksync/v1
kind: Source
metadata: { name: shop-logs, target: ${target} }
spec:
  name: Shop logs
  kind: log
  connectionId: "${connection}"
  from: { databaseName: otel, tableName: shop_logs }
  timestampValueExpression: Timestamp
  defaultTableSelectExpression: Timestamp, Body
---
apiVersion: stacksync/v1
kind: SavedSearch
metadata: { name: shop-errors, target: ${target} }
spec:
  name: Shop errors
  source: shop-logs
  where: "level:error"
  tags: [shop, errors]
`;
}

describe('state forget on the current profile', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;

  beforeAll(async () => {
    emulator = await startTestEmulator({ profile: 'current' });
    workspace = await createWorkspace(emulator.url, {
      rateLimit: FAST,
      apiProfile: 'current',
      sync: { markManaged: true },
    });
    for (const target of TARGETS) {
      await workspace.write(`manifests/${target}/shop.yaml`, shopYaml(target));
      await workspace.write(
        `manifests/${target}/web.yaml`,
        dashboardYaml({ key: 'web', target, tags: ['team:web'] }).replace('dataSource: events', 'source: shop-logs'),
      );
    }
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it.each(TARGETS)(
    'takes the mark off a saved search and a dashboard of %s, keeps everything else, and both then plan as adopt',
    async (target) => {
      const before = await stackOf(emulator.url, target);
      const search = named(before.savedSearches, 'Shop errors');
      const dashboard = named(before.dashboards, dashboardName('web'));
      expect(search['tags']).toEqual(['shop', 'errors', MARK]);
      expect(dashboard['tags']).toEqual(['team:web', MARK]);

      const dry = await workspace.run([
        'state',
        'forget',
        target,
        'SavedSearch/shop-errors',
        'Dashboard/web',
        '--dry-run',
      ]);
      expect(dry.code, describeRun(dry)).toBe(0);
      expect(dry.stdout).toContain('would forget SavedSearch/shop-errors');
      expect(named((await stackOf(emulator.url, target)).savedSearches, 'Shop errors')['tags']).toEqual([
        'shop',
        'errors',
        MARK,
      ]);

      const result = await workspace.run(['state', 'forget', target, 'SavedSearch/shop-errors', 'Dashboard/web']);
      expect(result.code, describeRun(result)).toBe(0);
      const after = await stackOf(emulator.url, target);
      const { tags: searchTags, updatedAt: _searchUpdated, ...searchRest } = named(after.savedSearches, 'Shop errors');
      const { tags: _was, updatedAt: _searchUpdatedBefore, ...searchRestBefore } = search;
      expect(searchTags).toEqual(['shop', 'errors']);
      expect(searchRest).toEqual(searchRestBefore);
      const {
        tags: dashboardTags,
        updatedAt: _dashboardUpdated,
        ...dashboardRest
      } = named(after.dashboards, dashboardName('web'));
      const { tags: _wasToo, updatedAt: _dashboardUpdatedBefore, ...dashboardRestBefore } = dashboard;
      expect(dashboardTags).toEqual(['team:web']);
      expect(dashboardRest).toEqual(dashboardRestBefore);

      const state = (await readState(workspace.statePath)).targets[target]?.inventory;
      expect(state?.SavedSearch).not.toHaveProperty('shop-errors');
      expect(state?.Dashboard).not.toHaveProperty('web');
      expect(state?.Source).toHaveProperty('shop-logs');
      expect(await planChange(workspace, target, 'SavedSearch', 'shop-errors')).toMatchObject({
        action: 'adopt',
        id: search.id,
      });
      expect(await planChange(workspace, target, 'Dashboard', 'web')).toMatchObject({
        action: 'adopt',
        id: dashboard.id,
      });
    },
  );

  it('a kind without tags leaves the inventory without any write', async () => {
    const writes = await writesSince(emulator.url);
    const result = await workspace.run(['state', 'forget', 'local', 'Source/shop-logs']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toContain('forgot Source/shop-logs');
    expect(await writesSince(emulator.url)).toBe(writes);
    expect((await readState(workspace.statePath)).targets['local']?.inventory.Source).not.toHaveProperty('shop-logs');
  });
});

/**
 * A loopback proxy in front of the emulator that can refuse every PUT (an update) with 400, as a
 * service that will not take the update would: everything else is passed through.
 */
async function refusingProxy(
  upstream: string,
): Promise<{ url: string; refuseUpdates: (refuse: boolean) => void; close: () => Promise<void> }> {
  let refuse = false;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (refuse && request.method === 'PUT') {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 400, error: 'updates are refused here' }));
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(
          ([name, value]) => name !== 'host' && name !== 'content-length' && typeof value === 'string',
        ),
      ) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${upstream}${request.url ?? '/'}`, { method: request.method ?? 'GET', headers, ...(body ? { body } : {}) })
        .then(async (answer) => {
          const text = Buffer.from(await answer.arrayBuffer());
          const kept = Object.fromEntries(
            [...answer.headers].filter(
              ([name]) =>
                !['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name),
            ),
          );
          response.writeHead(answer.status, kept).end(text);
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refuseUpdates: (value) => {
      refuse = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('state forget when the mark cannot be taken off', () => {
  let emulator: RunningEmulator;
  let proxy: Awaited<ReturnType<typeof refusingProxy>>;
  let workspace: Workspace;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    proxy = await refusingProxy(emulator.url);
    workspace = await createWorkspace(proxy.url, { rateLimit: FAST, sync: { markManaged: true } });
    await workspace.write(
      'manifests/web.yaml',
      dashboardYaml({ key: 'web', target: 'local-selfhosted', tags: ['team:web'] }),
    );
    const applied = await workspace.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
  });
  afterAll(async () => {
    await workspace?.dispose();
    await proxy?.close();
    await emulator?.close();
  });

  it('exits 1 and keeps that resource in the inventory, its tags as they were', async () => {
    proxy.refuseUpdates(true);
    const before = await liveDashboard(emulator.url, 'local-selfhosted', 'web');
    const result = await workspace.run(['state', 'forget', 'local-selfhosted', 'Dashboard/web']);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toMatch(
      /Dashboard\/web \(id [^)]+\): its mark managed-by:stacksync could not be taken off .*; it stays in the inventory, unchanged/,
    );
    expect(await liveDashboard(emulator.url, 'local-selfhosted', 'web')).toEqual(before);
    expect((await inventory(workspace, 'local-selfhosted', 'Dashboard'))['web']?.id).toBe(before.id);
    expect((await planChange(workspace, 'local-selfhosted', 'Dashboard', 'web'))?.action).not.toBe('adopt');
  });
});
