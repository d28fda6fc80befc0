import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplyEvent } from '../../src/apply/events.js';
import { CHANGES_PER_REQUEST_SLOT, applyPlan, type ApplyDeps } from '../../src/apply/schedule.js';
import type { Change } from '../../src/model/plan.js';
import { nodeFs, type StateFs } from '../../src/support/fs.js';
import { withCreated } from '../../src/state/inventory.js';
import type { StateFile } from '../../src/model/state.js';
import { emptyInventory } from '../../src/state/empty.js';
import { journalPathFor, openStateStore, readDurableState, type StateStore } from '../../src/state/store.js';
import {
  TARGET,
  alertBody,
  change,
  createAlertOn,
  createDashboard,
  dashboardBody,
  deleteChange,
  tile,
} from './changes.js';
import { FakeApi, apiError } from './fake-api.js';

let dir: string;
let statePath: string;
let api: FakeApi;
let store: StateStore;
let events: ApplyEvent[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-apply-'));
  statePath = join(dir, 'state.json');
  api = new FakeApi();
  store = await openStateStore(statePath);
  events = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function apply(changes: Change[], overrides: Partial<ApplyDeps> = {}) {
  return applyPlan(changes, {
    api,
    store,
    target: TARGET,
    requestSlots: 4,
    adopt: false,
    lateCreateWindowMs: 120_000,
    onEvent: (event) => events.push(event),
    ...overrides,
  });
}

/** The state as it is durable on disk right now (state file and journal, not the store's memory). */
function onDisk(): Promise<StateFile> {
  return readDurableState(statePath);
}

function own(kind: 'Dashboard' | 'Alert', key: string, id: string): void {
  store.update(TARGET, (state) => withCreated(state, kind, key, { id }));
}

describe('applyPlan: order', () => {
  it('creates a dashboard before its alert and passes the new ids into the alert body', async () => {
    const results = await apply([createAlertOn('slow', 'api', 'p99'), createDashboard('api', ['p50', 'p99'])]);
    expect(results.get('Dashboard/api')).toEqual({ result: 'ok' });
    expect(results.get('Alert/slow')).toEqual({ result: 'ok' });
    expect(api.methods()).toEqual(['createDashboard', 'createAlert']);
    const [dashboard] = [...api.dashboards.values()];
    const [alert] = [...api.alerts.values()];
    expect(alert).toMatchObject({
      dashboardId: dashboard!.id,
      tileId: dashboard!.tiles.find((each) => each.name === 'p99')!.id,
    });
    expect((await onDisk()).targets[TARGET]!.inventory).toEqual({
      ...emptyInventory(),
      Pipe: {},
      Dashboard: { api: { id: dashboard!.id, name: 'api' } },
      Alert: { slow: { id: alert!.id, name: 'slow' } },
    });
  });

  it('takes alert ids from a dashboard update that gave a tile a fresh id', async () => {
    const live = api.seedDashboard('API', ['p99']);
    own('Dashboard', 'api', live.id);
    const update = change({
      kind: 'Dashboard',
      name: 'api',
      action: 'update',
      id: live.id,
      operations: [
        {
          type: 'updateDashboard',
          id: live.id,
          body: { name: 'API', tiles: [tile('p99', live.tiles[0]!.id), tile('errors')] },
        },
      ],
    });
    await apply([createAlertOn('errors', 'api', 'errors'), update]);
    const errorsTile = api.dashboards.get(live.id)!.tiles.find((each) => each.name === 'errors')!;
    expect([...api.alerts.values()][0]).toMatchObject({ dashboardId: live.id, tileId: errorsTile.id });
  });

  it('deletes alerts before dashboards, even without a declared dependency', async () => {
    const dashboard = api.seedDashboard('old', ['p99']);
    const alert = api.seedAlert(alertBody('old-alert', { dashboardId: dashboard.id, tileId: dashboard.tiles[0]!.id }));
    own('Dashboard', 'old', dashboard.id);
    own('Alert', 'old-alert', alert.id);
    const results = await apply([
      deleteChange('Dashboard', 'old', dashboard.id),
      deleteChange('Alert', 'old-alert', alert.id),
    ]);
    // Not merely started first: the dashboard delete waits until the alert delete has finished.
    expect(api.timeline).toEqual([
      'start:deleteAlert',
      'end:deleteAlert',
      'start:deleteDashboard',
      'end:deleteDashboard',
    ]);
    expect([...results.values()]).toEqual([{ result: 'ok' }, { result: 'ok' }]);
    expect((await onDisk()).targets[TARGET]!.inventory).toEqual(emptyInventory());
  });

  it('removes postgres mappings before adding them, whatever order the operations came in', async () => {
    const mapping = { sourceSchemaName: 'public', sourceTable: 'invoices', targetTable: 'invoices' };
    api.seedPipe({
      id: 'p1',
      name: 'billing',
      source: { kind: 'postgres', block: { tableMappings: [mapping] } },
      destination: {},
    });
    const pipeChange = change({
      kind: 'Pipe',
      name: 'billing',
      action: 'update',
      id: 'p1',
      operations: [
        {
          type: 'updatePipe',
          id: 'p1',
          step: 'add-mappings',
          patch: { source: { postgres: { tableMappingsToAdd: [{ ...mapping, targetTable: 'invoices_v2' }] } } },
        },
        {
          type: 'updatePipe',
          id: 'p1',
          step: 'remove-mappings',
          patch: { source: { postgres: { tableMappingsToRemove: [mapping] } } },
        },
      ],
    });
    const results = await apply([pipeChange]);
    expect(results.get('Pipe/billing')).toEqual({ result: 'ok' });
    const steps = api.calls.map(
      (call) => Object.keys((call.body as { source: { postgres: object } }).source.postgres)[0],
    );
    expect(steps).toEqual(['tableMappingsToRemove', 'tableMappingsToAdd']);
    expect(api.pipes.get('p1')!.source.block['tableMappings']).toEqual([{ ...mapping, targetTable: 'invoices_v2' }]);
    expect((await onDisk()).targets[TARGET]!.inventory.Pipe).toEqual({ billing: { id: 'p1', name: 'billing' } });
  });

  it('keeps concurrency within the bound and uses it', async () => {
    // No pacer in front of this API: the requests out are those of the changes running.
    const changes = Array.from({ length: 40 }, (_, index) => createDashboard(`d${index}`));
    const results = await apply(changes, { requestSlots: 3 });
    expect([...results.values()].every((result) => result.result === 'ok')).toBe(true);
    expect(api.maxInFlight).toBeLessThanOrEqual(3 * CHANGES_PER_REQUEST_SLOT);
    expect(api.maxInFlight).toBeGreaterThan(1);
    expect(api.dashboards.size).toBe(40);
  });

  it('starts a few changes per request slot, not every ready change at once, and keeps every slot busy', async () => {
    const changes = Array.from({ length: 200 }, (_, index) => createDashboard(`d${index}`));
    const results = await apply(changes, { requestSlots: 2 });
    expect([...results.values()].filter((result) => result.result === 'ok')).toHaveLength(200);
    let started = 0;
    let most = 0;
    for (const event of events) {
      if (event.type === 'change-started') most = Math.max(most, ++started);
      if (event.type === 'change-succeeded' || event.type === 'change-failed' || event.type === 'change-skipped')
        started--;
    }
    // A few per slot: enough that a slot never waits for a change to start.
    expect(most).toBeLessThanOrEqual(2 * CHANGES_PER_REQUEST_SLOT);
    expect(most).toBeLessThan(200);
    expect(most).toBeGreaterThan(2);
    expect(api.maxInFlight).toBe(2 * CHANGES_PER_REQUEST_SLOT);
  });

  it('lets others start while changes wait: a wait holds no place among the changes started', async () => {
    // One slot, so CHANGES_PER_REQUEST_SLOT started at once; more than that wait for pipes that appear only once the other three are renamed.
    const waiting = Array.from({ length: CHANGES_PER_REQUEST_SLOT + 2 }, (_, index) =>
      change({
        kind: 'Pipe',
        name: `p${index}`,
        action: 'update',
        id: `p${index}`,
        operations: [{ type: 'stopPipe', id: `p${index}`, body: {}, awaitPresence: 'it appears later' }],
      }),
    );
    const renames = Array.from({ length: 3 }, (_, index) => {
      api.seedPipe({ id: `q${index}`, name: `old-q${index}`, source: { kind: 'kafka', block: {} }, destination: {} });
      return change({
        kind: 'Pipe',
        name: `q${index}`,
        action: 'update',
        id: `q${index}`,
        operations: [{ type: 'updatePipe', id: `q${index}`, patch: { name: `q${index}` } }],
      });
    });
    const renamed = (): boolean => renames.every((each) => api.pipes.get(each.id!)?.name === each.name);
    const sleep = async (): Promise<void> => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (!renamed()) return;
      for (const each of waiting)
        if (!api.pipes.has(each.id!))
          api.seedPipe({
            id: each.id!,
            name: each.name,
            state: 'Running',
            source: { kind: 'kafka', block: {} },
            destination: {},
          });
    };
    const results = await apply([...waiting, ...renames], {
      requestSlots: 1,
      sleep,
      wait: { timeoutMs: 5_000, followLast: false, intervalMs: 1, maxIntervalMs: 1 },
    });
    expect(Object.fromEntries(results)).toEqual(
      Object.fromEntries([...waiting, ...renames].map((each) => [`Pipe/${each.name}`, { result: 'ok' }])),
    );
    expect(waiting.map((each) => api.pipes.get(each.id!)?.state)).toEqual(Array(waiting.length).fill('Stopped'));
  });

  it('runs CHANGES_PER_REQUEST_SLOT changes at a time with one request slot', async () => {
    await apply(
      Array.from({ length: 3 * CHANGES_PER_REQUEST_SLOT }, (_, index) => createDashboard(`d${index}`)),
      { requestSlots: 1 },
    );
    expect(api.maxInFlight).toBe(CHANGES_PER_REQUEST_SLOT);
  });
});

