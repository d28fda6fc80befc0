/**
 * The state store of a backend that keeps its state away from this disk (PostgreSQL, Kubernetes, S3): the
 * state in memory as every store keeps it (`in-memory.ts`), made durable through the backend's
 * writer. `save` appends the records made since the last save; `compact` replaces the snapshot
 * and drops the records it holds. A save does not send a batch of its own: whenever an append may start,
 * one batch carries every record waiting, whoever made it (group commit), so the number of writes
 * follows the backend's round trips, not the number of callers.
 *
 * Appends in flight (docs/ownership.md, "Saves in flight at once"): a writer may declare that
 * several appends may be in flight at once (`maxInFlight`; default 1, in order). Each caller then
 * waits only until every record made before its call is durable, whichever batch carried it, and
 * batches may commit out of order, so what is stored may have gaps in its numbering while appends
 * are in flight or after a crash. That is safe because a record whose batch never committed was
 * never acknowledged, so nothing acted on it: each record's successors for the same resource are
 * made only after its save resolved (intent → create → result), and records made together are one
 * batch, stored all or nothing. A reader replays what is there in `seq` order. A compaction waits
 * for every append in flight and starts none until it is done.
 */
import { StacksyncError } from '../errors.js';
import type { StateFile } from '../model/state.js';
import { serializeStateFile } from './format.js';
import { InMemoryStore, type PendingRecord } from './in-memory.js';
import type { StateStore } from './store.js';

/** What a backend does for its store; every write is fenced by the backend (`backend.ts`). */
export interface StoreWriter {
  readonly location: string;
  /**
   * How many appends may be in flight at once (default 1: each after the one before). More than
   * one only where appends are independent writes each stored all or nothing, and a reader
   * replays whatever records are stored in `seq` order, gaps included (a database's rows; not one
   * object rewritten conditionally, as the S3 and Kubernetes backends write).
   */
  readonly maxInFlight?: number;
  /** Whether this process holds the state lock now (then `close` compacts). */
  holdsLock(): boolean;
  /** The snapshot with the records saved since replayed, and the number of the last record. */
  read(): Promise<{ file: StateFile; lastSeq: number }>;
  /**
   * Makes these records durable (after those already saved when appends go one at a time);
   * `false` when the backend would rather take the whole snapshot instead (its records grew past
   * what it keeps beside one), which the store then writes next.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a backend that never refuses is an async function returning nothing
  append(records: readonly PendingRecord[]): Promise<boolean | void>;
  /**
   * Replaces the snapshot with this state file text (`format.ts`), which holds every record
   * numbered up to `upTo`, and drops the saved records it holds (never one numbered above `upTo`).
   */
  replace(snapshot: string, upTo: number): Promise<void>;
  /**
   * Whether records are stored beside the snapshot, so that a compaction has something to fold
   * in; without it, any record this store has seen counts (a compaction may then rewrite a
   * snapshot that has not changed).
   */
  holdsRecords?(): boolean;
}

/** A caller of `save` waiting for every record numbered up to `seq` to be durable. */
interface Waiter {
  seq: number;
  /** How many batches had been launched when it asked. */
  asked: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A compaction waiting for the appends in flight to end. */
interface Exclusive {
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class RemoteStateStore extends InMemoryStore implements StateStore {
  readonly #maxInFlight: number;
  /** The first record number of each batch in flight. */
  #flying: number[] = [];
  /** Batches launched so far. */
  #launched = 0;
  #waiters: Waiter[] = [];
  /** Compactions asked for, run one at a time once no append is in flight. */
  #exclusive: Exclusive[] = [];
  #compacting = false;
  /** Called whenever nothing is in flight and nothing is queued. */
  #idleWaiters: (() => void)[] = [];

  constructor(
    private readonly writer: StoreWriter,
    readOnly: boolean,
  ) {
    super(writer.location, readOnly);
    this.#maxInFlight = Math.max(1, Math.floor(writer.maxInFlight ?? 1));
  }

  save(): Promise<void> {
    const seq = this.seq;
    if (this.readOnly || seq <= this.#durable()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ seq, asked: this.#launched, resolve, reject });
      this.#pump();
    });
  }

