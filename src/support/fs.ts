/**
 * The slice of `node:fs/promises` the state layer uses, so tests can inject failures
 * (a rename that throws, a disk that is full) without touching the real disk's behaviour.
 */
import * as fsSync from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

export interface StateFileHandle {
  writeFile(data: string): Promise<void>;
  sync(): Promise<void>;
  /** Flushes the data (and the size), not the other metadata: what an append needs to be durable. */
  datasync(): Promise<void>;
  close(): Promise<void>;
}

export interface StateFs {
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  open(path: string, flags: string, mode?: number): Promise<StateFileHandle>;
  rename(from: string, to: string): Promise<void>;
  link(existing: string, created: string): Promise<void>;
  unlink(path: string): Promise<void>;
  mkdir(path: string, options: { recursive: true; mode: number }): Promise<unknown>;
  stat(path: string): Promise<{ mode: number; isFile(): boolean }>;
}

/** The real file system. */
export const nodeFs: StateFs = {
  // Read whole, then decoded once. Given an encoding, Node decodes a file chunk by chunk and joins
  // the pieces: for the state of 10,000 resources (2 MB) the text was made twice on the heap.
  readFile: async (path) => (await fsPromises.readFile(path)).toString('utf8'),
  open: fsPromises.open,
  rename: fsPromises.rename,
  link: fsPromises.link,
  unlink: fsPromises.unlink,
  mkdir: fsPromises.mkdir,
  stat: fsPromises.stat,
};

/** The errno code of a Node file-system error, if any. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Writes `data` to `path` and flushes it to disk; the handle is closed whatever happens. */
export async function writeDurably(
  fs: StateFs,
  path: string,
  data: string,
  flags: string,
  mode: number,
): Promise<void> {
  const handle = await fs.open(path, flags, mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Flushes a directory entry (a rename or link) to disk. Some platforms cannot open a directory
 * for syncing; there the rename is as durable as the OS makes it, so those errors are ignored.
 */
export async function syncDirectory(fs: StateFs, dir: string): Promise<void> {
  let handle: StateFileHandle;
  try {
    handle = await fs.open(dir, 'r');
  } catch (error) {
    if (['EISDIR', 'EPERM', 'EACCES', 'EINVAL'].includes(errnoCode(error) ?? '')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!['EINVAL', 'EPERM', 'EBADF'].includes(errnoCode(error) ?? '')) throw error;
  } finally {
    await handle.close();
  }
}

/** Removes a file, ignoring that it is already gone. */
export async function removeQuietly(fs: StateFs, path: string): Promise<void> {
  try {
    await fs.unlink(path);
  } catch {
    // Best effort: a leftover temp file is harmless and the error that led here matters more.
  }
}

/**
 * Writes `text` to `path` so that a reader, or a process restarted after a crash, sees the old file
 * or the new one, never half of one: a temp file in the same directory (so the rename is atomic),
 * fsync, rename, fsync the directory. The temp file is removed when any step fails.
 */
export async function writeFileAtomically(fs: StateFs, path: string, text: string, mode: number): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeDurably(fs, temp, text, 'wx', mode);
    await fs.rename(temp, path);
  } catch (error) {
    await removeQuietly(fs, temp);
    throw error;
  }
  await syncDirectory(fs, dir);
}

/**
 * `writeFileAtomically` with the real file system's synchronous calls: for a process that must
 * leave a complete file behind while it exits at once (a second signal), when no promise will
 * run any more. Best effort: any failure leaves the old file in place.
 */
export function writeFileAtomicallySync(path: string, text: string, mode: number): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = fsSync.openSync(temp, 'wx', mode);
    try {
      fsSync.writeFileSync(fd, text);
      fsSync.fsyncSync(fd);
    } finally {
      fsSync.closeSync(fd);
    }
    fsSync.renameSync(temp, path);
    syncDirectorySync(dir);
  } catch (error) {
    fsSync.rmSync(temp, { force: true });
    throw error;
  }
}

/** Removes a file (ignoring that it is gone) and flushes the directory entry, synchronously. */
export function removeDurablySync(path: string): void {
  fsSync.rmSync(path, { force: true });
  syncDirectorySync(dirname(path));
}

function syncDirectorySync(dir: string): void {
  let fd: number;
  try {
    fd = fsSync.openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsSync.fsyncSync(fd);
  } catch {
    // As in syncDirectory: some platforms cannot sync a directory.
  } finally {
    fsSync.closeSync(fd);
  }
}

/** Creates a directory and its parents if missing, synchronously (see `writeFileAtomicallySync`). */
export function makeDirectorySync(dir: string, mode: number): void {
  fsSync.mkdirSync(dir, { recursive: true, mode });
}
