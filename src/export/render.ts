/** An exported manifest as YAML text: the editor's schema line, a short header, the document. */
import { Document, isMap, isScalar, isSeq, visit, type Node } from 'yaml';
import type { ExportedManifest } from './live.js';

export interface RenderContext {
  /** What follows `$schema=` (a path relative to the file, or a URL). */
  schemaRef: string;
  target: string;
}

/** Longest flow collection (`[a, b]`, `{ name: x, type: y }`) before block style is used. */
const FLOW_MAX_CHARS = 96;

export function renderManifest(manifest: ExportedManifest, context: RenderContext): string {
  const header = [
    `# yaml-language-server: $schema=${context.schemaRef}`,
    '#',
    `# Exported by \`stacksync export\` from target ${context.target} (live id ${manifest.id}).`,
    ...credentialLines(manifest),
  ];
  // No anchors for repeated values; no folding, so long `where` filters stay on one line.
  const doc = new Document(manifest.document, { aliasDuplicateObjects: false });
  compactLeaves(doc);
  return `${header.join('\n')}\n${doc.toString({ lineWidth: 0 })}`;
}

/**
 * Short lists and objects of plain values in flow style, as people write them by hand
 * (`tags: [api, slo]`, `- { name: id, type: String }`); the document's top levels stay block.
 */
function compactLeaves(doc: Document): void {
  visit(doc, {
    Seq(_key, node, path) {
      if (path.length > 4 && node.items.every(isScalar) && fits(node)) node.flow = true;
    },
    Map(_key, node, path) {
      if (path.length > 4 && node.items.every((pair) => isScalar(pair.value) && !isMultiline(pair.value)) && fits(node))
        node.flow = true;
    },
  });
}

function fits(node: Node): boolean {
  return isSeq(node) || isMap(node) ? JSON.stringify(node.toJSON()).length <= FLOW_MAX_CHARS : false;
}

function isMultiline(value: unknown): boolean {
  return isScalar(value) && typeof value.value === 'string' && value.value.includes('\n');
}

function credentialLines(manifest: ExportedManifest): string[] {
  const credentials = manifest.credentials;
  if (!credentials) return [];
  const fields = Object.entries(credentials.fields ?? {}).map(
    ([field, ref]) => `#     ${field}: { fromEnv: ${ref.fromEnv} }`,
  );
  const member = credentials.value
    ? [`#   ${credentials.member}: { fromEnv: ${credentials.value.fromEnv} }`]
    : [`#   ${credentials.member}:`, ...fields];
  return [
    '#',
    '# Credentials are secrets: they are never written here, and stacksync leaves them as they are.',
    `# To manage them, add under ${credentials.path}:`,
    ...member,
    '# and set those variables; apply sends them once, then compares them by an HMAC in the state file.',
  ];
}
