/**
 * The current profile's stack kinds as one list both variants' routes are built from, each as its
 * own file declares it (`current/<kind>.ts`, found by the module `scripts/emulator-kinds.mjs`
 * writes from this folder: docs/emulator.md#adding-a-kind), and their collections in the order a
 * workspace is filled: each after the ones it names in `after`, otherwise as listed.
 */
import * as kinds from './kinds.generated.js';
import type { Collection, StackKind } from './stack-kind.js';

export type { StackCall, StackKind } from './stack-kind.js';

export const CURRENT_STACK_KINDS: readonly StackKind[] = Object.values(kinds);

/** The managed path id parameters of the current stack (24-hex object ids, not UUIDs). */
export const CURRENT_STACK_ID_NAMES: readonly string[] = CURRENT_STACK_KINDS.map((kind) => kind.idName);

/** The collections, each after those it reads; a kind waiting on a member no kind holds is a bug, caught at load. */
export const CURRENT_COLLECTIONS: readonly Collection[] = (() => {
  const waiting = CURRENT_STACK_KINDS.map((kind) => kind.collection);
  const ordered: Collection[] = [];
  while (waiting.length > 0) {
    const next = waiting.findIndex((collection) =>
      (collection.after ?? []).every((member) => ordered.some((done) => done.member === member)),
    );
    if (next < 0)
      throw new Error(
        `the emulator's collections wait on each other or on no kind: ${waiting.map((collection) => collection.member).join(', ')}`,
      );
    ordered.push(...waiting.splice(next, 1));
  }
  return ordered;
})();
