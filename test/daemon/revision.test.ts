import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasUncommittedEdits, readRevision } from '../../src/daemon/revision.js';

const NO_GIT = { git: '/nonexistent/git' };
let root: string;
let repo: string;
let head: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'stacksync-revision-'));
  repo = join(root, 'repo');
  await mkdir(join(repo, 'manifests'), { recursive: true });
  await writeFile(join(repo, 'manifests', 'a.yaml'), 'kind: Dashboard\n');
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'one');
  head = git(repo, 'rev-parse', 'HEAD');
  // git-sync's layout: a detached worktree whose .git is a file.
  git(repo, 'worktree', 'add', '-q', '--detach', join(root, 'worktree'), 'HEAD');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('readRevision', () => {
  it.each([
    ['a clone, with git', () => repo, {}],
    ['a subdirectory of a clone, with git', () => join(repo, 'manifests'), {}],
    ['a worktree, with git', () => join(root, 'worktree'), {}],
    ['a clone on a branch, without git', () => repo, NO_GIT],
    ['a subdirectory, without git', () => join(repo, 'manifests'), NO_GIT],
    ['a detached worktree, without git', () => join(root, 'worktree', 'manifests'), NO_GIT],
  ])('reads the commit of %s', async (_name, dir, options) => {
    expect(await readRevision(dir(), options)).toBe(head);
  });

  it('reads a packed branch ref without git', async () => {
    const packed = join(root, 'packed');
    git(root, 'clone', '-q', repo, packed);
    git(packed, 'pack-refs', '--all', '--prune');
    expect(await readRevision(packed, NO_GIT)).toBe(head);
  });

  it.each([{}, NO_GIT])('answers undefined for a directory outside git (%o)', async (options) => {
    const plain = await mkdtemp(join(tmpdir(), 'stacksync-plain-'));
    try {
      expect(await readRevision(plain, options)).toBeUndefined();
    } finally {
      await rm(plain, { recursive: true });
    }
  });

  it.each([{}, NO_GIT])('answers undefined for a repository without commits (%o)', async (options) => {
    const empty = join(root, `empty-${Object.keys(options).length}`);
    await mkdir(empty);
    git(empty, 'init', '-q');
    expect(await readRevision(empty, options)).toBeUndefined();
  });

  it('answers undefined for a missing directory', async () => {
    expect(await readRevision(join(root, 'missing'))).toBeUndefined();
  });
});

describe('hasUncommittedEdits', () => {
  it('tells a checkout at its commit from one with edits under the directory, and says nothing without git', async () => {
    const clone = join(root, 'edits');
    git(root, 'clone', '-q', repo, clone);
    const manifests = join(clone, 'manifests');
    expect(await hasUncommittedEdits(manifests)).toBe(false);
    await writeFile(join(clone, 'elsewhere.txt'), 'outside the manifests directory\n');
    expect(await hasUncommittedEdits(manifests)).toBe(false);
    await writeFile(join(manifests, 'a.yaml'), 'kind: Alert\n');
    expect(await hasUncommittedEdits(manifests)).toBe(true);
    git(clone, 'checkout', '-q', '--', 'manifests/a.yaml');
    await writeFile(join(manifests, 'new.yaml'), 'kind: Alert\n');
    expect(await hasUncommittedEdits(manifests)).toBe(true);
    expect(await hasUncommittedEdits(manifests, NO_GIT)).toBeUndefined();
    const plain = await mkdtemp(join(tmpdir(), 'stacksync-plain-'));
    try {
      expect(await hasUncommittedEdits(plain)).toBeUndefined();
    } finally {
      await rm(plain, { recursive: true });
    }
  });
});
