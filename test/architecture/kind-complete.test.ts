/**
 * Issue 38: a kind is its folder (`src/kinds/<kind>/`, with its wire schemas in `wire.ts` when it
 * has routes, and its conformance fixture `conformance.yaml`), one line in the registry, its emulator
 * file (`src/emulator/current/<kind>.ts`, for a kind the current profile serves) and its docs page
 * (`docs/manifests/<kind>.md`), as docs/contributing.md walks through. This fails for a registered
 * kind that misses any of the four.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accessOf, descriptorOf, KIND_DESCRIPTORS, KINDS } from '../../src/kinds/index.js';
import type { Kind, Variant } from '../../src/model/kinds.js';
import { API_PROFILES } from '../../src/schema/enums.js';
import { conformanceFileOf, folderOf, kindPageOf, ROOT } from '../helpers/kinds.js';

const VARIANTS: readonly Variant[] = ['managed', 'self-hosted'];

/** The file of the emulator that serves a kind under the current profile: one per kind, named as its folder. */
function emulatorFileOf(kind: Kind): string {
  return `src/emulator/current/${folderOf(kind)}.ts`;
}

interface Registry {
  kinds: readonly Kind[];
  /** The registry's source text. */
  text: string;
  registered(kind: Kind): boolean;
  servedOnCurrent(kind: Kind): boolean;
  /** Whether a kind has routes under any variant and profile: its wire schemas then are in its folder. */
  hasRoutes(kind: Kind): boolean;
}

/** What each kind misses of its folder, its registry line, its emulator file and its docs page. */
function missingParts(registry: Registry, exists: (path: string) => boolean): string[] {
  return registry.kinds.flatMap((kind) => {
    const folder = folderOf(kind);
    const wanted = [
      `src/kinds/${folder}/descriptor.ts`,
      `src/kinds/${folder}/schema.ts`,
      `src/kinds/${folder}/model.ts`,
      ...(registry.hasRoutes(kind) ? [`src/kinds/${folder}/wire.ts`] : []),
      conformanceFileOf(kind),
      kindPageOf(kind),
      ...(registry.servedOnCurrent(kind) ? [emulatorFileOf(kind)] : []),
    ];
    const files = wanted.filter((path) => !exists(path)).map((path) => `${kind}: ${path}`);
    const line =
      registry.registered(kind) && registry.text.includes(`from './${folder}/descriptor.js'`)
        ? []
        : [`${kind}: its line in src/kinds/registry.ts`];
    return [...files, ...line];
  });
}

const registry: Registry = {
  kinds: KINDS,
  text: readFileSync(`${ROOT}src/kinds/registry.ts`, 'utf8'),
  registered: (kind) => KIND_DESCRIPTORS.some((descriptor) => descriptor === descriptorOf(kind)),
  servedOnCurrent: (kind) => VARIANTS.some((variant) => accessOf(kind, variant, 'current') !== 'none'),
  hasRoutes: (kind) =>
    VARIANTS.some((variant) => API_PROFILES.some((profile) => accessOf(kind, variant, profile) !== 'none')),
};
const onDisk = (path: string): boolean => existsSync(`${ROOT}${path}`);

describe('every kind is complete', () => {
  it('has its folder, its registry line, its emulator file and its docs page', () => {
    expect(missingParts(registry, onDisk)).toEqual([]);
  });

  it("is registered: every folder of src/kinds/ with a descriptor is a registered kind's", () => {
    const folders = readdirSync(`${ROOT}src/kinds`, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && onDisk(`src/kinds/${entry.name}/descriptor.ts`))
      .map((entry) => entry.name);
    expect(folders.length).toBeGreaterThan(0);
    expect(folders.filter((folder) => !KINDS.some((kind) => folderOf(kind) === folder))).toEqual([]);
  });

  it('has its wire schemas in its folder: every kind has routes', () => {
    expect(KINDS.filter((kind) => !registry.hasRoutes(kind))).toEqual([]);
  });

  it('is checked against the current profile: it serves every kind', () => {
    expect(KINDS.filter((kind) => !registry.servedOnCurrent(kind))).toEqual([]);
  });

  it('fails for a kind that misses any of the four', () => {
    const without = (gone: string) => (path: string) => path !== gone && onDisk(path);
    expect(missingParts(registry, without('docs/manifests/role.md'))).toEqual(['Role: docs/manifests/role.md']);
    expect(missingParts(registry, without('src/kinds/webhook/descriptor.ts'))).toEqual([
      'Webhook: src/kinds/webhook/descriptor.ts',
    ]);
    expect(missingParts(registry, without('src/kinds/dashboard/wire.ts'))).toEqual([
      'Dashboard: src/kinds/dashboard/wire.ts',
    ]);
    expect(missingParts(registry, without('src/kinds/saved-search/conformance.yaml'))).toEqual([
      'SavedSearch: src/kinds/saved-search/conformance.yaml',
    ]);
    const routeless = { ...registry, hasRoutes: (kind: Kind) => kind !== 'Dashboard' && registry.hasRoutes(kind) };
    expect(missingParts(routeless, without('src/kinds/dashboard/wire.ts'))).toEqual([]);
    const emulatorFile = emulatorFileOf('Alert');
    expect(missingParts(registry, without(emulatorFile))).toEqual([`Alert: ${emulatorFile}`]);
    const unregistered = { ...registry, registered: (kind: Kind) => kind !== 'Source' && registry.registered(kind) };
    expect(missingParts(unregistered, onDisk)).toEqual(['Source: its line in src/kinds/registry.ts']);
    const noImport = { ...registry, text: registry.text.replace("from './source/descriptor.js'", '') };
    expect(missingParts(noImport, onDisk)).toEqual(['Source: its line in src/kinds/registry.ts']);
  });
});
