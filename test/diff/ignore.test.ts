/** Ignore rules and `stacksync.io/prune: disabled` in the differ. */
import { describe, expect, it } from 'vitest';
import { planTarget } from '../../src/diff/index.js';
import { keepLive, keepLiveAt, parseFieldPath, type KeptMembers } from '../../src/kinds/shared/ignore.js';
import type { Change } from '../../src/model/plan.js';
import type { DashboardWrite } from '../../src/kinds/dashboard/model.js';
import type { AlertWrite } from '../../src/kinds/alert/model.js';
import { livePostgresPipe, planInput } from './factories.js';

const byRef = (changes: Change[]): Record<string, Change> =>
  Object.fromEntries(changes.map((c) => [`${c.kind}/${c.name}`, c]));

describe('parseFieldPath', () => {
  it.each([
    ['threshold', [{ member: 'threshold' }]],
    ['tiles[p99].w', [{ member: 'tiles' }, { key: 'p99' }, { member: 'w' }]],
    [
      'source.postgres.tableMappings[public.invoices]',
      [{ member: 'source' }, { member: 'postgres' }, { member: 'tableMappings' }, { key: 'public.invoices' }],
    ],
    [
      'tiles[p99].series[0].where',
      [{ member: 'tiles' }, { key: 'p99' }, { member: 'series' }, { key: '0' }, { member: 'where' }],
    ],
  ])('%s', (path, want) => expect(parseFieldPath(path)).toEqual(want));
});

describe('keepLiveAt', () => {
  it('takes the live value where live has one, and leaves the manifest alone where it has none', () => {
    const desired = {
      tiles: [
        { name: 'p99', w: 12 },
        { name: 'new', w: 3 },
      ],
    };
    const live = { tiles: [{ name: 'p99', w: 4 }] };
    expect(keepLiveAt(desired, live, parseFieldPath('tiles[p99].w'))).toEqual({
      tiles: [
        { name: 'p99', w: 4 },
        { name: 'new', w: 3 },
      ],
    });
    expect(keepLiveAt(desired, live, parseFieldPath('tiles[new].w'))).toEqual(desired);
    expect(desired.tiles[0]?.w, 'the input is not changed').toBe(12);
  });

  it("takes a whole list item from live, and only from a live value of the manifest's own type", () => {
    const desired = { tiles: [{ name: 'p99', w: 12 }] };
    expect(keepLiveAt(desired, { tiles: [{ name: 'p99', w: 4 }] }, parseFieldPath('tiles[p99]'))).toEqual({
      tiles: [{ name: 'p99', w: 4 }],
    });
    // @ts-expect-error: a live tile whose width is text is not of the manifest's type
    keepLiveAt(desired, { tiles: [{ name: 'p99', w: 'wide' }] }, parseFieldPath('tiles[p99].w'));
  });
});

describe('KeptMembers', () => {
  interface Desired {
    key: string;
    w: number;
    tiles: { name: string; type: 'time' | 'table' }[];
  }
  interface Live {
    id: string;
    w: number | string;
    tiles: { id: string; name: string; type: string }[];
  }
  type Kept = KeptMembers<Desired, Live>;

  it('holds the manifest laid over by live, and what the walk makes of the two: live values of their own type', () => {
    const desired: Desired = { key: 'api', w: 12, tiles: [{ name: 'p99', type: 'time' }] };
    const live: Live = { id: 'd-1', w: 'wide', tiles: [{ id: 't-1', name: 'p99', type: 'line' }] };
    const kept = keepLive<Kept>(desired, { ...desired, ...live }, ['w', 'tiles[p99].type']);
    expect(kept).toEqual({ key: 'api', w: 'wide', tiles: [{ name: 'p99', type: 'line' }] });
    expect(keepLive<Kept>(desired, { ...desired, ...live }, ['tiles[p99].id']), 'a member only live has').toEqual({
      ...desired,
      tiles: [{ name: 'p99', type: 'time', id: 't-1' }],
    });
    // @ts-expect-error: a value of neither the manifest's type nor live's
    const neither: Kept = { key: 'api', w: true, tiles: [] };
    expect(neither.key).toBe('api');
  });
});

