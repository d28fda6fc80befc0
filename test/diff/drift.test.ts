/** Drift or a change to apply: told by the digest of the manifest stacksync last applied. */
import { describe, expect, it } from 'vitest';
import { markDrift } from '../../src/diff/index.js';
import type { Change } from '../../src/model/plan.js';
import { targetState } from './factories.js';

function change(fields: Partial<Change> & Pick<Change, 'kind' | 'name' | 'action'>): Change {
  return { target: 'prod', diff: [], operations: [], dependsOn: [], warnings: [], file: 'manifests/x.yaml', ...fields };
}

const state = targetState({
  inventory: {
    Dashboard: { api: { id: 'd-1', spec: 'spec-api' }, gone: { id: 'd-2', spec: 'spec-gone' }, old: { id: 'd-3' } },
    Alert: { slow: { id: 'a-1', spec: 'spec-slow' } },
  },
});

const driftOf = (changes: Change[]): Record<string, boolean> =>
  Object.fromEntries(markDrift(changes, state).map((c) => [`${c.kind}/${c.name}`, c.drift === true]));

describe('markDrift', () => {
  it('an update of a manifest unchanged since it was applied is drift; an edited manifest is a change to apply', () => {
    expect(driftOf([change({ kind: 'Dashboard', name: 'api', action: 'update', spec: 'spec-api' })])).toEqual({
      'Dashboard/api': true,
    });
    expect(driftOf([change({ kind: 'Dashboard', name: 'api', action: 'update', spec: 'spec-api-edited' })])).toEqual({
      'Dashboard/api': false,
    });
  });

  it('a create of a resource deleted behind stacksync is drift; a new manifest is not', () => {
    expect(driftOf([change({ kind: 'Dashboard', name: 'gone', action: 'create', spec: 'spec-gone' })])).toEqual({
      'Dashboard/gone': true,
    });
    expect(driftOf([change({ kind: 'Dashboard', name: 'new', action: 'create', spec: 'spec-new' })])).toEqual({
      'Dashboard/new': false,
    });
  });

  it('without a recorded digest (a state from before) it is a change to apply, never a guess of drift', () => {
    expect(driftOf([change({ kind: 'Dashboard', name: 'old', action: 'update', spec: 'spec-old' })])).toEqual({
      'Dashboard/old': false,
    });
  });

  it('adoptions, deletes, orphans and unchanged resources are never drift', () => {
    const changes = [
      change({ kind: 'Dashboard', name: 'api', action: 'unchanged', spec: 'spec-api' }),
      change({ kind: 'Dashboard', name: 'gone', action: 'delete', spec: 'spec-gone' }),
      change({ kind: 'Alert', name: 'slow', action: 'adopt', spec: 'spec-slow' }),
    ];
    expect(Object.values(driftOf(changes))).toEqual([false, false, false]);
  });

  it('a write that waits on a change from Git is part of that change, not drift', () => {
    const changes = [
      change({ kind: 'Dashboard', name: 'api', action: 'update', spec: 'spec-api-edited' }),
      change({ kind: 'Alert', name: 'slow', action: 'update', spec: 'spec-slow', dependsOn: ['Dashboard/api'] }),
    ];
    expect(driftOf(changes)).toEqual({ 'Dashboard/api': false, 'Alert/slow': false });
    const healing = [
      change({ kind: 'Dashboard', name: 'api', action: 'update', spec: 'spec-api' }),
      change({ kind: 'Alert', name: 'slow', action: 'update', spec: 'spec-slow', dependsOn: ['Dashboard/api'] }),
    ];
    expect(driftOf(healing)).toEqual({ 'Dashboard/api': true, 'Alert/slow': true });
  });
});
