/**
 * The fast way to read plain manifest YAML. `js-yaml` reads a 10,000-resource repository (9 MiB)
 * in about 0.4 s where `yaml` takes 4.3 s, and parsing was most of a plan's time. But `js-yaml`
 * keeps no node positions, is laxer on a few points and differs on some rare constructs, so it
 * is used only where the two are known to agree:
 *
 *   - text that has none of the constructs in {@link DIFFERING_CONSTRUCTS} (anchors, tags,
 *     directives, explicit or collection keys, tabs, CR line ends, …), no quoted scalar or flow
 *     collection over more than one line ({@link spansLines}), no indentation js-yaml reads
 *     more leniently and no key too long for yaml ({@link irregularLines}), read with a schema
 *     that resolves plain scalars exactly as YAML 1.2's core schema does in `yaml`;
 *   - documents that read without any error, pass every check `toPlainValue` makes, and have no
 *     null key.
 *
 * Anything else returns undefined, and the caller parses the text with `yaml`, whose messages
 * and positions every problem report uses. So for any text the result is what `yaml` gives, only
 * sooner. The checks are conservative (a false match only costs speed) and were found, and are
 * held, by test/manifests/yaml-differential.test.ts, which feeds both readers thousands of
 * generated texts (every line end, tags, anchors, quoting styles, Unicode, YAML 1.1 look-alikes,
 * broken and near-miss texts) and fails on any difference; test/manifests/fast-read.test.ts
 * holds them over every YAML file in the repo and a table of edge cases.
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
  {
    hint: '&',
    pattern: /&/,
    why: 'anchors (and so aliases): only yaml counts alias expansions against the alias limit',
  },
  { hint: '!', pattern: /!!|!</, why: 'explicit core tags (!!int "1") and verbatim tags resolve differently' },
  { hint: '!', pattern: /(^|[\s[{,])![^\s=]/, why: 'a local tag is an error whose message and line come from yaml' },
  {
    hint: '!',
    pattern: /(^|[:?,[{-])[ \t]*!/m,
    why: 'the non-specific tag (`key: ! value`), and a ! where a tag could start',
  },
  { hint: '%', pattern: /^%/m, why: 'directives (%YAML 1.1 changes how scalars resolve)' },
  { hint: '...', pattern: /^\.\.\.(\s|$)/m, why: 'document end markers change how yaml counts documents' },
  {
    hint: '---',
    pattern: /^---(?:[ \t]*[^\s#]|#)/m,
    why: 'content on the document marker line (`---#` is content: a comment needs a space before it)',
  },
  {
    hint: '-',
    pattern: /^[ \t]*-[ \t]+-(?=[ \t\r\n]|$)/m,
    why: 'a list opened on the line of an item of another (`- - a`): js-yaml puts the next item in the inner list',
  },
  {
    hint: '#',
    pattern: /[\]}]#/,
    why: 'a # right after a flow collection, which yaml refuses as a comment without a space',
  },
  { hint: '?', pattern: /(^|[\s[{,])\?(\s|$)/m, why: 'explicit keys, which may be collections' },
  {
    hint: ':',
    pattern: /[\]}][ \t]*:(\s|$)/,
    why: 'a flow collection as a key: js-yaml and yaml turn it into different strings',
  },
  { hint: '\t', pattern: /\t/, why: 'tabs, where the two disagree on what is indentation' },
  {
    hint: '',
    pattern: /[\u0085\u2028\u2029\ufeff]/,
    why: 'Unicode line breaks, which js-yaml reads as content, and a byte order mark past the start',
  },
  {
    hint: '|',
    pattern: /[|>][-+]?[1-9]/,
    why: 'a block scalar with an indentation indicator: at the top level, js-yaml counts it from column -1 (as YAML says), yaml from 0',
  },
  { hint: '>', pattern: /[|>][-+]?[1-9]/, why: 'the same, for folded scalars' },
  {
    hint: '+',
    pattern: /[|>]\+/,
    why: 'a block scalar that keeps its final line breaks: the two count trailing white space differently',
  },
  // The pattern needs a `|` or `>`: hinted by each (as the indicator entries are), a text with neither skips it.
  {
    hint: '|',
    pattern: /[|>][^\n]*\n(?:\r?\n)* +\r?(?:\n|$)/,
    why: 'a block scalar whose first lines hold only spaces, which yaml refuses past the content indentation',
  },
  { hint: '>', pattern: /[|>][^\n]*\n(?:\r?\n)* +\r?(?:\n|$)/, why: 'the same, for folded scalars' },
  {
    hint: '\r',
    pattern: /\r(?!\n)/,
    why: 'a CR not followed by LF: js-yaml takes it for a line break, yaml (and editors) do not',
  },
];

/**
 * Plain scalars resolved as in `yaml`'s YAML 1.2 core schema (js-yaml's own also takes `1_000`,
 * `0b101` and YAML 1.1 forms). The patterns are `yaml`'s own.
 */
