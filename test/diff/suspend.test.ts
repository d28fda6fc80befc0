/** Suspension in the differ: shown with its difference, never written; what waits on it neither. */
import { describe, expect, it } from 'vitest';
import { planTarget } from '../../src/diff/index.js';
import type { Change } from '../../src/model/plan.js';
import { planInput } from './factories.js';

const byRef = (changes: Change[]): Record<string, Change> =>
  Object.fromEntries(changes.map((c) => [`${c.kind}/${c.name}`, c]));

const drifted = {
  desired: [{ kind: 'Dashboard', key: 'api', policy: { suspend: true }, tiles: [{ name: 'p99', w: 12 }] }],
  live: { dashboards: [{ id: 'd-1', name: 'api', tiles: [{ id: 't-1', name: 'p99', w: 4 }] }] },
  state: { inventory: { Dashboard: { api: { id: 'd-1' } } } },
};

describe('suspend', () => {
  it('a suspended manifest that differs from live is shown with its diff and no operation', () => {
    const api = byRef(planTarget(planInput(drifted)))['Dashboard/api'];
    expect(api?.action).toBe('suspended');
    expect(api?.operations).toEqual([]);
    expect(api?.diff).toEqual([{ path: 'tiles[p99].w', before: 4, after: 12 }]);
    expect(api?.warnings.join()).toContain('stacksync.io/suspend');
  });

  it('the same manifest without the annotation is an update', () => {
    const input = { ...drifted, desired: [{ ...drifted.desired[0], policy: undefined }] };
    expect(byRef(planTarget(planInput(input)))['Dashboard/api']?.action).toBe('update');
  });

  it('a suspended target writes nothing: creates, updates and in-sync resources are all suspended', () => {
    const input = {
      desired: [
        { kind: 'Dashboard', key: 'api', tiles: [{ name: 'p99', w: 12 }] },
        { kind: 'Dashboard', key: 'new', tiles: [] },
        { kind: 'Dashboard', key: 'same', tiles: [] },
      ],
      live: { dashboards: [...drifted.live.dashboards, { id: 'd-2', name: 'same', tiles: [] }] },
      state: { inventory: { Dashboard: { api: { id: 'd-1' }, same: { id: 'd-2' } } } },
      options: { suspended: true },
    };
    const changes = planTarget(planInput(input));
    expect(changes.map((c) => [c.name, c.action, c.operations.length])).toEqual([
      ['api', 'suspended', 0],
      ['new', 'suspended', 0],
      ['same', 'suspended', 0],
    ]);
    expect(changes[0]?.warnings).toContain('target prod is suspended: shown, never written');
  });

  it('a suspended target is never pruned, even with prune on: what no manifest names stays an orphan', () => {
    const input = {
      live: { dashboards: [{ id: 'd-9', name: 'old', tiles: [] }] },
      state: { inventory: { Dashboard: { old: { id: 'd-9' } } } },
      options: { prune: true, suspended: true },
    };
    expect(planTarget(planInput(input)).map((c) => [c.name, c.action])).toEqual([['old', 'orphan']]);
  });

  it('an alert created on a new tile of a suspended dashboard waits on it, so it is suspended too', () => {
    const input = {
      desired: [
        { kind: 'Dashboard', key: 'api', policy: { suspend: true }, tiles: [{ name: 'p99' }, { name: 'p50' }] },
        { kind: 'Alert', key: 'slow', name: 'slow', dashboard: 'api', tile: 'p50' },
        { kind: 'Alert', key: 'search', name: 'search', savedSearchId: 's-1' },
      ],
      live: { dashboards: [{ id: 'd-1', name: 'api', tiles: [{ id: 't-1', name: 'p99' }] }] },
      state: { inventory: { Dashboard: { api: { id: 'd-1' } } } },
    };
    const changes = byRef(planTarget(planInput(input)));
    expect(changes['Alert/slow']?.action).toBe('suspended');
    expect(changes['Alert/slow']?.warnings.join()).toContain('waits on Dashboard/api');
    expect(changes['Alert/search']?.action).toBe('create');
  });
});
