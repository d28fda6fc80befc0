/** Which events a sync is worth, and that a repeat is told once. */
import { describe, expect, it } from 'vitest';
import { eventsOf, type NotifyMemory, type SyncNotice } from '../../src/notify/events.js';
import { buildPlan } from '../../src/plan/build.js';
import type { Change, ChangeResult } from '../../src/model/plan.js';

function change(fields: Partial<Change> & Pick<Change, 'kind' | 'name' | 'action'>): Change {
  return {
    target: 'prod',
    diff: [],
    operations: [],
    dependsOn: [],
    warnings: [],
    file: `manifests/${fields.name}.yaml`,
    line: 3,
    ...fields,
  };
}

const badManifest = {
  file: 'manifests/bad.yaml',
  line: 7,
  column: 3,
  code: 'E_MANIFEST_INVALID' as const,
  message: 'spec.tiles[0].w: must be >= 1',
  target: 'prod',
};
const failing: SyncNotice = { target: 'prod', revision: 'abc123', ok: false, plan: buildPlan([], [badManifest]) };
const healthy: SyncNotice = {
  target: 'prod',
  revision: 'abc123',
  ok: true,
  plan: buildPlan([change({ kind: 'Dashboard', name: 'api', action: 'unchanged' })], []),
};

/** Runs the syncs in order, returning the event names told at each. */
function told(accounts: SyncNotice[]): string[][] {
  let memory: NotifyMemory = {};
  return accounts.map((account) => {
    const out = eventsOf(account, memory);
    memory = out.memory;
    return out.events.map((event) => event.event);
  });
}

describe('eventsOf', () => {
  it('tells the same failure once over three resyncs, then the recovery once', () => {
    expect(told([failing, failing, failing, healthy, healthy])).toEqual([['failed'], [], [], ['recovered'], []]);
  });

  it('tells a different failure again', () => {
    const other = { ...failing, plan: buildPlan([], [{ ...badManifest, line: 9 }]) };
    expect(told([failing, other])).toEqual([['failed'], ['failed']]);
  });

  it('a failure names the first error with its file and line', () => {
    const [event] = eventsOf(failing, {}).events;
    expect(event).toMatchObject({
      event: 'failed',
      target: 'prod',
      revision: 'abc123',
      error: { code: 'E_MANIFEST_INVALID', file: 'manifests/bad.yaml', line: 7 },
    });
    expect(event?.summary).toBe('sync of prod failed: spec.tiles[0].w: must be >= 1 at manifests/bad.yaml:7');
  });

  it('a failed apply names the resource, its file and line, and the error code', () => {
    const update = change({ kind: 'Alert', name: 'slow', action: 'update' });
    const results = new Map<string, ChangeResult>([
      ['prod/Alert/slow', { result: 'failed', code: 'E_API_VALIDATION', error: 'threshold must be a number' }],
    ]);
    const [event] = eventsOf({ target: 'prod', ok: false, plan: buildPlan([update], []), results }, {}).events;
    expect(event?.error).toEqual({
      subject: 'Alert/slow',
      code: 'E_API_VALIDATION',
      message: 'threshold must be a number',
      file: 'manifests/slow.yaml',
      line: 3,
    });
    expect(event?.resources).toEqual([
      { kind: 'Alert', name: 'slow', action: 'update', file: 'manifests/slow.yaml', line: 3 },
    ]);
  });

  it('applied says what changed, with counts by action', () => {
    const changes = [
      change({ kind: 'Dashboard', name: 'api', action: 'create' }),
      change({ kind: 'Alert', name: 'slow', action: 'update' }),
      change({ kind: 'Alert', name: 'same', action: 'unchanged' }),
    ];
    const results = new Map<string, ChangeResult>(changes.map((c) => [`prod/${c.kind}/${c.name}`, { result: 'ok' }]));
    const events = eventsOf({ target: 'prod', ok: true, plan: buildPlan(changes, []), results }, {}).events;
    expect(events.map((e) => e.event)).toEqual(['applied']);
    expect(events[0]?.counts).toEqual({ created: 1, updated: 1 });
    expect(events[0]?.summary).toBe('applied 2 changes to prod: 1 created, 1 updated (Dashboard/api, Alert/slow)');
  });

  it('drift is told once per set of live edits, and again once it came back after a heal', () => {
    const drifted = {
      ...healthy,
      plan: buildPlan(
        [
          change({
            kind: 'Dashboard',
            name: 'api',
            action: 'update',
            drift: true,
            diff: [{ path: 'tiles[p99].w', before: 4, after: 6 }],
          }),
        ],
        [],
      ),
    };
    expect(told([drifted, drifted, healthy, drifted])).toEqual([['drift'], [], [], ['drift']]);
  });

  it('drift left live by sync.drift: propose names the branch and pull request it went to, and is not called healed', () => {
    const update = change({
      kind: 'Dashboard',
      name: 'api',
      action: 'update',
      drift: true,
      diff: [{ path: 'name', before: 'API (live)', after: 'API' }],
    });
    const git = change({ kind: 'Dashboard', name: 'web', action: 'create' });
    // Git's change was applied; the drift was not, and has no result.
    const results = new Map<string, ChangeResult>([['prod/Dashboard/web', { result: 'ok' }]]);
    const proposal = { branch: 'stacksync/drift/prod', pullRequest: 'https://github.com/acme/manifests/pull/7' };
    const events = eventsOf({ ...healthy, plan: buildPlan([update, git], []), results, proposal }, {}).events;
    const drift = events.find((event) => event.event === 'drift');
    expect(drift?.summary).toBe(
      '1 resource of prod was edited outside stacksync (proposed on branch stacksync/drift/prod, https://github.com/acme/manifests/pull/7): Dashboard/api',
    );
    expect(drift?.proposal).toEqual(proposal);
    // Without a proposal (report, or nothing could be pushed) the event claims none.
    const reported = eventsOf({ ...healthy, plan: buildPlan([update], []) }, {}).events.find(
      (event) => event.event === 'drift',
    );
    expect(reported?.summary).toBe('1 resource of prod was edited outside stacksync: Dashboard/api');
    expect(reported).not.toHaveProperty('proposal');
  });

  it('a refused prune is told once while it lasts', () => {
    const refused = {
      ...failing,
      plan: buildPlan([], []),
      refusals: [
        {
          target: 'prod',
          code: 'E_PRUNE_REFUSED' as const,
          message: 'prune refused: 12 deletes exceed maxDeletes (10)',
        },
      ],
    };
    expect(told([refused, refused])).toEqual([['failed', 'pruneRefused'], []]);
  });
});
