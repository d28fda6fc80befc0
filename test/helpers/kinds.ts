/**
 * The kinds as tests find them from the registry, so a new kind needs no line in a test: every
 * kind's name as messages list them, and where a kind's own files are, by its name: its folder
 * `src/kinds/<folder>/` (with its conformance fixture, `conformance.yaml`) and its docs page
 * `docs/manifests/<folder>.md`, as docs/contributing.md names them.
 */
import { fileURLToPath } from 'node:url';
import { KINDS } from '../../src/kinds/index.js';

/** Every registered kind, in registry order, as a message lists them: `Pipe, Connection, …`. */
export const KIND_LIST = KINDS.join(', ');

/** The repository root, ending in `/`. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A kind's folder, file and page name: `PipeCdcScaling` → `pipe-cdc-scaling`. */
export function folderOf(kind: string): string {
  return kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
}

/** The conformance fixture of a kind, relative to the repository: `src/kinds/<folder>/conformance.yaml`. */
export function conformanceFileOf(kind: string): string {
  return `src/kinds/${folderOf(kind)}/conformance.yaml`;
}

/** The docs page of a kind, relative to the repository: `docs/manifests/<folder>.md`. */
export function kindPageOf(kind: string): string {
  return `docs/manifests/${folderOf(kind)}.md`;
}
