/**
 * Manifest documents as written (design.md, "Manifests"): the types of what the manifest schemas
 * accept, derived from them, so a document that passed its schema has exactly this shape.
 */
import type { Static } from 'typebox';
import type { DOCUMENT_SCHEMAS, alertSpecSchema, dashboardSpecSchema, metadataSchema, pipeSpecSchema } from '../schema/manifest.js';

export type ManifestMetadata = Static<typeof metadataSchema>;

/** A Pipe's spec: one source kind block (credentials as secret references, postgres `tableMappings`) beside `validateSamples`. */
export type PipeSpec = Static<typeof pipeSpecSchema>;

export type DashboardSpec = Static<typeof dashboardSpecSchema>;

/** A tile as manifests write it: the API's tile without the id the service assigns. */
export type ManifestTile = NonNullable<DashboardSpec['tiles']>[number];

/**
 * An Alert's spec: the API's configuration with `name` required (stacksync finds live alerts by
 * name) and the dashboard and tile named by manifest name and tile name instead of by id.
 */
export type AlertSpec = Static<typeof alertSpecSchema>;

/** A document that passed the schema of its kind. */
export type Manifest =
  | Static<typeof DOCUMENT_SCHEMAS.Pipe>
  | Static<typeof DOCUMENT_SCHEMAS.Dashboard>
  | Static<typeof DOCUMENT_SCHEMAS.Alert>;