  compact(): Promise<void> {
    if (this.readOnly) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#exclusive.push({ resolve, reject });
      this.#pump();
    });
  }

  async reload(): Promise<void> {
    await this.#idle();
    if (this.pending.length > 0)
      throw new StacksyncError('E_INTERNAL', `state ${this.path}: reloaded with writes not yet saved`, {
        subject: this.path,
      });
    const read = await this.writer.read();
    this.file = read.file;
    this.seq = read.lastSeq;
  }

  async close(): Promise<void> {
    if (this.writer.holdsLock()) await this.compact();
    await this.#idle();
  }

  compactSync(): void {
    // A database or a bucket cannot be written synchronously; records already saved are
    // durable, and the next holder replays them.
  }

  /** Every record numbered up to this is durable: none is waiting to be sent or in flight. */
  #durable(): number {
    let first = this.pending[0]?.seq ?? this.seq + 1;
    for (const from of this.#flying) first = Math.min(first, from);
    return first - 1;
  }

  /** Starts what may start now: a compaction once no append is in flight, else a batch of every pending record a caller waits for. */
  #pump(): void {
    if (this.#compacting) return;
    if (this.#exclusive.length > 0) {
      // A compaction waits for the appends in flight, and none starts before it ran.
      if (this.#flying.length === 0) void this.#runCompaction();
      return;
    }
    const first = this.pending[0];
    if (first && this.#flying.length < this.#maxInFlight && this.#waiters.some((waiter) => waiter.seq >= first.seq)) {
      // Records made while the batches before ran all go together, all or nothing.
      this.#launch(this.pending.splice(0));
    }
    if (this.#flying.length === 0 && this.#idleWaiters.length > 0)
      for (const done of this.#idleWaiters.splice(0)) done();
  }

  #launch(batch: PendingRecord[]): void {
    const from = (batch[0] as PendingRecord).seq;
    const launch = (this.#launched += 1);
    this.#flying.push(from);
    const landed = (): void => {
      this.#flying.splice(this.#flying.indexOf(from), 1);
    };
    this.writer.append(batch).then(
      (result) => {
        landed();
        if (result === false) {
          // The backend takes the snapshot instead: the records wait for it, and so do their callers.
          this.#putBack(batch);
          this.#exclusive.push({ resolve: () => undefined, reject: () => undefined });
        }
        this.#resolveDurable();
        this.#pump();
      },
      (error: unknown) => {
        landed();
        // Not durable, as far as this process knows: the next save sends them again. Its callers
        // (those that asked before it was sent and need its records) get the failure; a later
        // caller's save carries them again.
        this.#putBack(batch);
        this.#fail((waiter) => waiter.seq >= from && waiter.asked < launch, error);
        this.#resolveDurable();
        this.#pump();
      },
    );
  }

  async #runCompaction(): Promise<void> {
    const exclusive = this.#exclusive.shift() as Exclusive;
    this.#compacting = true;
    const upTo = this.seq;
    try {
      const stored = this.writer.holdsRecords ? this.writer.holdsRecords() : this.seq !== 0;
      if (stored || this.pending.length > 0) {
        await this.writer.replace(serializeStateFile(this.file), upTo);
        this.pending = this.pending.filter((line) => line.seq > upTo);
      }
      exclusive.resolve();
    } catch (error) {
      this.#fail((waiter) => waiter.seq <= upTo && waiter.seq > this.#durable(), error);
      exclusive.reject(error);
    } finally {
      this.#compacting = false;
    }
    this.#resolveDurable();
    this.#pump();
  }

  #putBack(batch: readonly PendingRecord[]): void {
    this.pending = [...batch, ...this.pending].sort((a, b) => a.seq - b.seq);
  }

  #resolveDurable(): void {
    const durable = this.#durable();
    this.#waiters = this.#waiters.filter((waiter) => {
      if (waiter.seq > durable) return true;
      waiter.resolve();
      return false;
    });
  }

  #fail(which: (waiter: Waiter) => boolean, error: unknown): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!which(waiter)) return true;
      waiter.reject(error);
      return false;
    });
  }

  /** Resolves once no append or compaction is in flight or queued. */
  #idle(): Promise<void> {
    if (this.#flying.length === 0 && this.#exclusive.length === 0 && !this.#compacting) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#idleWaiters.push(resolve);
    });
  }
}
