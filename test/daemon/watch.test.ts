import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeReason, ManifestWatcher, WatchOptions } from '../../src/daemon/watch.js';
import { createLogger } from '../../src/support/logger.js';
import { findAnchor, watchManifests } from '../../src/daemon/watch.js';

let base: string;
let watcher: ManifestWatcher | undefined;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'stacksync-watch-')));
});

afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  await rm(base, { recursive: true, force: true });
});

/** Polls until `check` holds, up to `timeoutMs`; fs events are real, so no fixed sleeps. */
async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a watch event');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Time for stray events to arrive and the debounce to settle before asserting a count. */
const quiet = (ms = 700) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(dir: string, options: Partial<WatchOptions> = {}): Promise<ChangeReason[]> {
  const changes: ChangeReason[] = [];
  watcher = await watchManifests(dir, { onChange: (reason) => changes.push(reason), ...options });
  return changes;
}

/** git-sync's publish: a new link renamed over the old one. */
async function swapLink(link: string, target: string): Promise<void> {
  const temp = join(base, 'tmp-link');
  await symlink(target, temp);
  await rename(temp, link);
}

async function tree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

describe('watchManifests on a plain directory', () => {
  it('reports an edit once, with its path', async () => {
    await tree(base, { 'm/a.yaml': 'a: 1\n', 'm/b.yml': 'b: 1\n' });
    const changes = await start(join(base, 'm'));
    expect(watcher?.currentRoot()).toBe(join(base, 'm'));
    await writeFile(join(base, 'm/a.yaml'), 'a: 2\n');
    await waitFor(() => changes.length > 0);
    await quiet();
    expect(changes).toEqual([{ kind: 'files', paths: [join(base, 'm/a.yaml')] }]);
  });

  it('reports new, removed and nested manifests and directories', async () => {
    await tree(base, { 'm/a.yaml': 'a: 1\n' });
    const changes = await start(join(base, 'm'));
    await tree(base, { 'm/team/x.yml': 'x: 1\n' });
    await rm(join(base, 'm/a.yaml'));
    await waitFor(() => changes.flatMap((change) => change.paths).includes(join(base, 'm/a.yaml')));
    await waitFor(() => changes.flatMap((change) => change.paths).includes(join(base, 'm/team/x.yml')));
    expect(changes.flatMap((change) => change.paths)).toContain(join(base, 'm/team'));
    expect(changes.every((change) => change.kind === 'files')).toBe(true);
  });

  it('ignores other files and hidden directories', async () => {
    await tree(base, { 'm/a.yaml': 'a: 1\n', 'm/.git/config.yaml': 'x\n' });
    const changes = await start(join(base, 'm'));
    await writeFile(join(base, 'm/README.md'), '# hi\n');
    await writeFile(join(base, 'm/.git/config.yaml'), 'y\n');
    await writeFile(join(base, 'm/.hidden.yaml'), 'y\n');
    await quiet();
    expect(changes).toEqual([]);
  });

  it('turns a burst of 500 writes into one change', async () => {
    await tree(base, { 'm/seed.yaml': 's: 1\n' });
    const changes = await start(join(base, 'm'), { maxWaitMs: 10_000 });
    await Promise.all(Array.from({ length: 500 }, (_unused, i) => writeFile(join(base, `m/f${i}.yaml`), `n: ${i}\n`)));
    await waitFor(() => changes.length > 0);
    await quiet();
    expect(changes).toHaveLength(1);
    expect(changes[0]?.kind).toBe('files');
    expect(changes[0]?.paths).toHaveLength(500);
  });

  it('reports at least every maxWaitMs under a steady stream of events', async () => {
    await tree(base, { 'm/a.yaml': 'a: 0\n' });
    const changes = await start(join(base, 'm'), { debounceMs: 200, maxWaitMs: 400 });
    const streamEnd = Date.now() + 2_000;
    for (let i = 0; Date.now() < streamEnd; i += 1) {
      await writeFile(join(base, 'm/a.yaml'), `a: ${i}\n`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(changes.length).toBeGreaterThanOrEqual(2);
  });

  it('reports nothing after close', async () => {
    await tree(base, { 'm/a.yaml': 'a: 1\n' });
    const changes = await start(join(base, 'm'));
    await writeFile(join(base, 'm/a.yaml'), 'a: 2\n');
    await watcher?.close();
    watcher = undefined;
    await writeFile(join(base, 'm/a.yaml'), 'a: 3\n');
    await quiet();
    expect(changes).toEqual([]);
  });

  it('logs and survives a throwing handler', async () => {
    await tree(base, { 'm/a.yaml': 'a: 1\n' });
    let calls = 0;
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) }, isTty: false });
    await start(join(base, 'm'), {
      logger,
      onChange: () => {
        calls += 1;
        throw new Error('handler bug');
      },
    });
    await writeFile(join(base, 'm/a.yaml'), 'a: 2\n');
    await waitFor(() => calls === 1);
    await quiet(300);
    await writeFile(join(base, 'm/a.yaml'), 'a: 3\n');
    await waitFor(() => calls === 2);
    expect(lines.join('')).toContain('handler bug');
  });
});

