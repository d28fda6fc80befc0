/**
 * Watches the manifests directory and reports, debounced, that a sync is due.
 *
 * git-sync publishes a revision by atomically renaming a new symlink over the old one
 * (`current -> .worktrees/<sha>`). A watcher on the link path keeps watching the old worktree and
 * sees nothing (docs/daemon.md, "Watching a git-sync checkout"). So there are two watchers:
 * - the *link watcher* watches the link's parent with `depth: 0` and `followSymlinks: false`,
 *   filtered to the link's name; on any event it resolves the path again and, when the checkout
 *   moved, re-points the file watcher and reports `checkout-swapped`;
 * - the *file watcher* watches the resolved directory for `*.yaml`/`*.yml` edits and directory
 *   adds/removes, reported as `files`.
 * A plain directory has only the file watcher. A link that does not exist yet (git-sync has not
 * cloned) is watched for until it appears. A watched directory that is deleted and made again
 * (the checkout's parent replaced) is watched again: every check compares inodes, not only paths.
 *
 * Events are debounced: a burst (a checkout of 500 files) is one `onChange` with every path.
 * No `awaitWriteFinish`: it would add seconds of polling to every edit. A sync that catches a file
 * half-written reports a parse error, and the write's next event brings another sync.
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join, parse, relative, resolve, sep } from 'node:path';
import { watch } from 'chokidar';
import type { FSWatcher } from 'chokidar';
import type { Logger } from 'pino';

export interface ChangeReason {
  /** `checkout-swapped` when the checkout moved to another directory (possibly with file events too). */
  kind: 'files' | 'checkout-swapped';
  /** Paths that changed, sorted; for a swap, the new checkout directory. Capped at MAX_PATHS. */
  paths: string[];
}

export interface WatchOptions {
  /** Quiet time after the last event before `onChange`. Default 200 ms. */
  debounceMs?: number;
  /** Longest delay of `onChange` under a steady stream of events. Default 2 s. */
  maxWaitMs?: number;
  /** Called once per settled burst of changes. Must not throw (a throw is logged). */
  onChange: (reason: ChangeReason) => void;
  logger?: Logger;
}

export interface ManifestWatcher {
  /**
   * The real directory the manifests are in now (the link resolved). Read a sync's snapshot from
   * here, not through the link, so a swap during the read cannot mix two revisions.
   * The given directory, resolved, while it does not exist.
   */
  currentRoot(): string;
  /**
   * Looks at the checkout again now: follows a swap whose event never came, and sets up again a
   * watch whose directory was replaced. A daemon calls it at every sync, so a watch that died is
   * back by the next periodic resync at the latest.
   */
  refresh(): Promise<void>;
  /** Stops watching; no `onChange` after it resolves. */
  close(): Promise<void>;
}

export const DEFAULT_DEBOUNCE_MS = 200;
export const DEFAULT_MAX_WAIT_MS = 2_000;
/** Paths reported per change at most; the sync re-reads everything anyway. */
export const MAX_PATHS = 1_000;

const MANIFEST = /\.ya?ml$/i;

/** The directory the manifests are in, and which one it is (a directory deleted and made again is another). */
interface Checkout {
  path: string;
  ino: number;
}

interface LinkWatch {
  anchor: string;
  /** The anchor's parent, as it was when the watch began: if it is replaced, the watch is dead. */
  parentIno: number;
  watcher: FSWatcher;
}

/** Starts watching `dir`; resolves once the watchers are ready. */
export async function watchManifests(dir: string, options: WatchOptions): Promise<ManifestWatcher> {
  const wanted = resolve(dir);
  const log = options.logger;
  const changes = createDebouncer(options);
  const recheckMs = 2 * (options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  let root = await checkoutAt(wanted);
  let files = root === undefined ? undefined : await watchFiles(root.path, changes, log);
  let link: LinkWatch | undefined;
  let closed = false;
  let recheckTimer: NodeJS.Timeout | undefined;

  const swapTo = async (next: Checkout | undefined): Promise<void> => {
    log?.info({ from: root?.path, to: next?.path }, 'manifests checkout swapped');
    const previous = files;
    root = next;
    files = undefined;
    await previous?.close();
    if (next !== undefined && !closed) files = await watchFiles(next.path, changes, log);
    if (!closed) changes.add(next?.path ?? wanted, true);
  };
  // The link watcher watches the anchor's parent; when that directory is deleted (and made again),
  // the watch dies with it and must be set up afresh, on whatever the anchor is now.
  const rearmLink = async (): Promise<void> => {
    const anchor = await findAnchor(wanted);
    const parentIno = anchor === undefined ? undefined : await inodeOf(dirname(anchor));
    if (link !== undefined && link.anchor === anchor && link.parentIno === parentIno) return;
    const previous = link;
    link = undefined;
    await previous?.watcher.close();
    if (anchor === undefined || parentIno === undefined || closed) return;
    link = { anchor, parentIno, watcher: await watchLink(anchor, onLinkEvent, log) };
  };
  const check = async (): Promise<void> => {
    await rearmLink();
    const next = await checkoutAt(wanted);
    if (!closed && (next?.path !== root?.path || next?.ino !== root?.ino)) await swapTo(next);
  };
  // Serialised, so two quick swaps never leave two file watchers behind.
  let checking = Promise.resolve();
  const recheck = (): Promise<void> => {
    checking = checking
      .then(check)
      .catch((error: unknown) => log?.error({ err: error, dir: wanted }, 'following the checkout failed'));
    return checking;
  };
  function onLinkEvent(): void {
    void recheck();
    // chokidar may fold two quick events on one name into one: look once more when things settle.
    clearTimeout(recheckTimer);
    recheckTimer = setTimeout(() => void recheck(), recheckMs);
    recheckTimer.unref();
  }

  await rearmLink();
  // A swap between the first realpath and the link watcher being ready would go unseen.
  if (link !== undefined) void recheck();
  return {
    currentRoot: () => root?.path ?? wanted,
    refresh: () => recheck(),
    async close() {
      closed = true;
      clearTimeout(recheckTimer);
      await checking;
      changes.cancel();
      await Promise.all([link?.watcher.close(), files?.close()]);
    },
  };
}

async function checkoutAt(path: string): Promise<Checkout | undefined> {
  try {
    const real = await realpath(path);
    return { path: real, ino: (await stat(real)).ino };
  } catch {
    return undefined;
  }
}

function inodeOf(path: string): Promise<number | undefined> {
  return stat(path).then(
    (info) => info.ino,
    () => undefined,
  );
}

/**
 * What a swap replaces: the deepest symlink on the way to `dir` (git-sync's link), or, when part
 * of the path is missing, the first missing entry if no symlink precedes it. Undefined for a
 * plain, existing directory.
 */
export async function findAnchor(dir: string): Promise<string | undefined> {
  let anchor: string | undefined;
  let path = parse(dir).root;
  for (const part of dir.split(sep).filter((segment) => segment !== '')) {
    path = join(path, part);
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined) return anchor ?? path;
    if (info.isSymbolicLink()) anchor = path;
  }
  return anchor;
}

