/**
 * Each kind's emulator behaviour on the current profile lives in one file named as its folder in
 * `src/kinds/` (docs/emulator.md#adding-a-kind): a kind without its file, or a stack kind's file
 * whose `stackKind` the routes never see, fails here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CURRENT_STACK_KINDS } from '../../src/emulator/current/stack-kinds.js';

const KINDS = new URL('../../src/kinds/', import.meta.url);
const CURRENT = new URL('../../src/emulator/current/', import.meta.url);

/** The kinds' folders: those holding a descriptor (`shared/` holds what they share). */
const kindFolders = readdirSync(KINDS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/descriptor.ts`, KINDS)))
  .map((entry) => entry.name);

describe('the current profile keeps one emulator file per kind', () => {
  it('finds the kinds (the check can fail)', () => {
    expect(kindFolders).toEqual(expect.arrayContaining(['alert', 'dashboard', 'pipe']));
  });

  it.each(kindFolders)('%s has its file under src/emulator/current/', (kind) => {
    expect(existsSync(new URL(`${kind}.ts`, CURRENT)), `src/emulator/current/${kind}.ts`).toBe(true);
  });

  it.each(kindFolders)("%s's stack routes, when it has any, are served", async (kind) => {
    const module = (await import(new URL(`${kind}.ts`, CURRENT).href)) as { stackKind?: unknown };
    if (module.stackKind !== undefined) expect(CURRENT_STACK_KINDS).toContain(module.stackKind);
  });

  it('serves no stack kind twice, and every path segment once', () => {
    expect(new Set(CURRENT_STACK_KINDS).size).toBe(CURRENT_STACK_KINDS.length);
    const segments = CURRENT_STACK_KINDS.map((kind) => kind.segment);
    expect(new Set(segments).size).toBe(segments.length);
  });
});
