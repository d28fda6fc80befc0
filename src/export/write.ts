/**
 * Where exported manifests go (`DIR/<kinds>/<name>.yaml`: `dashboards/`, `saved-searches/`), which `$schema` each names, and
 * writing them without clobbering anything unless asked to.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import { pluralOf } from '../kinds/index.js';
import { StacksyncError } from '../errors.js';
import type { ExportedManifest } from './live.js';
import { renderManifest } from './render.js';

/** The published schema file of each kind, as in `schemas/` (`pipe.json`). */
export const SCHEMA_FILES: Record<Kind, string> = Object.fromEntries(
  KINDS.map((kind) => [kind, `${kind.toLowerCase()}.json`]),
) as Record<Kind, string>;

/** `schemas/` of the installed package (beside `dist/`, or beside `src/` in a checkout). */
export const PACKAGE_SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

export interface ExportFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the output directory, `/`-separated. */
  relativePath: string;
  text: string;
  manifest: ExportedManifest;
}

export interface PlaceOptions {
  outDir: string;
  target: string;
  /** `--schema-base`: a URL or path prefix the schema file names are appended to. */
  schemaBase?: string;
  /** Answers whether a path exists; the file system by default. */
  exists?: (path: string) => boolean;
  packageSchemasDir?: string;
}

/** One file per manifest, rendered, with its schema reference decided. */
export function placeManifests(manifests: readonly ExportedManifest[], options: PlaceOptions): ExportFile[] {
  const outDir = resolve(options.outDir);
  return manifests.map((manifest) => {
    const relativePath = `${pluralOf(manifest.kind).replace(/ /g, '-')}/${manifest.key}.yaml`;
    const path = join(outDir, ...relativePath.split('/'));
    const schemaRef = schemaRefFor(dirname(path), manifest.kind, options);
    return { path, relativePath, manifest, text: renderManifest(manifest, { schemaRef, target: options.target }) };
  });
}

/**
 * The `$schema` of a file in `fileDir`: `--schema-base` when given; else the relative path to a
 * `schemas/<kind>.json` in the repository holding the output (searched upwards, stopping at the
 * directory that holds `.git`); else the relative path to the installed package's schema (which
 * holds wherever the two stay put; copy `schemas/` into the repository for a path that holds in
 * every clone). A `file://` URL only when no relative path exists (another drive on Windows).
 */
export function schemaRefFor(
  fileDir: string,
  kind: Kind,
  options: Pick<PlaceOptions, 'schemaBase' | 'exists' | 'packageSchemasDir'>,
): string {
  const file = SCHEMA_FILES[kind];
  if (options.schemaBase !== undefined) return `${options.schemaBase.replace(/\/+$/, '')}/${file}`;
  const exists = options.exists ?? existsSync;
  for (let dir = fileDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'schemas', file);
    if (exists(candidate)) return relativeRef(fileDir, candidate);
    if (exists(join(dir, '.git')) || dirname(dir) === dir) break;
  }
  const packaged = join(options.packageSchemasDir ?? PACKAGE_SCHEMAS_DIR, file);
  return isAbsolute(relative(fileDir, packaged)) ? pathToFileURL(packaged).href : relativeRef(fileDir, packaged);
}

/** `to` relative to `fromDir`, `/`-separated, as editors resolve `$schema` paths. */
function relativeRef(fromDir: string, to: string): string {
  return relative(fromDir, to).split(sep).join('/');
}

/**
 * Writes every file, or none: without `force`, any file already there stops the export before
 * anything is written, so a re-export never silently replaces hand edits.
 */
export async function writeExportFiles(files: readonly ExportFile[], options: { force: boolean }): Promise<void> {
  if (!options.force) {
    const existing = files.filter((file) => existsSync(file.path));
    if (existing.length > 0) {
      const first = existing.slice(0, 3).map((file) => file.path);
      throw new StacksyncError(
        'E_USAGE',
        `refusing to overwrite ${existing.length} existing file${existing.length > 1 ? 's' : ''} ` +
          `(${first.join(', ')}${existing.length > 3 ? ', …' : ''}); pass --force to replace them`,
        { subject: first[0] },
      );
    }
  }
  for (const file of files) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.text, { flag: options.force ? 'w' : 'wx' });
  }
}
