/**
 * The state on disk: a state file plus a journal beside it. The state is kept in memory and
 * changed in place; each change is one record appended to the journal, and `save()` makes every
 * record appended so far durable with one fsync, however many writes were in flight. So a write
 * costs the same at 30,000 resources as at 10. At the end of a run (and when a journal is found at
 * start-up, after a crash) the state file is rewritten atomically and the journal removed.
 *
 * A corrupt file stops the run; it is never silently reset, because an empty inventory would
 * forget what stacksync owns and make the next prune or create go wrong. Only one process may
 * write at a time: callers hold the lock of `lock.ts` around a store they write through.
 */
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { StacksyncError } from '../errors.js';
import type { StateFile, StateRecord, TargetState } from '../model/state.js';
import {
  errnoCode,
  makeDirectorySync,
  nodeFs,
  removeDurablySync,
  syncDirectory,
  writeFileAtomically,
  writeFileAtomicallySync,
  type StateFs,
  type StateFileHandle,
} from '../support/fs.js';
import {
  corruptFile,
  journalPathFor,
  parseJournal,
  parseStateFile,
  parseVersionedStateFile,
  serializeStateFile,
  type FileVersion,
  STATE_VERSION,
} from './format.js';
import { applyRecord } from './record-effects.js';
import { InMemoryStore, targetOf } from './in-memory.js';

export { journalPathFor, parseStateFile, STATE_FILE_SCHEMA, STATE_VERSION } from './format.js';

/** Mode of the state directory when stacksync creates it. */
export const STATE_DIR_MODE = 0o700;
/** Mode of the state file and its journal: they hold ids and HMACs, no secrets, but nobody else needs them. */
export const STATE_FILE_MODE = 0o600;

export interface StateStore {
  /** Path of the state file. */
  readonly path: string;
  /**
   * One target's state (empty when there is none). It is the store's own copy, changed in place
   * by later records, so reading costs nothing: never change it, and do not keep it across writes.
   */
  get(target: string): TargetState;
  /** Applies records to one target's state in memory and queues them for the journal; `save()` makes them durable. */
  add(target: string, ...records: StateRecord[]): void;
  /** Replaces one target's state (one record the size of the target: for tools and tests, not per write). */
  set(target: string, state: TargetState): void;
  /**
   * Applies a whole-state transition to one target and returns the new state. Nothing is recorded
   * when the transition returns its input; otherwise it costs what `set` does.
   */
  update(target: string, transition: (state: TargetState) => TargetState): TargetState;
  /** The whole state as it is in memory (the store's own copy, like `get`). */
  snapshot(): StateFile;
  /**
   * Makes every record made before the call durable. Records of concurrent writers share one
   * append and one fsync. Rejects with `E_STATE_WRITE` when that write fails (the next save then
   * rewrites the whole state file instead of appending). Nothing to write resolves at once.
   */
  save(): Promise<void>;
  /** Writes the whole state to the state file atomically and removes the journal (end of a run). */
  compact(): Promise<void>;
  /** Reads the state from disk again (another process may have written it since); nothing may be unsaved. */
  reload(): Promise<void>;
  /** Compacts what was written and closes the journal. */
  close(): Promise<void>;
  /**
   * Compacts at once, synchronously, from memory (records not yet saved included: each is either
   * an intent, harmless early, or a write that happened): for a process exiting at once.
   */
  compactSync(): void;
}

export interface StateStoreOptions {
  fs?: StateFs;
  /** Never write (plan, dry runs): records are refused, save and compact do nothing. Default false. */
  readOnly?: boolean;
  /**
   * Compact a journal found at open (what a crashed run left). Default true; the daemon opens
   * without, since it holds no lock yet, and compacts at its first sync.
   */
  compactOnOpen?: boolean;
}

/** Opens the state file at `path` and replays its journal; a missing file is an empty state (first run). */
export async function openStateStore(path: string, options: StateStoreOptions = {}): Promise<StateStore> {
  const store = new FileStateStore(path, options.fs ?? nodeFs, options.readOnly === true);
  await store.load(options.compactOnOpen !== false);
  return store;
}

/** The state as it is durable on disk (the state file with its journal replayed), without writing anything. */
export async function readDurableState(path: string, fs: StateFs = nodeFs): Promise<StateFile> {
  return (await readDisk(fs, path)).file;
}

/** The lineage and serial the state file keeps (none for a file written before them, or no file). */
export async function readStateFileVersion(path: string, fs: StateFs = nodeFs): Promise<FileVersion> {
  return (await readDisk(fs, path)).version;
}

/**
 * Gives the state file the lineage `lineage` (`state migrate` keeps the source's): rewrites it
 * whole, the journal replayed into it. Only under the state lock.
 */
export async function adoptFileLineage(path: string, lineage: string, fs: StateFs = nodeFs): Promise<void> {
  const store = new FileStateStore(path, fs, false);
  await store.load(true);
  await store.rewriteAs(lineage);
  await store.close();
}

