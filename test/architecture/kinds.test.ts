/**
 * Issue 23: a kind is described once. Outside its descriptor (`src/kinds/`), `src/schema/` and
 * `src/emulator/`, no source file names a kind: the stages are generic over the registry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESCRIPTORS, KIND_ORDER, KINDS, descriptorOf } from '../../src/kinds/index.js';
import { SRC, sourceFiles } from './imports.js';

/** Where kinds may be named: their descriptors and registry, the schemas, and the emulator's own modules. */
const ALLOWED = ['kinds/', 'schema/', 'emulator/'];

/** A kind named as a string literal (`'Pipe'`, `"Alert"`, `` `Dashboard` ``), or a key of a per-kind table (`Pipe: …`). */
function kindLiteral(kinds: readonly string[]): RegExp {
  const names = kinds.join('|');
  return new RegExp(`(['"\`])(${names})\\1|(?:^|[{,\\s])(${names})\\s*:(?!:)`);
}

function filesNamingKinds(files: readonly string[], read: (file: string) => string): string[] {
  const pattern = kindLiteral(KINDS);
  return files.filter((file) =>
    read(file)
      .split('\n')
      .some((line) => !/^\s*(\*|\/\/)/.test(line) && pattern.test(line)),
  );
}

describe('kind literals', () => {
  it('the pattern finds what it is meant to, and not a kind in prose', () => {
    const pattern = kindLiteral(KINDS);
    for (const line of [
      "kind === 'Pipe'",
      'const order = ["Dashboard"]',
      'return { Pipe: {}, Dashboard: {} }',
      '`Alert`',
    ])
      expect(pattern.test(line), line).toBe(true);
    for (const line of ['a Pipe needs a managed target', 'type: `create${kind}`', 'descriptor.kind'])
      expect(pattern.test(line), line).toBe(false);
  });

  it('no source file outside the descriptors, the schemas and the emulator names a kind', () => {
    const outside = sourceFiles().filter((file) => !ALLOWED.some((prefix) => file.startsWith(prefix)));
    expect(filesNamingKinds(outside, (file) => readFileSync(join(SRC, file), 'utf8'))).toEqual([]);
  });

  it('would fail on a new file that names one', () => {
    const files = {
      'diff/new-stage.ts': "if (change.kind === 'Alert') return;",
      'diff/generic.ts': 'descriptorOf(change.kind).plan(input);',
    };
    expect(filesNamingKinds(Object.keys(files), (file) => files[file as keyof typeof files])).toEqual([
      'diff/new-stage.ts',
    ]);
  });
});

describe('the registry', () => {
  it('has one descriptor per kind of the schema, and nothing else', () => {
    expect(DESCRIPTORS.map((descriptor) => descriptor.kind).sort()).toEqual([...KINDS].sort());
    for (const kind of KINDS) expect(descriptorOf(kind).kind).toBe(kind);
  });

  it('orders every kind after the kinds it names', () => {
    for (const descriptor of DESCRIPTORS) {
      for (const named of descriptor.references)
        expect(KIND_ORDER.indexOf(named), `${descriptor.kind} after ${named}`).toBeLessThan(
          KIND_ORDER.indexOf(descriptor.kind),
        );
    }
  });

  it('gives every kind a collection of its own and routes on at least one variant', () => {
    expect(new Set(DESCRIPTORS.map((descriptor) => descriptor.collection)).size).toBe(DESCRIPTORS.length);
    for (const descriptor of DESCRIPTORS)
      expect(Object.keys(descriptor.routes).length, descriptor.kind).toBeGreaterThan(0);
  });
});
