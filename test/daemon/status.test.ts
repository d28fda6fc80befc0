import { describe, expect, it } from 'vitest';
import { createMetrics, initTargetMetrics } from '../../src/daemon/metrics.js';
import type { ResourceObservation, ResourceStatusEntry } from '../../src/daemon/status.js';
import type { Kind } from '../../src/model/kinds.js';
import { KINDS } from '../../src/kinds/registry.js';
import {
  countByStatus,
  createStatusTracker,
  driftAges,
  mergeResources,
  recordStatusMetrics,
  withRateLimitWaits,
} from '../../src/daemon/status.js';

/** Every kind with `value`, as the status document lists them, then the given ones. */
function everyKind<T>(value: T, given: Partial<Record<Kind, T>> = {}): Record<Kind, T> {
  return { ...Object.fromEntries(KINDS.map((kind) => [kind, value])), ...given } as Record<Kind, T>;
}

const T0 = Date.parse('2026-03-15T10:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

function clock(start = T0): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => void (time += ms) };
}

const dash = (
  name: string,
  status: ResourceObservation['status'],
  extra: Partial<ResourceObservation> = {},
): ResourceObservation => ({
  kind: 'Dashboard',
  name,
  status,
  ...extra,
});

describe('createStatusTracker', () => {
  it('starts not ready, with every target listed and nothing synced', () => {
    const tracker = createStatusTracker(['prod', 'lab'], clock().now);
    const doc = tracker.document();
    expect(doc).toEqual({
      version: 1,
      generatedAt: iso(T0),
      ready: false,
      targets: { prod: { syncing: false, resources: [] }, lab: { syncing: false, resources: [] } },
    });
    expect(tracker.ready()).toBe(false);
  });

  it('becomes ready only when every target finished a sync, whatever its result', () => {
    const tracker = createStatusTracker(['prod', 'lab'], clock().now);
    tracker.syncStarted('prod');
    expect(tracker.target('prod')?.syncing).toBe(true);
    tracker.syncFinished('prod', { ok: true, resources: [] });
    expect(tracker.ready()).toBe(false);
    tracker.syncFinished('lab', { ok: false, error: 'connect ECONNREFUSED' });
    expect(tracker.ready()).toBe(true);
    expect(tracker.document().ready).toBe(true);
  });

  it('records times, result, revision and keeps the last error after a success', () => {
    const time = clock();
    const tracker = createStatusTracker(['prod'], time.now);
    tracker.syncStarted('prod');
    tracker.syncFinished('prod', { ok: false, error: 'E_API_UNAVAILABLE: 503', revision: 'aaa' });
    time.advance(60_000);
    tracker.syncFinished('prod', {
      ok: true,
      revision: 'bbb',
      resources: [dash('api', 'in_sync', { id: 'd1', file: 'm/a.yaml', line: 1 })],
    });
    expect(tracker.target('prod')).toEqual({
      syncing: false,
      lastSyncAt: iso(T0 + 60_000),
      lastResult: 'success',
      lastSuccessAt: iso(T0 + 60_000),
      lastError: 'E_API_UNAVAILABLE: 503',
      lastErrorAt: iso(T0),
      revision: 'bbb',
      resources: [{ kind: 'Dashboard', name: 'api', status: 'in_sync', id: 'd1', file: 'm/a.yaml', line: 1 }],
    });
  });

  it('keeps the last known resources when a sync could not tell', () => {
    const tracker = createStatusTracker(['prod'], clock().now);
    tracker.syncFinished('prod', { ok: true, resources: [dash('api', 'in_sync')] });
    tracker.syncFinished('prod', { ok: false, error: 'down' });
    expect(tracker.target('prod')?.resources).toEqual([dash('api', 'in_sync')]);
    expect(tracker.target('prod')?.lastResult).toBe('failure');
  });

  it('hands out copies, not its own state', () => {
    const tracker = createStatusTracker(['prod'], clock().now);
    tracker.document().targets['prod']!.syncing = true;
    expect(tracker.target('prod')?.syncing).toBe(false);
  });

  it('refuses an unknown target', () => {
    const tracker = createStatusTracker(['prod'], clock().now);
    expect(() => tracker.syncStarted('nope')).toThrow(/unknown target nope/);
    expect(tracker.target('nope')).toBeUndefined();
  });

  it('keeps the drift start across syncs while the drift lasts', () => {
    const time = clock();
    const tracker = createStatusTracker(['prod'], time.now);
    tracker.syncFinished('prod', { ok: true, resources: [dash('api', 'drifted')] });
    time.advance(300_000);
    tracker.syncFinished('prod', { ok: true, resources: [dash('api', 'drifted')] });
    expect(tracker.target('prod')?.resources[0]?.driftSince).toBe(iso(T0));
    tracker.syncFinished('prod', { ok: true, resources: [dash('api', 'in_sync')] });
    time.advance(1000);
    tracker.syncFinished('prod', { ok: true, resources: [dash('api', 'drifted')] });
    expect(tracker.target('prod')?.resources[0]?.driftSince).toBe(iso(T0 + 301_000));
  });
});

