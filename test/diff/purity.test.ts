/**
 * diff/ and plan/ are the pure core (style.md, habit 2): no file system, no network, no clock,
 * no environment, no randomness. Checked on the source, so a stray import fails here first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../src/', import.meta.url).pathname;
const files = ['diff', 'plan'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`),
);

const FORBIDDEN: [string, RegExp][] = [
  ['a node: or package import', /from '(?!\.{1,2}\/)[^']+'/],
  ['process', /\bprocess\./],
  ['the clock', /\bDate\.now\b|\bnew Date\b|\bperformance\.now\b/],
  ['randomness', /\bMath\.random\b|\brandomUUID\b/],
  ['a dynamic import', /\bimport\(/],
];

describe('the differ and plan renderers are pure', () => {
  it('has files to check', () => expect(files.length).toBeGreaterThan(8));
  it.each(files)('%s', (file) => {
    const source = readFileSync(join(ROOT, file), 'utf8');
    for (const [what, pattern] of FORBIDDEN) expect(pattern.test(source), `${file} uses ${what}`).toBe(false);
  });
});
