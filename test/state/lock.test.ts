import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFs, type StateFs } from '../../src/support/fs.js';
import { acquireStateLock, lockPathFor, type LockHolder, type StateLockOptions } from '../../src/state/lock.js';

let dir: string;
let statePath: string;
let lockPath: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-lock-'));
  statePath = join(dir, 'state', 'state.json');
  lockPath = lockPathFor(statePath);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A clock that only moves when the lock sleeps, so waiting costs no real time. */
function fakeTime(onSleep: (now: number) => void | Promise<void> = () => undefined) {
  let now = 1_000_000;
  return {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
      await onSleep(now);
    },
  };
}

const HOST = 'host-a';
const LIVE = new Set([101, 102]);
const options = (extra: Partial<StateLockOptions> = {}): StateLockOptions => ({
  command: 'apply',
  host: HOST,
  pid: 101,
  isAlive: (pid) => LIVE.has(pid),
  ...fakeTime(),
  ...extra,
});

async function holderOnDisk(): Promise<LockHolder> {
  return JSON.parse(await readFile(lockPath, 'utf8')) as LockHolder;
}

async function leaveLock(holder: Partial<LockHolder>): Promise<void> {
  const first = await acquireStateLock(statePath, options());
  await first.release();
  await writeFile(
    lockPath,
    JSON.stringify({
      pid: 999,
      host: HOST,
      command: 'run',
      since: '2026-11-20T10:00:00.000Z',
      token: 'old',
      ...holder,
    }),
  );
}

