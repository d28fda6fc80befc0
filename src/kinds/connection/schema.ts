/**
 * The manifest of a Connection: its spec (`schema/manifest-stack.ts`, built there beside the other
 * flat kinds' from the same API schema parts) in the envelope.
 */
import type { Kind } from '../../model/kinds.js';
import { documentSchema } from '../../schema/manifest.js';
import { connectionSpecSchema } from '../../schema/manifest-stack.js';

/** The Connection kind's name. */
export const CONNECTION = 'Connection' satisfies Kind;

export { connectionSpecSchema };

/** What the kind is, as its published schema says. */
export const CONNECTION_DESCRIPTION =
  'A database connection sources query through (self-hosted targets; a managed service makes its own, which manifests name).';

/** The whole manifest document: the envelope with this spec. */
export const connectionDocumentSchema = documentSchema(CONNECTION, connectionSpecSchema, CONNECTION_DESCRIPTION);
