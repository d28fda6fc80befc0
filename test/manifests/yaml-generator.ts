/**
 * Seeded generator of YAML texts for the differential test of the two readers. Each text is a
 * stream of documents built from a random tree, written out in randomly chosen styles, with the
 * constructs where YAML readers are known to part ways mixed in: every line end (LF, CRLF, lone
 * CR, mixes), tags (core, binary and the other YAML 1.1 types, local, verbatim, non-specific),
 * anchors and aliases, merge keys, every quoting style and block scalar header, Unicode (astral,
 * combining, BOM, NEL and the separators, controls), and plain scalars that YAML 1.1 and 1.2
 * resolve differently (0o17, 017, 1_000, .inf, yes/no/on/off, 1:30, timestamps, `<<`). A share
 * of the texts is then mutated a character or a line at a time, so near-misses and broken texts
 * (where a lax reader may accept what a strict one refuses) are tried as well.
 */

import { seededRandom } from '../helpers/random.js';

/** Plain scalars whose type depends on the schema (YAML 1.1 or 1.2 core) or the reader. */
export const AMBIGUOUS_SCALARS = [
  '0',
  '-0',
  '+0',
  '00',
  '007',
  '017',
  '0o17',
  '0O17',
  '0o8',
  '0x1F',
  '0X1f',
  '-0x1F',
  '0b101',
  '+12',
  '12345678901234567890',
  '9007199254740993',
  '1_000',
  '1,000',
  '1:30',
  '190:20:30',
  '-1:30',
  '1e3',
  '1E3',
  '1e+3',
  '-1.5e-3',
  '1.',
  '.5',
  '+.5',
  '-.5',
  '1.0',
  '0.',
  '.',
  '..',
  '-',
  '+',
  '1e',
  'e3',
  '.inf',
  '-.inf',
  '+.inf',
  '.Inf',
  '.INF',
  '.iNf',
  'inf',
  'Infinity',
  '.nan',
  '.NaN',
  '.NAN',
  'nan',
  'NaN',
  'yes',
  'Yes',
  'YES',
  'no',
  'No',
  'NO',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'OFF',
  'y',
  'Y',
  'n',
  'N',
  'true',
  'True',
  'TRUE',
  'tRUE',
  'false',
  'False',
  'FALSE',
  'null',
  'Null',
  'NULL',
  'nULL',
  '~',
  '',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  '2001-12-14 21:59:43.10 -5',
  '2002-12-14T00:00:00Z',
  '12:30:00',
  '<<',
  '=',
  '0x',
  '0o',
  '1__0',
  '_1',
  '1_',
  '0.1_0',
  '1e1_0',
  '+-1',
  '--1',
  '1-',
  '0777',
  '08',
  '09.5',
];

const WORDS = [
  'api',
  'orders',
  'svc-0',
  'level:error',
  'a b',
  'x#y',
  'http://h:80/p?q=1',
  'name',
  'where',
  'kind',
  'spec',
  'tiles',
  'p99',
  'Bench 0',
];
const UNICODE = [
  'Grüße',
  'ünïcode',
  'ß é',
  '日本語',
  '👋',
  'e\u0301',
  'a\u00a0b',
  '\u200b',
  'ø',
  'ﬁ',
  'Ω',
  '\ud83d\ude00x',
];
/** Characters rarely in manifests that readers treat specially. */
const ODD = [
  '\u0085',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u0007',
  '\u001b',
  '\u007f',
  '\u0080',
  '\u00a0',
  '\t',
  '\\',
  '"',
  "'",
  '`',
  '@',
  '%',
  '&',
  '*',
  '!',
  '|',
  '>',
  '?',
  ':',
  ',',
  '[',
  ']',
  '{',
  '}',
  '#',
  '-',
];
const TAGS = [
  '!!str',
  '!!int',
  '!!float',
  '!!bool',
  '!!null',
  '!!map',
  '!!seq',
  '!!binary',
  '!!timestamp',
  '!!set',
  '!!omap',
  '!!pairs',
  '!!merge',
  '!!value',
  '!!yaml',
  '!local',
  '!',
  '!<tag:yaml.org,2002:str>',
  '!<tag:yaml.org,2002:binary>',
  '!<!x>',
  '!!js/function',
  '!e!x',
  '!=',
];
const BINARY = [
  'aGVsbG8=',
  'R0lGODlhDAAMAIQAAP//9/X17unp5WZmZgAAAOfn515eXvPz7Y6OjuDg4J+fn5OTk6enp56enmleECcgggoBADs=',
  '""',
  '',
];