describe('watchManifests on a git-sync checkout', () => {
  beforeEach(async () => {
    await tree(base, { 'rev1/manifests/a.yaml': 'rev: 1\n', 'rev2/manifests/a.yaml': 'rev: 2\n' });
    await symlink('rev1', join(base, 'current'));
  });

  it.each([
    ['the link itself', 'current', ''],
    ['a directory under the link', 'current/manifests', 'manifests'],
  ])('follows the swap when watching %s', async (_name, watched, sub) => {
    const changes = await start(join(base, watched));
    expect(watcher?.currentRoot()).toBe(join(base, 'rev1', sub));

    // As git-sync does: publish the new worktree, then delete the old one.
    await swapLink(join(base, 'current'), 'rev2');
    await rm(join(base, 'rev1/manifests'), { recursive: true });
    await waitFor(() => changes.some((change) => change.kind === 'checkout-swapped'));
    await quiet();
    expect(watcher?.currentRoot()).toBe(join(base, 'rev2', sub));
    expect(changes).toEqual([{ kind: 'checkout-swapped', paths: [join(base, 'rev2', sub)] }]);

    await writeFile(join(base, 'rev2/manifests/a.yaml'), 'rev: 2.1\n');
    await waitFor(() => changes.length === 2);
    expect(changes[1]).toEqual({ kind: 'files', paths: [join(base, 'rev2/manifests/a.yaml')] });

    await tree(base, { 'rev1/manifests/a.yaml': 'rev: 1.1\n' });
    await quiet();
    expect(changes).toHaveLength(2);
  });

  it('follows several swaps in a row and ends on the last one', async () => {
    await tree(base, { 'rev3/manifests/a.yaml': 'rev: 3\n' });
    const changes = await start(join(base, 'current/manifests'));
    await swapLink(join(base, 'current'), 'rev2');
    await swapLink(join(base, 'current'), 'rev3');
    await waitFor(() => watcher?.currentRoot() === join(base, 'rev3/manifests'));
    await quiet();
    expect(changes.at(-1)?.kind).toBe('checkout-swapped');
    const count = changes.length;
    await writeFile(join(base, 'rev3/manifests/a.yaml'), 'rev: 3.1\n');
    await waitFor(() => changes.length === count + 1);
    expect(changes.at(-1)).toEqual({ kind: 'files', paths: [join(base, 'rev3/manifests/a.yaml')] });
  });

  it('reports a removed link, then its return', async () => {
    const changes = await start(join(base, 'current/manifests'));
    await rm(join(base, 'current'));
    await waitFor(() => changes.length === 1);
    expect(changes[0]).toEqual({ kind: 'checkout-swapped', paths: [join(base, 'current/manifests')] });
    expect(watcher?.currentRoot()).toBe(join(base, 'current/manifests'));
    await swapLink(join(base, 'current'), 'rev2');
    await waitFor(() => changes.length === 2);
    expect(watcher?.currentRoot()).toBe(join(base, 'rev2/manifests'));
  });

  it('waits for a link that does not exist yet', async () => {
    const changes = await start(join(base, 'later/manifests'));
    expect(watcher?.currentRoot()).toBe(join(base, 'later/manifests'));
    await swapLink(join(base, 'later'), 'rev2');
    await waitFor(() => changes.length > 0);
    expect(changes[0]?.kind).toBe('checkout-swapped');
    expect(watcher?.currentRoot()).toBe(join(base, 'rev2/manifests'));
    await quiet(300);
    await writeFile(join(base, 'rev2/manifests/a.yaml'), 'rev: 2.2\n');
    await waitFor(() => changes.some((change) => change.kind === 'files'));
  });
});

