/**
 * Parsing in worker threads gives exactly what parsing on this thread gives. The worker runs the
 * built `parse-worker.js`, so this test uses the build in dist/ (`npm test` builds first).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { inlineParser } from '../../src/manifests/parser.js';
import { config, dashboard, hmac, removeTrees, writeTree } from './helpers.js';

const built = (await import(
  new URL('../../dist/manifests/parser.js', import.meta.url).href
)) as typeof import('../../src/manifests/parser.js');
const builtLoad = (await import(
  new URL('../../dist/manifests/load.js', import.meta.url).href
)) as typeof import('../../src/manifests/load.js');

afterAll(removeTrees);

const LIMITS = { maxDepth: 64, maxAliasCount: 100, maxNodes: 1_000_000, maxDocuments: 1000 };
const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

const FILES = [
  `${dashboard('a')}---\n${dashboard('b')}`,
  'a: [1, 2\n---\nb: 2\n',
  'x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\nx1: &x1 [*x0, *x0, *x0, *x0, *x0, *x0, *x0, *x0, *x0]\nx2: &x2 [*x1, *x1, *x1, *x1, *x1, *x1, *x1, *x1, *x1]\nx3: [*x2, *x2, *x2, *x2, *x2, *x2, *x2, *x2, *x2]\n',
  'key: !!js/function x\n',
].map(encode);

describe('the worker parser', () => {
  it('parses and locates exactly as this thread does', async () => {
    const workers = built.createWorkerParser({ threads: 2 });
    if (!workers) throw new Error('dist/manifests/parse-worker.js is missing: run npm run build');
    try {
      expect(await workers.parse(FILES, LIMITS)).toEqual(await inlineParser.parse(FILES, LIMITS));
      const requests = [
        { index: 1, pointer: ['spec', 'tiles', 1, 'w'], at: 'value' as const },
        { index: 0, pointer: ['metadata', 'nope'], at: 'key' as const },
      ];
      expect(await workers.locate(FILES[0] as Uint8Array, requests)).toEqual(
        await inlineParser.locate(FILES[0] as Uint8Array, requests),
      );
    } finally {
      await workers.close();
    }
  });

  it('rejects what is asked after close, so a load can fall back', async () => {
    const workers = built.createWorkerParser({ threads: 1 });
    await workers?.close();
    await expect(workers?.parse(FILES, LIMITS)).rejects.toThrow('closed');
  });

  it('a load through workers finds the same resources and problems as one on this thread', async () => {
    const tree = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `d${i}.yaml`,
        i === 7 ? dashboard(`d${i}`).replace('w: 6', 'w: 0') : dashboard(`d${i}`),
      ]),
    );
    const dir = await writeTree(tree);
    const workers = built.createWorkerParser({ threads: 2 });
    try {
      const viaWorkers = await builtLoad.loadManifests(dir, { config, hmac, ...(workers ? { parser: workers } : {}) });
      const here = await builtLoad.loadManifests(dir, { config, hmac, parser: built.inlineParser });
      expect(viaWorkers).toEqual(here);
      expect(here.problems).toHaveLength(1);
      expect(here.resources).toHaveLength(39);
    } finally {
      await workers?.close();
    }
  });
});