export interface GeneratorOptions {
  /** Share of texts mutated after writing (default 0.3). */
  mutate?: number;
  /** Share of nodes that get a tag, an anchor or an alias (default 0.05 each). */
  exotic?: number;
}

/** A YAML text; `style` says how it was made, for failure messages. */
export interface GeneratedText {
  text: string;
  style: string;
}

/** `count` texts from `seed`. */
export function generateYamlTexts(seed: number, count: number, options: GeneratorOptions = {}): GeneratedText[] {
  const random = seededRandom(seed);
  const texts: GeneratedText[] = [];
  for (let i = 0; i < count; i++) texts.push(new TextWriter(random, options).stream());
  return texts;
}

type Tree =
  | { kind: 'map'; entries: [Tree, Tree][] }
  | { kind: 'seq'; items: Tree[] }
  | { kind: 'scalar'; text: string };

class TextWriter {
  private readonly anchors: string[] = [];
  private readonly exotic: number;
  private readonly style: string[] = [];

  constructor(
    private readonly random: () => number,
    private readonly options: GeneratorOptions,
  ) {
    this.exotic = options.exotic ?? 0.05;
  }

  stream(): GeneratedText {
    const documents: string[] = [];
    const count = this.pick([1, 1, 1, 2, 3]);
    if (this.chance(0.05))
      documents.push(
        this.pick([
          '%YAML 1.2\n---\n',
          '%YAML 1.1\n---\n',
          '%TAG !e! tag:example.com,2000:\n---\n',
          '# head\n',
          '---\n',
        ]),
      );
    for (let i = 0; i < count; i++) {
      if (i > 0 || this.chance(0.2)) documents.push(this.pick(['---\n', '--- # c\n', '---  \n', '...\n---\n', '--- ']));
      documents.push(this.document());
    }
    if (this.chance(0.1)) documents.push(this.pick(['---\n', '...\n', '# tail', '\n\n']));
    let text = documents.join('');
    text = this.lineEnds(text);
    if (this.chance(this.options.mutate ?? 0.3)) text = this.mutate(text);
    if (this.chance(0.02)) text = `\ufeff${text}`;
    return { text, style: this.style.join(',') };
  }

  private document(): string {
    const tree = this.tree(0);
    if (tree.kind === 'scalar' && this.chance(0.8))
      return `${this.mapping({ kind: 'map', entries: [[this.key(), tree]] }, 0)}`;
    return this.block(tree, 0, true);
  }

  private tree(depth: number): Tree {
    const roll = this.random();
    if (depth >= 4 || roll < 0.45) return { kind: 'scalar', text: this.scalarText() };
    if (roll < 0.8) {
      const entries: [Tree, Tree][] = [];
      const n = this.pick([1, 2, 3, 4]);
      for (let i = 0; i < n; i++) entries.push([this.key(), this.tree(depth + 1)]);
      return { kind: 'map', entries };
    }
    return { kind: 'seq', items: Array.from({ length: this.pick([0, 1, 2, 3]) }, () => this.tree(depth + 1)) };
  }

  private key(): Tree {
    const roll = this.random();
    if (roll < 0.55)
      return { kind: 'scalar', text: this.pick(WORDS) + (this.chance(0.3) ? String(this.int(100)) : '') };
    if (roll < 0.75) return { kind: 'scalar', text: this.pick(AMBIGUOUS_SCALARS) };
    if (roll < 0.88) return { kind: 'scalar', text: this.pick(UNICODE) };
    if (roll < 0.9) return { kind: 'scalar', text: 'k'.repeat(this.pick([1000, 1020, 1030])) };
    if (roll < 0.95) return { kind: 'scalar', text: '<<' };
    return { kind: 'scalar', text: this.scalarText() };
  }

  private scalarText(): string {
    const roll = this.random();
    if (roll < 0.4) return this.pick(AMBIGUOUS_SCALARS);
    if (roll < 0.65) return this.pick(WORDS);
    if (roll < 0.8) return this.pick(UNICODE) + (this.chance(0.5) ? ` ${this.pick(WORDS)}` : '');
    if (roll < 0.9)
      return Array.from({ length: this.int(4) + 1 }, () =>
        this.pick([...WORDS, ...ODD, ...UNICODE, ' ', '\n', '  ']),
      ).join('');
    return this.pick([
      'multi\nline',
      'ends with space ',
      ' starts with space',
      'a\n\nb',
      'trailing\n',
      'x'.repeat(200),
      'colon: inside',
      'dash - inside',
      '- leading dash',
      '# hash',
    ]);
  }

  // ---------------------------------------------------------------- writing

