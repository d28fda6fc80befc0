/**
 * Every dependency and dev dependency in package.json is used: imported by src/, test/ or
 * scripts/ (or vitest.config.ts), or a binary one of package.json's scripts runs. An `@types/x`
 * package counts as used when `x` is (`@types/node` when a `node:` module is). A package nothing
 * uses is removed rather than left to be installed, audited and upgraded for nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['src', 'test', 'scripts'];
const CODE = /\.(ts|mts|mjs|js)$/;

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`; undefined for relative and `node:` specifiers. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The module specifiers a file's text imports, as the compiler's pre-processor reads them. */
function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((imported) => imported.fileName);
}

/** The dependencies of `manifest` that no specifier names and no script runs a binary of. */
function unusedDependencies(
  manifest: Manifest,
  specifiers: readonly string[],
  binariesOf: (name: string) => string[],
): string[] {
  const imported = new Set(specifiers.map(packageOf).filter((name): name is string => name !== undefined));
  if (specifiers.some((specifier) => specifier.startsWith('node:'))) imported.add('node');
  const words = new Set(Object.values(manifest.scripts ?? {}).flatMap((script) => script.split(/[\s;&|()]+/)));
  const used = (name: string): boolean =>
    imported.has(name) ||
    binariesOf(name).some((binary) => words.has(binary) || words.has(`node_modules/.bin/${binary}`)) ||
    (name.startsWith('@types/') && used(typesTarget(name)));
  return Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((name) => !used(name));
}

/** `@types/node` → `node`, `@types/js-yaml` → `js-yaml`, `@types/babel__core` → `@babel/core`. */
function typesTarget(name: string): string {
  const target = name.slice('@types/'.length);
  return target.includes('__') ? `@${target.replace('__', '/')}` : target;
}

/** The binaries an installed package declares (`bin` in its package.json). */
function installedBinaries(name: string): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  if (manifest.bin === undefined) return [];
  return typeof manifest.bin === 'string' ? [name.split('/').pop() as string] : Object.keys(manifest.bin);
}

function codeFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && CODE.test(entry.name) && !entry.parentPath.includes('node_modules'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('dependencies', () => {
  it('finds a dependency nothing imports and no script runs (so the check can fail)', () => {
    const manifest: Manifest = {
      dependencies: { yaml: '1', unused: '1', '@scope/lib': '1' },
      devDependencies: { '@types/node': '1', '@types/unused': '1', linter: '1', '@types/scope__lib': '1' },
      scripts: { lint: 'linter check .' },
    };
    const binaries = (name: string) => (name === 'linter' ? ['linter'] : []);
    expect(unusedDependencies(manifest, ['yaml', '@scope/lib/sub', 'node:fs', './local.js'], binaries)).toEqual([
      'unused',
      '@types/unused',
    ]);
    expect(unusedDependencies(manifest, [], binaries)).toEqual([
      'yaml',
      'unused',
      '@scope/lib',
      '@types/node',
      '@types/unused',
      '@types/scope__lib',
    ]);
  });

  it('every dependency in package.json is imported, or run by a script', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
    const files = [...SCANNED.flatMap(codeFiles), join(ROOT, 'vitest.config.ts')];
    expect(files.length).toBeGreaterThan(400);
    const specifiers = files.flatMap((file) => specifiersOf(readFileSync(file, 'utf8')));
    expect(unusedDependencies(manifest, specifiers, installedBinaries)).toEqual([]);
  });
});
