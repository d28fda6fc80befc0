/**
 * Guards for untrusted YAML, shared by the config and manifest loaders: binary or non-UTF-8 files,
 * alias bombs, deep nesting and self-referencing aliases all end as a clear message, never a
 * crash or a hang.
 */
import type { Document, DocumentOptions, ParseOptions, SchemaOptions, ToJSOptions, YAMLError, YAMLWarning } from 'yaml';
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

/**
 * How `yaml` reads every YAML text stacksync takes (manifests and the config): YAML 1.2's core
 * schema, whatever a document's `%YAML` directive asks for (a 1.1 directive is refused, see
 * {@link versionProblem}); no merge keys (`<<` is a plain key, as in YAML 1.2); and none of the
 * types yaml knows beyond the core schema (`!!binary`, `!!timestamp`, `!!set`, `!!omap`,
 * `!!pairs`, `!!merge`): their tags stay unresolved, which {@link splitYamlWarnings} refuses. So
 * a document's value is only ever plain data: strings, numbers, booleans, null, lists, mappings.
 * `logLevel: 'error'`: yaml would otherwise print a Node warning to stderr for a collection key.
 */
export const YAML_READ_OPTIONS = {
  version: '1.2',
  schema: 'core',
  merge: false,
  resolveKnownTags: false,
  uniqueKeys: true,
  prettyErrors: false,
  logLevel: 'error',
} as const satisfies ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions;

/**
 * Why a document cannot be read as YAML 1.2, if it cannot: a `%YAML 1.1` directive asks for
 * another meaning of the same text (`yes` a boolean, `0777` octal, timestamps, merge keys), which
 * stacksync does not give; read silently as 1.2, the author's file would mean something else to
 * every tool that honours the directive. `offset`: where the directive is, found in `text` before
 * the document's start.
 */
export function versionProblem(doc: Document, text: string): { message: string; offset: number } | undefined {
  const { explicit, version } = doc.directives?.yaml ?? {};
  if (!explicit || version === '1.2') return undefined;
  const before = text.slice(0, doc.range?.[0] ?? text.length);
  const directives = [...before.matchAll(/^%YAML\b/gm)];
  return {
    message: `a %YAML ${String(version)} directive: stacksync reads YAML 1.2 only (core schema), where this text may mean something else; remove the directive`,
    offset: directives.at(-1)?.index ?? 0,
  };
}

/**
 * Where the first CR not followed by LF is, as a problem. YAML 1.2 takes a lone CR for a line
 * break (and so does js-yaml); yaml, the reader of every message here and the one editors use,
 * does not, and reads the lines around it as one. So the text has two meanings, and one of them
 * can be dangerous: saved with CR alone, a file whose first line is a comment is one comment to
 * yaml, empty, and its resources would look deleted. Refused wherever it is.
 */
export function loneCrProblem(text: string): { message: string; line: number; column: number } | undefined {
  const match = /\r(?!\n)/.exec(text);
  if (!match) return undefined;
  const lineStart = text.lastIndexOf('\n', match.index) + 1;
  return {
    message:
      'invalid YAML: a line ends with CR alone, which YAML readers disagree on (yaml and editors take ' +
      'no line break there, so the lines run together); save the file with LF or CRLF line ends',
    line: countNewlines(text, match.index) + 1,
    column: match.index - lineStart + 1,
  };
}

