/** `writePulledFiles`: atomic, the file's mode kept, a symlinked manifest written where it leads. */
import { chmod, lstat, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writePulledFiles } from '../../src/reconcile/pull.js';

describe('writePulledFiles', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps the mode, leaves no temporary file, and keeps a symlink a symlink', async () => {
    dir = await mkdtemp(join(tmpdir(), 'stacksync-pull-'));
    const real = join(dir, 'shared.yaml');
    const link = join(dir, 'linked.yaml');
    await writeFile(real, 'a: 1\n');
    await chmod(real, 0o640);
    await symlink(real, link);
    await writePulledFiles([{ path: link, before: 'a: 1\n', after: 'a: 2\n' }]);
    expect(await readFile(real, 'utf8')).toBe('a: 2\n');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect((await stat(real)).mode & 0o777).toBe(0o640);
    expect((await readdir(dir)).sort()).toEqual(['linked.yaml', 'shared.yaml']);
  });

  it('fails naming the file when it cannot be written', async () => {
    dir = await mkdtemp(join(tmpdir(), 'stacksync-pull-'));
    await expect(writePulledFiles([{ path: join(dir, 'gone.yaml'), before: '', after: 'a: 1\n' }])).rejects.toThrow(
      /cannot write .*gone\.yaml \(ENOENT\)/,
    );
  });
});
