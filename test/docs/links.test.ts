/**
 * Every relative link of the README and of docs/ resolves: to a file or directory of the
 * repository, and, when it names an anchor in a Markdown file, to a heading of that file; and every
 * page is reached from the README, or is the page of a registered kind.
 */
import { existsSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESCRIPTORS } from '../../src/kinds/index.js';
import { kindPageOf } from '../helpers/kinds.js';
import { anchorsOf, documentationFiles, linksOf, readDoc, ROOT, slug } from './markdown.js';

const files = documentationFiles();

/** Each registered kind's page: `SavedSearch` → `docs/manifests/saved-search.md`. */
const KIND_PAGES = DESCRIPTORS.map((descriptor) => kindPageOf(descriptor.kind));

/** Where a relative link points: a repository path (or '' for the same file) and an anchor. */
function resolveLink(from: string, target: string): { path: string; anchor: string | undefined } {
  const [pathPart = '', anchor] = target.split('#', 2);
  const path = pathPart === '' ? from : normalize(join(dirname(from), decodeURIComponent(pathPart)));
  return { path, anchor };
}

function brokenLinks(file: string, markdown: string): string[] {
  const problems: string[] = [];
  for (const link of linksOf(file, markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue;
    const where = `${file}:${link.line}: ${link.target}`;
    const { path, anchor } = resolveLink(file, link.target);
    const sameFile = link.target.startsWith('#');
    if (relative(ROOT, join(ROOT, path)).startsWith('..') || link.target.startsWith('/')) {
      problems.push(`${where}: leaves the repository`);
    } else if (!sameFile && !existsSync(join(ROOT, path))) {
      problems.push(`${where}: no such file`);
    } else if (
      anchor !== undefined &&
      path.endsWith('.md') &&
      !anchorsOf(sameFile ? markdown : readDoc(path)).has(anchor)
    ) {
      problems.push(`${where}: ${path} has no heading with anchor #${anchor}`);
    }
  }
  return problems;
}

describe('links in the README and docs/', () => {
  it('finds the README, the docs and links in them', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/reference/cli.md']));
    expect(files.flatMap((file) => linksOf(file, readDoc(file))).length).toBeGreaterThan(100);
  });

  it.each(files)('every relative link of %s resolves', (file) => {
    expect(brokenLinks(file, readDoc(file))).toEqual([]);
  });

  it('every registered kind has its page in docs/manifests/, which lists the folder instead of the kinds', () => {
    expect(KIND_PAGES.filter((page) => !files.includes(page))).toEqual([]);
    // A newcomer finds a new kind's page in the folder by its name: no index lists the kinds.
    const index = 'docs/manifests/README.md';
    const targets = linksOf(index, readDoc(index)).map((link) => resolveLink(index, link.target).path);
    expect(targets.map((path) => path.replace(/\/$/, ''))).toContain('docs/manifests');
  });

  it('every page of docs/ is reachable by links from the README or is the page of a registered kind', () => {
    // Kind pages are found in their folder (docs/manifests/README.md says how they are named), so
    // they start the walk too, and a new kind needs no line in an index.
    const reached = new Set<string>(['README.md', ...KIND_PAGES]);
    const queue = ['README.md', ...KIND_PAGES];
    while (queue.length > 0) {
      const file = queue.shift() ?? '';
      for (const link of linksOf(file, readDoc(file))) {
        const { path } = resolveLink(file, link.target);
        if (
          !/^[a-z][a-z0-9+.-]*:/i.test(link.target) &&
          path.endsWith('.md') &&
          files.includes(path) &&
          !reached.has(path)
        ) {
          reached.add(path);
          queue.push(path);
        }
      }
    }
    expect(files.filter((file) => !reached.has(file))).toEqual([]);
  });

  it('reports a missing file, a missing anchor and a link out of the repository (the check can fail)', () => {
    const markdown =
      '# Title\n\n## A `code` heading: yes\n\n[a](#a-code-heading-yes) [b](#nope) [c](missing.md) [d](../../etc/passwd) [e](README.md#nope) `[f](nope.md)`\n';
    expect(brokenLinks('docs/x.md', markdown)).toEqual([
      'docs/x.md:5: #nope: docs/x.md has no heading with anchor #nope',
      'docs/x.md:5: missing.md: no such file',
      'docs/x.md:5: ../../etc/passwd: leaves the repository',
      'docs/x.md:5: README.md#nope: docs/README.md has no heading with anchor #nope',
    ]);
    expect(slug('Ignore rules and `stacksync.io/prune: disabled`')).toBe('ignore-rules-and-stacksyncioprune-disabled');
    expect(slug('424 / `E_API_DEPENDENCY`')).toBe('424--e_api_dependency');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n')]).toEqual(['a', 'a-1']);
  });
});
