/**
 * Parsed manifest files by content hash, for a process that loads the same directory again and
 * again (the daemon: every sync of every target). A sync still reads every file, so it sees one
 * consistent snapshot, but parses only the files whose bytes it has not seen: after an edit, one
 * file; after a git-sync swap, the files the new revision changed (the key is the content, not the
 * path, which changes with every worktree). Loads in parallel share a parse in progress.
 *
 * Reading every file is most of a cached load; so the cache also remembers each file's metadata
 * (real path, inode, size, modification and change times) with its content key, and a file that
 * still looks the same is not read at all, as git's index does. A file modified in the last two
 * seconds is not vouched for that way (its time may not yet tell a second edit from the first).
 *
 * The cache holds what the loads in progress and the last finished one used, nothing older, so
 * it stays the size of one snapshot (plus what an edit replaced, until the next load ends).
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import type { ParsedText } from './parse.js';
import type { Snapshot } from './read.js';

/** The key of a file's bytes. */
export function contentKey(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}

export interface ParseCacheStats {
  /** Files parsed since the cache was made. */
  parsed: number;
  /** Files whose parse was taken from the cache. */
  reused: number;
  /** Files not even read: their metadata showed them unchanged. */
  unread: number;
  /** Loads that took the snapshot another load was reading at the same time. */
  sharedReads: number;
}

/** Files modified this recently are read again whatever their metadata says. */
export const METADATA_TRUSTED_AFTER_MS = 2_000;

/** The identity of a file whose metadata vouches for nothing: it matches no file's. */
const UNVOUCHED = '';

function identityOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/** One load's view of the cache; `end` it when the load is done (it may then evict). */
export interface CacheSession {
  /** The content key of a file whose metadata is as it was when it was last read, if any. */
  known(real: string, stats: Stats): string | undefined;
  /** Records what a file read in this load looked like, and its content key. */
  remember(real: string, stats: Stats, key: string): void;
  /** The parse of a file with this key, if one is known or in progress. */
  get(key: string): Promise<ParsedText> | undefined;
  /** Records the parse (in progress) of a file with this key; a failed parse is forgotten. */
  set(key: string, parse: Promise<ParsedText>): void;
  end(): void;
}

interface Used {
  keys: Set<string>;
  files: Set<string>;
}

export class ParseCache {
  readonly #entries = new Map<string, Promise<ParsedText>>();
  /** By real path: the file's metadata when it was read (if old enough to trust by then), and its content key. */
  readonly #files = new Map<string, { identity: string; key: string }>();
  /** What each load in progress used. */
  readonly #sessions = new Set<Used>();
  readonly #now: () => number;
  /** Snapshot reads in progress, by directory and limits. */
  readonly #reads = new Map<string, Promise<Snapshot>>();

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }
  readonly #stats: ParseCacheStats = { parsed: 0, reused: 0, unread: 0, sharedReads: 0 };

  get stats(): ParseCacheStats {
    return { ...this.#stats };
  }

  /** Files held. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The snapshot a load in progress is reading of the same directory, if one is, else `read()`'s:
   * targets that sync at once (one per target after an edit) read the directory once. A read that
   * has finished is never reused: each later load reads afresh.
   */
  sharedRead(key: string, read: () => Promise<Snapshot>): Promise<Snapshot> {
    let snapshot = this.#reads.get(key);
    if (snapshot !== undefined) this.#stats.sharedReads += 1;
    else {
      snapshot = read().finally(() => this.#reads.delete(key));
      this.#reads.set(key, snapshot);
    }
    return snapshot;
  }

  /** The parse of what the file at this real path held when a load last read it, if it is still held. */
  lastParseOf(real: string): Promise<ParsedText> | undefined {
    const file = this.#files.get(real);
    return file === undefined ? undefined : this.#entries.get(file.key);
  }

  begin(): CacheSession {
    const used: Used = { keys: new Set(), files: new Set() };
    this.#sessions.add(used);
    return {
      known: (real, stats) => {
        const file = this.#files.get(real);
        if (!file || file.identity !== identityOf(stats) || !this.#entries.has(file.key)) return undefined;
        used.files.add(real);
        used.keys.add(file.key);
        this.#stats.unread += 1;
        return file.key;
      },
      remember: (real, stats, key) => {
        used.files.add(real);
        // A file modified too recently to be vouched for by its metadata keeps only its content key.
        const trusted =
          this.#now() - stats.mtimeMs >= METADATA_TRUSTED_AFTER_MS &&
          this.#now() - stats.ctimeMs >= METADATA_TRUSTED_AFTER_MS;
        this.#files.set(real, { identity: trusted ? identityOf(stats) : UNVOUCHED, key });
      },
      get: (key) => {
        const entry = this.#entries.get(key);
        if (entry !== undefined) {
          used.keys.add(key);
          this.#stats.reused += 1;
        }
        return entry;
      },
      set: (key, parse) => {
        used.keys.add(key);
        this.#stats.parsed += 1;
        this.#entries.set(key, parse);
        parse.catch(() => {
          if (this.#entries.get(key) === parse) this.#entries.delete(key);
        });
      },
      end: () => {
        if (!this.#sessions.delete(used)) return;
        const keys = new Set(used.keys);
        const files = new Set(used.files);
        for (const other of this.#sessions) {
          for (const key of other.keys) keys.add(key);
          for (const file of other.files) files.add(file);
        }
        for (const key of this.#entries.keys()) if (!keys.has(key)) this.#entries.delete(key);
        for (const [real, file] of this.#files) if (!files.has(real) || !keys.has(file.key)) this.#files.delete(real);
      },
    };
  }
}
