/**
 * The manifest of a SavedSearch: its spec (`schema/manifest-stack.ts`, built there beside the other
 * flat kinds' from the same API schema parts) in the envelope.
 */
import type { Kind } from '../../model/kinds.js';
import { documentSchema } from '../../schema/manifest.js';
import { savedSearchSpecSchema } from '../../schema/manifest-stack.js';

/** The SavedSearch kind's name. */
export const SAVED_SEARCH = 'SavedSearch' satisfies Kind;

export { savedSearchSpecSchema };

/** What the kind is, as its published schema says. */
export const SAVED_SEARCH_DESCRIPTION =
  'A saved search on a source, which alerts may watch.';

/** The whole manifest document: the envelope with this spec. */
export const savedSearchDocumentSchema = documentSchema(SAVED_SEARCH, savedSearchSpecSchema, SAVED_SEARCH_DESCRIPTION);