  /** A node in block context at `indent`; `top` when it is a document's root. */
  private block(tree: Tree, indent: number, top = false): string {
    const props = this.properties(tree);
    if (tree.kind === 'map' && tree.entries.length > 0 && this.chance(0.8))
      return props ? `${props}\n${this.mapping(tree, indent)}` : this.mapping(tree, indent);
    if (tree.kind === 'seq' && tree.items.length > 0 && this.chance(0.8))
      return props ? `${props}\n${this.sequence(tree, indent)}` : this.sequence(tree, indent);
    const flow = tree.kind === 'scalar' ? this.scalar(tree.text, indent, 'block') : this.flow(tree);
    return `${props ? `${props} ` : ''}${flow}${top ? '\n' : ''}`;
  }

  private mapping(tree: Extract<Tree, { kind: 'map' }>, indent: number): string {
    const pad = ' '.repeat(indent);
    const step = this.pick([2, 2, 2, 1, 3, 4]);
    let out = '';
    for (const [key, value] of tree.entries) {
      if (this.chance(0.05)) out += this.pick([`${pad}# comment\n`, '\n', `${pad}\n`, '   \n', '#\n']);
      const keyText = key.kind === 'scalar' ? this.scalar(key.text, indent, 'key') : this.flow(key);
      const inline =
        value.kind === 'scalar' ||
        (value.kind === 'map' && value.entries.length === 0) ||
        (value.kind === 'seq' && value.items.length === 0) ||
        this.chance(0.3);
      if (inline) {
        const written = this.block(value, indent + step);
        out += `${pad}${keyText}:${written.startsWith('\n') ? '' : ' '}${written}${this.trailer()}\n`.replace(
          /\n\n$/,
          '\n',
        );
      } else {
        const props = this.properties(value);
        const compact = value.kind === 'seq' && this.chance(0.4) ? 0 : step;
        const body =
          value.kind === 'map'
            ? this.mapping(value, indent + step)
            : this.sequence(value as Extract<Tree, { kind: 'seq' }>, indent + compact);
        out += `${pad}${keyText}:${props ? ` ${props}` : ''}${this.trailer()}\n${body}`;
      }
    }
    return out;
  }

  private sequence(tree: Extract<Tree, { kind: 'seq' }>, indent: number): string {
    const pad = ' '.repeat(indent);
    let out = '';
    for (const item of tree.items) {
      const gap = this.pick([' ', ' ', ' ', '  ']);
      if (item.kind === 'map' && item.entries.length > 0 && this.chance(0.6)) {
        // `- key: value` with the rest of the mapping under it.
        const inner = this.mapping(item, indent + 1 + gap.length);
        out += `${pad}-${gap}${inner.slice(indent + 1 + gap.length)}`;
      } else if (item.kind === 'seq' && item.items.length > 0 && this.chance(0.3)) {
        out += `${pad}-\n${this.sequence(item, indent + 2)}`;
      } else {
        const written = this.block(item, indent + 2);
        out += `${pad}-${written.startsWith('\n') ? '' : gap}${written}${this.trailer()}\n`.replace(/\n\n$/, '\n');
      }
    }
    return out;
  }

  private flow(tree: Tree): string {
    const props = this.properties(tree);
    const prefix = props ? `${props} ` : '';
    if (tree.kind === 'scalar') return prefix + this.scalar(tree.text, 0, 'flow');
    const sep = this.pick([', ', ',', ' , ', `,\n${' '.repeat(this.int(7))}`]);
    if (tree.kind === 'seq')
      return `${prefix}[${tree.items.map((item) => this.flow(item)).join(sep)}${this.chance(0.1) ? ',' : ''}]`;
    const pairs = tree.entries.map(([key, value]) =>
      this.chance(0.05) ? this.flow(key) : `${this.flow(key)}: ${this.flow(value)}`,
    );
    return `${prefix}{${this.pick(['', ' '])}${pairs.join(sep)}${this.pick(['', ' '])}}`;
  }

  /** A scalar in some style; plain where the text allows it or by chance (then possibly invalid). */
  private scalar(text: string, indent: number, where: 'block' | 'flow' | 'key'): string {
    const roll = this.random();
    // Continuation lines of a multi-line scalar, indented enough or not.
    const continued = (written: string): string =>
      written.replace(/\n/g, () => `\n${' '.repeat(this.pick([0, indent, indent + 1, indent + 2, indent + 4]))}`);
    if (roll < 0.45) return continued(text);
    if (roll < 0.65) return `"${continued(this.doubleQuoted(text))}"`;
    if (roll < 0.8) return `'${continued(text.replaceAll("'", "''"))}'`;
    if (where === 'block' && roll < 0.92) return this.blockScalar(text, indent);
    if (roll < 0.96) return this.anchorOrAlias() ?? text;
    return `"${text}"`;
  }

