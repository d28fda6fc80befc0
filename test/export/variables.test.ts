/**
 * Export writes a target's secret vars back as the `${NAME}` they came from (issue 25, item 4):
 * a live value that holds one never lands in a manifest in clear, and a plan of the export sends
 * the same value again.
 */
import { describe, expect, it } from 'vitest';
import { withVariables } from '../../src/export/index.js';

const SECRETS = [
  { name: 'TILE_TOKEN', value: 'tok"en\\/ö-7f3e' },
  { name: 'SHORT', value: 'tok"en' },
];

describe('secret vars in exported values', () => {
  it.each([
    ['a value holding one', 'token:tok"en\\/ö-7f3e service:api', 'token:${TILE_TOKEN} service:api'],
    ['the longest of two that overlap', 'tok"en\\/ö-7f3e and tok"en', '${TILE_TOKEN} and ${SHORT}'],
    ["the string's own references escaped beside it", '${HOME} tok"en', '$${HOME} ${SHORT}'],
    ['a form that is not the value itself: masked', 'quoted: "tok\\"en\\\\/\\u00f6-7f3e"', 'quoted: "(sensitive)"'],
    ['none: left as it is, references too', 'service:api ${HOME}', 'service:api ${HOME}'],
  ])('%s', (_name, live, written) => {
    expect(withVariables(live, SECRETS)).toBe(written);
  });

  it('walks lists and mappings, and leaves other values alone', () => {
    const spec = {
      tiles: [{ series: [{ where: 'token:tok"en\\/ö-7f3e', limit: 5 }] }],
      tags: ['tok"en'],
      on: true,
      none: null,
    };
    expect(withVariables(spec, SECRETS)).toEqual({
      tiles: [{ series: [{ where: 'token:${TILE_TOKEN}', limit: 5 }] }],
      tags: ['${SHORT}'],
      on: true,
      none: null,
    });
  });
});