function countNewlines(text: string, before: number): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < before; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** yaml's message without the source excerpt it appends (the location is reported separately). */
export function yamlErrorMessage(error: YAMLError): string {
  const first = error.message.split('\n')[0] ?? error.message;
  return first.replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * yaml only warns about a tag it does not know (`!!js/function`, `!custom`, `!<tag:…>`, and with
 * {@link YAML_READ_OPTIONS} `!!binary` and the other YAML 1.1 types) and reads the value as if the
 * tag were not there. A tag asks for a type stacksync does not have, so what the author meant
 * cannot be what gets applied: an error, never a warning.
 */
const REFUSED_WARNING_CODES: ReadonlySet<string> = new Set(['TAG_RESOLVE_FAILED']);

/** yaml's warnings of a document, split into those stacksync refuses as errors and the rest. */
export function splitYamlWarnings(warnings: readonly YAMLWarning[]): {
  refused: YAMLWarning[];
  warnings: YAMLWarning[];
} {
  return {
    refused: warnings.filter((warning) => REFUSED_WARNING_CODES.has(warning.code)),
    warnings: warnings.filter((warning) => !REFUSED_WARNING_CODES.has(warning.code)),
  };
}

/** Tags of the core schema: one of them is refused only where the value does not fit it (`!!float 1`, `!!int x`). */
const CORE_TAGS: ReadonlySet<string> = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`),
);
/** Types yaml knows but stacksync does not read: binary data, dates, sets, ordered maps. */
const OTHER_YAML_TAGS: ReadonlySet<string> = new Set(
  ['binary', 'timestamp', 'set', 'omap', 'pairs', 'merge', 'value', 'yaml'].map((name) => `tag:yaml.org,2002:${name}`),
);
const PLAIN_DATA = 'stacksync reads plain YAML data only (strings, numbers, booleans, lists, mappings); remove the tag';

/** The message of a refused warning: a tag stacksync does not read, and what to do about it. */
export function refusedWarningMessage(warning: YAMLWarning): string {
  const tag = /^Unresolved tag: (.*)$/.exec(yamlErrorMessage(warning))?.[1] ?? '';
  if (CORE_TAGS.has(tag))
    return `the value does not fit its YAML tag ${tag}; remove the tag or write a value of that type`;
  if (OTHER_YAML_TAGS.has(tag)) return `YAML tag ${tag} is not read: ${PLAIN_DATA}`;
  return `unknown YAML tag ${tag}: ${PLAIN_DATA}`;
}

/** `pointer` names the value a failure is about, when it is one value rather than the whole document. */
export type PlainValue = { ok: true; value: unknown } | { ok: false; message: string; pointer?: (string | number)[] };

/** The plain JS value of a document, within the alias, depth and size limits. */
export function toPlainValue(
  doc: Document,
  limits: Pick<YamlLimits, 'maxAliasCount' | 'maxDepth' | 'maxNodes'>,
): PlainValue {
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
  } catch (error) {
    return toJsProblem(error, limits);
  }
  const problem = shapeProblem(value, limits.maxDepth, limits.maxNodes);
  if (problem) return { ok: false, message: problem };
  const unplain = unplainValueAt(value);
  if (unplain)
    return {
      ok: false,
      pointer: unplain.pointer,
      message: `${formatPath(unplain.pointer) || 'the document'}: ${unplain.message}`,
    };
  return { ok: true, value };
}

/** What a failed `toJS` means; never a throw, whatever yaml throws. */
function toJsProblem(error: unknown, limits: Pick<YamlLimits, 'maxAliasCount' | 'maxDepth'>): PlainValue {
  // yaml throws ReferenceError both for an alias bomb and for an alias whose anchor is missing.
  const unresolved = error instanceof ReferenceError ? /^Unresolved alias.*: (.*)$/.exec(error.message) : null;
  if (unresolved)
    return {
      ok: false,
      message: `uses the alias *${unresolved[1] ?? ''}, which names no anchor (an anchor must be set before its alias)`,
    };
  if (error instanceof ReferenceError)
    return { ok: false, message: `expands too many aliases (over ${limits.maxAliasCount}); is this an alias bomb?` };
  if (error instanceof RangeError)
    return { ok: false, message: `is nested too deeply (over ${limits.maxDepth} levels)` };
  return {
    ok: false,
    message: `cannot be read as plain data (${error instanceof Error ? error.message : String(error)})`,
  };
}

/**
 * Where the first value is that is not plain JSON data, and why. `.inf`, `-.inf` and `.nan`: a
 * JSON Schema `number` lets them through, and JSON.stringify would send them as `null`, never
 * what the author meant. Anything but strings, finite numbers, booleans, null, arrays and plain
 * objects (bytes, a date, a set): {@link YAML_READ_OPTIONS} keeps yaml from making them, and this
 * makes sure no reader's surprise gets further than an error at its line. Call after
 * {@link shapeProblem}, which bounds the walk.
 */
export function unplainValueAt(value: unknown): { pointer: (string | number)[]; message: string } | undefined {
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [current, pointer] = stack.pop() as [unknown, (string | number)[]];
    if (typeof current === 'number' && !Number.isFinite(current))
      return {
        pointer,
        message: '.inf and .nan are not numbers (JSON, and so the API, has neither); write a finite number',
      };
    if (current === null || ['string', 'number', 'boolean'].includes(typeof current)) continue;
    if (!isPlainContainer(current))
      return {
        pointer,
        message: 'is not plain YAML data (strings, numbers, booleans, lists, mappings); remove its tag',
      };
    const entries: [string | number, unknown][] = Array.isArray(current)
      ? current.map((child, index) => [index, child])
      : Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string | number, unknown];
      stack.push([child, [...pointer, key]]);
    }
  }
  return undefined;
}

function isPlainContainer(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
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
