/** An exported manifest as YAML text: the editor's schema line, a short header, the document. */
import { stringify } from 'yaml';
import type { ExportedManifest } from './convert.js';

export interface RenderContext {
  /** What follows `$schema=` (a path relative to the file, or a URL). */
  schemaRef: string;
  target: string;
}

export function renderManifest(manifest: ExportedManifest, context: RenderContext): string {
  const header = [
    `# yaml-language-server: $schema=${context.schemaRef}`,
    '#',
    `# Exported by \`stacksync export\` from target ${context.target} (live id ${manifest.id}).`,
    ...credentialLines(manifest),
  ];
  // No folding (long `where` filters stay on one line) and no anchors for repeated values.
  const body = stringify(manifest.document, { lineWidth: 0, aliasDuplicateObjects: false });
  return `${header.join('\n')}\n${body}`;
}

function credentialLines(manifest: ExportedManifest): string[] {
  const credentials = manifest.credentials;
  if (!credentials) return [];
  const fields = Object.entries(credentials.fields).map(([field, ref]) => `#     ${field}: { fromEnv: ${ref.fromEnv} }`);
  return [
    '#',
    '# Credentials are write-only: the API never returns them, so they are left out here and',
    `# stacksync leaves them as they are. To manage them, add under ${credentials.path}:`,
    `#   ${credentials.member}:`,
    ...fields,
    '# and set those variables; apply sends them once, then compares them by an HMAC in the state file.',
  ];
}