describe('ignoreDifferences', () => {
  const dashboard = (ignore?: string[]) => ({
    desired: [
      {
        kind: 'Dashboard',
        key: 'api',
        ...(ignore ? { policy: { ignore } } : {}),
        tiles: [{ name: 'p99', w: 12, h: 3 }],
      },
    ],
    live: { dashboards: [{ id: 'd-1', name: 'api', tiles: [{ id: 't-1', name: 'p99', w: 4, h: 2 }] }] },
    state: { inventory: { Dashboard: { api: { id: 'd-1' } } } },
  });

  it('an ignored tile field is neither diffed nor written: the PUT sends the live value back', () => {
    const api = byRef(planTarget(planInput(dashboard(['tiles[p99].w']))))['Dashboard/api'];
    expect(api?.diff).toEqual([{ path: 'tiles[p99].h', before: 2, after: 3 }]);
    const [operation] = api?.operations ?? [];
    expect(operation?.type).toBe('updateDashboard');
    expect((operation as unknown as { body: DashboardWrite }).body.tiles[0]).toMatchObject({ id: 't-1', w: 4, h: 3 });
  });

  it('when every difference is ignored the dashboard is unchanged', () => {
    expect(byRef(planTarget(planInput(dashboard(['tiles[p99].w', 'tiles[p99].h']))))['Dashboard/api']?.action).toBe(
      'unchanged',
    );
    expect(byRef(planTarget(planInput(dashboard())))['Dashboard/api']?.action).toBe('update');
  });

  it('an ignored alert threshold keeps the live one in the PUT body', () => {
    const input = {
      desired: [
        {
          kind: 'Alert',
          key: 'slow',
          name: 'slow',
          savedSearchId: 's-1',
          threshold: 100,
          message: 'new',
          policy: { ignore: ['threshold'] },
        },
      ],
      live: { alerts: [{ id: 'a-1', name: 'slow', savedSearchId: 's-1', threshold: 250, message: 'old' }] },
      state: { inventory: { Alert: { slow: { id: 'a-1' } } } },
    };
    const slow = byRef(planTarget(planInput(input)))['Alert/slow'];
    expect(slow?.diff).toEqual([{ path: 'message', before: 'old', after: 'new' }]);
    expect((slow?.operations[0] as unknown as { body: AlertWrite }).body.threshold).toBe(250);
  });

  it("a live channel the manifest's schema refuses, at an ignored path, is written back as it is", () => {
    // A manifest's channel is `email` or `webhook`; the service may hold one of another type.
    const liveChannel = { type: 'slack_webhook', webhookId: 'wh-9', slackChannelId: 'C-1' };
    const input = {
      desired: [
        {
          kind: 'Alert',
          key: 'slow',
          name: 'slow',
          savedSearchId: 's-1',
          message: 'new',
          channel: { type: 'webhook', webhookId: 'wh-1' },
          policy: { ignore: ['channel'] },
        },
      ],
      live: { alerts: [{ id: 'a-1', name: 'slow', savedSearchId: 's-1', message: 'old', channel: liveChannel }] },
      state: { inventory: { Alert: { slow: { id: 'a-1' } } } },
    };
    const slow = byRef(planTarget(planInput(input)))['Alert/slow'];
    expect(slow?.diff).toEqual([{ path: 'message', before: 'old', after: 'new' }]);
    expect((slow?.operations[0] as unknown as { body: AlertWrite }).body.channel).toEqual(liveChannel);
  });

  it("a live series type the manifest's schema refuses, at an ignored path, is written back as it is", () => {
    // A manifest's series `type` is one of the seed's chart types; the server may spell another.
    const input = {
      desired: [
        {
          kind: 'Dashboard',
          key: 'api',
          policy: { ignore: ['tiles[p99].series[0].type'] },
          tiles: [{ name: 'p99', h: 3, series: [{ type: 'time', aggFn: 'avg' }] }],
        },
      ],
      live: {
        dashboards: [
          {
            id: 'd-1',
            name: 'api',
            tiles: [{ id: 't-1', name: 'p99', h: 2, series: [{ type: 'line', aggFn: 'avg' }] }],
          },
        ],
      },
      state: { inventory: { Dashboard: { api: { id: 'd-1' } } } },
    };
    const api = byRef(planTarget(planInput(input)))['Dashboard/api'];
    expect(api?.diff).toEqual([{ path: 'tiles[p99].h', before: 2, after: 3 }]);
    const [operation] = api?.operations ?? [];
    expect((operation as unknown as { body: DashboardWrite }).body.tiles[0]?.series).toEqual([
      { type: 'line', aggFn: 'avg' },
    ]);
  });

  it('a live tile kept whole is not refused by a seed target for the members of current servers it holds', () => {
    // The live tile holds its container among the members stacksync does not model; the seed refuses only a manifest's.
    const liveTile = { id: 't-1', name: 'p99', x: 0, y: 0, w: 4, h: 2, extra: { containerId: 'c-1' } };
    const input = (ignore: string[]) => ({
      desired: [{ kind: 'Dashboard', key: 'api', name: 'renamed', policy: { ignore }, tiles: [{ name: 'p99', w: 6 }] }],
      live: { dashboards: [{ id: 'd-1', name: 'api', tiles: [liveTile] }] },
      state: { inventory: { Dashboard: { api: { id: 'd-1' } } } },
    });
    const api = byRef(planTarget(planInput(input(['tiles[p99]']))))['Dashboard/api'];
    expect(api?.action).toBe('update');
    const [operation] = api?.operations ?? [];
    expect((operation as unknown as { body: DashboardWrite }).body.tiles[0]).toMatchObject({ id: 't-1', w: 4 });
    expect(byRef(planTarget(planInput(input([]))))['Dashboard/api']?.diff).toContainEqual({
      path: 'tiles[p99].w',
      before: 4,
      after: 6,
    });
  });

  it('a tile kept whole is in sync with its live tile, and goes back with its live members, not under extra', () => {
    // The live tile holds members stacksync does not model (its container); kept whole, nothing differs.
    const seedTile = { id: 't-1', name: 'p99', x: 0, y: 0, w: 4, h: 2, extra: { containerId: 'c-1' } };
    const config = { displayType: 'line', sourceId: '65f5e4a3b9e77c001a0000b1', select: [{ aggFn: 'count' }] };
    const currentTile = { ...seedTile, series: undefined, config };
    const input = (name: string, profile: 'seed' | 'current', liveTile: object) => ({
      desired: [
        { kind: 'Dashboard', key: 'api', name, policy: { ignore: ['tiles[p99]'] }, tiles: [{ name: 'p99', w: 6 }] },
      ],
      live: { dashboards: [{ id: 'd-1', name: 'api', tiles: [liveTile] }] },
      state: { inventory: { Dashboard: { api: { id: 'd-1' } } } },
      target: { profile },
    });
    for (const [profile, liveTile] of [
      ['seed', seedTile],
      ['current', currentTile],
    ] as const) {
      const inSync = byRef(planTarget(planInput(input('api', profile, liveTile))))['Dashboard/api'];
      expect(inSync?.action, profile).toBe('unchanged');
      expect(inSync?.diff, profile).toEqual([]);
      const renamed = byRef(planTarget(planInput(input('renamed', profile, liveTile))))['Dashboard/api'];
      expect(
        renamed?.diff.map((d) => d.path),
        profile,
      ).toEqual(['name']);
      const [operation] = renamed?.operations ?? [];
      const sent = (operation as unknown as { body: DashboardWrite }).body.tiles[0];
      expect(sent, profile).toMatchObject({ id: 't-1', name: 'p99', w: 4, h: 2, containerId: 'c-1' });
      expect(sent, profile).not.toHaveProperty('extra');
    }
  });

  it('an ignored pipe setting is not patched', () => {
    const pipe = livePostgresPipe();
    const input = {
      desired: [
        {
          kind: 'Pipe',
          key: 'billing',
          pipeId: pipe.id,
          source: { kind: 'postgres', block: { settings: { syncIntervalSeconds: 30, pullBatchSize: 5000 } } },
          policy: { ignore: ['source.postgres.settings.syncIntervalSeconds'] },
        },
      ],
      live: { pipes: [pipe] },
    };
    const billing = byRef(planTarget(planInput(input)))['Pipe/billing'];
    expect(billing?.diff.map((d) => d.path)).toEqual(['source.postgres.settings.pullBatchSize']);
    expect(billing?.operations).toEqual([
      { type: 'updatePipe', id: pipe.id, patch: { source: { postgres: { settings: { pullBatchSize: 5000 } } } } },
    ]);
  });
});

describe('stacksync.io/prune: disabled', () => {
  it('an inventory entry recorded with prune disabled is never deleted by a prune; it stays an orphan', () => {
    const input = {
      live: {
        dashboards: [
          { id: 'd-1', name: 'kept', tiles: [] },
          { id: 'd-2', name: 'gone', tiles: [] },
        ],
      },
      state: { inventory: { Dashboard: { kept: { id: 'd-1', prune: 'disabled' }, gone: { id: 'd-2' } } } },
      options: { prune: true },
    };
    const changes = byRef(planTarget(planInput(input)));
    expect(changes['Dashboard/kept']?.action).toBe('orphan');
    expect(changes['Dashboard/kept']?.warnings.join()).toContain('stacksync.io/prune: disabled');
    expect(changes['Dashboard/gone']?.action).toBe('delete');
  });
});
