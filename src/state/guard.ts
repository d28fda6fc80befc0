/**
 * The daemon's hold on the state: each sync that may write runs under the state lock, so a one-off
 * `apply` can run between two syncs (and waits for the one in flight) instead of being locked out
 * for the daemon's whole life. Syncs of several targets overlap and share one holding. Whoever
 * takes the lock re-reads the state first, since another process may have written it meanwhile;
 * the last to leave compacts the journal into the state file and lets go.
 */
import type { StateLock } from './lock.js';
import type { StateStore } from './store.js';

export interface StateGuard {
  /**
   * Runs `body` holding the state lock. Rejects with `E_STATE_LOCKED` when the lock could not be
   * had in time (or `signal` aborted the wait), without running `body`.
   */
  hold<T>(body: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** `acquire` takes the file lock (e.g. `acquireStateLock` with the command and timeout bound). */
export function createStateGuard(store: StateStore, acquire: (signal?: AbortSignal) => Promise<StateLock>): StateGuard {
  let lock: StateLock | undefined;
  let holders = 0;
  let acquiring: Promise<void> | undefined;
  let releasing: Promise<void> | undefined;

  const take = async (signal?: AbortSignal): Promise<void> => {
    const taken = await acquire(signal);
    try {
      await store.reload();
    } catch (error) {
      await taken.release();
      throw error;
    }
    lock = taken;
  };

  const enter = async (signal?: AbortSignal): Promise<void> => {
    for (;;) {
      if (releasing !== undefined) await releasing.catch(() => undefined);
      else if (lock) {
        holders += 1;
        return;
      } else {
        acquiring ??= take(signal).finally(() => (acquiring = undefined));
        await acquiring;
      }
    }
  };

  const leave = async (): Promise<void> => {
    holders -= 1;
    if (holders > 0 || !lock) return;
    const held = lock;
    lock = undefined;
    releasing = store
      .compact()
      .finally(() => held.release())
      .finally(() => (releasing = undefined));
    await releasing;
  };

  return {
    async hold(body, signal) {
      await enter(signal);
      try {
        return await body();
      } finally {
        await leave();
      }
    },
  };
}

/**
 * For a store opened read-only (a dry-run daemon): no lock, but each burst re-reads the state, so
 * what another process applied meanwhile is not reported as drift.
 */
export function readOnlyGuard(store: StateStore): StateGuard {
  return {
    async hold(body) {
      await store.reload();
      return body();
    },
  };
}