/** Reads and validates a state file alone; `E_STATE_CORRUPT` naming the file when it cannot be used. */
export async function readStateFile(fs: StateFs, path: string): Promise<StateFile> {
  const text = await readIfPresent(fs, path, (error) =>
    corruptFile(path, `cannot be read (${errnoCode(error) ?? String(error)})`, error),
  );
  return text === undefined ? { version: STATE_VERSION, targets: {} } : parseStateFile(path, text);
}

interface DiskState {
  file: StateFile;
  version: FileVersion;
  fileFound: boolean;
  /** Number of the last journal record, 0 without one. */
  lastSeq: number;
  journalFound: boolean;
  tornTail: boolean;
}

/**
 * The journal is read before the state file: a compaction by another process in between then
 * means replaying records the new state file already holds, which changes nothing (every record
 * is an assignment), instead of missing records that were moved into it.
 */
async function readDisk(fs: StateFs, path: string): Promise<DiskState> {
  const journalPath = journalPathFor(path);
  const journalText = await readIfPresent(fs, journalPath, (error) =>
    corruptFile(journalPath, `cannot be read (${errnoCode(error) ?? String(error)})`, error),
  );
  const text = await readIfPresent(fs, path, (error) =>
    corruptFile(path, `cannot be read (${errnoCode(error) ?? String(error)})`, error),
  );
  const { file, version } =
    text === undefined
      ? { file: { version: STATE_VERSION, targets: {} } as StateFile, version: {} }
      : parseVersionedStateFile(path, text);
  const journal = journalText === undefined ? { entries: [], tornTail: false } : parseJournal(journalPath, journalText);
  for (const entry of journal.entries) applyRecord(targetOf(file, entry.target), entry.record);
  const lastSeq = journal.entries[journal.entries.length - 1]?.seq ?? 0;
  return {
    file,
    version,
    fileFound: text !== undefined,
    lastSeq,
    journalFound: journalText !== undefined,
    tornTail: journal.tornTail,
  };
}

async function readIfPresent(
  fs: StateFs,
  path: string,
  unreadable: (error: unknown) => Error,
): Promise<string | undefined> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw unreadable(error);
  }
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

class FileStateStore extends InMemoryStore implements StateStore {
  readonly #journalPath: string;
  /** Number of the last record durable on disk. */
  #durableSeq = 0;
  #waiters: Waiter[] = [];
  /** Appends and compactions, one at a time, in order. Never rejects. */
  #io: Promise<void> = Promise.resolve();
  #flushQueued = false;
  #journal: StateFileHandle | undefined;
  /** A journal file is on disk (so a compaction has one to remove). */
  #journalOnDisk = false;
  /** A state file is on disk: until there is one, a save writes it instead of starting a journal. */
  #stateFileOnDisk = false;
  /**
   * The journal's end is not known to be a whole line (an append failed, or a crash tore its last
   * line): nothing may be appended after it, so the next write is a compaction.
   */
  #journalSuspect = false;
  /** What the state file on disk says of its lineage and serial; each rewrite gives the next serial. */
  #version: FileVersion = {};

  constructor(
    path: string,
    private readonly fs: StateFs,
    readOnly: boolean,
  ) {
    super(path, readOnly);
    this.#journalPath = journalPathFor(path);
  }

  async load(compact: boolean): Promise<void> {
    const disk = await readDisk(this.fs, this.path);
    this.file = disk.file;
    this.#version = disk.version;
    this.seq = this.#durableSeq = disk.lastSeq;
    this.#journalOnDisk = disk.journalFound;
    this.#stateFileOnDisk = disk.fileFound;
    this.#journalSuspect = disk.tornTail;
    if (compact && disk.journalFound && !this.readOnly) await this.compact();
  }

