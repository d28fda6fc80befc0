import { describe, expect, it } from 'vitest';
import {
  addIntent,
  clearIntent,
  findIntent,
  inventoryEntry,
  managedCount,
  withAdopted,
  withCreated,
  withDeleted,
  withSecretHashes,
  withSpec,
  refreshInventory,
  secretHash,
} from '../../src/state/inventory.js';
import type { TargetState } from '../../src/model/state.js';
import { emptyTargetState } from '../../src/state/empty.js';

const AT = '2026-03-15T10:20:30.000Z';
const HASH = 'b'.repeat(64);

function frozen(state: TargetState): TargetState {
  return JSON.parse(JSON.stringify(state), (_key, value: unknown) =>
    typeof value === 'object' && value !== null ? Object.freeze(value) : value,
  ) as TargetState;
}

describe('inventory transitions', () => {
  it('records the spec digest of what was applied, keeps it over a re-record, and only for what is owned', () => {
    const created = withCreated(emptyTargetState(), 'Dashboard', 'api', { id: 'd1', name: 'API' });
    const applied = withSpec(frozen(created), 'Dashboard', 'api', 'digest-1');
    expect(applied.inventory.Dashboard['api']).toEqual({ id: 'd1', name: 'API', spec: 'digest-1' });
    expect(withSpec(applied, 'Dashboard', 'api', 'digest-1')).toBe(applied);
    expect(
      withAdopted(applied, 'Dashboard', 'api', { ...applied.inventory.Dashboard['api']!, name: 'API v2' }).inventory
        .Dashboard['api'],
    ).toEqual({ id: 'd1', name: 'API v2', spec: 'digest-1' });
    expect(withSpec(applied, 'Dashboard', 'other', 'digest-2')).toBe(applied);
  });

  it('records the tenant of the manifest with its spec, takes it on for an entry written without one, and keeps it over an update of the same id', () => {
    const old = withSpec(
      withCreated(emptyTargetState(), 'Dashboard', 'api', { id: 'd1', name: 'API' }),
      'Dashboard',
      'api',
      'digest-1',
    );
    expect(old.inventory.Dashboard['api']?.tenant).toBeUndefined();
    const owned = withSpec(frozen(old), 'Dashboard', 'api', 'digest-1', false, 'payments');
    expect(owned.inventory.Dashboard['api']).toEqual({ id: 'd1', name: 'API', spec: 'digest-1', tenant: 'payments' });
    expect(withSpec(owned, 'Dashboard', 'api', 'digest-1', false, 'payments')).toBe(owned);
    expect(
      withAdopted(owned, 'Dashboard', 'api', { id: 'd1', name: 'API v2' }).inventory.Dashboard['api']?.tenant,
    ).toBe('payments');
    expect(
      withAdopted(owned, 'Dashboard', 'api', { id: 'd2', name: 'API' }).inventory.Dashboard['api']?.tenant,
    ).toBeUndefined();
    // Without tenants the entry is nobody's again.
    expect(withSpec(owned, 'Dashboard', 'api', 'digest-1').inventory.Dashboard['api']?.tenant).toBeUndefined();
  });

  it('records a create and clears its intent in one step, leaving the input untouched', () => {
    const before = frozen(addIntent(emptyTargetState(), { kind: 'Dashboard', key: 'api', name: 'API', at: AT }));
    const after = withCreated(before, 'Dashboard', 'api', { id: 'd1', name: 'API' });
    expect(after.inventory.Dashboard).toEqual({ api: { id: 'd1', name: 'API' } });
    expect(after.intents).toEqual([]);
    expect(before.intents).toHaveLength(1);
    expect(inventoryEntry(after, 'Dashboard', 'api')).toEqual({ id: 'd1', name: 'API' });
    expect(inventoryEntry(after, 'Dashboard', 'toString')).toBeUndefined();
  });

  it('replaces an intent for the same kind and key, and finds intents by key or API name', () => {
    let state = addIntent(emptyTargetState(), { kind: 'Alert', key: 'slow', name: 'Slow', at: AT });
    state = addIntent(state, { kind: 'Alert', key: 'slow', name: 'Slow v2', at: AT });
    state = addIntent(state, { kind: 'Dashboard', key: 'slow', name: 'Slow', at: AT });
    expect(state.intents).toHaveLength(2);
    expect(findIntent(state, 'Alert', { name: 'Slow v2' })?.key).toBe('slow');
    expect(findIntent(state, 'Alert', { name: 'Slow' })).toBeUndefined();
    expect(findIntent(state, 'Dashboard', { key: 'slow' })?.name).toBe('Slow');
    expect(clearIntent(state, 'Alert', 'slow').intents).toEqual([
      { kind: 'Dashboard', key: 'slow', name: 'Slow', at: AT },
    ]);
  });

  it('adopting records the id and drops any intent', () => {
    const state = withAdopted(
      addIntent(emptyTargetState(), { kind: 'Alert', key: 'a', name: 'A', at: AT }),
      'Alert',
      'a',
      { id: 'x' },
    );
    expect(state.inventory.Alert).toEqual({ a: { id: 'x' } });
    expect(state.intents).toEqual([]);
  });

  it('forgets a deleted resource together with its secret hashes only', () => {
    let state = withCreated(emptyTargetState(), 'Pipe', 'orders', { id: 'p1' });
    state = withCreated(state, 'Pipe', 'orders-2', { id: 'p2' });
    state = withSecretHashes(state, 'Pipe', 'orders', { 'source.kafka.credentials': HASH });
    state = withSecretHashes(state, 'Pipe', 'orders-2', { 'source.kafka.credentials': HASH });
    const after = withDeleted(frozen(state), 'Pipe', 'orders');
    expect(after.inventory.Pipe).toEqual({ 'orders-2': { id: 'p2' } });
    expect(after.secretHashes).toEqual({ 'Pipe/orders-2:source.kafka.credentials': HASH });
  });

  it('keeps secret hashes by kind/key:path and counts managed resources', () => {
    let state = withSecretHashes(emptyTargetState(), 'Pipe', 'orders', { 'source.kafka.credentials': HASH });
    expect(secretHash(state, 'Pipe', 'orders', 'source.kafka.credentials')).toBe(HASH);
    expect(secretHash(state, 'Pipe', 'other', 'source.kafka.credentials')).toBeUndefined();
    state = withCreated(withCreated(state, 'Alert', 'a', { id: '1' }), 'Dashboard', 'd', { id: '2' });
    expect(managedCount(state)).toBe(2);
    expect(managedCount(state, 'Alert')).toBe(1);
    expect(managedCount(emptyTargetState())).toBe(0);
  });
});

