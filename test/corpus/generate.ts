/**
 * Hostile manifests too big, too binary or too file-system-specific to commit: each generator
 * writes its file (or link, or FIFO) into a case workspace at run time. Deterministic, so the
 * line numbers in the committed `expect.yaml` stay true.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export const GENERATORS = {
  /** Billion laughs: nine levels of nine aliases each. */
  'alias-bomb': async (path: string) => writeFile(path, aliasBomb()),
  /** The baseline file, still valid YAML, padded with comments past the 4 MiB limit. */
  huge: async (path: string) =>
    writeFile(
      path,
      `${await readFile(path, 'utf8')}${'# padding padding padding padding padding padding padding\n'.repeat(80_000)}`,
    ),
  /** A PNG header and NUL bytes under a manifest's name. */
  binary: async (path: string) =>
    writeFile(
      path,
      Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]),
    ),
  /** The baseline file with one name in Latin-1 (0xE9), which is not UTF-8. */
  'invalid-utf8': async (path: string) =>
    writeFile(
      path,
      Buffer.from((await readFile(path, 'utf8')).replace('name: API\n', 'name: API caf\u00e9\n'), 'latin1'),
    ),
  /**
   * The baseline file saved with CR line ends (classic Mac): to yaml (and editors) one comment
   * line, an empty file whose dashboards would look deleted; to YAML 1.2 and js-yaml, the same
   * dashboards. Not committed as a file: git and editors may change its line ends.
   */
  'cr-line-ends': async (path: string) => writeFile(path, (await readFile(path, 'utf8')).replaceAll('\n', '\r')),
  /** 10,000 documents, each of an unknown kind: more than one run may read. */
  'ten-thousand-documents': async (path: string) => writeFile(path, tenThousandDocuments()),
  /** The baseline file replaced by a symlink to an identical copy outside the manifests directory. */
  'symlink-escape': async (path: string) => {
    const outside = join(dirname(dirname(path)), 'outside', 'dashboards.yaml');
    await mkdir(dirname(outside), { recursive: true });
    await writeFile(outside, await readFile(path));
    await replaceWithLink(outside, path);
  },
  /** The baseline file replaced by a symlink to nothing. */
  'broken-symlink': async (path: string) => replaceWithLink(join(dirname(path), 'gone', 'dashboards.yaml'), path),
  /**
   * The baseline file moved into a directory that is now a symlink to nothing (a checkout that
   * went away): its resources look deleted unless the broken link stops the load.
   */
  'dangling-directory-link': async (path: string) => {
    await rmFile(path);
    await symlink(join(dirname(dirname(path)), 'gone-checkout', 'manifests'), withoutExtension(path));
  },
  /** The baseline file moved into a directory that is now a symlink to itself (ELOOP). */
  'looping-directory-link': async (path: string) => {
    await rmFile(path);
    await symlink(basename(withoutExtension(path)), withoutExtension(path));
  },
  /** The baseline file replaced by a FIFO: reading it would block forever. */
  fifo: async (path: string) => {
    await rmFile(path);
    execFileSync('mkfifo', [path]);
  },
} as const;

export type GeneratorName = keyof typeof GENERATORS;

export function isGeneratorName(name: unknown): name is GeneratorName {
  return typeof name === 'string' && Object.hasOwn(GENERATORS, name);
}

function aliasBomb(): string {
  const lines = [
    'apiVersion: stacksync/v1',
    'kind: Dashboard',
    'metadata: { name: api }',
    'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
  ];
  for (let level = 1; level <= 9; level++)
    lines.push(
      `a${level}: &a${level} [${Array(9)
        .fill(`*a${level - 1}`)
        .join(', ')}]`,
    );
  return `${lines.join('\n')}\nspec: { name: API, tags: *a9 }\n`;
}

function tenThousandDocuments(): string {
  const documents: string[] = [];
  for (let index = 0; index < 10_000; index++) {
    documents.push(
      `apiVersion: stacksync/v1\nkind: Dashbord\nmetadata: { name: generated-${index} }\nspec: { name: Generated ${index} }\n`,
    );
  }
  return documents.join('---\n');
}

async function replaceWithLink(target: string, path: string): Promise<void> {
  await rmFile(path);
  await symlink(target, path);
}

function withoutExtension(path: string): string {
  return path.replace(/\.ya?ml$/, '');
}

async function rmFile(path: string): Promise<void> {
  await rm(path, { force: true });
}