describe('state lock', () => {
  it('is a 0600 file beside the state file naming its holder, removed on release', async () => {
    const lock = await acquireStateLock(statePath, options());
    expect(await holderOnDisk()).toEqual({
      pid: 101,
      host: HOST,
      command: 'apply',
      since: new Date(1_000_000).toISOString(),
      token: lock.holder.token,
    });
    expect((await stat(lockPath)).mode & 0o777).toBe(0o600);
    await lock.release();
    expect(await readdir(join(dir, 'state'))).toEqual([]);
  });

  it('makes a second process wait, then fail with E_STATE_LOCKED naming the holder', async () => {
    const first = await acquireStateLock(statePath, options({ command: 'run' }));
    const waited: LockHolder[] = [];
    const second = acquireStateLock(
      statePath,
      options({ pid: 102, timeoutMs: 30_000, onWait: (holder) => waited.push(holder) }),
    );
    await expect(second).rejects.toMatchObject({
      code: 'E_STATE_LOCKED',
      message: expect.stringMatching(
        /is locked by `stacksync run` \(pid 101 on host host-a, since .*\); waited 30 s \(--lock-timeout\)/,
      ),
    });
    expect(waited.map((holder) => holder.pid)).toEqual([101]);
    expect((await holderOnDisk()).token).toBe(first.holder.token);
  });

  it('gives up at once with a timeout of 0', async () => {
    await acquireStateLock(statePath, options());
    let slept = 0;
    await expect(
      acquireStateLock(statePath, options({ pid: 102, timeoutMs: 0, sleep: async () => void (slept += 1) })),
    ).rejects.toMatchObject({ code: 'E_STATE_LOCKED' });
    expect(slept).toBe(0);
  });

  it('goes to the waiter once the holder releases it', async () => {
    const first = await acquireStateLock(statePath, options());
    const time = fakeTime(async (now) => {
      if (now > 1_002_000) await first.release();
    });
    const second = await acquireStateLock(statePath, options({ pid: 102, ...time }));
    expect(await holderOnDisk()).toMatchObject({ pid: 102, token: second.holder.token });
  });

  it('takes over a lock whose holder on this host is gone, and says so', async () => {
    await leaveLock({ pid: 999 });
    const stale: LockHolder[] = [];
    const lock = await acquireStateLock(statePath, options({ timeoutMs: 0, onStale: (holder) => stale.push(holder) }));
    expect(stale).toEqual([expect.objectContaining({ pid: 999, command: 'run' })]);
    expect((await holderOnDisk()).token).toBe(lock.holder.token);
    expect((await readdir(join(dir, 'state'))).sort()).toEqual(['state.json.lock']);
  });

  it('takes over a lock with its own pid that it does not hold (a restarted container reuses pids)', async () => {
    await leaveLock({ pid: 101 });
    const lock = await acquireStateLock(statePath, options({ timeoutMs: 0 }));
    expect((await holderOnDisk()).token).toBe(lock.holder.token);
  });

  it('never breaks the lock of another host, whose processes it cannot see', async () => {
    await leaveLock({ pid: 999, host: 'host-b' });
    await expect(acquireStateLock(statePath, options())).rejects.toMatchObject({
      code: 'E_STATE_LOCKED',
      message: expect.stringContaining(`pid 999 on host host-b`),
    });
    expect((await holderOnDisk()).host).toBe('host-b');
  });

  it('waits for a second lock of this same process instead of taking it for stale', async () => {
    await acquireStateLock(statePath, options());
    await expect(acquireStateLock(statePath, options({ timeoutMs: 1_000 }))).rejects.toMatchObject({
      code: 'E_STATE_LOCKED',
    });
  });

  it('names a lock file it cannot read, and leaves it alone', async () => {
    await leaveLock({});
    await writeFile(lockPath, 'not json');
    await expect(acquireStateLock(statePath, options())).rejects.toMatchObject({
      code: 'E_STATE_LOCKED',
      message: expect.stringContaining(`cannot read (${lockPath})`),
    });
    expect(await readFile(lockPath, 'utf8')).toBe('not json');
  });

  it('stops waiting when its signal aborts', async () => {
    await acquireStateLock(statePath, options());
    const controller = new AbortController();
    const time = fakeTime(() => controller.abort());
    await expect(
      acquireStateLock(statePath, options({ pid: 102, signal: controller.signal, ...time })),
    ).rejects.toMatchObject({
      code: 'E_STATE_LOCKED',
      message: expect.stringContaining('stopped waiting'),
    });
  });

  it('does not remove a lock that is no longer its own', async () => {
    const lock = await acquireStateLock(statePath, options());
    await writeFile(lockPath, JSON.stringify({ ...lock.holder, pid: 102, token: 'someone-else' }));
    await lock.release();
    expect((await holderOnDisk()).token).toBe('someone-else');
  });
  it('never shows a lock file without its holder: a process stopped while taking it blocks no one', async () => {
    // The first taker freezes (as if killed) while writing who it is; its pid is then gone.
    const frozenFs: StateFs = {
      ...nodeFs,
      open: async (file, flags, mode) => {
        const handle = await nodeFs.open(file, flags, mode);
        return {
          ...handle,
          writeFile: () => new Promise<void>(() => undefined),
          sync: () => handle.sync(),
          datasync: () => handle.datasync(),
          close: () => handle.close(),
        };
      },
    };
    void acquireStateLock(statePath, options({ pid: 999, fs: frozenFs }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lock = await acquireStateLock(statePath, options({ timeoutMs: 0 }));
    expect((await holderOnDisk()).token).toBe(lock.holder.token);
  });

  it('still works where the file system has no hard links', async () => {
    const noLinks: StateFs = {
      ...nodeFs,
      link: async () =>
        Promise.reject(Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' })),
    };
    const lock = await acquireStateLock(statePath, options({ fs: noLinks }));
    expect(await holderOnDisk()).toMatchObject({ pid: 101, token: lock.holder.token });
    await expect(acquireStateLock(statePath, options({ pid: 102, fs: noLinks, timeoutMs: 0 }))).rejects.toMatchObject({
      code: 'E_STATE_LOCKED',
    });
    await lock.release();
    expect(await readdir(join(dir, 'state'))).toEqual([]);
  });
});
