/**
 * Text of one manifest file → its documents, each with the positions of its nodes and its plain
 * value. Pure. Hostile input (binary, invalid UTF-8, alias bombs, deep nesting, endless document
 * streams) becomes a problem, never a crash or a hang.
 */
import { Composer, LineCounter, Parser, type Document, type YAMLError } from 'yaml';
import type { SourceLocation } from '../errors.js';
import { nodePosition, positionAt, type YamlSource } from '../yaml/positions.js';
import { decodeText, refusedWarningMessage, splitYamlWarnings, toPlainValue, yamlErrorMessage, type YamlLimits } from '../yaml/safety.js';
import type { LoadProblem } from '../model/desired.js';

export interface ParsedDocument extends YamlSource {
  file: string;
  /** 0-based index of the document in its file. */
  index: number;
  /** Where the document's content starts. */
  location: SourceLocation;
}

export interface ParsedFile {
  documents: ParsedDocument[];
  problems: LoadProblem[];
  warnings: LoadProblem[];
}

export type ParseLimits = Pick<YamlLimits, 'maxDepth' | 'maxAliasCount' | 'maxNodes'>;

/** How many more documents this run may read; shared by all files so the cap is per run. */
export interface DocumentBudget {
  remaining: number;
  max: number;
}

/** Decodes and parses one file. Documents that fail to parse are left out, with a problem each. */
export function parseManifestFile(file: { path: string; bytes: Uint8Array }, limits: ParseLimits, budget: DocumentBudget): ParsedFile {
  const decoded = decodeText(file.bytes);
  if (!decoded.ok) return { documents: [], warnings: [], problems: [problem(file.path, decoded.message)] };
  return parseManifestText(file.path, decoded.text, limits, budget);
}

export function parseManifestText(path: string, text: string, limits: ParseLimits, budget: DocumentBudget): ParsedFile {
  const result: ParsedFile = { documents: [], problems: [], warnings: [] };
  const lineCounter = new LineCounter();
  const composer = new Composer({ uniqueKeys: true, prettyErrors: false });
  let index = 0;
  // Composing lazily lets the document cap stop a huge stream without parsing the rest of it.
  for (const doc of composer.compose(new Parser(lineCounter.addNewLine).parse(text))) {
    const at = (offset: number): SourceLocation => ({ file: path, ...positionAt(offset, lineCounter) });
    if (budget.remaining <= 0) {
      result.problems.push({ ...problem(path, `more than ${budget.max} manifest documents; this one and the rest were not read`), location: at(doc.range[0]) });
      break;
    }
    budget.remaining -= 1;
    addDocument(result, doc, { path, index: index++, lineCounter, at, limits });
  }
  return result;
}

interface DocumentContext {
  path: string;
  index: number;
  lineCounter: LineCounter;
  at: (offset: number) => SourceLocation;
  limits: ParseLimits;
}

function addDocument(result: ParsedFile, doc: Document.Parsed, context: DocumentContext): void {
  const { at } = context;
  const { refused, warnings } = splitYamlWarnings(doc.warnings);
  for (const warning of warnings) result.warnings.push({ ...problem(context.path, `YAML: ${yamlErrorMessage(warning)}`), location: at(warning.pos[0]) });
  for (const warning of refused) result.problems.push({ ...problem(context.path, refusedWarningMessage(warning)), location: at(warning.pos[0]) });
  if (doc.errors.length > 0) {
    for (const error of doc.errors) result.problems.push({ ...problem(context.path, describeYamlError(error, context.limits)), location: at(error.pos[0]) });
    return;
  }
  if (refused.length > 0) return;
  const location = { file: context.path, ...nodePosition(doc.contents, { doc, lineCounter: context.lineCounter }) };
  const plain = toPlainValue(doc, context.limits);
  if (!plain.ok) {
    result.problems.push({ ...problem(context.path, `the document ${plain.message}`), location });
    return;
  }
  // An empty document (a trailing `---`, a file of comments) declares nothing.
  if (plain.value === null || plain.value === undefined) return;
  result.documents.push({ file: context.path, index: context.index, doc, lineCounter: context.lineCounter, value: plain.value, location });
}

function describeYamlError(error: YAMLError, limits: ParseLimits): string {
  const message = yamlErrorMessage(error);
  // yaml catches its own stack overflow on absurd nesting (code RESOURCE_EXHAUSTION); say what it means.
  if (error.code === 'RESOURCE_EXHAUSTION') return `the document is nested too deeply (over ${limits.maxDepth} levels)`;
  return `invalid YAML: ${message}`;
}

function problem(file: string, message: string): LoadProblem {
  return { code: 'E_MANIFEST_PARSE', message, location: { file } };
}