describe('applyPlan: failures', () => {
  it('isolates a failure and skips what depends on it, naming the failed dependency', async () => {
    api.fail('createDashboard', apiError('E_API_VALIDATION', 400, 'tiles[0].w: must be <= 24'), {
      match: (call) => call.name === 'broken',
    });
    const results = await apply([
      createDashboard('broken'),
      createDashboard('fine'),
      createAlertOn('on-broken', 'broken', 'p99'),
      createAlertOn('on-fine', 'fine', 'p99'),
    ]);
    expect(results.get('Dashboard/broken')).toEqual({
      result: 'failed',
      code: 'E_API_VALIDATION',
      error: 'tiles[0].w: must be <= 24',
    });
    expect(results.get('Alert/on-broken')).toEqual({
      result: 'skipped',
      code: 'E_DEPENDENCY_FAILED',
      error: 'depends on Dashboard/broken, which failed',
    });
    expect(results.get('Dashboard/fine')).toEqual({ result: 'ok' });
    expect(results.get('Alert/on-fine')).toEqual({ result: 'ok' });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'change-skipped',
        key: 'Alert/on-broken',
        reason: 'dependency',
        code: 'E_DEPENDENCY_FAILED',
      }),
    );
    expect(api.calls.filter((call) => call.method === 'createAlert').map((call) => call.name)).toEqual(['on-fine']);
  });

  it('skips changes that depend on a planning error, and reports unchanged ones ok without calls', async () => {
    const broken = change({
      kind: 'Dashboard',
      name: 'api',
      action: 'error',
      code: 'E_MANIFEST_INVALID',
      error: 'tile "p99" is defined twice',
    });
    const unchanged = change({ kind: 'Dashboard', name: 'same', action: 'unchanged', id: 'd9' });
    const results = await apply([broken, unchanged, createAlertOn('slow', 'api', 'p99')]);
    expect(results.get('Dashboard/api')).toEqual({
      result: 'failed',
      code: 'E_MANIFEST_INVALID',
      error: 'tile "p99" is defined twice',
    });
    expect(results.get('Dashboard/same')).toEqual({ result: 'ok' });
    expect(results.get('Alert/slow')).toMatchObject({
      result: 'skipped',
      error: 'depends on Dashboard/api, which failed',
    });
    expect(api.calls).toEqual([]);
  });

  it('skips transitively: a skipped change makes its dependents skipped too', async () => {
    api.fail('createDashboard', apiError('E_API_UNAVAILABLE', 503));
    const second = change({ ...createAlertOn('second', 'api', 'p99'), dependsOn: ['Dashboard/api', 'Alert/first'] });
    const results = await apply([createDashboard('api'), createAlertOn('first', 'api', 'p99'), second]);
    expect(results.get('Alert/second')).toEqual({
      result: 'skipped',
      code: 'E_DEPENDENCY_FAILED',
      error: expect.stringMatching(/^depends on (Dashboard\/api, which failed|Alert\/first, which was skipped)$/),
    });
  });

  it('fails the changes in a dependency cycle and skips their dependents, running the rest', async () => {
    const a = change({
      kind: 'Dashboard',
      name: 'a',
      action: 'update',
      id: 'x',
      dependsOn: ['Dashboard/b'],
      operations: [{ type: 'updateDashboard', id: 'x', body: dashboardBody('a', []) }],
    });
    const b = change({
      kind: 'Dashboard',
      name: 'b',
      action: 'update',
      id: 'y',
      dependsOn: ['Dashboard/a'],
      operations: [{ type: 'updateDashboard', id: 'y', body: dashboardBody('b', []) }],
    });
    const results = await apply([a, b, createAlertOn('on-a', 'a', 'p99'), createDashboard('other')]);
    expect(results.get('Dashboard/a')).toMatchObject({
      result: 'failed',
      error: expect.stringContaining('dependency cycle'),
    });
    expect(results.get('Dashboard/b')).toMatchObject({ result: 'failed' });
    expect(results.get('Alert/on-a')).toMatchObject({ result: 'skipped' });
    expect(results.get('Dashboard/other')).toEqual({ result: 'ok' });
  });

  it('keeps a failed delete in the inventory so the next run retries it', async () => {
    const alert = api.seedAlert(alertBody('old', { dashboardId: api.seedDashboard('x', ['t']).id, tileId: 't2' }));
    own('Alert', 'old', alert.id);
    api.fail('deleteAlert', apiError('E_API_UNAVAILABLE', 503, 'service unavailable past the retry budget'));
    const results = await apply([deleteChange('Alert', 'old', alert.id)]);
    expect(results.get('Alert/old')).toEqual({
      result: 'failed',
      code: 'E_API_UNAVAILABLE',
      error: 'service unavailable past the retry budget',
    });
    expect(store.get(TARGET).inventory.Alert).toEqual({ old: { id: alert.id } });
  });

  it('treats a 404 on delete as already gone and forgets the resource', async () => {
    own('Alert', 'gone', 'a-unknown');
    const results = await apply([deleteChange('Alert', 'gone', 'a-unknown')]);
    expect(results.get('Alert/gone')).toEqual({ result: 'ok' });
    expect(api.methods()).toEqual(['deleteAlert']);
    expect((await onDisk()).targets[TARGET]!.inventory.Alert).toEqual({});
  });

  it('recreates an alert whose update finds it gone (its tile was removed by this run)', async () => {
    const live = api.seedDashboard('API', ['old-tile']);
    const alert = api.seedAlert(alertBody('slow', { dashboardId: live.id, tileId: live.tiles[0]!.id }));
    own('Dashboard', 'api', live.id);
    own('Alert', 'slow', alert.id);
    const dashboardUpdate = change({
      kind: 'Dashboard',
      name: 'api',
      action: 'update',
      id: live.id,
      operations: [{ type: 'updateDashboard', id: live.id, body: { name: 'API', tiles: [tile('new-tile')] } }],
    });
    const alertUpdate = change({
      kind: 'Alert',
      name: 'slow',
      action: 'update',
      id: alert.id,
      dependsOn: ['Dashboard/api'],
      operations: [
        {
          type: 'updateAlert',
          id: alert.id,
          body: alertBody('slow'),
          refs: { dashboard: 'Dashboard/api', tile: 'new-tile' },
        },
      ],
    });
    const results = await apply([alertUpdate, dashboardUpdate]);
    expect(results.get('Alert/slow')).toEqual({ result: 'ok' });
    expect(api.methods()).toEqual(['updateDashboard', 'updateAlert', 'createAlert']);
    const [recreated] = [...api.alerts.values()];
    expect(recreated!.tileId).toBe(api.dashboards.get(live.id)!.tiles[0]!.id);
    expect((await onDisk()).targets[TARGET]!.inventory.Alert).toEqual({ slow: { id: recreated!.id, name: 'slow' } });
  });

  it('moves an alert off a tile before the dashboard update that drops it, when the planner asks so', async () => {
    const live = api.seedDashboard('API', ['old-tile', 'kept']);
    const [oldTile, kept] = live.tiles;
    const alert = api.seedAlert(alertBody('slow', { dashboardId: live.id, tileId: oldTile!.id }));
    own('Dashboard', 'api', live.id);
    own('Alert', 'slow', alert.id);
    // The planner's shape: the dashboard (rank 1) depends on the alert write (rank 2).
    const dashboardUpdate = change({
      kind: 'Dashboard',
      name: 'api',
      action: 'update',
      id: live.id,
      dependsOn: ['Alert/slow'],
      operations: [{ type: 'updateDashboard', id: live.id, body: { name: 'API', tiles: [tile('kept', kept!.id)] } }],
    });
    const alertMove = change({
      kind: 'Alert',
      name: 'slow',
      action: 'update',
      id: alert.id,
      operations: [
        { type: 'updateAlert', id: alert.id, body: alertBody('slow', { dashboardId: live.id, tileId: kept!.id }) },
      ],
    });
    const results = await apply([dashboardUpdate, alertMove]);
    expect([...results.values()]).toEqual([{ result: 'ok' }, { result: 'ok' }]);
    expect(api.timeline).toEqual([
      'start:updateAlert',
      'end:updateAlert',
      'start:updateDashboard',
      'end:updateDashboard',
    ]);
    expect(api.alerts.get(alert.id)).toMatchObject({ tileId: kept!.id });
  });

  it('reports an alert ref to a tile the written dashboard lacks as unresolved, without calling the API', async () => {
    const results = await apply([createDashboard('api', ['p50']), createAlertOn('slow', 'api', 'p99')]);
    expect(results.get('Alert/slow')).toMatchObject({
      result: 'failed',
      error: expect.stringContaining('no tile named "p99"'),
    });
    expect(api.methods()).toEqual(['createDashboard']);
    expect(store.get(TARGET).intents).toEqual([]);
  });
});

