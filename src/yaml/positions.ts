/**
 * Maps schema errors back to YAML source positions, for the config and the manifests alike.
 * ajv reports JSON pointers into the plain value; `yaml` keeps every node's offset, and a
 * `LineCounter` turns offsets into 1-based line and column.
 */
import type { ErrorObject } from 'ajv';
import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from 'yaml';
import type { JsonSchema } from '../schema/api.js';
import { formatPath, toIssues } from '../schema/validate.js';

export type Pointer = readonly (string | number)[];

export interface Position {
  line: number;
  column: number;
}

/** A schema problem with a readable path, a message that says what was expected, and where it is. */
export interface LocatedIssue extends Position {
  path: string;
  message: string;
}

/** The parts of a parsed YAML document needed to locate a pointer in it. */
export interface YamlSource {
  doc: Document;
  lineCounter: LineCounter;
  /** The plain value the schema saw, for "got a string" style messages. */
  value: unknown;
}

/** Line and column of a byte offset in the text. */
export function positionAt(offset: number, lineCounter: LineCounter): Position {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** Where a node starts; the document start when there is no node. */
export function nodePosition(node: Node | null | undefined, source: Pick<YamlSource, 'doc' | 'lineCounter'>): Position {
  const offset = node?.range?.[0] ?? source.doc.contents?.range?.[0] ?? source.doc.range?.[0] ?? 0;
  return positionAt(offset, source.lineCounter);
}

/**
 * The node at a pointer, or its deepest existing ancestor when the path is not all there.
 * `at: 'key'` picks the map key of the last segment (for "unknown member" and "required" errors).
 */
export function nodeAt(doc: Document, pointer: Pointer, at: 'key' | 'value' = 'value'): Node | undefined {
  let current: unknown = doc.contents;
  for (const [index, segment] of pointer.entries()) {
    if (isAlias(current)) current = current.resolve(doc);
    const last = index === pointer.length - 1;
    if (isMap(current)) {
      const pair = current.items.find((item) => keyText(item) === String(segment));
      if (!pair) return current;
      if (last && at === 'key') return pair.key as Node;
      current = isEmptyScalar(pair.value) ? pair.key : pair.value;
    } else if (isSeq(current) && typeof segment === 'number' && current.items[segment] !== undefined) {
      current = current.items[segment];
    } else {
      return current as Node | undefined;
    }
  }
  return current as Node | undefined;
}

/** The position of what a pointer names, for messages on values that passed the schema. */
export function positionOfPointer(source: YamlSource, pointer: Pointer, at: 'key' | 'value' = 'value'): Position {
  return nodePosition(nodeAt(source.doc, pointer, at), source);
}

function keyText(pair: Pair): string | undefined {
  const key = pair.key;
  if (isScalar(key)) return String(key.value);
  return undefined;
}

function isEmptyScalar(node: unknown): boolean {
  return !node || (isScalar(node) && node.value === null && node.range?.[0] === node.range?.[1]);
}

// ---------------------------------------------------------------- ajv errors → located issues

export interface IssueOptions {
  /** The schema that was compiled, to read the context of an error (known members, if/then). */
  schema: JsonSchema;
  /** Readable descriptions of the patterns the schema uses, by pattern. */
  patternMessages?: Record<string, string>;
  /** Schemas whose errors all mean "this is not a valid X", with that message (e.g. secret references). */
  wholeMessages?: Map<JsonSchema, string>;
}

/** Located, readable issues from ajv errors, sorted by position, duplicates dropped. */
export function locateIssues(
  errors: readonly ErrorObject[],
  source: YamlSource,
  options: IssueOptions,
): LocatedIssue[] {
  return describeAjvErrors(errors, source.value, options)
    .map(({ pointer, at, ...issue }) => ({ ...issue, ...positionOfPointer(source, pointer, at) }))
    .sort(byPosition);
}

/**
 * Readable issues from ajv errors with the node each is about, duplicates dropped, in ajv's
 * order. No positions: a caller that no longer holds the YAML nodes places them later.
 */
export function describeAjvErrors(
  errors: readonly ErrorObject[],
  data: unknown,
  options: IssueOptions,
): DescribedIssue[] {
  const issues: DescribedIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const described = describeError(error, data, options);
    if (!described) continue;
    const key = `${described.path}\u0000${described.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(described);
  }
  return issues;
}

export function byPosition(a: Position, b: Position): number {
  return a.line - b.line || a.column - b.column;
}

/** A schema problem with a readable path and message, and the node it is about. */
export interface DescribedIssue {
  pointer: Pointer;
  /** `key` for "unknown member" and "required" errors: the map key is the place to point at. */
  at: 'key' | 'value';
  path: string;
  message: string;
}

function describeError(error: ErrorObject, data: unknown, options: IssueOptions): DescribedIssue | undefined {
  const segments = schemaSegments(error.schemaPath);
  // Branch errors of a oneOf only repeat, per alternative, why it failed; the oneOf error says it once.
  if (error.keyword === 'if' || segments.slice(0, -1).includes('oneOf')) return undefined;
  const base = toIssues([error as ErrorObject])[0];
  if (!base) return undefined;
  const pointer = base.pointer;
  const parent = schemaAt(options.schema, segments.slice(0, -1));
  const when = condition(options.schema, segments);
  const whole = parent ? options.wholeMessages?.get(parent) : undefined;
  if (whole) return { pointer, at: 'value', path: formatPath(pointer), message: whole };
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params['missingProperty']);
      return { pointer, at: 'key', path: formatPath([...pointer, missing]), message: `is required${when}` };
    }
    case 'additionalProperties': {
      const known = Object.keys((parent?.['properties'] as Record<string, unknown> | undefined) ?? {});
      const guess = didYouMean(String(base.pointer.at(-1) ?? ''), known);
      const expected =
        known.length === 0
          ? ''
          : guess
            ? ` (expected one of ${known.join(', ')})`
            : `; expected one of ${known.join(', ')}`;
      return {
        pointer: base.pointer,
        at: 'key',
        path: base.path,
        message: `is not a known member here${guess}${expected}`,
      };
    }
    case 'enum': {
      const value = valueAt(data, pointer);
      const guess =
        typeof value === 'string' ? didYouMean(value, (params['allowedValues'] as unknown[]).map(String)) : '';
      return { pointer, at: 'value', path: base.path, message: `${base.message}${when}${guess}` };
    }
    case 'false schema':
      return { pointer, at: 'key', path: base.path, message: `is not allowed here${when}` };
    case 'oneOf':
      return { pointer, at: 'value', path: base.path, message: oneOfMessage(parent) };
    case 'type':
      return {
        pointer,
        at: 'value',
        path: base.path,
        message: `must be ${expectedType(params['type'])} (got ${typeName(valueAt(data, pointer))})`,
      };
    case 'format':
      return { pointer, at: 'value', path: base.path, message: formatMessage(String(params['format'])) };
    case 'pattern': {
      const pattern = String(params['pattern']);
      return {
        pointer,
        at: 'value',
        path: base.path,
        message: options.patternMessages?.[pattern] ?? `must match the pattern ${pattern}`,
      };
    }
    default:
      return { pointer, at: 'value', path: base.path, message: `${base.message}${when}` };
  }
}

function schemaSegments(schemaPath: string): string[] {
  return schemaPath
    .replace(/^#\/?/, '')
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
}

function schemaAt(schema: unknown, segments: readonly string[]): JsonSchema | undefined {
  let current: unknown = schema;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current !== null && typeof current === 'object' ? (current as JsonSchema) : undefined;
}

/** ` when source is tile` for an error raised under the `then` of an `if` on constant values (or a few: `is search or saved_search`). */
function condition(schema: JsonSchema, segments: readonly string[]): string {
  const thenIndex = segments.lastIndexOf('then');
  if (thenIndex < 0) return '';
  const ifSchema = schemaAt(schema, [...segments.slice(0, thenIndex), 'if']);
  const properties = (ifSchema?.['properties'] ?? {}) as Record<string, { const?: unknown; enum?: unknown[] }>;
  const parts = Object.entries(properties).flatMap(([name, value]) => {
    if (value.const !== undefined) return [`${name} is ${String(value.const)}`];
    return Array.isArray(value.enum) ? [`${name} is ${value.enum.map(String).join(' or ')}`] : [];
  });
  return parts.length > 0 ? ` when ${parts.join(' and ')}` : '';
}

function oneOfMessage(parent: JsonSchema | undefined): string {
  const branches = (parent?.['oneOf'] ?? []) as JsonSchema[];
  const names = branches
    .map((branch) => branch['required'])
    .filter((r): r is string[] => Array.isArray(r) && r.length === 1);
  if (names.length > 0 && names.length === branches.length) return `must set exactly one of ${names.flat().join(', ')}`;
  return 'must match exactly one of its alternatives';
}

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'empty',
};

function expectedType(type: unknown): string {
  const types = String(type).split(',');
  return types.map((name) => TYPE_WORDS[name] ?? name).join(' or ');
}

/** The kind of a value, never the value itself (it may be a secret). */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'boolean') return 'true or false';
  return 'a string';
}

function valueAt(data: unknown, pointer: Pointer): unknown {
  let current = data;
  for (const segment of pointer) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/**
 * `; did you mean Dashboard?` when one candidate is close to what was written (a typo, a wrong
 * case, a letter swapped), else ''. Close: an edit distance, ignoring case, of at most a third of
 * the word (at least 1), and a unique best.
 */
export function didYouMean(written: string, candidates: readonly string[]): string {
  if (written === '') return '';
  const word = written.toLowerCase();
  const scored = candidates.map((candidate) => ({ candidate, distance: editDistance(word, candidate.toLowerCase()) }));
  const best = Math.min(...scored.map((score) => score.distance));
  const closest = scored.filter((score) => score.distance === best);
  if (closest.length !== 1 || best > Math.max(1, Math.floor(word.length / 3)) || closest[0]?.candidate === written)
    return '';
  return `; did you mean ${closest[0]?.candidate ?? ''}?`;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

const FORMAT_MESSAGES: Record<string, string> = {
  uuid: 'must be a UUID (like 9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01)',
  uri: 'must be a URL (like https://api.example.com)',
  'date-time': 'must be a date-time (like 2026-03-15T10:20:30Z)',
};

function formatMessage(format: string): string {
  return FORMAT_MESSAGES[format] ?? `must be a valid ${format}`;
}
