/**
 * Hostile or broken input ends as a clear problem, never a crash or a hang. No timing assertions:
 * the test timeout is what catches a hang.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests, type ManifestLimits } from '../../src/manifests/load.js';
import { config, dashboard, hmac, removeTrees, writeTree, type Tree } from './helpers.js';

afterAll(removeTrees);

async function load(tree: Tree, limits: Partial<ManifestLimits> = {}, prepare?: (dir: string) => Promise<void>) {
  const dir = await writeTree(tree);
  await prepare?.(dir);
  const result = await loadManifests(dir, { config, hmac, limits });
  const problems = result.problems.map(
    (p) =>
      `${p.location.file.slice(dir.length + 1)}${p.location.line ? `:${p.location.line}` : ''}: ${p.code}: ${p.message}`,
  );
  return { ...result, problems, dir };
}

function aliasBomb(): string {
  const lines = [
    'apiVersion: stacksync/v1',
    'kind: Dashboard',
    'metadata: { name: bomb }',
    'x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
  ];
  for (let i = 1; i <= 9; i++)
    lines.push(
      `x${i}: &x${i} [${Array(9)
        .fill(`*x${i - 1}`)
        .join(', ')}]`,
    );
  return `${lines.join('\n')}\nspec: { name: bomb, tags: *x9 }\n`;
}

function manyDocuments(count: number): string {
  const docs: string[] = [];
  for (let i = 0; i < count; i++)
    docs.push(`apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: d${i} }\nspec: { name: D${i} }\n`);
  return docs.join('---\n');
}

describe('hostile manifests', () => {
  it('refuses an alias bomb and still loads the good file beside it', async () => {
    const { problems, resources, blockedTargets } = await load({
      'bomb.yaml': aliasBomb(),
      'good.yaml': dashboard('api'),
    });
    expect(problems).toEqual([
      expect.stringMatching(/^bomb\.yaml:1: E_MANIFEST_PARSE: the document expands too many aliases .*alias bomb/),
    ]);
    expect(resources.map((r) => r.key)).toEqual(['api']);
    expect([...blockedTargets]).toEqual(['*']);
  });

  it('refuses an alias that contains itself', async () => {
    const { problems } = await load({
      'loop.yaml':
        'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata: { name: loop }\nspec: &s { name: x, tags: [*s] }\n',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^loop\.yaml:1: E_MANIFEST_PARSE: the document is nested too deeply .*refers to itself/),
    ]);
  });

  it.each([
    ['over the default 4 MiB', {}, 4 * 1024 * 1024 + 1, 'is 4 MiB, over the limit of 4 MiB per manifest file'],
    ['over a configured limit', { maxFileBytes: 1024 }, 2048, 'is 2 KiB, over the limit of 1 KiB per manifest file'],
  ])('refuses a file %s', async (_name, limits, size, message) => {
    const { problems } = await load({ 'huge.yaml': `# ${'x'.repeat(size - 3)}\n` }, limits);
    expect(problems).toEqual([`huge.yaml: E_MANIFEST_PARSE: ${message}`]);
  });

  it.each([
    [
      'a binary file',
      Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]),
      'is a binary file (it holds NUL bytes), not YAML text',
    ],
    ['invalid UTF-8', Buffer.from('kind: Dashboard\nname: caf\xe9\n', 'latin1'), 'is not valid UTF-8 text'],
  ])('refuses %s', async (_name, bytes, message) => {
    const { problems, blockedTargets } = await load({ 'odd.yaml': bytes, 'good.yaml': dashboard('api') });
    expect(problems).toEqual([`odd.yaml: E_MANIFEST_PARSE: ${message}`]);
    expect([...blockedTargets]).toEqual(['*']);
  });

  it.each([
    [
      'flow nesting past the limit',
      `${'['.repeat(100)}${']'.repeat(100)}\n`,
      'the document is nested too deeply (over 64 levels',
    ],
    [
      'flow nesting past what the parser can take',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}\n`,
      'the document is nested too deeply (over 64 levels)',
    ],
    [
      'block nesting past the limit',
      `${Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`,
      'the document is nested too deeply (over 64 levels',
    ],
  ])('refuses %s', async (_name, text, message) => {
    const { problems } = await load({ 'deep.yaml': text });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`deep.yaml:1: E_MANIFEST_PARSE: ${message}`);
  });

  it('refuses symlinks that leave the directory, follows those that stay, survives a loop', async () => {
    const outside = await writeTree({ 'secret.yaml': dashboard('outside'), 'dir/x.yaml': dashboard('outside-dir') });
    const dir = await writeTree({
      'a.yaml': dashboard('api'),
      'real/b.yaml': dashboard('beta'),
      'real/c.yaml.txt': 'ignored',
    });
    await symlink(join(outside, 'secret.yaml'), join(dir, 'escape.yaml'));
    await symlink(join(outside, 'dir'), join(dir, 'escape-dir'));
    await symlink('../nowhere.yaml', join(dir, 'broken.yaml'));
    await symlink(join(outside, 'secret.yaml'), join(dir, 'not-a-manifest.txt'));
    await symlink(join(dir, 'real', 'b.yaml'), join(dir, 'inside.yaml'));
    await symlink(join(dir, 'real'), join(dir, 'z-inside'));
    await symlink(dir, join(dir, 'real', 'loop'));
    const result = await loadManifests(dir, { config, hmac });
    expect(result.problems.map((p) => `${p.location.file.slice(dir.length + 1)}: ${p.code}: ${p.message}`)).toEqual([
      'broken.yaml: E_MANIFEST_PARSE: is a broken symlink (ENOENT); restore what it points to, or remove it',
      'escape-dir: E_MANIFEST_PARSE: is a symlink that leads outside the manifests directory; it was not read',
      'escape.yaml: E_MANIFEST_PARSE: is a symlink that leads outside the manifests directory; it was not read',
    ]);
    // inside.yaml is real/b.yaml, z-inside is real/, real/loop is the root: each is read once.
    expect(result.resources.map((r) => `${r.key}@${r.location.file.slice(dir.length + 1)}`)).toEqual([
      'api@a.yaml',
      'beta@inside.yaml',
    ]);
  });

  it('follows a manifests directory that is itself a symlink (git-sync)', async () => {
    const dir = await writeTree({ 'rev-1/a.yaml': dashboard('api') });
    await symlink(join(dir, 'rev-1'), join(dir, 'current'));
    const result = await loadManifests(join(dir, 'current'), { config, hmac });
    expect(result.problems).toEqual([]);
    expect(result.resources[0]?.location.file).toBe(join(dir, 'current', 'a.yaml'));
  });

  it('loads a file of 10,000 documents', async () => {
    const { problems, resources } = await load({ 'many.yaml': manyDocuments(10_000) });
    expect(problems).toEqual([]);
    expect(resources).toHaveLength(10_000);
  });

  it('stops at the document cap with a clear problem', async () => {
    const { problems, resources, blockedTargets } = await load(
      { 'many.yaml': manyDocuments(10_000) },
      { maxDocuments: 100 },
    );
    expect(problems).toEqual([
      'many.yaml:500: E_MANIFEST_PARSE: more than 100 manifest documents; this one and the rest were not read',
    ]);
    expect(resources).toHaveLength(100);
    expect([...blockedTargets]).toEqual(['*']);
  });

  it('stops at the file cap with a clear problem', async () => {
    const tree = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}.yaml`, dashboard(`d${i}`)]));
    const { problems, resources } = await load(tree, { maxFiles: 3 });
    expect(problems).toEqual([': E_MANIFEST_PARSE: more than 3 manifest files; the rest were not read']);
    expect(resources).toHaveLength(3);
  });

  it('refuses a FIFO named like a manifest instead of blocking on it', async () => {
    let hasMkfifo = true;
    try {
      execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    } catch {
      hasMkfifo = false;
    }
    if (!hasMkfifo) return;
    const { problems } = await load({}, {}, async (dir) => {
      await mkdir(join(dir, 'sub'));
      execFileSync('mkfifo', [join(dir, 'sub', 'pipe.yaml')]);
      await writeFile(join(dir, 'a.yaml'), dashboard('api'));
    });
    expect(problems).toEqual(['sub/pipe.yaml: E_MANIFEST_PARSE: is not a regular file']);
  });
});
