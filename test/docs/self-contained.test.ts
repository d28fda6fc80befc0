/**
 * The repository explains itself: no file in it names a document that lives outside it (the
 * team's design contract, API notes and toolchain notes, or the seed spec's path), so every comment
 * cites a page of docs/ a reader can open; and every `$schema=` line of an example resolves to a
 * schema of `schemas/` from `manifests/`, where the examples say a manifest goes.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeBlocks, documentationFiles, readDoc, ROOT } from './markdown.js';

/** Names of documents outside the repository that nothing in it may cite. */
const OUTSIDE = /design\.md|api-notes|toolchain\.md|spec\/api-seed/;

const SCANNED = ['src', 'test', 'scripts', 'docs', 'helm', 'examples', 'config', 'manifests', 'schemas', '.ci'];

function filesUnder(dir: string): string[] {
  const full = join(ROOT, dir);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [dir];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    entry.name === 'node_modules' ? [] : filesUnder(`${dir}/${entry.name}`),
  );
}

/** `file:line: text` of every line that names a document outside the repository. */
function outsideCitations(files: readonly string[]): string[] {
  const self = 'test/docs/self-contained.test.ts';
  return files
    .filter((file) => file !== self)
    .flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((text, index) => (OUTSIDE.test(text) ? [`${file}:${index + 1}: ${text.trim()}`] : [])),
    );
}

describe('the repository is self-contained', () => {
  const files = [...SCANNED.flatMap(filesUnder), 'README.md', 'package.json', 'Dockerfile'];

  it('scans the source, the tests and the docs', () => {
    expect(files).toEqual(expect.arrayContaining(['src/cli.ts', 'docs/README.md', 'test/docs/markdown.ts']));
  });

  it('names no document outside the repository', () => {
    expect(outsideCitations(files)).toEqual([]);
  });

  it('finds such a citation where one is (the check can fail)', () => {
    expect(OUTSIDE.test('see api-notes, "Managed variant"')).toBe(true);
    expect(OUTSIDE.test('(design.md, "Daemon")')).toBe(true);
    expect(OUTSIDE.test('see docs/reference/api-behaviour.md')).toBe(false);
  });

  it("resolves every example's $schema line from manifests/", () => {
    const broken = documentationFiles().flatMap((file) =>
      codeBlocks(file, readDoc(file)).flatMap((block) =>
        [...block.text.matchAll(/\$schema=(\S+)/g)]
          .map((match) => match[1] ?? '')
          .filter((ref) => ref !== '…' && !existsSync(join(ROOT, normalize(join('manifests', ref)))))
          .map((ref) => `${file}:${block.line}: ${ref}`),
      ),
    );
    expect(broken).toEqual([]);
  });
});
