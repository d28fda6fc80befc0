/**
 * Edits of a YAML text in place: each edit replaces the source range of one node, one pair or one
 * list item with text rendered in the style around it (flow or block, its quoting, its
 * indentation, the file's line endings), so every other byte of the file stays as it was
 * (docs/pull.md, "What stays byte for byte"). A document is never stringified again as a whole.
 */
import {
  Document,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  visit,
  type LineCounter,
  type Node,
  type Pair,
  type Scalar,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';

interface Splice {
  start: number;
  end: number;
  text: string;
  order: number;
}

/** A node's `[start, valueEnd, nodeEnd]` (set on every parsed node). */
function rangeOf(node: Node): [number, number, number] {
  const range = node.range;
  if (!range) throw new Error('a parsed node without a source range');
  return range;
}

export function keyText(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

export class SourceEditor {
  private readonly splices: Splice[] = [];
  /** `\r\n` when the text uses it. */
  readonly eol: string;
  /** Spaces per level of nesting, as the file indents. */
  readonly indentUnit: number;

  constructor(
    readonly text: string,
    private readonly lines: LineCounter,
    indentUnit: number,
  ) {
    this.eol = text.includes('\r\n') ? '\r\n' : '\n';
    this.indentUnit = indentUnit;
  }

  get changed(): boolean {
    return this.splices.length > 0;
  }

  lineOf(node: Node): number {
    return this.lines.linePos(rangeOf(node)[0]).line;
  }

  columnOf(offset: number): number {
    return offset - this.lineStart(offset);
  }

  /**
   * The text with every edit made, built from the original in one pass: at one offset, inserts
   * land in the order they were made, before a replacement that starts there. An edit that
   * overlaps one already taken is dropped (the caller never makes one).
   */
  result(): string {
    const ordered = [...this.splices].sort((a, b) => a.start - b.start || rank(a) - rank(b) || a.order - b.order);
    let text = '';
    let cursor = 0;
    for (const splice of ordered) {
      if (splice.start < cursor) continue;
      text += this.text.slice(cursor, splice.start) + splice.text;
      cursor = splice.end;
    }
    return text + this.text.slice(cursor);
  }

  /** Whether the node's source holds a `${VAR}` reference (not a `$${…}` literal). */
  holdsVariable(node: Node): boolean {
    const [start, end] = rangeOf(node);
    return /(^|[^$])\$\{[^}]*\}/.test(this.text.slice(start, end));
  }

  /** The node's value replaced by `value`, in the node's style; `inFlow`: inside a flow collection. */
  replace(node: Node, value: unknown, inFlow = false): void {
    const [start, valueEnd] = rangeOf(node);
    if (
      isScalar(node) &&
      (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') &&
      typeof value === 'string' &&
      value.includes('\n')
    ) {
      this.splice(start, valueEnd, this.blockScalar(node.type, value, this.text.slice(start, valueEnd)));
      return;
    }
    if (isScalar(node) && !isCollectionValue(value)) {
      this.splice(start, valueEnd, renderScalar(node, value, inFlow));
      return;
    }
    if (isCollection(node) && !node.flow && isCollectionValue(value) && !isEmptyCollection(value)) {
      // A block collection's range runs to the start of the line after it.
      const column = this.columnOf(start);
      const block = this.block(value, column).slice(column);
      this.splice(start, valueEnd, this.text[valueEnd - 1] === '\n' ? block : block.replace(/(\r?\n)$/, ''));
      return;
    }
    if (isCollection(node) && !node.flow) {
      // A block collection that becomes a scalar or an empty one: after its indicator, on one line.
      const indicator = this.indicatorBefore(start);
      this.splice(
        indicator + 1,
        valueEnd,
        ` ${renderFlow(value, true)}${this.text[valueEnd - 1] === '\n' ? this.eol : ''}`,
      );
      return;
    }
    this.splice(start, valueEnd, renderFlow(value, isCollection(node) ? paddedFlow(this.text, start) : true));
  }

  /** A new `key: value` member at the end of a mapping. */
  insertMember(map: YAMLMap, key: string, value: unknown): void {
    if (map.flow || map.items.length === 0) {
      const merged = { ...(map.toJSON() as Record<string, unknown>), [key]: value };
      this.replace(map, merged);
      return;
    }
    const last = map.items[map.items.length - 1] as Pair;
    const column = this.columnOf(rangeOf(map)[0]);
    const at = this.lineEndAfter(pairEnd(last));
    this.splice(at, at, this.block({ [key]: value }, column));
  }

  removeMember(map: YAMLMap, pair: Pair): void {
    if (map.flow) {
      const rest = Object.fromEntries(
        map.items.filter((each) => each !== pair).map((each) => [keyText(each) ?? '', toJson(each.value)]),
      );
      this.replace(map, rest);
      return;
    }
    const start = this.lineStart(rangeOf(pair.key as Node)[0]);
    this.splice(start, this.lineEndAfter(pairEnd(pair)), '');
  }

  /** A new item in a block list: before item `before`, or after the last one. */
  insertItem(seq: YAMLSeq, value: unknown, before: number | undefined): void {
    const items = seq.items as Node[];
    const column = this.columnOf(rangeOf(seq)[0]);
    const flowItems = items.length > 0 && items.every((item) => isCollection(item) && item.flow);
    const text = flowItems
      ? `${' '.repeat(column)}- ${renderFlow(value, paddedFlow(this.text, rangeOf(items[0] as Node)[0]))}${this.eol}`
      : this.block([value], column);
    const next = before === undefined ? undefined : items[before];
    const at = next ? this.lineStart(rangeOf(next)[0]) : this.lineEndAfter(rangeOf(items[items.length - 1] as Node)[1]);
    this.splice(at, at, text);
  }

  removeItem(seq: YAMLSeq, index: number): void {
    const item = seq.items[index] as Node;
    this.splice(this.lineStart(rangeOf(item)[0]), this.lineEndAfter(rangeOf(item)[1]), '');
  }

  private splice(start: number, end: number, text: string): void {
    this.splices.push({ start, end, text, order: this.splices.length });
  }

  /** A `|` or `>` scalar written again as one, its lines indented as the old one's were. */
  private blockScalar(type: 'BLOCK_LITERAL' | 'BLOCK_FOLDED', value: string, old: string): string {
    const indent = /\n( +)\S/.exec(old)?.[1] ?? ' '.repeat(this.indentUnit);
    const doc = new Document(value);
    (doc.contents as Scalar).type = type;
    const [header = '|', ...body] = doc.toString({ lineWidth: 0, indent: 2 }).replace(/\n$/, '').split('\n');
    const rendered = Math.min(...body.filter((line) => line !== '').map((line) => /^ */.exec(line)?.[0].length ?? 0));
    const lines = [header, ...body.map((line) => (line === '' ? line : indent + line.slice(rendered)))];
    return lines.join(this.eol) + (old.endsWith('\n') ? this.eol : '');
  }

  /** `value` as block YAML, each line indented by `column`, in the file's line endings. */
  private block(value: unknown, column: number): string {
    const doc = new Document(value, { aliasDuplicateObjects: false });
    const text = doc.toString({ lineWidth: 0, indent: this.indentUnit });
    const pad = ' '.repeat(column);
    return text
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => (line === '' ? line : pad + line))
      .join(this.eol)
      .concat(this.eol);
  }

  private lineStart(offset: number): number {
    return this.text.lastIndexOf('\n', offset - 1) + 1;
  }

  /** The start of the line after the one `offset` is on (or `offset` itself, at a line's start). */
  private lineEndAfter(offset: number): number {
    if (offset === 0 || this.text[offset - 1] === '\n') return offset;
    const newline = this.text.indexOf('\n', offset);
    return newline === -1 ? this.text.length : newline + 1;
  }

  /** Where the `:` or `-` that introduces the value at `offset` is. */
  private indicatorBefore(offset: number): number {
    let at = offset - 1;
    while (at > 0 && /\s/.test(this.text[at] ?? '')) at--;
    return at;
  }
}

function rank(splice: Splice): number {
  return splice.end > splice.start ? 1 : 0;
}

function pairEnd(pair: Pair): number {
  const value = pair.value as Node | null;
  return value?.range ? value.range[1] : rangeOf(pair.key as Node)[1];
}

function isCollectionValue(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function isEmptyCollection(value: object): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

function toJson(node: unknown): unknown {
  return node !== null && typeof node === 'object' && 'toJSON' in node
    ? (node as { toJSON(): unknown }).toJSON()
    : node;
}

/** Whether the flow collection at `offset` pads its brackets (`[ a ]` rather than `[a]`). */
function paddedFlow(text: string, offset: number): boolean {
  return text[offset + 1] === ' ';
}

/** A scalar in the old one's quoting, where the new value can be written so; plain otherwise. */
function renderScalar(old: Scalar, value: unknown, inFlow: boolean): string {
  const doc = new Document(value);
  const scalar = doc.contents as Scalar;
  if (typeof value === 'string' && (old.type === 'QUOTE_DOUBLE' || old.type === 'QUOTE_SINGLE')) scalar.type = old.type;
  else if (typeof value === 'string' && inFlow && /[,[\]{}#]|: /.test(value)) scalar.type = 'QUOTE_DOUBLE';
  else if (typeof value === 'string' && value.includes('\n')) scalar.type = 'QUOTE_DOUBLE';
  return doc.toString({ lineWidth: 0 }).replace(/\n$/, '');
}

/** A value on one line, every collection in it in flow style. */
function renderFlow(value: unknown, padded: boolean): string {
  const doc = new Document(value, { aliasDuplicateObjects: false });
  visit(doc, {
    Map(_key, node) {
      node.flow = true;
    },
    Seq(_key, node) {
      node.flow = true;
    },
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.includes('\n')) node.type = 'QUOTE_DOUBLE';
    },
  });
  if (isMap(doc.contents) || isSeq(doc.contents)) doc.contents.flow = true;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: padded }).replace(/\n$/, '');
}
