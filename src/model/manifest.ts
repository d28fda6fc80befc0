/**
 * Manifest documents as written (docs/manifests/README.md): the types of what the manifest schemas
 * accept, derived from them. Here, what every document has (the envelope, its metadata); each
 * kind's own document and spec types live in its folder (`kinds/<kind>/schema.ts`, `model.ts`).
 */
import type { Static } from 'typebox';
import type { envelopeSchemaOf, metadataSchema } from '../schema/manifest.js';
import type { Kind } from './kinds.js';

export type ManifestMetadata = Static<typeof metadataSchema>;

/** A document as every kind's schema has it: its own spec's type is its kind's (`kinds/<kind>/schema.ts`). */
export type Manifest = Static<ReturnType<typeof envelopeSchemaOf<Kind>>>;
