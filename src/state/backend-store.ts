/**
 * The state store of a backend that keeps its state away from this disk (PostgreSQL, Kubernetes, S3): the
 * state in memory as every store keeps it (`recording.ts`), made durable through the backend's
 * writer. `save` appends the records made since the last save; `compact` replaces the snapshot
 * and drops the records it holds. Saves and compactions run one at a time, in order; records made
 * while one runs go with the next.
 */
import { StacksyncError } from '../errors.js';
import type { StateFile } from '../model/state.js';
import { serializeStateFile } from './format.js';
import { RecordingStore, type PendingRecord } from './recording.js';
import type { StateStore } from './store.js';

/** What a backend does for its store; every write is fenced by the backend (`backend.ts`). */
export interface StoreWriter {
  readonly location: string;
  /** Whether this process holds the state lock now (then `close` compacts). */
  holdsLock(): boolean;
  /** The snapshot with the records saved since replayed, and the number of the last record. */
  read(): Promise<{ file: StateFile; lastSeq: number }>;
  /**
   * Makes these records durable after those already saved; `false` when the backend would rather
   * take the whole snapshot instead (its records grew past what it keeps beside one), which the
   * store then writes in the same turn.
   */
  append(records: readonly PendingRecord[]): Promise<boolean | void>;
  /** Replaces the snapshot with this state file text (`format.ts`) and drops every saved record. */
  replace(snapshot: string): Promise<void>;
  /**
   * Whether records are stored beside the snapshot, so that a compaction has something to fold
   * in; without it, any record this store has seen counts (a compaction may then rewrite a
   * snapshot that has not changed).
   */
  holdsRecords?(): boolean;
}

export class BackendStateStore extends RecordingStore implements StateStore {
  /** Saves and compactions, one at a time, in order. */
  #io: Promise<void> = Promise.resolve();

  constructor(
    private readonly writer: StoreWriter,
    readOnly: boolean,
  ) {
    super(writer.location, readOnly);
  }

  save(): Promise<void> {
    if (this.readOnly || this.pending.length === 0) return this.#io;
    return this.#enqueue(async () => {
      const batch = this.pending.slice();
      if (batch.length === 0) return;
      if ((await this.writer.append(batch)) === false) return this.#compactNow();
      this.pending.splice(0, batch.length);
    });
  }

  compact(): Promise<void> {
    if (this.readOnly) return Promise.resolve();
    return this.#enqueue(() => this.#compactNow());
  }

  /** Writes the snapshot of everything in memory now, from within a queued write. */
  async #compactNow(): Promise<void> {
    const stored = this.writer.holdsRecords ? this.writer.holdsRecords() : this.seq !== 0;
    if (!stored && this.pending.length === 0) return;
    const upTo = this.seq;
    await this.writer.replace(serializeStateFile(this.file));
    this.pending = this.pending.filter((line) => line.seq > upTo);
  }

  async reload(): Promise<void> {
    await this.#io;
    if (this.pending.length > 0) throw new StacksyncError('E_INTERNAL', `state ${this.path}: reloaded with writes not yet saved`, { subject: this.path });
    const read = await this.writer.read();
    this.file = read.file;
    this.seq = read.lastSeq;
  }

  async close(): Promise<void> {
    if (this.writer.holdsLock()) await this.compact();
    await this.#io;
  }

  compactSync(): void {
    // A database or a bucket cannot be written synchronously; records already saved are
    // durable, and the next holder replays them.
  }

  #enqueue(work: () => Promise<void>): Promise<void> {
    const run = this.#io.then(work);
    this.#io = run.catch(() => undefined);
    return run;
  }
}
