/**
 * Bytes of one manifest file → its documents as plain values, each with the line it starts on.
 * Pure, and independent of the file's path, so a result can be cached by content and computed on
 * another thread. Hostile input (binary, invalid UTF-8, alias bombs, deep nesting, endless
 * document streams) becomes a problem, never a crash or a hang.
 *
 * Positions cost: the YAML nodes are dropped as soon as a document's value is taken. The lines of
 * nodes a later check complains about are found again by {@link locatePointers}, which parses the
 * file a second time: errors are rare, and keeping every node of every file would double the
 * memory of a load.
 *
 * Speed: plain text (nearly every manifest) is read by the fast reader in `yaml/fast-read.ts`,
 * which gives the same result about ten times sooner; the rest, and every text with a problem,
 * is read with `yaml`.
 */
import { Composer, LineCounter, Parser, type Document, type YAMLError } from 'yaml';
import { nodeAt, positionAt, type Pointer, type Position } from '../yaml/positions.js';
import { readPlainYaml } from '../yaml/fast-read.js';
import { explainIndentation } from '../yaml/explain-indentation.js';
import {
  decodeText,
  loneCrProblem,
  refusedWarningMessage,
  splitYamlWarnings,
  toPlainValue,
  versionProblem,
  YAML_READ_OPTIONS,
  yamlErrorMessage,
  type YamlLimits,
} from '../yaml/safety.js';

export interface ParseLimits extends Pick<YamlLimits, 'maxDepth' | 'maxAliasCount' | 'maxNodes'> {
  /** Most documents composed from one file, empty ones included (an endless `---` stream stops here). */
  maxDocuments: number;
}

/** A problem inside one file's text; the caller adds the file. */
export interface TextProblem {
  message: string;
  line?: number;
  column?: number;
}

export interface ParsedDocumentData extends Position {
  /** 0-based index of the document in its file, empty documents counted. */
  index: number;
  /** The plain value; never mutated once parsed (it may be cached and shared). */
  value: unknown;
}

export interface ParsedText {
  documents: ParsedDocumentData[];
  /** Documents that failed to parse are left out, with a problem each (`E_MANIFEST_PARSE`). */
  problems: TextProblem[];
  warnings: TextProblem[];
}

/** Decodes and parses one file. */
export function parseManifestBytes(bytes: Uint8Array, limits: ParseLimits): ParsedText {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return { documents: [], warnings: [], problems: [{ message: decoded.message }] };
  return parseManifestText(decoded.text, limits);
}

export function parseManifestText(text: string, limits: ParseLimits): ParsedText {
  const plain = readPlainYaml(text, limits);
  if (plain) return { documents: plain, problems: [], warnings: [] };
  return parseWithPositions(text, limits);
}

/** The careful reading, with `yaml`: what every text with a problem, and every unusual one, gets. */
export function parseWithPositions(text: string, limits: ParseLimits): ParsedText {
  const loneCr = loneCrProblem(text);
  if (loneCr) return { documents: [], problems: [loneCr], warnings: [] };
  const result: ParsedText = { documents: [], problems: [], warnings: [] };
  const lineCounter = new LineCounter();
  const at = (offset: number): Position => positionAt(offset, lineCounter);
  let index = 0;
  // Composing lazily lets the document cap stop a huge stream without parsing the rest of it.
  for (const doc of composeDocuments(text, lineCounter)) {
    if (index >= limits.maxDocuments) {
      result.problems.push({
        message: `more than ${limits.maxDocuments} manifest documents; this one and the rest were not read`,
        ...at(doc.range[0]),
      });
      break;
    }
    addDocument(result, doc, index++, at, limits, text);
  }
  return result;
}

function composeDocuments(text: string, lineCounter: LineCounter): Generator<Document.Parsed> {
  const composer = new Composer(YAML_READ_OPTIONS);
  return composer.compose(new Parser(lineCounter.addNewLine).parse(text));
}

function addDocument(
  result: ParsedText,
  doc: Document.Parsed,
  index: number,
  at: (offset: number) => Position,
  limits: ParseLimits,
  text: string,
): void {
  const { refused, warnings } = splitYamlWarnings(doc.warnings);
  const version = versionProblem(doc, text);
  for (const warning of warnings)
    result.warnings.push({ message: `YAML: ${yamlErrorMessage(warning)}`, ...at(warning.pos[0]) });
  if (version) result.problems.push({ message: version.message, ...at(version.offset) });
  for (const warning of refused)
    result.problems.push({ message: refusedWarningMessage(warning), ...at(warning.pos[0]) });
  const [error] = doc.errors;
  if (error !== undefined) {
    // The first error only: what follows it is mostly the same mistake seen again (src/yaml/explain-indentation.ts).
    result.problems.push(describeYamlError(error, limits, text, at(error.pos[0])));
    return;
  }
  if (refused.length > 0 || version) return;
  const start = at(doc.contents?.range?.[0] ?? doc.range[0]);
  const plain = toPlainValue(doc, limits);
  if (!plain.ok) {
    if (plain.pointer)
      result.problems.push({ message: plain.message, ...at(nodeAt(doc, plain.pointer)?.range?.[0] ?? doc.range[0]) });
    else result.problems.push({ message: `the document ${plain.message}`, ...start });
    return;
  }
  // An empty document (a trailing `---`, a file of comments) declares nothing.
  if (plain.value === null || plain.value === undefined) return;
  result.documents.push({ index, value: plain.value, ...start });
}

function describeYamlError(
  error: YAMLError,
  limits: ParseLimits,
  text: string,
  where: Position,
): { message: string } & Position {
  // yaml catches its own stack overflow on absurd nesting (code RESOURCE_EXHAUSTION); say what it means.
  if (error.code === 'RESOURCE_EXHAUSTION')
    return { message: `the document is nested too deeply (over ${limits.maxDepth} levels)`, ...where };
  const words = explainIndentation(text, where.line, error.code);
  if (words) return { message: `invalid YAML: ${words.message}`, line: words.line, column: words.column };
  return { message: `invalid YAML: ${yamlErrorMessage(error)}`, ...where };
}

/** A node to find in document `index` of a file: `at: 'key'` picks the map key of the last segment. */
export interface PointerRequest {
  index: number;
  pointer: Pointer;
  at: 'key' | 'value';
}

/**
 * The line and column of each requested node (or of its deepest existing ancestor), parsing the
 * file again up to the last document asked about. Undefined where the document is not there
 * (the file changed under us; the caller keeps the document's own line).
 */
export function locatePointers(bytes: Uint8Array, requests: readonly PointerRequest[]): (Position | undefined)[] {
  const decoded = decodeText(bytes);
  if (!decoded.ok || requests.length === 0) return requests.map(() => undefined);
  const wanted = new Set(requests.map((request) => request.index));
  const last = Math.max(...wanted);
  const lineCounter = new LineCounter();
  const docs = new Map<number, Document.Parsed>();
  let index = 0;
  for (const doc of composeDocuments(decoded.text, lineCounter)) {
    if (wanted.has(index)) docs.set(index, doc);
    if (index++ >= last) break;
  }
  return requests.map((request) => {
    const doc = docs.get(request.index);
    if (!doc) return undefined;
    const node = nodeAt(doc, request.pointer, request.at);
    return positionAt(node?.range?.[0] ?? doc.contents?.range?.[0] ?? doc.range[0], lineCounter);
  });
}
