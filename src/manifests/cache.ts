/**
 * Parsed manifest files by content hash, for a process that loads the same directory again and
 * again (the daemon: every sync of every target). A sync still reads every file, so it sees one
 * consistent snapshot, but parses only the files whose bytes it has not seen: after an edit, one
 * file; after a git-sync swap, the files the new revision changed (the key is the content, not the
 * path, which changes with every worktree). Loads in parallel share a parse in progress.
 *
 * The cache holds what the loads in progress and the last finished one used, nothing older, so
 * it stays the size of one snapshot (plus what an edit replaced, until the next load ends).
 */
import { createHash } from 'node:crypto';
import type { ParsedText } from './parse.js';

/** The key of a file's bytes. */
export function contentKey(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}

export interface ParseCacheStats {
  /** Files parsed since the cache was made. */
  parsed: number;
  /** Files whose parse was taken from the cache. */
  reused: number;
}

/** One load's view of the cache; `end` it when the load is done (it may then evict). */
export interface CacheSession {
  /** The parse of a file with this key, if one is known or in progress. */
  get(key: string): Promise<ParsedText> | undefined;
  /** Records the parse (in progress) of a file with this key; a failed parse is forgotten. */
  set(key: string, parse: Promise<ParsedText>): void;
  end(): void;
}

export class ParseCache {
  readonly #entries = new Map<string, Promise<ParsedText>>();
  /** Keys used by each load in progress. */
  readonly #sessions = new Set<Set<string>>();
  readonly #stats: ParseCacheStats = { parsed: 0, reused: 0 };

  get stats(): ParseCacheStats {
    return { ...this.#stats };
  }

  /** Files held. */
  get size(): number {
    return this.#entries.size;
  }

  begin(): CacheSession {
    const used = new Set<string>();
    this.#sessions.add(used);
    return {
      get: (key) => {
        const entry = this.#entries.get(key);
        if (entry) {
          used.add(key);
          this.#stats.reused += 1;
        }
        return entry;
      },
      set: (key, parse) => {
        used.add(key);
        this.#stats.parsed += 1;
        this.#entries.set(key, parse);
        parse.catch(() => {
          if (this.#entries.get(key) === parse) this.#entries.delete(key);
        });
      },
      end: () => {
        if (!this.#sessions.delete(used)) return;
        const keep = new Set(used);
        for (const other of this.#sessions) for (const key of other) keep.add(key);
        for (const key of this.#entries.keys()) if (!keep.has(key)) this.#entries.delete(key);
      },
    };
  }
}
