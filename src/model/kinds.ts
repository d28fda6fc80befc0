/** The kinds of resource stacksync manages, and the API variants it speaks. */
import { RESOURCE_KINDS, type ResourceKind } from '../schema/enums.js';

export type Kind = ResourceKind;
export const KINDS: readonly Kind[] = RESOURCE_KINDS;

export type Variant = 'managed' | 'self-hosted';
