// Types of scripts/precompile-validators.mjs, for the test that checks what it builds.
import type { NamedSchema } from '../src/schema/validate.js';

export function prebuiltSchemas(): NamedSchema[];
export function validatorSource(entry: NamedSchema): string;
