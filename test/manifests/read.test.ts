/**
 * A manifests directory that cannot be fully read is an error of the whole load, never "fewer
 * manifests": a missing manifest looks like a deleted one, and deleted ones are pruned. Tests run
 * as root here, where permissions do not stop a read, so failures are injected through the
 * snapshot's file system port; broken and looping links are real.
 */
import * as fs from 'node:fs/promises';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { readSnapshot, type ReadFs } from '../../src/manifests/read.js';
import { config, dashboard, hmac, removeTrees, writeTree } from './helpers.js';

afterAll(removeTrees);

const LIMITS = { maxFileBytes: 1024 * 1024, maxFiles: 1000 };

function denied(syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EACCES: permission denied, ${syscall} '${path}'`), { code: 'EACCES', syscall, path });
}

/** The real file system, with one call failing EACCES for paths that end with `suffix`. */
function failing(call: keyof ReadFs, suffix: string): ReadFs {
  const real = fs as unknown as ReadFs;
  return {
    readdir: (path, options) =>
      call === 'readdir' && path.endsWith(suffix)
        ? Promise.reject(denied('scandir', path))
        : real.readdir(path, options),
    realpath: (path) =>
      call === 'realpath' && path.endsWith(suffix) ? Promise.reject(denied('realpath', path)) : real.realpath(path),
    stat: (path) => (call === 'stat' && path.endsWith(suffix) ? Promise.reject(denied('stat', path)) : real.stat(path)),
    open: (path, flags) =>
      call === 'open' && path.endsWith(suffix) ? Promise.reject(denied('open', path)) : real.open(path, flags),
  };
}

async function snapshot(readFs: ReadFs) {
  const dir = await writeTree({
    'a.yaml': dashboard('api'),
    'team/b.yaml': dashboard('beta'),
    'team/c.yaml': dashboard('gamma'),
  });
  await symlink(join(dir, 'team'), join(dir, 'linked'));
  const result = await readSnapshot(dir, LIMITS, { fs: readFs });
  return {
    files: result.files.map((file) => file.path.slice(dir.length + 1)),
    problems: result.problems.map((p) => `${p.location.file.slice(dir.length + 1)}: ${p.code}: ${p.message}`),
  };
}

describe('readSnapshot when part of the directory cannot be read', () => {
  it('reads everything when nothing fails, each real file once', async () => {
    expect(await snapshot(fs as unknown as ReadFs)).toEqual({
      files: ['a.yaml', 'linked/b.yaml', 'linked/c.yaml'],
      problems: [],
    });
  });

  it.each([
    [
      'a subdirectory that cannot be listed',
      failing('readdir', '/team'),
      'linked: E_MANIFEST_PARSE: the directory cannot be read (EACCES)',
    ],
    [
      'a file that cannot be opened',
      failing('open', '/team/b.yaml'),
      'linked/b.yaml: E_MANIFEST_PARSE: cannot be read (EACCES)',
    ],
    [
      'a link that cannot be resolved',
      failing('realpath', '/linked'),
      'linked: E_MANIFEST_PARSE: is a symlink that cannot be followed (EACCES)',
    ],
    [
      'a link whose target cannot be looked at',
      failing('stat', '/team'),
      'linked: E_MANIFEST_PARSE: is a symlink that cannot be followed (EACCES)',
    ],
  ])('reports %s as a problem', async (_name, readFs, problem) => {
    const { problems } = await snapshot(readFs);
    expect(problems).toEqual([problem]);
  });
});

describe('loadManifests with links that lead nowhere', () => {
  it.each([
    [
      'a broken directory link',
      (dir: string) => symlink(join(dir, 'gone'), join(dir, 'team')),
      'team: E_MANIFEST_PARSE: is a broken symlink (ENOENT)',
    ],
    [
      'a link to itself',
      (dir: string) => symlink('team', join(dir, 'team')),
      'team: E_MANIFEST_PARSE: is a symlink that loops back on itself (ELOOP)',
    ],
    [
      'two links to each other',
      async (dir: string) => {
        await symlink('team-b', join(dir, 'team'));
        await symlink('team', join(dir, 'team-b'));
      },
      'team: E_MANIFEST_PARSE: is a symlink that loops back on itself (ELOOP)',
    ],
  ])('blocks every target on %s', async (_name, make, problem) => {
    const dir = await writeTree({ 'a.yaml': dashboard('api') });
    await make(dir);
    const result = await loadManifests(dir, { config, hmac });
    expect(
      result.problems.map((p) => `${p.location.file.slice(dir.length + 1)}: ${p.code}: ${p.message}`)[0],
    ).toContain(problem);
    expect([...result.blockedTargets]).toEqual(['*']);
    expect(result.resources.map((r) => r.key)).toEqual(['api']);
  });
});
