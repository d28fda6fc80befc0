/**
 * The names of the kinds stacksync manages and the API variants it speaks. A kind's name is what
 * its folder registers in `KindTypes` (`kinds/<kind>/descriptor.ts`), so no list of kinds is kept
 * here; the runtime list, and the one order table, are the registry's (`kinds/registry.ts`).
 */
import type { TARGET_VARIANTS } from '../schema/enums.js';

/**
 * Each registered descriptor's type, by its kind: every kind's folder adds its own line beside its
 * descriptor (`declare module '../../model/kinds.js' { interface KindTypes { [PIPE]: typeof pipeKind } }`),
 * and `kinds/index.ts` checks at compile time that the lines are exactly the registry's. Its keys
 * are the kinds; a differ that reads another kind (its live objects, its plan's outcome) gets that
 * kind's own types from here, without a cast, and without importing the registry (which imports
 * every descriptor, so that import would be a cycle).
 */
// Empty here on purpose: the kinds' folders fill it in by declaration merging.
// biome-ignore lint/suspicious/noEmptyInterface: declaration merging needs an interface, not a type alias
export interface KindTypes {}

/** A kind stacksync manages: a name the kinds' folders register in `KindTypes`. */
export type Kind = keyof KindTypes & string;

export type Variant = (typeof TARGET_VARIANTS)[number];
