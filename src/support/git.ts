/** Where a file is in its git repository, found on disk (no git needed): what links to manifest lines use. */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

/** The nearest directory at or above `dir` holding `.git` (a directory, or a worktree's file). */
export function gitTopLevel(dir: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, '.git'))) return current;
    if (dirname(current) === current) return undefined;
  }
}

/** `absolute` relative to the repository root, with `/`; `shown` when outside any repository. */
export function repoPath(root: string | undefined, absolute: string, shown: string): string {
  if (root === undefined) return shown;
  const path = relative(root, absolute);
  if (path.startsWith('..') || isAbsolute(path)) return shown;
  return path.split(sep).join('/');
}