describe('applyPlan: crash safety', () => {
  it('has the create intent on disk before the create is sent, and clears it after', async () => {
    const seen: StateFile[] = [];
    api.gate = async (call) => {
      if (call.method === 'createDashboard') seen.push(await onDisk());
    };
    await apply([createDashboard('api', ['p99'], 'API latency')]);
    expect(seen[0]!.targets[TARGET]!.intents).toEqual([
      { kind: 'Dashboard', key: 'api', name: 'API latency', at: expect.any(String) },
    ]);
    expect(seen[0]!.targets[TARGET]!.inventory.Dashboard).toEqual({});
    const after = (await onDisk()).targets[TARGET]!;
    expect(after.intents).toEqual([]);
    expect(after.inventory.Dashboard).toEqual({ api: { id: [...api.dashboards.keys()][0], name: 'API latency' } });
  });

  it('clears the intent when the API certainly created nothing', async () => {
    api.fail('createAlert', apiError('E_API_VALIDATION', 400, 'threshold must be a number'));
    await apply([
      change({
        kind: 'Alert',
        name: 'a',
        action: 'create',
        operations: [{ type: 'createAlert', body: alertBody('a', {}) }],
      }),
    ]);
    expect((await onDisk()).targets[TARGET]!.intents).toEqual([]);
  });

  it('does not send a create whose intent could not be saved', async () => {
    // A full disk: nothing can be created or appended to.
    const full = (): Promise<never> => Promise.reject(Object.assign(new Error('full'), { code: 'ENOSPC' }));
    const brokenFs: StateFs = {
      ...nodeFs,
      open: (path, flags, mode) => (flags === 'r' ? nodeFs.open(path, flags, mode) : full()),
      rename: full,
    };
    const brokenStore = await openStateStore(statePath, { fs: brokenFs });
    const results = await apply([createDashboard('api')], { store: brokenStore });
    expect(results.get('Dashboard/api')).toMatchObject({
      result: 'failed',
      error: expect.stringContaining('could not be written'),
    });
    expect(api.calls).toEqual([]);
  });

  it('recovers an ambiguous create that took effect by looking it up by name: exactly one dashboard', async () => {
    api.seedDashboard('someone-elses', ['x']);
    api.ambiguous('createDashboard', true);
    const results = await apply([createDashboard('api', ['p99'], 'API latency')]);
    expect(results.get('Dashboard/api')).toEqual({ result: 'ok' });
    expect(api.methods()).toEqual(['createDashboard', 'listDashboards']);
    const ours = [...api.dashboards.values()].filter((dashboard) => dashboard.name === 'API latency');
    expect(ours).toHaveLength(1);
    expect((await onDisk()).targets[TARGET]!.inventory.Dashboard).toEqual({
      api: { id: ours[0]!.id, name: 'API latency' },
    });
    expect((await onDisk()).targets[TARGET]!.intents).toEqual([]);
  });

  it.each([
    ['Dashboard', () => createDashboard('api', ['p99'], 'API latency'), 'createDashboard', 'listDashboards'],
    [
      'Alert',
      () =>
        change({
          kind: 'Alert',
          name: 'a',
          action: 'create',
          operations: [{ type: 'createAlert', body: alertBody('API latency', {}) }],
        }),
      'createAlert',
      'listAlerts',
    ],
  ] as const)(
    'never sends an ambiguous %s create again in the same run: it fails, and the intent stays pending',
    async (kind, make, create, list) => {
      // The first request may still be held by a proxy and land later: a second create would make two.
      api.ambiguous(create, false, 5);
      const results = await apply([make()]);
      const key = `${kind}/${kind === 'Alert' ? 'a' : 'api'}` as const;
      expect(results.get(key)).toMatchObject({
        result: 'failed',
        code: 'E_API_AMBIGUOUS',
        error: expect.stringContaining('not sent again'),
      });
      expect(api.methods()).toEqual([create, list]);
      const [intent] = (await onDisk()).targets[TARGET]!.intents;
      expect(intent).toEqual({
        kind,
        key: key.split('/')[1],
        name: 'API latency',
        at: expect.any(String),
        settleUntil: expect.any(String),
      });
      // It may land until the settle window after it was sent: later runs wait that long.
      expect(Date.parse(intent!.settleUntil!) - Date.parse(intent!.at)).toBe(120_000);
    },
  );

  it('records no settle deadline when the create cannot land later (a reset, a 500): the next run may create it at once', async () => {
    api.ambiguous('createDashboard', false, 1, false);
    const results = await apply([createDashboard('api', ['p99'], 'API latency')]);
    expect(results.get('Dashboard/api')).toMatchObject({
      result: 'failed',
      code: 'E_API_AMBIGUOUS',
      error: expect.stringContaining('not sent again'),
    });
    expect((await onDisk()).targets[TARGET]!.intents).toEqual([
      { kind: 'Dashboard', key: 'api', name: 'API latency', at: expect.any(String) },
    ]);
  });

  it('fails an ambiguous create as a conflict when the lookup finds two of that name, keeping the intent', async () => {
    api.seedDashboard('API latency', ['x']);
    api.ambiguous('createDashboard', true);
    const results = await apply([createDashboard('api', ['p99'], 'API latency')]);
    expect(results.get('Dashboard/api')).toMatchObject({
      result: 'failed',
      code: 'E_CONFLICT',
      error: expect.stringContaining('2 live Dashboards are named "API latency"'),
    });
    expect(api.methods()).toEqual(['createDashboard', 'listDashboards']);
    expect((await onDisk()).targets[TARGET]!.intents).toHaveLength(1);
    expect((await onDisk()).targets[TARGET]!.inventory.Dashboard).toEqual({});
  });

  it('keeps the intent of an ambiguous create whose lookup fails', async () => {
    api.ambiguous('createDashboard', false);
    api.fail('listDashboards', apiError('E_API_UNAVAILABLE', 503, 'down'));
    const results = await apply([createDashboard('api', ['p99'], 'API latency')]);
    expect(results.get('Dashboard/api')).toMatchObject({
      result: 'failed',
      code: 'E_API_AMBIGUOUS',
      error: expect.stringContaining('looking it up by name failed too'),
    });
    expect(api.methods()).toEqual(['createDashboard', 'listDashboards']);
    expect((await onDisk()).targets[TARGET]!.intents).toHaveLength(1);
  });

  it('on cancellation starts nothing new, finishes what is in flight and leaves a consistent saved state', async () => {
    const controller = new AbortController();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    api.gate = async (call) => {
      if (call.name !== 'd0') return;
      controller.abort();
      await held;
    };
    // One request slot: the first CHANGES_PER_REQUEST_SLOT dashboards run at once, the rest wait for a place.
    const running = Array.from({ length: CHANGES_PER_REQUEST_SLOT }, (_, index) => `d${index}`);
    const later = [`d${CHANGES_PER_REQUEST_SLOT}`, `d${CHANGES_PER_REQUEST_SLOT + 1}`];
    const pending = apply(
      [...[...running, ...later].map((name) => createDashboard(name)), createAlertOn('a0', 'd0', 'p99')],
      {
        requestSlots: 1,
        signal: controller.signal,
      },
    );
    release();
    const results = await pending;
    for (const name of running) expect(results.get(`Dashboard/${name}`)).toEqual({ result: 'ok' });
    for (const key of [...later.map((name) => `Dashboard/${name}` as const), 'Alert/a0' as const])
      expect(results.get(key)).toEqual({ result: 'skipped', code: 'E_CANCELLED', error: 'cancelled' });
    expect(api.methods()).toEqual(running.map(() => 'createDashboard'));
    const saved = (await openStateStore(statePath)).get(TARGET);
    expect(Object.keys(saved.inventory.Dashboard).sort()).toEqual([...running].sort());
    expect(saved.intents).toEqual([]);
  });

  it('stops a multi-operation change between operations when cancelled, keeping what ran', async () => {
    const mapping = { sourceSchemaName: 'public', sourceTable: 'invoices', targetTable: 'invoices' };
    api.seedPipe({
      id: 'p1',
      name: 'billing',
      source: { kind: 'postgres', block: { tableMappings: [mapping] } },
      destination: {},
    });
    const controller = new AbortController();
    api.gate = () => controller.abort();
    const results = await apply(
      [
        change({
          kind: 'Pipe',
          name: 'billing',
          action: 'update',
          id: 'p1',
          operations: [
            {
              type: 'updatePipe',
              id: 'p1',
              step: 'remove-mappings',
              patch: { source: { postgres: { tableMappingsToRemove: [mapping] } } },
            },
            {
              type: 'updatePipe',
              id: 'p1',
              step: 'add-mappings',
              patch: { source: { postgres: { tableMappingsToAdd: [{ ...mapping, targetTable: 'v2' }] } } },
            },
          ],
        }),
      ],
      { signal: controller.signal },
    );
    expect(results.get('Pipe/billing')).toEqual({
      result: 'skipped',
      code: 'E_CANCELLED',
      error: 'cancelled after 1 of 2 operations',
    });
    expect(api.calls).toHaveLength(1);
    expect((await onDisk()).targets[TARGET]!.inventory.Pipe).toEqual({ billing: { id: 'p1', name: 'billing' } });
  });
});

