/**
 * The current profile's stack kinds as one list both variants' routes are built from, each as its
 * own file declares it (`current/kinds.ts`).
 */
import * as kinds from './kinds.js';
import type { StackKind } from './stack-kind.js';

export type { StackCall, StackKind } from './stack-kind.js';

export const CURRENT_STACK_KINDS: readonly StackKind[] = Object.values(kinds);

/** The managed path id parameters of the current stack (24-hex object ids, not UUIDs). */
export const CURRENT_STACK_ID_NAMES: readonly string[] = CURRENT_STACK_KINDS.map((kind) => kind.idName);