describe('mergeResources', () => {
  it('sorts by kind rank then name and dates only drifted resources', () => {
    const observed: ResourceObservation[] = [
      { kind: 'Alert', name: 'b', status: 'drifted' },
      dash('z', 'error', { error: 'E_MANIFEST_INVALID' }),
      { kind: 'Pipe', name: 'p', status: 'in_sync' },
      dash('a', 'drifted'),
    ];
    const previous: ResourceStatusEntry[] = [
      { kind: 'Dashboard', name: 'a', status: 'drifted', driftSince: 'earlier' },
    ];
    expect(mergeResources(previous, observed, 'now')).toEqual([
      { kind: 'Pipe', name: 'p', status: 'in_sync' },
      { kind: 'Dashboard', name: 'a', status: 'drifted', driftSince: 'earlier' },
      { kind: 'Dashboard', name: 'z', status: 'error', error: 'E_MANIFEST_INVALID' },
      { kind: 'Alert', name: 'b', status: 'drifted', driftSince: 'now' },
    ]);
  });
});

describe('countByStatus', () => {
  it('counts every kind and status, zeros included', () => {
    const counts = countByStatus([
      dash('a', 'in_sync'),
      dash('b', 'in_sync'),
      dash('c', 'error'),
      { kind: 'Alert', name: 'x', status: 'drifted' },
      dash('d', 'orphan'),
    ]);
    const none = { in_sync: 0, drifted: 0, error: 0, orphan: 0, suspended: 0 };
    expect(counts).toEqual(
      everyKind(none, {
        Dashboard: { in_sync: 2, drifted: 0, error: 1, orphan: 1, suspended: 0 },
        Alert: { in_sync: 0, drifted: 1, error: 0, orphan: 0, suspended: 0 },
      }),
    );
  });
});

describe('driftAges', () => {
  it.each([
    ['nothing drifted', [dash('a', 'in_sync')], everyKind(0)],
    [
      'the oldest drift per kind',
      [
        { ...dash('a', 'drifted'), driftSince: iso(T0 - 30_000) },
        { ...dash('b', 'drifted'), driftSince: iso(T0 - 90_000) },
        { kind: 'Alert', name: 'x', status: 'drifted', driftSince: iso(T0 - 5_000) },
      ],
      everyKind(0, { Dashboard: 90, Alert: 5 }),
    ],
    ['a clock behind the drift start', [{ ...dash('a', 'drifted'), driftSince: iso(T0 + 1000) }], everyKind(0)],
  ] as [string, ResourceStatusEntry[], Record<string, number>][])('%s', (_name, resources, want) => {
    expect(driftAges(resources, T0)).toEqual(want);
  });
});

describe('recordStatusMetrics', () => {
  it('sets the resources and drift gauges of the target', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    initTargetMetrics(metrics, 'prod', 'managed');
    const tracker = createStatusTracker(['prod'], () => T0 - 42_000);
    tracker.syncFinished('prod', { ok: true, resources: [dash('a', 'drifted'), dash('b', 'in_sync')] });
    recordStatusMetrics(metrics, 'prod', tracker.target('prod')!, T0);
    const text = await metrics.registry.metrics();
    expect(text).toContain('stacksync_resources{target="prod",kind="Dashboard",status="drifted"} 1');
    expect(text).toContain('stacksync_resources{target="prod",kind="Dashboard",status="in_sync"} 1');
    expect(text).toContain('stacksync_resources{target="prod",kind="Pipe",status="error"} 0');
    expect(text).toContain('stacksync_drift_seconds{target="prod",kind="Dashboard"} 42');
    expect(text).toContain('stacksync_drift_seconds{target="prod",kind="Alert"} 0');
  });
});

describe('withRateLimitWaits', () => {
  it('shows each target its wait for the rate budget, to the millisecond, 0 when it never waited', () => {
    const tracker = createStatusTracker(['prod', 'lab'], clock().now);
    const doc = withRateLimitWaits(tracker.document(), { prod: 12.34567, elsewhere: 3 });
    expect(doc.targets['prod']?.rateLimitWaitSeconds).toBe(12.346);
    expect(doc.targets['lab']?.rateLimitWaitSeconds).toBe(0);
    expect(Object.keys(doc.targets)).toEqual(['prod', 'lab']);
    expect(tracker.document().targets['prod']).not.toHaveProperty('rateLimitWaitSeconds');
  });
});
