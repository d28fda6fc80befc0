/**
 * A target's live state, built from lists by kind and read back by kind (`src/kinds/index.ts`):
 * every registered collection is there, each kind's list comes back as it was given, in its own
 * live type, and a state that reads more kinds takes just those lists from the new read.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  DESCRIPTORS,
  liveOf,
  liveStateOf,
  withKindsRead,
  withList,
  withUnread,
  type LiveLists,
} from '../../src/kinds/index.js';
import type { LiveAlert } from '../../src/kinds/alert/model.js';
import type { LiveDashboard } from '../../src/kinds/dashboard/model.js';
import { liveAlert, liveDashboard } from '../diff/factories.js';

const dashboard = liveDashboard({ id: 'd-1', name: 'api' });
const alert = liveAlert({ id: 'a-1', dashboardId: 'd-1', tileId: 't-1' });

describe('liveStateOf and liveOf', () => {
  it('lists every registered collection, empty where no list was given, and reads each kind back', () => {
    const state = liveStateOf({ Dashboard: [dashboard], Alert: [alert] });
    expect(Object.keys(state).sort()).toEqual(DESCRIPTORS.map((descriptor) => descriptor.collection).sort());
    expect(liveOf(state, 'Dashboard')).toEqual([dashboard]);
    expect(liveOf(state, 'Alert')).toEqual([alert]);
    for (const { kind } of DESCRIPTORS.filter((each) => each.kind !== 'Dashboard' && each.kind !== 'Alert'))
      expect(liveOf(state, kind), kind).toEqual([]);
    expect(state.unreadable).toBeUndefined();
  });

  it('copies the lists it is given, and keeps the unreadable resources', () => {
    const given = [dashboard];
    const unreadable = [{ kind: 'Alert' as const, id: 'a-9', problem: 'no threshold' }];
    const state = liveStateOf({ Dashboard: given }, unreadable);
    given.push(liveDashboard({ id: 'd-2', name: 'later' }));
    expect(liveOf(state, 'Dashboard')).toEqual([dashboard]);
    expect(state.unreadable).toEqual(unreadable);
  });

  it('reads nothing of a state that is not there', () => {
    expect(liveOf(undefined, 'Pipe')).toEqual([]);
  });

  it("types each kind's list as that kind's live objects", () => {
    const state = liveStateOf(withList({}, 'Dashboard', [dashboard]));
    expectTypeOf(liveOf(state, 'Dashboard')).toEqualTypeOf<readonly LiveDashboard[]>();
    expectTypeOf(liveOf(state, 'Alert')).toEqualTypeOf<readonly LiveAlert[]>();
    const lists: LiveLists = withList({}, 'Alert', [alert]);
    // @ts-expect-error: an alert is no live object of the Dashboard kind
    withList(lists, 'Dashboard', [alert]);
  });
});

describe('withKindsRead', () => {
  it('takes the kinds asked for from the new read, the rest from the state, and no longer calls them unread', () => {
    const base = withUnread(liveStateOf({ Dashboard: [dashboard] }), ['Alert', 'PipeCdcScaling']);
    const extra = liveStateOf({ Alert: [alert], Dashboard: [] }, [
      { kind: 'Alert', id: 'a-9', problem: 'no threshold' },
      { kind: 'Dashboard', id: 'd-9', problem: 'no tiles' },
    ]);
    const merged = withKindsRead(base, extra, ['Alert']);
    expect(liveOf(merged, 'Dashboard')).toEqual([dashboard]);
    expect(liveOf(merged, 'Alert')).toEqual([alert]);
    expect(merged.unread).toEqual(['PipeCdcScaling']);
    expect(merged.unreadable).toEqual([{ kind: 'Alert', id: 'a-9', problem: 'no threshold' }]);
  });
});
