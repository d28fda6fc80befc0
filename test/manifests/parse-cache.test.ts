/**
 * The daemon's incremental load: a parse per file content, not per sync (issue 12). Each load
 * still reads every file, so it sees the snapshot as it is; only bytes not seen before are parsed,
 * whatever path they sit at (a git-sync worktree has new paths for unchanged files).
 */
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParseCache } from '../../src/manifests/cache.js';
import { loadManifests } from '../../src/manifests/load.js';
import { inlineParser, type ManifestParser } from '../../src/manifests/parser.js';
import { config, dashboard, hmac, removeTrees, writeTree } from './helpers.js';

afterAll(removeTrees);

/** The inline parser, counting the files it is asked to parse. */
function countingParser(): ManifestParser & { files: number } {
  const parser = {
    files: 0,
    capacity: 1,
    parse: (files: readonly Uint8Array[], limits: Parameters<ManifestParser['parse']>[1]) => {
      parser.files += files.length;
      return inlineParser.parse(files, limits);
    },
    locate: inlineParser.locate,
    close: inlineParser.close,
  };
  return parser;
}

const TREE = { 'a.yaml': dashboard('a'), 'b.yaml': dashboard('b'), 'team/c.yaml': dashboard('c') };

describe('loadManifests with a parse cache', () => {
  it('parses every file once, then only what changed', async () => {
    const dir = await writeTree(TREE);
    const cache = new ParseCache();
    const parser = countingParser();
    const load = () => loadManifests(dir, { config, hmac, cache, parser });
    expect((await load()).resources.map((r) => r.key)).toEqual(['a', 'b', 'c']);
    expect(parser.files).toBe(3);
    await load();
    expect(parser.files).toBe(3);

    await writeFile(join(dir, 'b.yaml'), dashboard('b2'));
    expect((await load()).resources.map((r) => r.key)).toEqual(['a', 'b2', 'c']);
    expect(parser.files).toBe(4);
    expect(cache.size).toBe(3);
  });

  it('reuses parses across a swap to another directory with mostly the same files', async () => {
    const first = await writeTree(TREE);
    const second = await writeTree({});
    await cp(first, second, { recursive: true });
    await writeFile(join(second, 'a.yaml'), dashboard('a').replace('w: 6', 'w: 7'));
    const cache = new ParseCache();
    const parser = countingParser();
    await loadManifests(first, { config, hmac, cache, parser });
    const swapped = await loadManifests(second, { config, hmac, cache, parser });
    expect(parser.files).toBe(4);
    // Locations name the new directory even for parses made under the old one.
    expect(swapped.resources.map((r) => r.location.file)).toEqual([
      join(second, 'a.yaml'),
      join(second, 'b.yaml'),
      join(second, 'team/c.yaml'),
    ]);
  });

  it('shares one read and one parse between loads running at once (one per target)', async () => {
    const dir = await writeTree(TREE);
    const cache = new ParseCache();
    const parser = countingParser();
    const results = await Promise.all([1, 2, 3].map(() => loadManifests(dir, { config, hmac, cache, parser })));
    expect(results.map((result) => result.resources.length)).toEqual([3, 3, 3]);
    expect(parser.files).toBe(3);
    expect(cache.stats.sharedReads).toBe(2);
    // A read that has finished is not reused: the next load reads again.
    await loadManifests(dir, { config, hmac, cache, parser });
    expect(cache.stats.sharedReads).toBe(2);
  });

  it('places problems on their lines from a cached parse, and keeps nothing but the current snapshot', async () => {
    const dir = await writeTree({ ...TREE, 'bad.yaml': dashboard('bad').replace('w: 6', 'w: 0') });
    const cache = new ParseCache();
    const parser = countingParser();
    for (let round = 0; round < 2; round++) {
      const { problems } = await loadManifests(dir, { config, hmac, cache, parser });
      expect(
        problems.map(
          (p) => `${p.location.file.slice(dir.length + 1)}:${p.location.line}:${p.location.column}: ${p.message}`,
        ),
      ).toEqual(['bad.yaml:12:10: spec.tiles[0].w: must be >= 1']);
    }
    expect(parser.files).toBe(4);
    for (let edit = 0; edit < 5; edit++) {
      await writeFile(join(dir, 'a.yaml'), dashboard('a').replace('w: 6', `w: ${edit + 7}`));
      await loadManifests(dir, { config, hmac, cache, parser });
    }
    expect(cache.size).toBe(4);
  });

  it('does not read files whose metadata shows them unchanged, unless they changed in the last two seconds', async () => {
    const dir = await writeTree(TREE);
    let now = Date.now();
    const cache = new ParseCache({ now: () => now });
    const parser = countingParser();
    const load = () => loadManifests(dir, { config, hmac, cache, parser });
    await load();
    // Just written: their times cannot yet vouch for them.
    await load();
    expect(cache.stats.unread).toBe(0);
    now += 10_000;
    await load();
    await load();
    expect(cache.stats.unread).toBe(3);

    // An edit changes the file's times: it is read and parsed again, the others are not read.
    await writeFile(join(dir, 'b.yaml'), dashboard('b2'));
    expect((await load()).resources.map((r) => r.key)).toEqual(['a', 'b2', 'c']);
    expect(cache.stats.unread).toBe(5);
    expect(parser.files).toBe(4);
  });

  it('places a problem in a file it did not read from the bytes it parsed', async () => {
    const dir = await writeTree({ 'bad.yaml': dashboard('bad').replace('w: 6', 'w: 0') });
    let now = Date.now();
    const cache = new ParseCache({ now: () => now });
    await loadManifests(dir, { config, hmac, cache });
    now += 10_000;
    await loadManifests(dir, { config, hmac, cache });
    const { problems } = await loadManifests(dir, { config, hmac, cache });
    expect(cache.stats.unread).toBe(1);
    expect(problems.map((p) => `${p.location.line}:${p.location.column}`)).toEqual(['12:10']);
  });

  it('never lets a load change what another one reads: resources and parses are frozen, and shared while unchanged', async () => {
    const dir = await writeTree(TREE);
    const cache = new ParseCache();
    const first = await loadManifests(dir, { config, hmac, cache });
    const board = first.resources[0];
    if (board?.kind !== 'Dashboard') throw new Error('expected a dashboard');
    expect(() => {
      board.name = 'changed by a caller';
    }).toThrow(TypeError);
    expect(() => board.tiles[0]?.series?.push({ type: 'time', dataSource: 'events', aggFn: 'count' })).toThrow(
      TypeError,
    );
    const second = await loadManifests(dir, { config, hmac, cache });
    expect(second.resources[0]).toBe(board);
    expect(second.resources[0]?.kind === 'Dashboard' && second.resources[0].name).toBe('a board');
  });
});
