/**
 * The fast way to read plain manifest YAML. `js-yaml` reads a 10,000-resource repository (9 MiB)
 * in about 0.4 s where `yaml` takes 4.3 s, and parsing was most of a plan's time. But `js-yaml`
 * keeps no node positions, is laxer on a few points and differs on some rare constructs, so it
 * is used only where the two are known to agree:
 *
 *   - text that has none of the constructs in {@link DIFFERING_CONSTRUCTS} (anchors, tags,
 *     directives, explicit or collection keys, tabs, …), read with a schema that resolves plain
 *     scalars exactly as YAML 1.2's core schema does in `yaml`;
 *   - documents that read without any error, pass every check `toPlainValue` makes, and have no
 *     null key.
 *
 * Anything else returns undefined, and the caller parses the text with `yaml`, whose messages
 * and positions every problem report uses. So for any text the result is what `yaml` gives, only
 * sooner; test/manifests/fast-read.test.ts holds the two to that over every YAML file in the repo
 * and a table of edge cases.
 */
import { FAILSAFE_SCHEMA, Type, loadAll, type State } from 'js-yaml';
import type { Position } from './positions.js';
import type { YamlLimits } from './safety.js';

/** One document read on the fast path: its value (never null) and where its content starts. */
export interface FastDocument extends Position {
  /** 0-based index of the document in its text, empty documents counted, as `yaml` counts them. */
  index: number;
  value: unknown;
}

/**
 * What sends a text to `yaml`, with why. Each is a construct where `js-yaml` reads differently,
 * or where only `yaml` gives the message and position a problem needs. A false match only costs
 * speed: the text is read the slow way. `hint` is a string every match contains.
 */
export const DIFFERING_CONSTRUCTS: readonly { hint: string; pattern: RegExp; why: string }[] = [
  { hint: '&', pattern: /&/, why: 'anchors (and so aliases): only yaml counts alias expansions against the alias limit' },
  { hint: '!', pattern: /!!|!</, why: 'explicit core tags (!!int "1") and verbatim tags resolve differently' },
  { hint: '!', pattern: /(^|[\s[{,])![^\s=]/, why: 'a local tag is an error whose message and line come from yaml' },
  { hint: '%', pattern: /^%/m, why: 'directives (%YAML 1.1 changes how scalars resolve)' },
  { hint: '...', pattern: /^\.\.\.(\s|$)/m, why: 'document end markers change how yaml counts documents' },
  { hint: '---', pattern: /^---[ \t]*[^\s#]/m, why: 'content on the document marker line' },
  { hint: '?', pattern: /(^|[\s[{,])\?(\s|$)/m, why: 'explicit keys, which may be collections' },
  { hint: ':', pattern: /[\]}][ \t]*:(\s|$)/, why: 'a flow collection as a key: js-yaml and yaml turn it into different strings' },
  { hint: '\t', pattern: /\t/, why: 'tabs, where the two disagree on what is indentation' },
  { hint: '', pattern: /[\u0085\u2028\u2029]/, why: 'Unicode line breaks, which js-yaml reads as content' },
];

/**
 * Plain scalars resolved as in `yaml`'s YAML 1.2 core schema (js-yaml's own also takes `1_000`,
 * `0b101` and YAML 1.1 forms). The patterns are `yaml`'s own.
 */
const CORE_SCALARS = [
  new Type('tag:yaml.org,2002:null', { kind: 'scalar', resolve: (data: string | null) => data === null || /^(?:~|[Nn]ull|NULL)?$/.test(data), construct: () => null }),
  new Type('tag:yaml.org,2002:bool', { kind: 'scalar', resolve: (data: string) => startsWithOneOf(data, 'tTfF') && /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(data), construct: (data: string) => data[0] === 't' || data[0] === 'T' }),
  new Type('tag:yaml.org,2002:int', {
    kind: 'scalar',
    resolve: (data: string) => startsWithOneOf(data, '0123456789+-') && /^(?:0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+)$/.test(data),
    construct: (data: string) => (data.startsWith('0o') ? parseInt(data.slice(2), 8) : data.startsWith('0x') ? parseInt(data.slice(2), 16) : parseInt(data, 10)),
  }),
  new Type('tag:yaml.org,2002:float', {
    kind: 'scalar',
    resolve: (data: string) =>
      startsWithOneOf(data, '0123456789+-.') && /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(data),
    construct: (data: string) => {
      if (/nan$/i.test(data)) return NaN;
      if (/inf$/i.test(data)) return data.startsWith('-') ? -Infinity : Infinity;
      return parseFloat(data);
    },
  }),
];

/** A cheap first look before a pattern: most plain scalars are words, which no number or boolean starts like. */
function startsWithOneOf(data: string, firsts: string): boolean {
  return data.length > 0 && firsts.includes(data[0] as string);
}
const CORE_SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: CORE_SCALARS });

/**
 * The documents of `text` with a value (empty ones are counted in `index` and left out), or
 * undefined when the text must be read with `yaml`: it has a construct the two read differently,
 * an error, a value over the limits, a non-finite number, or more than `maxDocuments` documents.
 */
export function readPlainYaml(text: string, limits: Pick<YamlLimits, 'maxDepth' | 'maxNodes'> & { maxDocuments: number }): FastDocument[] | undefined {
  // `includes` first: a native scan, where most of these patterns would try every position.
  if (DIFFERING_CONSTRUCTS.some(({ hint, pattern }) => text.includes(hint) && pattern.test(text))) return undefined;
  const starts: Position[] = [];
  let values: unknown[];
  try {
    values = loadAll(text, undefined, {
      schema: CORE_SCHEMA,
      // Deep enough for every document within the limit (js-yaml also counts scalars); deeper
      // ones go to yaml, which says where.
      ...({ maxDepth: limits.maxDepth + 2 } as object),
      listener(event: 'open' | 'close', state: State & { depth?: number }) {
        // The root node of each document opens at depth 1, past its marker and comments.
        if (event === 'open' && state.depth === 1) starts.push({ line: state.line + 1, column: state.position - state.lineStart + 1 });
      },
    });
  } catch {
    return undefined;
  }
  if (values.length > limits.maxDocuments || starts.length !== values.length) return undefined;
  const documents: FastDocument[] = [];
  for (const [index, value] of values.entries()) {
    if (value === null || value === undefined) continue;
    if (!withinLimits(value, limits.maxDepth, limits.maxNodes)) return undefined;
    documents.push({ index, value, ...(starts[index] as Position) });
  }
  return documents;
}

/**
 * Whether a value passes `toPlainValue`'s checks (depth, size, only finite numbers) in one walk,
 * and has no key "null": js-yaml names a null key (`null:`, `~:`) "null" where yaml names it "".
 * Recursive: js-yaml's own depth limit bounds the nesting, and with no anchors there are no cycles.
 */
function withinLimits(root: unknown, maxDepth: number, maxNodes: number): boolean {
  let nodes = 0;
  const visit = (value: unknown, depth: number): boolean => {
    if (++nodes > maxNodes) return false;
    if (typeof value === 'number') return Number.isFinite(value);
    if (value === null || typeof value !== 'object') return true;
    if (depth >= maxDepth) return false;
    if (Array.isArray(value)) return value.every((child) => visit(child, depth + 1));
    for (const key in value) if (key === 'null' || !visit((value as Record<string, unknown>)[key], depth + 1)) return false;
    return true;
  };
  return visit(root, 0);
}
