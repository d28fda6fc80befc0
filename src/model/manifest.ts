/**
 * Manifest documents as written (docs/manifests/README.md): the types of what the manifest schemas
 * accept, derived from them, so a document that passed its schema has exactly this shape. Each
 * kind's own spec type lives with its descriptor (`kinds/<kind>/model.ts`).
 */
import type { Static } from 'typebox';
import type { DOCUMENT_SCHEMAS, metadataSchema } from '../schema/manifest.js';

export type ManifestMetadata = Static<typeof metadataSchema>;

/** A document that passed the schema of its kind. */
export type Manifest = Static<(typeof DOCUMENT_SCHEMAS)[keyof typeof DOCUMENT_SCHEMAS]>;
