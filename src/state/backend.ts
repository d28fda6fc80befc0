/**
 * The state backend port: where what stacksync owns is kept (docs/ownership.md, "Where the state
 * lives"). Every backend offers the same five things — open the state as a `StateStore` (load,
 * append records, compact the snapshot), lock it as a lease with a fencing token, name the holder,
 * force-unlock, and keep the HMAC key — and passes one contract suite
 * (`test/state/backend-contract.test.ts`). The file backend is today's state file with its journal
 * and lock file beside it; the PostgreSQL backend keeps the same records in tables.
 *
 * Fencing: a backend that can lose a lock while its holder still runs (a database session that
 * dropped, a lease another process broke with `state unlock`) makes every write conditional on
 * the holder's token, so a holder that lost its lock can never write: its save rejects with
 * `E_STATE_LOCKED`.
 */
import type { LockHolder, StateLock, StateLockOptions } from './lock.js';
import type { StateStore, StateStoreOptions } from './store.js';

/** Lineage (which history this state belongs to) and serial (how many writes it has had). */
export interface StateVersion {
  /** Set once, when the state is first written; a copy made by `state migrate` keeps it. `undefined` for a state file not rewritten since before lineages. */
  lineage: string | undefined;
  /** Grows with every write (the file backend: with every rewrite of the state file); `undefined` as the lineage. */
  serial: number | undefined;
}

export interface StateBackend {
  /** What `backend` says in config: `file`, `postgres`, `kubernetes` or `s3`. */
  readonly kind: StateBackendKind;
  /**
   * Whether every write is conditional on the lock holder's token. The file backend's lock is lost
   * only with its process (or by `state unlock`), so it does not fence; the others do.
   */
  readonly fenced: boolean;
  /** Where the state is, for messages and `state show`: a path, or a URL without its password. */
  readonly location: string;
  /** Opens the state; with `readOnly` nothing is ever written (plan, validate). */
  open(options?: Pick<StateStoreOptions, 'readOnly' | 'compactOnOpen'>): Promise<StateStore>;
  /** Takes the lock, waiting up to `timeoutMs` while another holder has it; then `E_STATE_LOCKED` naming the holder. */
  lock(options: StateLockOptions): Promise<StateLock>;
  /** Who holds the lock now, if anyone. */
  holder(): Promise<LockHolder | undefined>;
  /**
   * Force-unlock: breaks the lock whose holder's token is `token` and returns that holder; the
   * holder's later writes are refused. `undefined` when the lock is free or held under another token.
   */
  unlock(token: string): Promise<LockHolder | undefined>;
  /**
   * The key write-only values are hashed under (`state/hmac.ts`); `undefined` when there is none.
   * With `create`, a state without a key gets that one; when two processes create at once, both
   * get the one that was stored first.
   */
  hmacKey(create?: Buffer): Promise<Buffer | undefined>;
  /** Lineage and serial of what is stored. */
  version(): Promise<StateVersion>;
  /**
   * Gives a state just made by `state migrate` (under its lock, before anything else writes it)
   * the lineage of the state it was copied from. Optional: a backend without it keeps its own.
   */
  adoptLineage?(lineage: string): Promise<void>;
  close(): Promise<void>;
}

export const STATE_BACKEND_KINDS = ['file', 'postgres', 'kubernetes', 's3'] as const;
export type StateBackendKind = (typeof STATE_BACKEND_KINDS)[number];