describe('applyPlan: adoption and secrets', () => {
  function adoptChange(id: string, extra: Partial<Change> = {}): Change {
    return change({
      kind: 'Dashboard',
      name: 'api',
      action: 'adopt',
      id,
      liveName: 'API',
      operations: [{ type: 'updateDashboard', id, body: { name: 'API', tiles: [tile('p99')] } }],
      ...extra,
    });
  }

  it('leaves a same-named live resource alone without --adopt, as a conflict', async () => {
    const live = api.seedDashboard('API', []);
    const results = await apply([adoptChange(live.id), createAlertOn('slow', 'api', 'p99')]);
    expect(results.get('Dashboard/api')).toEqual({
      result: 'skipped',
      code: 'E_CONFLICT',
      error: 'conflict: a live Dashboard named "API" exists that stacksync does not manage; re-run with --adopt',
    });
    expect(results.get('Alert/slow')).toMatchObject({ result: 'skipped' });
    expect(api.calls).toEqual([]);
    expect(store.get(TARGET).inventory.Dashboard).toEqual({});
  });

  it('takes it over with --adopt, or silently when it was reclaimed from an intent', async () => {
    const live = api.seedDashboard('API', []);
    await apply([adoptChange(live.id)], { adopt: true });
    expect((await onDisk()).targets[TARGET]!.inventory.Dashboard).toEqual({ api: { id: live.id, name: 'API' } });
    expect(api.methods()).toEqual(['updateDashboard']);

    const other = api.seedDashboard('Other', []);
    const reclaimed = change({
      kind: 'Dashboard',
      name: 'other',
      action: 'adopt',
      id: other.id,
      liveName: 'Other',
      reclaimed: true,
    });
    const results = await apply([reclaimed], { adopt: false });
    expect(results.get('Dashboard/other')).toEqual({ result: 'ok' });
    expect((await onDisk()).targets[TARGET]!.inventory.Dashboard['other']).toEqual({ id: other.id, name: 'Other' });
  });

  it('records a reclaimed unchanged resource and drops its intent, without API calls', async () => {
    store.update(TARGET, (state) => ({
      ...state,
      intents: [{ kind: 'Alert', key: 'a', name: 'A', at: '2026-01-01T00:00:00.000Z' }],
    }));
    const results = await apply([
      change({ kind: 'Alert', name: 'a', action: 'unchanged', id: 'a7', liveName: 'A', reclaimed: true }),
    ]);
    expect(results.get('Alert/a')).toEqual({ result: 'ok' });
    expect(api.calls).toEqual([]);
    expect((await onDisk()).targets[TARGET]!).toMatchObject({
      intents: [],
      inventory: { Alert: { a: { id: 'a7', name: 'A' } } },
    });
  });

  it('records secret hashes after success, and never a secret value in state or events', async () => {
    api.seedPipe({ id: 'p1', name: 'orders', source: { kind: 'kafka', block: {} }, destination: {} });
    const hash = 'c'.repeat(64);
    const pipeChange = change({
      kind: 'Pipe',
      name: 'orders',
      action: 'update',
      id: 'p1',
      secretHashes: { 'source.kafka.credentials': hash },
      operations: [
        {
          type: 'updatePipe',
          id: 'p1',
          patch: { source: { kafka: { credentials: { username: 'svc', password: 'hunter2-top-secret' } } } },
        },
      ],
    });
    await apply([pipeChange]);
    const text = [
      await readFile(statePath, 'utf8').catch(() => ''),
      await readFile(journalPathFor(statePath), 'utf8').catch(() => ''),
    ].join('\n');
    expect(text).toContain('c'.repeat(64));
    expect(text).not.toContain('hunter2-top-secret');
    expect((await onDisk()).targets[TARGET]!.secretHashes).toEqual({ 'Pipe/orders:source.kafka.credentials': hash });
    expect(JSON.stringify(events)).not.toContain('hunter2-top-secret');
  });

  it('does not record secret hashes of a change that failed', async () => {
    api.seedPipe({ id: 'p1', name: 'orders', source: { kind: 'kafka', block: {} }, destination: {} });
    api.fail('updatePipe', apiError('E_API_VALIDATION', 400, 'brokers cannot be changed'));
    await apply([
      change({
        kind: 'Pipe',
        name: 'orders',
        action: 'update',
        id: 'p1',
        secretHashes: { x: 'c'.repeat(64) },
        operations: [{ type: 'updatePipe', id: 'p1', patch: {} }],
      }),
    ]);
    expect(store.get(TARGET).secretHashes).toEqual({});
  });
});

