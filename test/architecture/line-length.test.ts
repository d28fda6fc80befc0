/**
 * No line of src/ is longer than 160 characters once the formatter has laid it out (URLs
 * excepted: they cannot be broken). The formatter (Biome, `npm run format`) keeps code within
 * its width, but it wraps neither strings nor comments: those are broken by hand, a long
 * string into a concatenation, a long comment into more lines.
 *
 * The check formats a copy of src/ with the repository's own biome.json and reads the copy, so
 * it holds whether or not the tree has been formatted yet, and says what the formatter leaves.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LIMIT = 160;
const BIOME = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
const work = mkdtempSync(join(tmpdir(), 'stacksync-line-length-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The lines of a text longer than the limit, as `path:line: length`, URLs excepted. */
function longLines(path: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      line.length > LIMIT && !/\bhttps?:\/\//.test(line) ? [`${path}:${index + 1}: ${line.length} characters`] : [],
    );
}

/** Formats the folder `name` of `dir` in place with the repository's formatter settings. */
function format(dir: string, name: string): void {
  writeFileSync(
    join(dir, 'biome.json'),
    readFileSync(join(ROOT, 'biome.json'), 'utf8').replace(/"\$schema":[^,]*,/, ''),
  );
  execFileSync(process.execPath, [BIOME, 'format', '--write', '--vcs-enabled=false', name], {
    cwd: dir,
    stdio: 'pipe',
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('line length', () => {
  it('finds a long comment and a long string the formatter leaves, not long code it wraps (so the check can fail)', () => {
    const dir = join(work, 'sample');
    cpSync(join(ROOT, 'test/architecture/fixtures/long-lines'), join(dir, 'src'), { recursive: true });
    format(dir, 'src');
    const found = filesUnder(join(dir, 'src')).flatMap((file) =>
      longLines(relative(dir, file), readFileSync(file, 'utf8')),
    );
    expect(found).toEqual([
      expect.stringMatching(/^src\/sample\.ts:2: \d+ characters$/),
      expect.stringMatching(/^src\/sample\.ts:\d+: \d+ characters$/),
    ]);
    const text = readFileSync(join(dir, 'src/sample.ts'), 'utf8');
    expect(text).toContain('https://example.com/');
    expect(
      text
        .split('\n')
        .filter((line) => line.includes('wrappedCall'))
        .every((line) => line.length <= LIMIT),
    ).toBe(true);
  });

  it(`no line of src/ is over ${LIMIT} characters once formatted`, () => {
    cpSync(join(ROOT, 'src'), join(work, 'tree', 'src'), { recursive: true });
    format(join(work, 'tree'), 'src');
    const found = filesUnder(join(work, 'tree', 'src')).flatMap((file) =>
      longLines(relative(join(work, 'tree'), file), readFileSync(file, 'utf8')),
    );
    expect(found).toEqual([]);
  });
});