const CORE_SCALARS = [
  new Type('tag:yaml.org,2002:null', {
    kind: 'scalar',
    resolve: (data: string | null) => data === null || /^(?:~|[Nn]ull|NULL)?$/.test(data),
    construct: () => null,
  }),
  new Type('tag:yaml.org,2002:bool', {
    kind: 'scalar',
    resolve: (data: string) => startsWithOneOf(data, 'tTfF') && /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(data),
    construct: (data: string) => data[0] === 't' || data[0] === 'T',
  }),
  new Type('tag:yaml.org,2002:int', {
    kind: 'scalar',
    resolve: (data: string) =>
      startsWithOneOf(data, '0123456789+-') && /^(?:0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+)$/.test(data),
    construct: (data: string) =>
      data.startsWith('0o')
        ? parseInt(data.slice(2), 8)
        : data.startsWith('0x')
          ? parseInt(data.slice(2), 16)
          : parseInt(data, 10),
  }),
  new Type('tag:yaml.org,2002:float', {
    kind: 'scalar',
    resolve: (data: string) =>
      startsWithOneOf(data, '0123456789+-.') &&
      /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(
        data,
      ),
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
export function readPlainYaml(
  text: string,
  limits: Pick<YamlLimits, 'maxDepth' | 'maxNodes'> & { maxDocuments: number },
): FastDocument[] | undefined {
  // `includes` first: a native scan, where most of these patterns would try every position.
  if (DIFFERING_CONSTRUCTS.some(({ hint, pattern }) => text.includes(hint) && pattern.test(text))) return undefined;
  if (spansLines(text) || irregularLines(text)) return undefined;
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
        if (event === 'open' && state.depth === 1)
          starts.push({ line: state.line + 1, column: state.position - state.lineStart + 1 });
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
 * The same walk detaches long strings from the file's text (see {@link detached}).
 * Recursive: js-yaml's own depth limit bounds the nesting, and with no anchors there are no cycles.
 */
function withinLimits(root: unknown, maxDepth: number, maxNodes: number): boolean {
  let nodes = 0;
  const visit = (value: unknown, depth: number): boolean => {
    if (++nodes > maxNodes) return false;
    if (typeof value === 'number') return Number.isFinite(value);
    if (value === null || typeof value !== 'object') return true;
    if (depth >= maxDepth) return false;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const child: unknown = value[index];
        if (!visit(child, depth + 1)) return false;
        if (typeof child === 'string' && child.length >= SLICE_LENGTH) value[index] = detached(child);
      }
      return true;
    }
    const members = value as Record<string, unknown>;
    for (const key in members) {
      if (key === 'null' || !visit(members[key], depth + 1)) return false;
      const child = members[key];
      if (typeof child === 'string' && child.length >= SLICE_LENGTH) members[key] = detached(child);
    }
    return true;
  };
  return visit(root, 0);
}

/**
 * V8 makes a substring of 13 characters or more a slice that points into the whole text it was
 * cut from, so one long scalar kept in a parsed value would keep its file's text alive for as
 * long as the value lives (a whole load's worth of files). A copy holds only itself.
 */
const SLICE_LENGTH = 13;

function detached(text: string): string {
  // Concatenating makes a rope; slicing the rope flattens it into a new string of its own.
  return ` ${text}`.slice(1);
}

const DOUBLE = 0x22;
const SINGLE = 0x27;
const BACKSLASH = 0x5c;
const HASH = 0x23;
const NEWLINE = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const DASH = 0x2d;

/** What a character is to {@link spansLines}, by code (ASCII only; every other character is 0). */
const QUOTE = 1;
const OPENER = 2;
const CLOSER = 3;
const COMMENT = 4;
const ROLE = asciiTable({ '"': QUOTE, "'": QUOTE, '[': OPENER, '{': OPENER, ']': CLOSER, '}': CLOSER, '#': COMMENT });
/** Characters after which a quote or a bracket opens a scalar or a collection (or may: a false match only costs speed). */
const BEFORE_NODE = asciiTable(Object.fromEntries([...' \t\r\n:-?[{,'].map((char) => [char, 1])));
/** A `#` starts a comment only after white space. */
const BEFORE_COMMENT = asciiTable({ ' ': 1, '\t': 1, '\r': 1, '\n': 1 });

function asciiTable(entries: Record<string, number>): Uint8Array {
  const table = new Uint8Array(128);
  for (const [char, value] of Object.entries(entries)) table[char.charCodeAt(0)] = value;
  return table;
}

/**
 * Whether a quoted scalar or a flow collection may run over more than one line, or a quoted
 * scalar ends right before a `#`. The two readers disagree on how far the continuation lines of
 * either must be indented (js-yaml takes `key: 'a⏎b'` and `- a: {b: 1,⏎  c: 2}` at any
 * indentation, yaml refuses lines not indented past the key), so such texts go to yaml.
 *
 * Each line is read on its own, from outside any quote or bracket: a quote or bracket where a
 * node can start (the line start, after a space or an indicator) that does not close on its line
 * is the start of a multi-line node, or something else mistaken for one (a plain scalar's quote,
 * a line of a block scalar), which only sends the text to yaml. Starting every line afresh means
 * no mistake on one line carries over to the next. A `#` after a space starts a comment, where
 * quotes and brackets mean nothing.
 */
export function spansLines(text: string): boolean {
  const significant = new NextOf(text, SIGNIFICANT);
  const lineEnd = new NextOf(text, ['\n']);
  let depth = 0;
  for (let from = 0, i = significant.after(0); ; i = significant.after(from)) {
    // Inside a flow collection a line end before the next character that matters is its end.
    if (depth > 0 && lineEnd.after(from) < i) return true;
    if (i >= text.length) return depth > 0;
    const role = ROLE[text.charCodeAt(i)] as number;
    const previous = i === 0 ? NEWLINE : text.charCodeAt(i - 1);
    const opens = depth > 0 || (previous < 128 && BEFORE_NODE[previous] === 1);
    from = i + 1;
    if (role === COMMENT && previous < 128 && BEFORE_COMMENT[previous] === 1) {
      if (depth > 0) return true;
      from = lineEnd.after(i) + 1;
    } else if (role === QUOTE && opens) {
      const close = closingQuote(text, i);
      // Open, or closed right before a `#`: a comment needs a space before it, which yaml insists on.
      if (close < 0 || text.charCodeAt(close + 1) === HASH) return true;
      from = close + 1;
    } else if (role === OPENER && opens) {
      depth++;
    } else if (role === CLOSER && depth > 0) {
      depth--;
    }
  }
}

/** The characters {@link spansLines} looks at; it jumps over everything else. */
const SIGNIFICANT = ['"', "'", '[', '{', ']', '}', '#'];

/**
 * The next of some characters in a text, found by the engine's own `indexOf` for each (a native
 * scan, several times faster than a loop over every character). Positions asked for only grow,
 * so each search resumes only once passed: one pass over the text per character looked for.
 */
class NextOf {
  private readonly at: number[];

  constructor(
    private readonly text: string,
    private readonly chars: readonly string[],
  ) {
    this.at = chars.map(() => -1);
  }

  /** The first position at or after `from` of one of the characters; the text's length when none is left. */
  after(from: number): number {
    let nearest = this.text.length;
    for (let k = 0; k < this.chars.length; k++) {
      let found = this.at[k] as number;
      if (found < from) {
        found = this.text.indexOf(this.chars[k] as string, from);
        this.at[k] = found = found < 0 ? this.text.length : found;
      }
      if (found < nearest) nearest = found;
    }
    return nearest;
  }
}

/** Where the quoted scalar opened at `open` closes on its own line, or -1. */
function closingQuote(text: string, open: number): number {
  const quote = text.charCodeAt(open);
  for (let i = open + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === NEWLINE) return -1;
    if (quote === DOUBLE && code === BACKSLASH) {
      // An escaped line break continues the scalar on the next line.
      if (text.charCodeAt(i + 1) === NEWLINE || text.charCodeAt(i + 1) === CR) return -1;
      i++;
    } else if (code === quote) {
      if (quote === SINGLE && text.charCodeAt(i + 1) === SINGLE) i++;
      else return i;
    }
  }
  return -1;
}

/**
 * yaml refuses an implicit key whose `:` is more than 1024 characters after its start, where
 * js-yaml reads it; a line with a `:` this far in goes to yaml.
 */
const LONGEST_KEY_LINE = 1000;
/** Below every level (the document's is -1): no block scalar is being read. */
const NO_BLOCK_SCALAR = -2;

/**
 * Whether a line steps back to an indentation no open block collection has, or in a way js-yaml
 * is known to read more leniently than yaml (which refuses `All sequence items must start at the
 * same column` where js-yaml puts the item somewhere), or may hold a key too long for yaml. The
 * block structure is followed as a stack of indentations: a deeper line opens a level (a nested
 * collection, or a plain scalar's next line), a `- ` item opens one where its content starts, and
 * a shallower line must land exactly on an open level. Comment lines and blank lines may be
 * anywhere; the lines of a block scalar (after a `|` or `>` ending its line) are skipped while
 * deeper than its parent. Missing a block scalar (one with a comment after its header) only
 * checks its lines as structure, which can only send more texts to yaml.
 */
export function irregularLines(text: string): boolean {
  const levels = [-1];
  let blockScalarParent = NO_BLOCK_SCALAR;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let indent = start;
    while (text.charCodeAt(indent) === SPACE) indent++;
    const column = indent - start;
    const first = text.charCodeAt(indent);
    const next = end + 1;
    const blank = indent >= end || first === CR;
    if (blank || (blockScalarParent > NO_BLOCK_SCALAR && column > blockScalarParent)) {
      start = next;
      continue;
    }
    blockScalarParent = NO_BLOCK_SCALAR;
    if (first === HASH) {
      start = next;
      continue;
    }
    if (column === 0 && text.startsWith('---', indent)) {
      levels.length = 1;
      start = next;
      continue;
    }
    if (end - start > LONGEST_KEY_LINE && text.lastIndexOf(':', end) - start >= LONGEST_KEY_LINE) return true;
    if (!enterLevel(levels, column)) return true;
    openItems(text, indent, end, start, levels);
    if (endsWithBlockScalarHeader(text, indent, end)) blockScalarParent = levels[levels.length - 1] as number;
    start = next;
  }
  return false;
}

