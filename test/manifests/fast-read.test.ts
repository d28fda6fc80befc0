/**
 * The fast YAML reader must give exactly what the careful one (`yaml`, with positions) gives, or
 * decline. Held to that over every YAML file in the repository (manifests, corpus cases, examples,
 * the chart) and a table of constructs where js-yaml and yaml are known, or likely, to differ.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifestText, parseWithPositions } from '../../src/manifests/parse.js';
import { readPlainYaml } from '../../src/yaml/fast-read.js';

const LIMITS = { maxDepth: 64, maxAliasCount: 100, maxNodes: 1_000_000, maxDocuments: 1_000_000 };
const ROOT = join(import.meta.dirname, '..', '..');

/** The fast result, or undefined; and whether it equals the careful result. */
function compare(text: string): { fast: boolean; same: boolean } {
  const fast = readPlainYaml(text, LIMITS);
  if (!fast) return { fast: false, same: true };
  const careful = parseWithPositions(text, LIMITS);
  return {
    fast: true,
    same: JSON.stringify({ documents: fast, problems: [], warnings: [] }) === JSON.stringify(careful),
  };
}

const MANIFEST = `apiVersion: stacksync/v1
kind: Dashboard
metadata:
  name: d-0
  target: local
spec:
  name: Bench dashboard 0
  tags: [bench, v1]
  tiles:
    - name: p50
      x: 0
      y: 0
      series:
        - { type: time, dataSource: events, aggFn: quantile, where: "service:svc-0" }
`;

