/**
 * Reads the manifests directory into one in-memory snapshot before anything is parsed, so a
 * sync sees one consistent set of files even while git-sync swaps the checkout underneath.
 *
 * Every `*.yaml` / `*.yml` below the directory, recursively, in a stable order. Entries whose
 * name starts with '.' are skipped (`.git`, `.github`, git-sync's hidden worktrees). Symlinks are
 * followed only while they stay inside the directory, and each real file or directory is read once.
 */
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { formatBytes } from '../yaml/safety.js';
import type { LoadProblem } from '../model/desired.js';

export interface SnapshotFile {
  /** The path shown in messages: the directory as given, joined with the path inside it. */
  path: string;
  bytes: Uint8Array;
}

export interface Snapshot {
  files: SnapshotFile[];
  problems: LoadProblem[];
}

export interface ReadLimits {
  maxFileBytes: number;
  maxFiles: number;
}

const MANIFEST_FILE = /\.ya?ml$/i;

interface Walk {
  root: string;
  shownRoot: string;
  limits: ReadLimits;
  visitedDirs: Set<string>;
  seenFiles: Set<string>;
  found: { path: string; real: string }[];
  problems: LoadProblem[];
}

/** Reads every manifest file under `dir`. Problems (unreadable, too large, escaping) are collected. */
export async function readSnapshot(dir: string, limits: ReadLimits): Promise<Snapshot> {
  let root: string;
  try {
    root = await realpath(dir);
    if (!(await stat(root)).isDirectory()) return { files: [], problems: [parseProblem(dir, 'the manifests directory is not a directory')] };
  } catch (error) {
    return { files: [], problems: [parseProblem(dir, `the manifests directory cannot be read (${errorCode(error)})`)] };
  }
  const walk: Walk = { root, shownRoot: dir, limits, visitedDirs: new Set([root]), seenFiles: new Set(), found: [], problems: [] };
  await walkDir(walk, root, dir);
  const files: SnapshotFile[] = [];
  for (const entry of walk.found) {
    const bytes = await readOne(entry.path, entry.real, limits, walk.problems);
    if (bytes) files.push({ path: entry.path, bytes });
  }
  return { files, problems: walk.problems };
}

async function walkDir(walk: Walk, realDir: string, shownDir: string): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(realDir)).filter((name) => !name.startsWith('.')).sort(compareNames);
  } catch (error) {
    walk.problems.push(parseProblem(shownDir, `the directory cannot be read (${errorCode(error)})`));
    return;
  }
  for (const name of names) {
    if (walk.found.length >= walk.limits.maxFiles) {
      walk.problems.push(parseProblem(walk.shownRoot, `more than ${walk.limits.maxFiles} manifest files; the rest were not read`));
      return;
    }
    await visit(walk, join(realDir, name), join(shownDir, name));
  }
}

async function visit(walk: Walk, realPath: string, shown: string): Promise<void> {
  const entry = await lstat(realPath).catch(() => undefined);
  if (!entry) return;
  if (entry.isSymbolicLink()) return visitLink(walk, realPath, shown);
  if (entry.isDirectory()) return walkOnce(walk, realPath, shown);
  if (MANIFEST_FILE.test(shown)) addFile(walk, shown, realPath);
}

async function visitLink(walk: Walk, linkPath: string, shown: string): Promise<void> {
  let real: string;
  try {
    real = await realpath(linkPath);
  } catch (error) {
    if (MANIFEST_FILE.test(shown)) walk.problems.push(parseProblem(shown, `is a broken symlink (${errorCode(error)})`));
    return;
  }
  const target = await stat(real).catch(() => undefined);
  if (!target) return;
  if (!target.isDirectory() && !MANIFEST_FILE.test(shown)) return;
  if (!isInside(walk.root, real)) {
    walk.problems.push(parseProblem(shown, 'is a symlink that leads outside the manifests directory; it was not read'));
    return;
  }
  if (target.isDirectory()) return walkOnce(walk, real, shown);
  addFile(walk, shown, real);
}

/** A link to a file already found would only produce duplicate-name errors; each is read once. */
function addFile(walk: Walk, shown: string, real: string): void {
  if (walk.seenFiles.has(real)) return;
  walk.seenFiles.add(real);
  walk.found.push({ path: shown, real });
}

/** Each real directory is walked once: a link back up would loop, a link across would read files twice. */
async function walkOnce(walk: Walk, realDir: string, shown: string): Promise<void> {
  if (walk.visitedDirs.has(realDir)) return;
  walk.visitedDirs.add(realDir);
  return walkDir(walk, realDir, shown);
}

async function readOne(shown: string, real: string, limits: ReadLimits, problems: LoadProblem[]): Promise<Uint8Array | undefined> {
  try {
    const stats = await stat(real);
    // A FIFO or device named *.yaml would block or never end.
    if (!stats.isFile()) return void problems.push(parseProblem(shown, 'is not a regular file'));
    if (stats.size > limits.maxFileBytes) return void problems.push(tooLarge(shown, stats.size, limits));
    const bytes = await readFile(real);
    if (bytes.length > limits.maxFileBytes) return void problems.push(tooLarge(shown, bytes.length, limits));
    return bytes;
  } catch (error) {
    problems.push(parseProblem(shown, `cannot be read (${errorCode(error)})`));
    return undefined;
  }
}

function tooLarge(shown: string, size: number, limits: ReadLimits): LoadProblem {
  return parseProblem(shown, `is ${formatBytes(size)}, over the limit of ${formatBytes(limits.maxFileBytes)} per manifest file`);
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel));
}

/** Code-unit order, not locale order, so every machine reads files in the same sequence. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/** A problem with a whole file or directory; it cannot be told which target it belongs to. */
export function parseProblem(file: string, message: string): LoadProblem {
  return { code: 'E_MANIFEST_PARSE', message, location: { file } };
}
