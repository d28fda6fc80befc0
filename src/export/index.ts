/** `stacksync export`: live state → manifests (pure) and their files (I/O). */
export { exportLiveState, withVariables } from './live.js';
export { pickBySchema } from '../kinds/shared/pick.js';
export type {
  CredentialPlaceholder,
  ExportedManifest,
  ExportOptions,
  ExportResult,
  ManifestDocument,
  SkippedResource,
} from './live.js';
export { assignKeys, envName, isValidKey, slugify } from '../kinds/shared/export-names.js';
export type { NameSubject } from '../kinds/shared/export-names.js';
export { renderManifest } from './render.js';
export type { RenderContext } from './render.js';
export { PACKAGE_SCHEMAS_DIR, SCHEMA_FILES, placeManifests, schemaRefFor, writeExportFiles } from './write.js';
export type { ExportFile, PlaceOptions } from './write.js';
