/**
 * The git revision a manifests checkout is at, reported in `/status` and logs. git-sync checkouts
 * are worktrees (`.git` is a file `gitdir: …`, HEAD detached at the synced commit); plain clones
 * have a `.git` directory. Asking git is the reliable way; when git is missing (a slim container
 * image) the HEAD file is read directly. Never throws: no revision is a normal answer.
 * Whether the checkout holds uncommitted edits decides how the console names the manifests'
 * changes: "from Git" only for a committed revision, "from the working tree" otherwise.
 */
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** How long `git rev-parse` may take before we give up on it. */
export const GIT_TIMEOUT_MS = 2_000;

const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

export interface RevisionOptions {
  /** The git executable; default `git` on PATH. */
  git?: string;
}

/** The commit `dir` (or the repository it sits in) is checked out at, or undefined. */
export async function readRevision(dir: string, options: RevisionOptions = {}): Promise<string | undefined> {
  return (await revParse(options.git ?? 'git', dir)) ?? (await readHeadFiles(resolve(dir)));
}

/**
 * Whether `dir` holds edits not committed at HEAD: a file under it changed, added, deleted or
 * untracked (ignored files do not count). Undefined when git cannot tell (no git, not a
 * repository, a timeout): a git-sync checkout read without git is taken as what it is, a commit.
 */
export async function hasUncommittedEdits(dir: string, options: RevisionOptions = {}): Promise<boolean | undefined> {
  const args = ['-c', 'safe.directory=*', '-C', dir, 'status', '--porcelain', '--untracked-files=all', '--', '.'];
  return new Promise((done) => {
    execFile(options.git ?? 'git', args, { timeout: GIT_TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      done(error ? undefined : String(stdout).trim() !== '');
    });
  });
}

function revParse(git: string, dir: string): Promise<string | undefined> {
  // safe.directory: a sidecar often runs as another user than git-sync, and git refuses
  // "dubious ownership" otherwise. Reading HEAD runs no hooks, so trusting the checkout is safe.
  const args = ['-c', 'safe.directory=*', '-C', dir, 'rev-parse', '--verify', '-q', 'HEAD'];
  return new Promise((done) => {
    execFile(git, args, { timeout: GIT_TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      const commit = String(stdout).trim();
      done(!error && COMMIT.test(commit) ? commit : undefined);
    });
  });
}

/** Without git: find `.git` upwards, follow `gitdir:` and a symbolic HEAD to the commit. */
async function readHeadFiles(dir: string): Promise<string | undefined> {
  try {
    const gitDir = await findGitDir(dir);
    if (gitDir === undefined) return undefined;
    const head = (await readFile(join(gitDir, 'HEAD'), 'utf8')).trim();
    if (COMMIT.test(head)) return head;
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    return ref === undefined ? undefined : await resolveRef(gitDir, ref);
  } catch {
    return undefined;
  }
}

async function findGitDir(start: string): Promise<string | undefined> {
  for (let dir = start; ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const info = await stat(dotGit).catch(() => undefined);
    if (info?.isDirectory()) return dotGit;
    if (info?.isFile()) return gitDirFromFile(dotGit);
    if (dirname(dir) === dir) return undefined;
  }
}

async function gitDirFromFile(dotGitFile: string): Promise<string | undefined> {
  const target = /^gitdir: (.+)$/m.exec(await readFile(dotGitFile, 'utf8'))?.[1]?.trim();
  if (target === undefined) return undefined;
  return isAbsolute(target) ? target : resolve(dirname(dotGitFile), target);
}

/** A branch ref lives in the worktree's common dir, loose or packed. */
async function resolveRef(gitDir: string, ref: string): Promise<string | undefined> {
  const common = await readFile(join(gitDir, 'commondir'), 'utf8').then(
    (text) => resolve(gitDir, text.trim()),
    () => gitDir,
  );
  for (const base of [gitDir, common]) {
    const loose = await readFile(join(base, ref), 'utf8').catch(() => undefined);
    if (loose !== undefined && COMMIT.test(loose.trim())) return loose.trim();
  }
  const packed = await readFile(join(common, 'packed-refs'), 'utf8').catch(() => '');
  const line = packed.split('\n').find((entry) => entry.endsWith(` ${ref}`));
  const commit = line?.split(' ')[0];
  return commit !== undefined && COMMIT.test(commit) ? commit : undefined;
}