describe('applyPlan: events', () => {
  it('reports start, operations and finish of each change with timings and a summary', async () => {
    let now = 1_000;
    const clock = (): number => (now += 10);
    api.fail('createDashboard', apiError('E_API_VALIDATION', 400, 'bad'), { match: (call) => call.name === 'bad' });
    await apply(
      [
        createDashboard('good'),
        createDashboard('bad'),
        change({ kind: 'Dashboard', name: 'same', action: 'unchanged' }),
      ],
      { clock, requestSlots: 1 },
    );
    const types = events.filter((event) => 'key' in event && event.key === 'Dashboard/good').map((event) => event.type);
    expect(types).toEqual(['change-started', 'operation-started', 'operation-succeeded', 'change-succeeded']);
    expect(events[0]).toMatchObject({ type: 'apply-started', target: TARGET, total: 2 });
    expect(events.find((event) => event.type === 'operation-failed')).toMatchObject({
      key: 'Dashboard/bad',
      call: 'createDashboard',
      code: 'E_API_VALIDATION',
      error: 'bad',
    });
    const succeeded = events.find((event) => event.type === 'change-succeeded');
    expect(succeeded).toMatchObject({ durationMs: expect.any(Number) });
    expect((succeeded as { durationMs: number }).durationMs).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({
      type: 'apply-finished',
      summary: { created: 1, updated: 0, deleted: 0, adopted: 0, failed: 1, skipped: 0 },
    });
  });

  it('finishes an empty plan at once without writing state', async () => {
    const results = await apply([]);
    expect(results.size).toBe(0);
    expect(events.map((event) => event.type)).toEqual(['apply-started', 'apply-finished']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves out changes of other targets', async () => {
    const results = await apply([{ ...createDashboard('elsewhere'), target: 'staging' }, createDashboard('here')]);
    expect([...results.keys()]).toEqual(['Dashboard/here']);
    expect(api.calls.map((call) => call.name)).toEqual(['here']);
  });
});
