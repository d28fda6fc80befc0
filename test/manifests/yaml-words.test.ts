/**
 * YAML errors in words (issue 34, item 7): one mis-indented line is one problem, at that line,
 * saying what it is indented against and what was expected, never `yaml`'s two or three messages
 * in its own terms. Through the built CLI (`dist/cli.js validate`).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTrees, writeTree } from './helpers.js';

afterAll(removeTrees);

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

function validate(dir: string): { code: number | null; stdout: string } {
  const child = spawnSync(process.execPath, [CLI, 'validate', '-m', dir], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '' },
  });
  return { code: child.status, stdout: child.stdout };
}

const HEAD = 'apiVersion: stacksync/v1\nkind: Dashboard\nmetadata:\n  name: api\nspec:\n  name: API\n';

const RAW =
  /Sequence item without|Nested mappings are not allowed|Implicit keys need to be|All mapping items must start/;

describe('a mis-indented line', () => {
  it.each([
    {
      what: 'a member of a list item one space short',
      yaml: `${HEAD}  tiles:\n    - name: p99\n     w: 6\n`,
      line: 9,
      words:
        'line 9 is indented by 5 spaces, against line 8 (`- name: p99`, indented by 4 spaces): a member of that list item goes at 6 spaces',
    },
    {
      what: 'a key nested under a key that has its value',
      yaml: `${HEAD}  tiles: []\n   tags: [a]\n`,
      line: 8,
      words:
        'line 8 is indented by 3 spaces, against line 7 (`tiles: []`, indented by 2 spaces): that key already has its value on its own line, so nothing can be nested under it; indent line 8 by 2 spaces',
    },
    {
      what: 'a member of a list item indented too deep',
      yaml: `${HEAD}  tiles:\n  - name: a\n      w: 3\n`,
      line: 9,
      words:
        'line 9 is indented by 6 spaces, against line 8 (`- name: a`, indented by 2 spaces): a member of that list item goes at 4 spaces',
    },
    {
      what: 'a key that lines up with no key above it',
      yaml: `${HEAD}  tiles: []\n tags: [a]\n`,
      line: 8,
      words:
        'line 8 is indented by 1 space, against line 7 (`tiles: []`, indented by 2 spaces): it lines up with no key above it (they start at 2 spaces, 0 spaces)',
    },
  ])('$what: one problem at that line, in words', async ({ yaml, line, words }) => {
    const dir = await writeTree({ 'd.yaml': yaml });
    const result = validate(dir);
    expect(result.code).toBe(1);
    const problems = result.stdout.split('\n').filter((text) => text.includes('E_MANIFEST_PARSE'));
    expect(problems, result.stdout).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`d\\.yaml:${line}:\\d+: E_MANIFEST_PARSE: invalid YAML: `));
    expect(problems[0]).toContain(words);
    expect(result.stdout).not.toMatch(RAW);
  });
});
