/**
 * `npm ci` on the oldest Node the README names (package.json `engines`, 20.19) installs without
 * an EBADENGINE warning: every package in the lock file, dev dependencies included, accepts it.
 * A dependency whose newest major wants a newer Node is pinned or overridden in package.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

type Version = [number, number, number];

/** `20.19` → [20, 19, 0]; the parts given, for partial versions (`18`, `10.x`). */
function parseVersion(text: string): { version: Version; parts: number } {
  const numbers = text
    .replace(/^v/, '')
    .split('.')
    .filter((part) => /^\d+$/.test(part))
    .map(Number);
  return { version: [numbers[0] ?? 0, numbers[1] ?? 0, numbers[2] ?? 0], parts: numbers.length };
}

function compare(a: Version, b: Version): number {
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return (a[index] as number) - (b[index] as number);
  return 0;
}

/** The next version up at the given part (0 major, 1 minor). */
function bump(version: Version, part: number): Version {
  return part === 0 ? [version[0] + 1, 0, 0] : [version[0], version[1] + 1, 0];
}

/** Whether `node` satisfies one comparator of an engines range (the forms npm packages use). */
function satisfiesComparator(node: Version, comparator: string): boolean {
  if (comparator === '*' || comparator === 'x' || comparator === '') return true;
  const match = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(comparator);
  if (!match) throw new Error(`cannot read the comparator ${comparator}`);
  const [, operator = '', rest = ''] = match;
  const { version, parts } = parseVersion(rest);
  const order = compare(node, version);
  switch (operator) {
    case '>=':
      return order >= 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '<':
      return order < 0;
    case '^':
      return order >= 0 && compare(node, bump(version, version[0] > 0 || parts === 1 ? 0 : 1)) < 0;
    case '~':
      return order >= 0 && compare(node, bump(version, parts === 1 ? 0 : 1)) < 0;
    default:
      // `18`, `10.x`, `=20.1.0`: every version the given parts allow.
      return parts === 3 ? order === 0 : order >= 0 && compare(node, bump(version, parts - 1)) < 0;
  }
}

function satisfies(nodeVersion: string, range: string): boolean {
  const node = parseVersion(nodeVersion).version;
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => satisfiesComparator(node, comparator)),
  );
}

describe('engines', () => {
  const oldest = parseVersion(manifest.engines.node.replace(/^>=\s*/, '')).version.join('.');

  it('reads ranges the way npm does (so the check below can fail)', () => {
    expect(satisfies('20.19.0', '>=22.12.0')).toBe(false);
    expect(satisfies('20.19.0', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('20.19.0', '^20.0.0 || ^22.0.0 || >=24.0.0')).toBe(true);
    expect(satisfies('20.19.0', '>=20.18.1')).toBe(true);
    expect(satisfies('20.19.0', '>=18.20.0 <20 || >=20.12.1')).toBe(true);
    expect(satisfies('20.19.0', '^16 || ^18')).toBe(false);
    expect(satisfies('20.19.0', '10.* || >= 12.*')).toBe(true);
    expect(satisfies('20.19.0', '18 || 22')).toBe(false);
    expect(satisfies('20.19.0', '>= 20.19.0')).toBe(true);
  });

  it(`every locked package accepts Node ${oldest}, the oldest package.json allows`, () => {
    expect(oldest).toBe('20.19.0');
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range === undefined || satisfies(oldest, range)
          ? []
          : [`${path}@${entry.version ?? '?'} wants node ${range}`];
      });
    expect(refusing).toEqual([]);
  });
});
