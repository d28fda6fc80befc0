/** Canonical JSON is JSON.stringify's text with keys sorted at every level: equal data, one digest. */
import { describe, expect, it } from 'vitest';
import { canonicalJson, digestOf } from '../../src/support/digest.js';

/** What JSON.stringify gives once every object's keys are sorted: the definition the fast writer must meet. */
function reference(value: unknown): string {
  const sorted = (member: unknown): unknown =>
    typeof member === 'object' && member !== null && !Array.isArray(member)
      ? Object.fromEntries(
          Object.keys(member)
            .sort()
            .map((key) => [key, (member as Record<string, unknown>)[key]]),
        )
      : member;
  return JSON.stringify(value, (_key, member: unknown) => sorted(member)) ?? 'null';
}

const CASES: [string, unknown][] = [
  ['null', null],
  ['undefined', undefined],
  ['strings with escapes', { s: 'quote " backslash \\ newline \n tab \t nul \u0000 emoji 👋 lone \ud800' }],
  ['numbers', [0, -0, 1.5, -2e-7, 1e21, 123456789012345680000, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity]],
  ['booleans', [true, false]],
  ['nested keys out of order', { b: { d: 1, c: [{ z: 1, a: 2 }] }, a: 'x', '10': 1, '2': 2, B: 3 }],
  [
    'integer keys first, in numeric order, as digests in state files were made',
    { '10': 1, '9': 2, '01': 3, '4294967295': 4, '4294967294': 5, a: 6 },
  ],
  [
    'undefined and functions left out of objects, null in arrays',
    { a: undefined, f: () => 1, keep: 1, list: [undefined, () => 1, Symbol('s')] },
  ],
  // biome-ignore lint/suspicious/noSparseArray: the holes are the case under test
  ['array holes', [1, , 3]],
  ['toJSON', { when: new Date(Date.UTC(2026, 10, 23)), custom: { toJSON: () => ({ y: 2, x: 1 }) } }],
  ['a map and a set as JSON sees them', { map: new Map([['a', 1]]), set: new Set([1]) }],
  ['empty containers', { o: {}, a: [], s: '' }],
  ['a __proto__ key', JSON.parse('{"__proto__": {"x": 1}, "a": 1}')],
];

describe('canonicalJson', () => {
  it.each(CASES)('%s: JSON.stringify with sorted keys', (_name, value) => {
    expect(canonicalJson(value)).toBe(reference(value));
  });

  it('gives one digest for equal data built in any key order', () => {
    expect(digestOf({ a: 1, b: { c: [1, { d: 2, e: 3 }] } })).toBe(digestOf({ b: { c: [1, { e: 3, d: 2 }] }, a: 1 }));
    expect(digestOf({ a: 1 })).not.toBe(digestOf({ a: 2 }));
  });

  it('refuses a bigint, as JSON.stringify does', () => {
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });
});