/** Watches the anchor's parent, one level, for events on the anchor's name only. */
async function watchLink(anchor: string, onEvent: () => void, log: Logger | undefined): Promise<FSWatcher> {
  const parent = dirname(anchor);
  const watcher = watch(parent, {
    depth: 0,
    followSymlinks: false,
    ignoreInitial: true,
    ignored: (path: string) => path !== parent && path !== anchor,
  });
  // chokidar reports an `add` for a link even with ignoreInitial; rechecking is idempotent.
  watcher.on('all', (_event, path) => {
    if (path === anchor) onEvent();
  });
  watcher.on('error', (error) => {
    log?.warn({ err: error, path: anchor }, 'watching the checkout link failed');
    onEvent();
  });
  await ready(watcher);
  log?.debug({ link: anchor }, 'watching the checkout link');
  return watcher;
}

/** Watches manifests and directories below `root`; hidden entries (`.git`) are skipped. */
async function watchFiles(root: string, changes: Debouncer, log: Logger | undefined): Promise<Closable> {
  const watcher = watch(root, {
    ignoreInitial: true,
    ignored: (path: string, stats?: Stats) => isIgnored(root, path, stats),
  });
  let active = true;
  const onFile = (path: string): void => {
    if (active && MANIFEST.test(path)) changes.add(path, false);
  };
  const onDir = (path: string): void => {
    if (active && path !== root) changes.add(path, false);
  };
  watcher.on('add', onFile).on('change', onFile).on('unlink', onFile);
  watcher.on('addDir', onDir).on('unlinkDir', onDir);
  watcher.on('error', (error) => log?.warn({ err: error, root }, 'watching manifests failed'));
  await ready(watcher);
  return {
    close: async () => {
      // Events still queued inside chokidar belong to the old checkout: drop them.
      active = false;
      await watcher.close();
    },
  };
}

function isIgnored(root: string, path: string, stats: Stats | undefined): boolean {
  const rel = relative(root, path);
  if (rel === '') return false;
  if (rel.split(sep).some((segment) => segment.startsWith('.'))) return true;
  return stats?.isFile() === true && !MANIFEST.test(basename(path));
}

interface Closable {
  close(): Promise<void>;
}

function ready(watcher: FSWatcher): Promise<void> {
  return new Promise((resolve) => watcher.once('ready', () => resolve()));
}

interface Debouncer {
  add(path: string, swapped: boolean): void;
  cancel(): void;
}

/** Collects paths and calls `onChange` after `debounceMs` of quiet, or `maxWaitMs` at the latest. */
function createDebouncer(options: WatchOptions): Debouncer {
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  let paths = new Set<string>();
  let swapped = false;
  let timer: NodeJS.Timeout | undefined;
  let firstAt = 0;

  const flush = (): void => {
    timer = undefined;
    const reason: ChangeReason = { kind: swapped ? 'checkout-swapped' : 'files', paths: [...paths].sort() };
    paths = new Set();
    swapped = false;
    try {
      options.onChange(reason);
    } catch (error) {
      options.logger?.error({ err: error }, 'manifest change handler failed');
    }
  };

  return {
    add(path, swap) {
      // Paths seen before a swap belong to the old checkout (often its deletion): drop them.
      if (swap) paths.clear();
      if (paths.size < MAX_PATHS) paths.add(path);
      swapped ||= swap;
      const now = Date.now();
      if (timer === undefined) firstAt = now;
      else clearTimeout(timer);
      timer = setTimeout(flush, Math.max(0, Math.min(debounceMs, firstAt + maxWaitMs - now)));
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