describe('refreshInventory', () => {
  const state = (): TargetState => ({
    ...emptyTargetState(),
    inventory: {
      ...emptyTargetState().inventory,
      Pipe: { orders: { id: 'p-gone' } },
      Dashboard: { live: { id: 'd1', name: 'Live' }, dead: { id: 'd-dead', name: 'Dead' } },
      Alert: { dead: { id: 'a-dead', name: 'Dead alert' } },
    },
    secretHashes: {},
    intents: [
      { kind: 'Dashboard', key: 'pending', name: 'Pending', at: '2026-11-21T00:00:00.000Z' },
      { kind: 'Alert', key: 'never', name: 'Never sent', at: '2026-11-21T00:00:00.000Z' },
    ],
  });

  const SOON = Date.parse('2026-11-21T00:05:00.000Z');
  const NEXT_DAY = Date.parse('2026-11-22T00:00:01.000Z');

  it('forgets dashboard and alert entries whose id is gone', () => {
    const next = refreshInventory(
      state(),
      {
        dashboards: [
          { id: 'd1', name: 'Live' },
          { id: 'd9', name: 'Pending' },
        ],
        alerts: [],
      },
      SOON,
    );
    expect(Object.keys(next.inventory.Dashboard)).toEqual(['live']);
    expect(next.inventory.Alert).toEqual({});
  });

  it('keeps the entries of a list a plan did not read (its collection left empty, the kind in `unread`): an unread list proves nothing gone', () => {
    const next = refreshInventory(state(), { dashboards: [], alerts: [], unread: ['Dashboard'] }, SOON);
    expect(Object.keys(next.inventory.Dashboard)).toEqual(['live', 'dead']);
    expect(next.inventory.Alert).toEqual({});
    // Nor is an intent of that kind unseen, however old.
    expect(
      refreshInventory(state(), { dashboards: [], alerts: [], unread: ['Dashboard'] }, NEXT_DAY).intents.map(
        (intent) => intent.key,
      ),
    ).toEqual(['pending']);
  });

  it('keeps an intent that names nothing live yet: a create that timed out may still land', () => {
    const next = refreshInventory(state(), { dashboards: [], alerts: [] }, SOON);
    expect(next.intents.map((intent) => intent.key)).toEqual(['pending', 'never']);
  });

  it('forgets an intent naming nothing live once it is a day old, and keeps one that names something live', () => {
    const next = refreshInventory(state(), { dashboards: [{ id: 'd9', name: 'Pending' }], alerts: [] }, NEXT_DAY);
    expect(next.intents.map((intent) => intent.key)).toEqual(['pending']);
  });

  it('forgets the intent of a manifest that is gone once its create can no longer land, even when its name is live', () => {
    const live = { dashboards: [{ id: 'd9', name: 'Pending' }], alerts: [] };
    const gone = { wanted: new Set(['Alert/never']), lateCreateWindowMs: 120_000 };
    const inWindow = Date.parse('2026-11-21T00:01:00.000Z');
    expect(refreshInventory(state(), live, inWindow, gone).intents.map((intent) => intent.key)).toEqual([
      'pending',
      'never',
    ]);
    expect(refreshInventory(state(), live, SOON, gone).intents.map((intent) => intent.key)).toEqual(['never']);
    // A create answered late waits out its own deadline.
    const late = {
      ...state(),
      intents: [
        {
          kind: 'Dashboard' as const,
          key: 'pending',
          name: 'Pending',
          at: '2026-11-21T00:00:00.000Z',
          settleUntil: '2026-11-21T00:10:00.000Z',
        },
      ],
    };
    expect(refreshInventory(late, live, SOON, gone).intents).toHaveLength(1);
    expect(refreshInventory(late, live, NEXT_DAY, gone).intents).toEqual([]);
  });

  it('forgets a vanished pipe too: a pipe born in Git is created again, and a pipeId manifest still shows it missing', () => {
    expect(refreshInventory(state(), { dashboards: [], alerts: [] }, SOON).inventory.Pipe).toEqual({
      orders: { id: 'p-gone' },
    });
    expect(refreshInventory(state(), { pipes: [], dashboards: [], alerts: [] }, SOON).inventory.Pipe).toEqual({});
  });

  it('withDeleted also clears an intent for the key', () => {
    const next = withDeleted(
      { ...state(), intents: [{ kind: 'Dashboard', key: 'dead', name: 'Dead', at: '2026-11-21T00:00:00.000Z' }] },
      'Dashboard',
      'dead',
    );
    expect(next.intents).toEqual([]);
  });
});
