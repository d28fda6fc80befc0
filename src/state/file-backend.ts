/**
 * The file backend (the default, `state: PATH`): the state file with its journal (`store.ts`), the
 * lock file beside it (`lock.ts`) and the HMAC key file (`hmac.ts`), as the port says. Its lock is
 * only ever lost with its process (a holder on this host that is gone) or by `state unlock`, which
 * removes the lock file after naming its holder.
 */
import { rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import type { StateBackend, StateVersion } from './backend.js';
import { keyPathFor, loadOrCreateHmacKey } from './hmac.js';
import {
  acquireStateLock,
  currentHolder,
  lockPathFor,
  type LockHolder,
  type StateLock,
  type StateLockOptions,
} from './lock.js';
import {
  adoptFileLineage,
  openStateStore,
  readStateFileVersion,
  type StateStore,
  type StateStoreOptions,
} from './store.js';

export function openFileBackend(path: string): StateBackend {
  return {
    kind: 'file',
    fenced: false,
    location: path,
    open: (options: Pick<StateStoreOptions, 'readOnly' | 'compactOnOpen'> = {}): Promise<StateStore> =>
      openStateStore(path, options),
    lock: (options: StateLockOptions): Promise<StateLock> => acquireStateLock(path, options),
    holder: () => currentHolder(path),
    async unlock(token: string): Promise<LockHolder | undefined> {
      const holder = await currentHolder(path);
      if (holder?.token !== token) return undefined;
      await rm(lockPathFor(path), { force: true });
      return holder;
    },
    async hmacKey(create?: Buffer): Promise<Buffer | undefined> {
      const keyPath = keyPathFor(path);
      if (existsSync(keyPath)) return loadOrCreateHmacKey(keyPath);
      return create ? loadOrCreateHmacKey(keyPath, { randomBytes: () => create }) : undefined;
    },
    async version(): Promise<StateVersion> {
      // A file written before lineage and serial has neither until its next rewrite.
      const { lineage, serial } = await readStateFileVersion(path);
      return { lineage, serial };
    },
    adoptLineage: (lineage: string): Promise<void> => adoptFileLineage(path, lineage),
    close: async () => undefined,
  };
}
