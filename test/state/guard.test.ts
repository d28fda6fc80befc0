import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StacksyncError } from '../../src/errors.js';
import { createStateGuard, type StateGuard } from '../../src/state/guard.js';
import { acquireStateLock, lockPathFor, type StateLock } from '../../src/state/lock.js';
import { openStateStore, readDurableState, type StateStore } from '../../src/state/store.js';

let dir: string;
let path: string;
let store: StateStore;
let acquired: number;
let guard: StateGuard;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-guard-'));
  path = join(dir, 'state.json');
  store = await openStateStore(path, { compactOnOpen: false });
  acquired = 0;
  guard = createStateGuard(store, async () => {
    acquired += 1;
    return acquireStateLock(path, { command: 'run' });
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const owned = (key: string) => ({ type: 'owned', kind: 'Dashboard', key, id: `id-${key}` }) as const;

/** Another process's apply: takes the lock, records, compacts, lets go. */
async function otherWriter(key: string): Promise<void> {
  const lock = await acquireStateLock(path, { command: 'apply', timeoutMs: 5_000 });
  const other = await openStateStore(path);
  other.add('t', owned(key));
  await other.save();
  await other.close();
  await lock.release();
}

describe('state guard (the daemon holding the lock per sync)', () => {
  it('shares one holding between overlapping syncs, and lets go (compacted) after the last', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = guard.hold(async () => {
      store.add('t', owned('a'));
      await store.save();
      await held;
    });
    const second = guard.hold(async () => {
      store.add('t', owned('b'));
      await store.save();
    });
    await second;
    expect(await readdir(dir)).toContain('state.json.lock');
    release();
    await first;
    expect(acquired).toBe(1);
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(Object.keys((await readDurableState(path)).targets['t']!.inventory.Dashboard)).toEqual(['a', 'b']);
  });

  it('starts each holding from what another process wrote meanwhile, and keeps its records', async () => {
    await guard.hold(async () => {
      store.add('t', owned('daemon-1'));
      await store.save();
    });
    await otherWriter('apply-1');
    await guard.hold(async () => {
      expect(store.get('t').inventory.Dashboard).toHaveProperty('apply-1');
      store.add('t', owned('daemon-2'));
      await store.save();
    });
    expect(Object.keys((await readDurableState(path)).targets['t']!.inventory.Dashboard).sort()).toEqual([
      'apply-1',
      'daemon-1',
      'daemon-2',
    ]);
  });

  it('makes another writer wait for the holding in flight', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const inside = new Promise<void>((resolve) => (holding = resolve));
    const sync = guard.hold(() => {
      holding();
      return held;
    });
    // The body runs once the lock is taken.
    await inside;
    await expect(acquireStateLock(path, { command: 'apply', timeoutMs: 0 })).rejects.toMatchObject({
      code: 'E_STATE_LOCKED',
      message: expect.stringContaining('`stacksync run`'),
    });
    release();
    await sync;
    const lock: StateLock = await acquireStateLock(path, { command: 'apply', timeoutMs: 0 });
    await lock.release();
  });

  it('does not run the body when the lock cannot be had', async () => {
    const blocked = createStateGuard(store, () => Promise.reject(new StacksyncError('E_STATE_LOCKED', 'locked')));
    let ran = false;
    await expect(blocked.hold(async () => void (ran = true))).rejects.toMatchObject({ code: 'E_STATE_LOCKED' });
    expect(ran).toBe(false);
    expect(await readdir(dir)).not.toContain(lockPathFor('state.json'));
  });
});