/** [name, text, whether the fast reader takes it]: plain texts must be taken (or the fast path is dead), the rest declined. */
const EDGE_CASES: [string, string, boolean][] = [
  ['a dashboard manifest', MANIFEST, true],
  ['three documents', `${MANIFEST}---\n${MANIFEST}---\n# only a comment\n${MANIFEST}`, true],
  ['comments before the first key', `# header\n\n# more\n${MANIFEST}`, true],
  ['a leading marker', `---\n${MANIFEST}`, true],
  ['a trailing marker', `${MANIFEST}---\n`, true],
  ['empty documents between', `---\n---\n${MANIFEST}---\n\n---\n${MANIFEST}`, true],
  ['an empty text', '', true],
  ['only comments', '# nothing here\n', true],
  ['a marker and a comment on its line', `--- # first\n${MANIFEST}`, true],
  ['a top-level list', '- a\n- b: 1\n', true],
  ['a top-level scalar', 'hello\n', true],
  [
    'core numbers',
    'a: 12\nb: -0\nc: +7\nd: 0o17\ne: 0x1F\nf: 1e3\ng: .5\nh: 1.\ni: 1.5e-3\nj: 012\nk: 12345678901234567890\n',
    true,
  ],
  ['YAML 1.1 numbers stay strings', 'a: 1_000\nb: 0b101\nc: 1:30\nd: 0777\ne: 1,000\n', true],
  ['booleans and their look-alikes', 'a: true\nb: False\nc: TRUE\nd: yes\ne: no\nf: on\ng: off\nh: y\ni: tRue\n', true],
  ['nulls', 'a: null\nb: ~\nc:\nd: Null\ne: NULL\nf: nULL\n', true],
  ['quoted scalars', `a: "x\\x41\\u263A\\N\\t\\"q"\nb: 'it''s'\nc: "12"\nd: 'true'\n`, true],
  ['block scalars', 'a: |\n  one\n  two\n\nb: >\n  folded\n  text\n\n  para\nc: |-\n  strip\n', true],
  ['multi-line plain scalars', 'a: one\n  two\n  three\n', true],
  ['merge key is a plain key', 'base: {x: 1}\nother:\n  <<: {y: 2}\n', true],
  ['__proto__ as a key', '__proto__: {polluted: true}\nok: 1\n', true],
  ['scalar keys', '1: a\ntrue: b\n1.5: c\n"quoted": d\n', true],
  ['unicode and long strings', `name: "Grüße 👋"\nwhere: "${'x'.repeat(5000)}"\n`, true],
  ['hash and colons inside values', 'a: "x: y # z"\nb: x#y\nc: http://host:80/path?q=1\n', true],
  ['flow collections', 'a: {b: [1, {c: d}], e: []}\nf: {}\ng: [x, y, ]\n', true],
  ['compact sequences under keys', 'a:\n- 1\n- 2\nb:\n  - c: 1\n    d: 2\n', true],
  ['a where clause with !=', 'where: "level != info"\nq: a != b\n', true],
  // Declined: each is read by yaml, so its message or value is yaml's.
  ['an anchor and alias', 'a: &x 1\nb: *x\n', false],
  ['an alias with no anchor', 'b: *x\n', false],
  ['a local tag', 'a: !custom 1\n', false],
  ['a core tag', 'a: !!str 1\nb: !!int "2"\n', false],
  ['a directive', '%YAML 1.1\n---\na: yes\n', false],
  ['a document end marker', 'a: 1\n...\n', false],
  ['content on the marker line', '--- {a: 1}\n', false],
  ['an explicit key', '? [a, b]\n: c\n', false],
  ['a flow sequence key', '[a, b]: c\n', false],
  ['a flow mapping key', '{a: 1}: c\n', false],
  ['a null key', 'null: a\n', false],
  ['a ~ key', 'b: 1\n~: b\n', false],
  ['a null key in a flow mapping', 'a: {null: 1}\n', false],
  ['a quoted "null" key', '"null": a\n', false],
  ['an empty key', ': a\n', false],
  ['tabs', 'a:\t1\n', false],
  ['CRLF line ends', 'a: 1\r\nb: 2\r\n---\r\nc: "x y"\r\nd:\r\n- e\r\n', true],
  // Declined since issue 25: the generated texts of yaml-differential.test.ts found each one read
  // differently (or the same only by luck) by the two readers.
  ['lone CR line ends', 'a: 1\rb: 2\r', false],
  ['a CR inside a value', 'a: x\ry\n', false],
  ['a quoted scalar over two lines', 'e: "multi\n  line"\n', false],
  ['a quoted scalar over two lines, under-indented', "a: 'x\n\ny'\n", false],
  ['a quoted scalar over two lines, CRLF', 'c: "x\r\n  y"\r\n', false],
  ['a flow collection over two lines', 'b: [x,\n  y]\n', false],
  ['a flow mapping over two lines, under-indented', '- a: {b: 1,\n  c: 2}\n', false],
  ['keep chomping', 'd: |+\n  keep\n\n', false],
  ['an indentation indicator', 'e: >2\n   indented\n', false],
  ['a block scalar with a leading line of spaces', 'a: >-\n      \n     x\n', false],
  ['a list on the line of an item', '-  -\n- a\n', false],
  ['a sequence item between two levels', '- a:\n     - x\n  - y\n', false],
  ['a comment right after a quote', "'a'#: b\n", false],
  ['a comment right after a flow collection', '[a]#\n', false],
  ['a comment right after the document marker', '---# c\na: 1\n', false],
  ['a key of over 1024 characters', `${'k'.repeat(1030)}: v\n`, false],
  ['a byte order mark inside', 'a: x\ufeffy\n', false],
  ['the non-specific tag', 'a: ! 12\n', false],
  ['a Unicode line break', 'a: x\u2028y\n', false],
  ['a duplicate key', 'a: 1\na: 2\n', false],
  ['.inf and .nan', 'a: .inf\nb: -.Inf\nc: .NaN\n', false],
  ['nesting past the limit', `a:${' ['.repeat(70)}${']'.repeat(70)}\n`, false],
  ['bad indentation', 'a:\n  b: 1\n c: 2\n', false],
  ['an unclosed flow collection', 'a: [1, 2\n', false],
];

describe('the fast YAML reader', () => {
  it.each(EDGE_CASES)('%s: gives what yaml gives, or declines', (_name, text, taken) => {
    const { fast, same } = compare(text);
    expect(same).toBe(true);
    expect(fast).toBe(taken);
  });

  it('agrees with yaml on every YAML file in the repository, and reads most of them', () => {
    const files = execFileSync('git', ['ls-files', '*.yaml', '*.yml'], { cwd: ROOT, encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(files.length).toBeGreaterThan(100);
    let taken = 0;
    const differing: string[] = [];
    for (const file of files) {
      const { fast, same } = compare(readFileSync(join(ROOT, file), 'utf8'));
      if (fast) taken++;
      if (!same) differing.push(file);
    }
    expect(differing).toEqual([]);
    expect(taken / files.length).toBeGreaterThan(0.8);
  });

  it('leaves problems to yaml: a broken document gets its message and line', () => {
    const parsed = parseManifestText(`${MANIFEST}---\na: [1, 2\n`, LIMITS);
    expect(parsed.documents).toHaveLength(1);
    expect(parsed.problems).toEqual([
      expect.objectContaining({ line: 17, message: expect.stringMatching(/^invalid YAML/) }),
    ]);
  });
});