/** Moves the stack to a line at `column`; false where the line lands between open levels. */
function enterLevel(levels: number[], column: number): boolean {
  let dedented = false;
  while ((levels[levels.length - 1] as number) > column) {
    levels.pop();
    dedented = true;
  }
  const top = levels[levels.length - 1] as number;
  if (top === column) return true;
  if (dedented) return false;
  levels.push(column);
  return true;
}

/** Items opened on a line (`- name: x`): each one's content is a level of its own. */
function openItems(text: string, indent: number, end: number, lineStart: number, levels: number[]): void {
  for (let at = indent; text.charCodeAt(at) === DASH && isSpaceOrEnd(text.charCodeAt(at + 1)); ) {
    at++;
    while (text.charCodeAt(at) === SPACE) at++;
    const code = text.charCodeAt(at);
    if (at >= end || code === CR || code === HASH) return;
    levels.push(at - lineStart);
  }
}

function isSpaceOrEnd(code: number): boolean {
  return code === SPACE || code === NEWLINE || code === CR || Number.isNaN(code);
}

/** `key: |`, `- >-`: a `|` or `>` header, with its chomping indicator, as the line's last token. */
function endsWithBlockScalarHeader(text: string, from: number, end: number): boolean {
  let last = end - 1;
  while (last >= from && (text.charCodeAt(last) === SPACE || text.charCodeAt(last) === CR)) last--;
  let code = text.charCodeAt(last);
  if (code === DASH || code === 0x2b) code = text.charCodeAt(--last); // chomping: - or +
  if (code !== 0x7c && code !== 0x3e) return false; // | or >
  return last === from || text.charCodeAt(last - 1) === SPACE;
}