describe('findAnchor', () => {
  it.each([
    ['a plain directory', 'rev1', undefined],
    ['a link', 'current', 'current'],
    ['a directory under a link', 'current/manifests', 'current'],
    ['a missing directory', 'nope/manifests', 'nope'],
    ['a missing directory under a link', 'current/nope', 'current'],
  ])('of %s', async (_name, path, want) => {
    await tree(base, { 'rev1/manifests/a.yaml': '' });
    await symlink('rev1', join(base, 'current'));
    expect(await findAnchor(join(base, path))).toBe(want === undefined ? undefined : join(base, want));
  });
});

describe('watchManifests when what it watches is replaced', () => {
  it("watches again after the checkout's parent directory is deleted and made again", async () => {
    await tree(base, { 'data/rev1/manifests/a.yaml': 'rev: 1\n' });
    await symlink('rev1', join(base, 'data/current'));
    const changes = await start(join(base, 'data/current/manifests'));
    expect(watcher?.currentRoot()).toBe(join(base, 'data/rev1/manifests'));

    await rm(join(base, 'data'), { recursive: true });
    await waitFor(() => changes.some((change) => change.kind === 'checkout-swapped'));
    await tree(base, { 'data/rev2/manifests/a.yaml': 'rev: 2\n' });
    await symlink('rev2', join(base, 'data/current'));
    await waitFor(() => watcher?.currentRoot() === join(base, 'data/rev2/manifests'));
    await quiet();

    const count = changes.length;
    await writeFile(join(base, 'data/rev2/manifests/a.yaml'), 'rev: 2.1\n');
    await waitFor(() => changes.length > count);
    expect(changes.at(-1)).toEqual({ kind: 'files', paths: [join(base, 'data/rev2/manifests/a.yaml')] });
  });

  it('refresh follows a swap no event reported (a link higher up moved)', async () => {
    await tree(base, { 'a/rev1/a.yaml': 'rev: 1\n', 'b/rev2/a.yaml': 'rev: 2\n' });
    await symlink('rev1', join(base, 'a/current'));
    await symlink('rev2', join(base, 'b/current'));
    await symlink('a', join(base, 'outer'));
    const changes = await start(join(base, 'outer/current'));
    expect(watcher?.currentRoot()).toBe(join(base, 'a/rev1'));

    // The watcher watches outer/ (that is, a/): replacing outer itself shows it nothing.
    await swapLink(join(base, 'outer'), 'b');
    await watcher?.refresh();
    expect(watcher?.currentRoot()).toBe(join(base, 'b/rev2'));
    await waitFor(() => changes.some((change) => change.kind === 'checkout-swapped'));
    await quiet();
    const count = changes.length;
    await writeFile(join(base, 'b/rev2/a.yaml'), 'rev: 2.1\n');
    await waitFor(() => changes.length > count);
    expect(changes.at(-1)).toEqual({ kind: 'files', paths: [join(base, 'b/rev2/a.yaml')] });
  });
});
