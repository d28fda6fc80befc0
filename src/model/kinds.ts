/**
 * The names of the kinds stacksync manages and the API variants it speaks. What each kind is,
 * and the one order table, are in `kinds/` (one descriptor per kind, one registry).
 */
import { RESOURCE_KINDS, type ResourceKind, type TARGET_VARIANTS } from '../schema/enums.js';

export type Kind = ResourceKind;
export const KINDS: readonly Kind[] = RESOURCE_KINDS;

export type Variant = (typeof TARGET_VARIANTS)[number];
