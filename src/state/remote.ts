/**
 * What the backends that keep the state in a server (PostgreSQL, Kubernetes) share: the store in
 * memory whose writes go to that server one at a time, and the words of their lock errors
 * (docs/ownership.md, "Where the state lives").
 */
import { StacksyncError } from '../errors.js';
import type { StateFile } from '../model/state.js';
import { serializeStateFile } from './format.js';
import type { LockHolder } from './lock.js';
import { RecordingStore, type PendingRecord } from './recording.js';
import type { StateStore } from './store.js';

/**
 * The state in memory, as the file store keeps it, written through a server: `save` makes the
 * records made since the last save durable, `compact` writes the whole snapshot; one at a time,
 * in order. The fencing is the backend's: each write is refused once its lock is lost.
 */
export abstract class RemoteStore extends RecordingStore implements StateStore {
  /** Saves and compactions, one at a time, in order. */
  #io: Promise<void> = Promise.resolve();

  /** Writes `batch` (the oldest pending records); returns the number of the last record now durable. */
  protected abstract saveBatch(batch: PendingRecord[]): Promise<number>;
  /** Writes `text` as the whole snapshot, in place of the snapshot and records stored. */
  protected abstract writeSnapshot(text: string): Promise<void>;
  /** Whether a compaction has anything to write. */
  protected abstract compactable(): boolean;
  /** Reads snapshot and records as stored. */
  protected abstract readStored(): Promise<{ file: StateFile; lastSeq: number }>;
  /** Whether this process holds the lock, so that `close` compacts. */
  protected abstract holdsLock(): boolean;

  save(): Promise<void> {
    if (this.readOnly || this.pending.length === 0) return this.#io;
    return this.#enqueue(async () => {
      const batch = this.pending.slice();
      if (batch.length === 0) return;
      const durable = await this.saveBatch(batch);
      this.pending = this.pending.filter((line) => line.seq > durable);
    });
  }

  compact(): Promise<void> {
    if (this.readOnly) return Promise.resolve();
    return this.#enqueue(() => this.compactNow());
  }

  /** Writes the snapshot of everything in memory now (from within a queued write); returns the number of the last record it holds. */
  protected async compactNow(): Promise<number> {
    const upTo = this.seq;
    if (!this.compactable()) return upTo;
    await this.writeSnapshot(serializeStateFile(this.file));
    this.pending = this.pending.filter((line) => line.seq > upTo);
    return upTo;
  }

  async reload(): Promise<void> {
    await this.#io;
    if (this.pending.length > 0) throw new StacksyncError('E_INTERNAL', `state ${this.path}: reloaded with writes not yet saved`, { subject: this.path });
    const read = await this.readStored();
    this.file = read.file;
    this.seq = read.lastSeq;
  }

  async close(): Promise<void> {
    if (this.holdsLock()) await this.compact();
    await this.#io;
  }

  compactSync(): void {
    // A server cannot be written synchronously; records already saved are durable, and the next
    // holder replays them.
  }

  #enqueue(work: () => Promise<unknown>): Promise<void> {
    const run = this.#io.then(work).then(() => undefined);
    this.#io = run.catch(() => undefined);
    return run;
  }
}

/** A write refused because its holder does not hold the lock (any more): `E_STATE_LOCKED`. */
export function refusedError(location: string, what: string, why: string): StacksyncError {
  return new StacksyncError('E_STATE_LOCKED', `state ${location}: refused to ${what}: ${why}`, { subject: location });
}

/**
 * The lock is held by `holder` (or by something `stranger` names) past the wait: `E_STATE_LOCKED`,
 * with the lock id `state unlock` takes and what else the backend's lock allows (`hint`).
 */
export function heldError(location: string, holder: LockHolder | undefined, options: { timeoutMs: number; why?: string | undefined; stranger: string; hint: string }): StacksyncError {
  const who = holder ? `\`stacksync ${holder.command}\` (pid ${holder.pid} on host ${holder.host}, since ${holder.since}, lock id ${holder.token})` : options.stranger;
  const waited = options.why ?? `waited ${Number((options.timeoutMs / 1000).toFixed(1))} s (--lock-timeout)`;
  return new StacksyncError('E_STATE_LOCKED', `state ${location} is locked by ${who}; ${waited}. Try again when it is done; ${options.hint}`, {
    subject: location,
    ...(holder ? { details: { pid: holder.pid, host: holder.host, command: holder.command, since: holder.since } } : {}),
  });
}