  private doubleQuoted(text: string): string {
    const escapes: Record<string, string[]> = {
      '"': ['\\"'],
      '\\': ['\\\\'],
      '\n': ['\\n', '\\\n  ', '\n  '],
      '\t': ['\\t', '\t'],
      '/': ['\\/', '/'],
      ' ': [' ', '\\ ', '\\x20'],
      '\u0085': ['\\N'],
      '\u00a0': ['\\_'],
      '\u2028': ['\\L'],
      '\u2029': ['\\P'],
      '\u0007': ['\\a'],
      '\u001b': ['\\e'],
    };
    let out = '';
    for (const char of text) {
      const options = escapes[char];
      if (options) out += this.pick(options);
      else if (char.codePointAt(0)! > 0x7e && this.chance(0.3))
        out += this.pick([
          `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`,
          `\\U${char.codePointAt(0)!.toString(16).padStart(8, '0')}`,
        ]);
      else out += char;
    }
    return out;
  }

  private blockScalar(text: string, indent: number): string {
    const header = this.pick(['|', '>', '|-', '>-', '|+', '>+', '|2', '>1-', '|+2', '|-1', '| # c', '>\t']);
    const pad = ' '.repeat(indent + this.pick([1, 2, 2, 4]));
    const lines = text
      .split('\n')
      .map((line) => (line === '' && this.chance(0.5) ? '' : `${this.chance(0.05) ? ' ' : ''}${pad}${line}`));
    if (this.chance(0.1)) lines.unshift(`${pad}  `);
    return `${header}\n${lines.join('\n')}`;
  }

  /** A tag or anchor before a node, now and then. */
  private properties(tree: Tree): string {
    const parts: string[] = [];
    if (this.chance(this.exotic)) {
      const tag = this.pick(TAGS);
      this.style.push('tag');
      parts.push(tag);
      if (tag.includes('binary') && tree.kind === 'scalar') tree.text = this.pick(BINARY);
    }
    if (this.chance(this.exotic)) {
      const name = this.pick(['a', 'b', 'base', 'x1', 'ü']);
      this.anchors.push(name);
      parts.push(`&${name}`);
    }
    return parts.join(' ');
  }

  private anchorOrAlias(): string | undefined {
    if (this.anchors.length === 0 || !this.chance(this.exotic * 10)) return undefined;
    this.style.push('alias');
    return `*${this.pick(this.anchors)}`;
  }

  private trailer(): string {
    return this.chance(0.05) ? this.pick([' # c', '  #c', ' ', '\t', ' #']) : '';
  }

  // ---------------------------------------------------------------- line ends and mutations

  private lineEnds(text: string): string {
    const roll = this.random();
    if (roll < 0.6) return text;
    if (roll < 0.8) return this.marked('crlf', text.replaceAll('\n', '\r\n'));
    if (roll < 0.9) return this.marked('cr', text.replaceAll('\n', '\r'));
    return this.marked(
      'mixed',
      text.replace(/\n/g, () => this.pick(['\n', '\r\n', '\r', '\n\r'])),
    );
  }

  private mutate(text: string): string {
    this.style.push('mutated');
    let out = text;
    for (let n = this.int(3) + 1; n > 0; n--) {
      const at = this.int(out.length + 1);
      const roll = this.random();
      if (roll < 0.35)
        out =
          out.slice(0, at) +
          this.pick([...ODD, ' ', '\n', '\r', '- ', ': ', '---\n', '...\n', '&a ', '*a', '!!str ', '<<: ', '0o', '_']) +
          out.slice(at);
      else if (roll < 0.6) out = out.slice(0, at) + out.slice(at + 1 + this.int(3));
      else if (roll < 0.8) {
        const lines = out.split('\n');
        const line = this.int(lines.length);
        lines.splice(line, 0, lines[line] ?? '');
        out = lines.join('\n');
      } else {
        out = out.replace(/\n( *)/g, (match, spaces: string) =>
          this.chance(0.1)
            ? `\n${spaces.slice(0, Math.max(0, spaces.length - 1))}`
            : this.chance(0.05)
              ? `\n ${spaces}`
              : match,
        );
      }
    }
    return out;
  }

  private marked(style: string, text: string): string {
    this.style.push(style);
    return text;
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  private int(below: number): number {
    return Math.floor(this.random() * below);
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
}