  save(): Promise<void> {
    const seq = this.seq;
    if (this.readOnly || this.#durableSeq >= seq) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ seq, resolve, reject });
      this.#scheduleFlush();
    });
  }

  compact(): Promise<void> {
    if (this.readOnly) return Promise.resolve();
    return this.#enqueue(() => (this.#inStateFile() ? Promise.resolve() : this.#compactNow()));
  }

  async reload(): Promise<void> {
    await this.#io;
    if (this.pending.length > 0 || this.#durableSeq < this.seq) {
      throw new StacksyncError('E_INTERNAL', `state file ${this.path}: reloaded with writes not yet saved`, {
        subject: this.path,
      });
    }
    await this.#closeJournal();
    await this.load(true);
  }

  async close(): Promise<void> {
    await this.compact();
    await this.#io;
    await this.#closeJournal();
  }

  /** Rewrites the state file now under `lineage` (adoptFileLineage). */
  async rewriteAs(lineage: string): Promise<void> {
    this.#version = { ...this.#version, lineage };
    await this.#enqueue(() => this.#compactNow());
  }

  compactSync(): void {
    if (this.readOnly || this.#inStateFile()) return;
    makeDirectorySync(dirname(this.path), STATE_DIR_MODE);
    writeFileAtomicallySync(this.path, serializeStateFile(this.file, this.#nextVersion()), STATE_FILE_MODE);
    removeDurablySync(this.#journalPath);
    this.#journalOnDisk = false;
    this.#stateFileOnDisk = true;
  }

  /** Memory and the state file agree: every record went through the journal, and there is none. */
  #inStateFile(): boolean {
    return (
      !this.#journalOnDisk &&
      !this.#journalSuspect &&
      this.pending.length === 0 &&
      (this.#stateFileOnDisk || this.seq === 0)
    );
  }

  /** Runs `work` after the appends and compactions queued before it; its failure is returned, not left in the queue. */
  #enqueue(work: () => Promise<void>): Promise<void> {
    const run = this.#io.then(work);
    this.#io = run.catch(() => undefined);
    return run;
  }

  /** One append is queued at a time: records made while one is running all go into the next. */
  #scheduleFlush(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    void this.#enqueue(() => {
      this.#flushQueued = false;
      return this.#flush();
    }).catch(() => undefined);
  }

  async #flush(): Promise<void> {
    if (this.pending.length === 0) return this.#resolveDurable(this.#durableSeq);
    // The first save of a first run writes the state file, so a journal always has one beside it
    // and the state file appears as soon as stacksync may own something.
    if (this.#journalSuspect || !this.#stateFileOnDisk) return this.#compactNow();
    const batch = this.pending.length;
    const upTo = this.pending[batch - 1]?.seq ?? this.seq;
    try {
      const journal = await this.#openJournal();
      await journal.writeFile(
        this.pending
          .slice(0, batch)
          .map((line) => line.text)
          .join(''),
      );
      await journal.datasync();
    } catch (error) {
      // Part of the batch may be on disk: never append after it, rewrite the whole state instead.
      this.#journalSuspect = true;
      await this.#closeJournal();
      this.#fail(upTo, error);
      return;
    }
    this.pending.splice(0, batch);
    this.#durableSeq = upTo;
    this.#resolveDurable(upTo);
  }

  /** State file rewritten atomically from memory, then the journal removed; covers every record made so far. */
  /** The lineage and serial of the next rewrite: a file without a lineage gets one now. */
  #nextVersion(): Required<FileVersion> {
    this.#version = { lineage: this.#version.lineage ?? randomUUID(), serial: (this.#version.serial ?? 0) + 1 };
    return this.#version as Required<FileVersion>;
  }

  async #compactNow(): Promise<void> {
    const upTo = this.seq;
    const text = serializeStateFile(this.file, this.#nextVersion());
    try {
      await this.#closeJournal();
      await this.fs.mkdir(dirname(this.path), { recursive: true, mode: STATE_DIR_MODE });
      await writeFileAtomically(this.fs, this.path, text, STATE_FILE_MODE);
      this.#stateFileOnDisk = true;
      if (this.#journalOnDisk) await this.#removeJournal();
    } catch (error) {
      // The journal may still hold records the state file lacks, or lack some it has: append no more to it.
      this.#journalSuspect = true;
      this.#fail(upTo, error);
      throw this.#writeError(error);
    }
    this.#journalSuspect = false;
    this.pending = this.pending.filter((line) => line.seq > upTo);
    this.#durableSeq = Math.max(this.#durableSeq, upTo);
    this.#resolveDurable(upTo);
  }

  async #removeJournal(): Promise<void> {
    try {
      await this.fs.unlink(this.#journalPath);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
    await syncDirectory(this.fs, dirname(this.path));
    this.#journalOnDisk = false;
  }

  async #openJournal(): Promise<StateFileHandle> {
    if (this.#journal) return this.#journal;
    await this.fs.mkdir(dirname(this.path), { recursive: true, mode: STATE_DIR_MODE });
    let created = true;
    let handle: StateFileHandle;
    try {
      handle = await this.fs.open(this.#journalPath, 'ax', STATE_FILE_MODE);
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
      created = false;
      handle = await this.fs.open(this.#journalPath, 'a', STATE_FILE_MODE);
    }
    this.#journal = handle;
    this.#journalOnDisk = true;
    // A new file's name must be durable too, or a crash could lose the whole journal.
    if (created) await syncDirectory(this.fs, dirname(this.path));
    return handle;
  }

  async #closeJournal(): Promise<void> {
    const journal = this.#journal;
    this.#journal = undefined;
    await journal?.close().catch(() => undefined);
  }

  #resolveDurable(upTo: number): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      if (waiter.seq > upTo) return true;
      waiter.resolve();
      return false;
    });
  }

  #fail(upTo: number, error: unknown): void {
    const failure = this.#writeError(error);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (waiter.seq > upTo) return true;
      waiter.reject(failure);
      return false;
    });
  }

  #writeError(error: unknown): StacksyncError {
    if (error instanceof StacksyncError) return error;
    return new StacksyncError(
      'E_STATE_WRITE',
      `state file ${this.path} could not be written (${errnoCode(error) ?? String(error)})`,
      { subject: this.path, cause: error },
    );
  }
}
