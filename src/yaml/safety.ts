/**
 * Guards for untrusted YAML, shared by the config and manifest loaders: binary or non-UTF-8 files,
 * alias bombs, deep nesting and self-referencing aliases all end as a clear message, never a
 * crash or a hang.
 */
import type { Document, YAMLError, YAMLWarning } from 'yaml';
import { formatPath } from '../schema/validate.js';

export interface YamlLimits {
  /** Largest file read, in bytes. */
  maxFileBytes: number;
  /** Deepest nesting of mappings and lists in one document. */
  maxDepth: number;
  /** yaml's alias expansion budget (its defence against "billion laughs"). */
  maxAliasCount: number;
  /** Most values (scalars, mappings, lists) one document may expand to. */
  maxNodes: number;
}

export const DEFAULT_YAML_LIMITS: YamlLimits = {
  maxFileBytes: 4 * 1024 * 1024,
  maxDepth: 64,
  maxAliasCount: 100,
  maxNodes: 1_000_000,
};

export type Decoded = { ok: true; text: string } | { ok: false; message: string };

/** UTF-8 text of a file, or why it is not text. A leading BOM is dropped. */
export function decodeText(bytes: Uint8Array): Decoded {
  if (bytes.includes(0)) return { ok: false, message: 'is a binary file (it holds NUL bytes), not YAML text' };
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { ok: false, message: 'is not valid UTF-8 text' };
  }
}

/** `1.5 MiB` style, for size limits in messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** yaml's message without the source excerpt it appends (the location is reported separately). */
export function yamlErrorMessage(error: YAMLError): string {
  const first = error.message.split('\n')[0] ?? error.message;
  return first.replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * yaml only warns about a tag it does not know (`!!js/function`, `!custom`, `!<tag:…>`) and reads
 * the value as if the tag were not there. A tag asks for a type stacksync does not have, so what
 * the author meant cannot be what gets applied: an error, never a warning.
 */
const REFUSED_WARNING_CODES: ReadonlySet<string> = new Set(['TAG_RESOLVE_FAILED']);

/** yaml's warnings of a document, split into those stacksync refuses as errors and the rest. */
export function splitYamlWarnings(warnings: readonly YAMLWarning[]): { refused: YAMLWarning[]; warnings: YAMLWarning[] } {
  return {
    refused: warnings.filter((warning) => REFUSED_WARNING_CODES.has(warning.code)),
    warnings: warnings.filter((warning) => !REFUSED_WARNING_CODES.has(warning.code)),
  };
}

/** The message of a refused warning: an unknown tag, and what to do about it. */
export function refusedWarningMessage(warning: YAMLWarning): string {
  const tag = /^Unresolved tag: (.*)$/.exec(yamlErrorMessage(warning))?.[1] ?? '';
  return `unknown YAML tag ${tag}: stacksync reads plain YAML data only (strings, numbers, booleans, lists, mappings); remove the tag`;
}

/** `pointer` names the value a failure is about, when it is one value rather than the whole document. */
export type PlainValue = { ok: true; value: unknown } | { ok: false; message: string; pointer?: (string | number)[] };

/** The plain JS value of a document, within the alias, depth and size limits. */
export function toPlainValue(doc: Document, limits: Pick<YamlLimits, 'maxAliasCount' | 'maxDepth' | 'maxNodes'>): PlainValue {
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
  } catch (error) {
    // yaml throws ReferenceError both for an alias bomb and for an alias whose anchor is missing.
    const unresolved = error instanceof ReferenceError ? /^Unresolved alias.*: (.*)$/.exec(error.message) : null;
    if (unresolved) return { ok: false, message: `uses the alias *${unresolved[1] ?? ''}, which names no anchor (an anchor must be set before its alias)` };
    if (error instanceof ReferenceError) return { ok: false, message: `expands too many aliases (over ${limits.maxAliasCount}); is this an alias bomb?` };
    if (error instanceof RangeError) return { ok: false, message: `is nested too deeply (over ${limits.maxDepth} levels)` };
    throw error;
  }
  const problem = shapeProblem(value, limits.maxDepth, limits.maxNodes);
  if (problem) return { ok: false, message: problem };
  const pointer = nonFiniteNumberAt(value);
  if (pointer) return { ok: false, pointer, message: `${formatPath(pointer) || 'the document'}: .inf and .nan are not numbers (JSON, and so the API, has neither); write a finite number` };
  return { ok: true, value };
}

/**
 * Where the first `.inf`, `-.inf` or `.nan` is. A JSON Schema `number` lets them through, and
 * JSON.stringify would send them as `null`: never what the author meant. Call after
 * {@link shapeProblem}, which bounds the walk.
 */
export function nonFiniteNumberAt(value: unknown): (string | number)[] | undefined {
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [current, pointer] = stack.pop() as [unknown, (string | number)[]];
    if (typeof current === 'number' && !Number.isFinite(current)) return pointer;
    if (current === null || typeof current !== 'object') continue;
    const entries: [string | number, unknown][] = Array.isArray(current) ? current.map((child, index) => [index, child]) : Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string | number, unknown];
      stack.push([child, [...pointer, key]]);
    }
  }
  return undefined;
}

/**
 * Why a value is too deep or too large to walk safely, if it is. Iterative, so it cannot overflow
 * the stack; an alias that refers to its own ancestor makes a cycle, which shows up as depth.
 */
export function shapeProblem(value: unknown, maxDepth: number, maxNodes: number): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  let nodes = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (++nodes > maxNodes) return `is too large (over ${maxNodes} values)`;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= maxDepth) return `is nested too deeply (over ${maxDepth} levels, or an alias refers to itself)`;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return undefined;
}
