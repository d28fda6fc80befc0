/**
 * The manifest of a Source: its spec (`schema/manifest-stack.ts`, built there beside the other
 * flat kinds' from the same API schema parts) in the envelope.
 */
import type { Kind } from '../../model/kinds.js';
import { documentSchema } from '../../schema/manifest.js';
import { sourceSpecSchema } from '../../schema/manifest-stack.js';

/** The Source kind's name. */
export const SOURCE = 'Source' satisfies Kind;

export { sourceSpecSchema };

/** What the kind is, as its published schema says. */
export const SOURCE_DESCRIPTION =
  'A source of observability data (logs, traces, metrics, sessions) on a connection.';

/** The whole manifest document: the envelope with this spec. */
export const sourceDocumentSchema = documentSchema(SOURCE, sourceSpecSchema, SOURCE_DESCRIPTION);
