/**
 * `stacksync pull`'s core, pure: live edits of managed resources written into the manifests
 * they came from, in place. For each resource it gets the plan's field paths that differ and the
 * live resource in manifest terms (what `export` writes); it edits only the nodes those paths
 * name, in the manifest's own file and document (docs/pull.md). What it computes is texts; the
 * caller writes them.
 */
import {
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import type { Kind } from '../model/kinds.js';
import { covers, isServerDefault } from '../kinds/shared/values.js';
import { isRecord } from '../support/json.js';
import { findItem, formatSegments, identityOf, parsePath, type PathSegment } from './paths.js';
import { keyText, SourceEditor } from './source-editor.js';

/** One managed resource whose live value differs from its manifest. */
export interface ResourceEdit {
  kind: Kind;
  /** `metadata.name`. */
  key: string;
  /** The manifest's file, as `texts` names it, and the line its document starts on. */
  file: string;
  line: number;
  /** Set when the manifest is a `metadata.forEach` template: none of its members is written. */
  item?: string;
  /**
   * Set when the document is applied to several targets (`metadata.target: [a, b]`): one
   * target's live value is not the others', so none of its members is written.
   */
  targets?: readonly string[];
  /** The plan's paths of what differs, under `spec` (`tiles[p99].w`). */
  paths: readonly string[];
  /** The live resource's spec in manifest terms: what `export` would write for it. */
  live: Record<string, unknown>;
  /**
   * Its `ignoreDifferences` (plan syntax): never written, not even inside an item rewritten
   * whole. The plan's paths never name them.
   */
  ignore?: readonly string[];
}

/** A managed resource gone from the target: reported, its manifest never deleted. */
export interface DeletedResource {
  kind: Kind;
  key: string;
  file: string;
  line?: number;
}

export interface PullInput {
  edits: readonly ResourceEdit[];
  deleted?: readonly DeletedResource[];
  /** The text of every file the edits name, as read (a BOM and its line endings included). */
  texts: ReadonlyMap<string, string>;
}

/** A member that differs live but is not written: written with a variable, or made for many resources by a template. */
export interface PullConflict {
  kind: Kind;
  key: string;
  file: string;
  line: number;
  /** The member, plan syntax. */
  path: string;
  /** Its live value in manifest terms. */
  live: unknown;
  reason: 'variable' | 'forEach' | 'targets';
}

export interface PullProblem {
  file?: string;
  line?: number;
  kind?: Kind;
  key?: string;
  message: string;
}

export interface PulledFile {
  path: string;
  before: string;
  after: string;
}

export interface PullResult {
  /** The files that change, in the order first named. */
  files: PulledFile[];
  conflicts: PullConflict[];
  deleted: DeletedResource[];
  errors: PullProblem[];
}

const BOM = '\uFEFF';

export function pullEdits(input: PullInput): PullResult {
  const result: PullResult = { files: [], conflicts: [], deleted: [...(input.deleted ?? [])], errors: [] };
  const byFile = new Map<string, ResourceEdit[]>();
  for (const edit of input.edits) byFile.set(edit.file, [...(byFile.get(edit.file) ?? []), edit]);
  for (const [file, edits] of byFile) {
    const before = input.texts.get(file);
    if (before === undefined) {
      result.errors.push({ file, message: 'the manifest file could not be read' });
      continue;
    }
    const after = pullFile(file, before, edits, result);
    if (after !== before) result.files.push({ path: file, before, after });
  }
  return result;
}

function pullFile(file: string, text: string, edits: readonly ResourceEdit[], result: PullResult): string {
  const bom = text.startsWith(BOM) ? BOM : '';
  const body = text.slice(bom.length);
  const lines = new LineCounter();
  const documents = parseAllDocuments(body, { lineCounter: lines, keepSourceTokens: false });
  if (!Array.isArray(documents)) return text;
  const editor = new SourceEditor(body, lines, indentUnitOf(documents, body));
  for (const edit of edits) {
    const doc = documents.find(
      (each) => each.contents?.range && lines.linePos(each.contents.range[0]).line === edit.line,
    );
    const spec = doc?.get('spec', true);
    if (!doc || doc.errors.length > 0 || !isMap(spec)) {
      result.errors.push({
        file,
        line: edit.line,
        kind: edit.kind,
        key: edit.key,
        message: `${edit.kind} ${edit.key}: its document (line ${edit.line}) is no longer where it was loaded from`,
      });
      continue;
    }
    new ResourcePull(editor, edit, doc, result).run(spec);
  }
  return editor.changed ? bom + editor.result() : text;
}

/** Spaces per level: how far the first member of the first nested block mapping is indented. */
function indentUnitOf(documents: readonly Document[], text: string): number {
  for (const doc of documents) {
    const spec = doc.get('spec', true);
    if (isMap(spec) && !spec.flow && spec.range) {
      const column = spec.range[0] - (text.lastIndexOf('\n', spec.range[0] - 1) + 1);
      if (column > 0) return column;
    }
  }
  return 2;
}

type Op =
  | { type: 'set'; node: Node; live: unknown; inFlow: boolean; path: string }
  | { type: 'insert-member'; map: YAMLMap; key: string; live: unknown; path: string }
  | { type: 'remove-member'; map: YAMLMap; pair: Pair; path: string }
  | { type: 'morph'; node: Node; live: unknown; path: string }
  | { type: 'add'; seq: YAMLSeq; list: readonly unknown[]; index: number; path: string; before?: number | undefined }
  | { type: 'remove'; seq: YAMLSeq; index: number; path: string };

/** The nearest list item a walk passed through: a member it cannot place alone rewrites that item. */
interface Enclosing {
  node: Node;
  live: unknown;
  path: string;
}

class ResourcePull {
  constructor(
    private readonly editor: SourceEditor,
    private readonly edit: ResourceEdit,
    private readonly doc: Document,
    private readonly result: PullResult,
  ) {}

  run(spec: YAMLMap): void {
    const ops = dedupe(this.edit.paths.flatMap((path) => this.opsOf(spec, parsePath(path))));
    for (const op of pairRenames(ops, this.doc)) {
      if (this.edit.item !== undefined) this.conflict(opNode(op), op.path, opLive(op), 'forEach');
      else if ((this.edit.targets?.length ?? 0) > 1) this.conflict(opNode(op), op.path, opLive(op), 'targets');
      else this.apply(op);
    }
  }

  /** What one differing path asks of the manifest: the walk stops where either side ends. */
  private opsOf(spec: YAMLMap, segments: readonly PathSegment[]): Op[] {
    let node: Node = spec;
    let live: unknown = this.edit.live;
    let inFlow = spec.flow === true;
    let enclosing: Enclosing | undefined;
    for (const [index, segment] of segments.entries()) {
      const path = formatSegments(segments.slice(0, index + 1));
      if (isSecretReference(node)) return [];
      if ('member' in segment) {
        const pair = isMap(node) ? node.items.find((each) => keyText(each) === segment.member) : undefined;
        const liveChild = isRecord(live) ? live[segment.member] : undefined;
        if (!pair && liveChild === undefined) return [];
        if (!isMap(node)) return [{ type: 'set', node, live, inFlow, path: formatSegments(segments.slice(0, index)) }];
        if (!pair || liveChild === undefined) {
          if (enclosing) return [{ type: 'morph', ...enclosing }];
          if (node.flow) return [{ type: 'set', node, live, inFlow, path: formatSegments(segments.slice(0, index)) }];
          if (!pair) return [{ type: 'insert-member', map: node, key: segment.member, live: liveChild, path }];
          return isSecretReference(pair.value as Node) ? [] : [{ type: 'remove-member', map: node, pair, path }];
        }
        node = pair.value as Node;
        live = liveChild;
      } else {
        if (!isSeq(node) || !Array.isArray(live))
          return [{ type: 'set', node, live, inFlow, path: formatSegments(segments.slice(0, index)) }];
        const manifestIndex = findItem(
          node.items.map((item) => toJson(item, this.doc)),
          segment.item,
        );
        const liveIndex = findItem(live, segment.item);
        if (manifestIndex === -1 && liveIndex === -1) return [];
        if (node.flow && (manifestIndex === -1 || liveIndex === -1))
          return [{ type: 'set', node, live, inFlow, path: formatSegments(segments.slice(0, index)) }];
        if (manifestIndex === -1) return [{ type: 'add', seq: node, list: live, index: liveIndex, path }];
        if (liveIndex === -1) return [{ type: 'remove', seq: node, index: manifestIndex, path }];
        node = node.items[manifestIndex] as Node;
        live = live[liveIndex];
        enclosing = { node, live, path };
      }
      inFlow ||= isCollection(node) && node.flow === true;
    }
    return [{ type: 'set', node, live, inFlow, path: formatSegments(segments) }];
  }

  /** A path under one of the resource's `ignoreDifferences`. */
  private ignored(path: string): boolean {
    return (this.edit.ignore ?? []).some(
      (ignored) => path === ignored || path.startsWith(`${ignored}.`) || path.startsWith(`${ignored}[`),
    );
  }

  private apply(op: Op): void {
    if (this.ignored(op.path)) return;
    const editor = this.editor;
    switch (op.type) {
      case 'set':
        this.assign(op.node, op.live, op.inFlow, op.path);
        return;
      case 'morph':
        this.assign(op.node, op.live, isCollection(op.node) && op.node.flow === true, op.path);
        return;
      case 'insert-member':
        editor.insertMember(op.map, op.key, withoutDefaults(op.live));
        return;
      case 'remove-member':
        if (editor.holdsVariable(op.pair.value as Node))
          this.conflict(op.pair.value as Node, op.path, undefined, 'variable');
        else editor.removeMember(op.map, op.pair);
        return;
      case 'add':
        editor.insertItem(
          op.seq,
          withoutDefaults(op.list[op.index]),
          'before' in op
            ? op.before
            : insertBefore(
                op.seq.items.map((item) => toJson(item, this.doc)),
                op.list,
                op.index,
              ),
        );
        return;
      case 'remove': {
        const item = op.seq.items[op.index] as Node;
        if (editor.holdsVariable(item)) this.conflict(item, op.path, undefined, 'variable');
        else editor.removeItem(op.seq, op.index);
        return;
      }
    }
  }

  /**
   * The node made to hold `live`, under the differ's rule: what the manifest sets and live agrees
   * with stays as written (a server default equals absent, docs/pull.md). A block mapping is
   * edited member by member (members live lacks removed, new ones added at its end, the rest kept
   * line for line); anything else is replaced, in its style, by the manifest's value with live's
   * differences laid in.
   */
  private assign(node: Node, live: unknown, inFlow: boolean, path: string): void {
    const current = toJson(node, this.doc);
    if (isSecretReference(node) || this.ignored(path) || covers(current, live)) return;
    if (isMap(node) && !node.flow && isRecord(live) && Object.keys(live).length > 0) {
      for (const pair of node.items) {
        const key = keyText(pair) ?? '';
        if (
          Object.hasOwn(live, key) ||
          isSecretReference(pair.value as Node) ||
          this.ignored(`${path}.${key}`) ||
          covers(toJson(pair.value, this.doc), undefined)
        )
          continue;
        if (this.editor.holdsVariable(pair.value as Node))
          this.conflict(pair.value as Node, `${path}.${key}`, undefined, 'variable');
        else this.editor.removeMember(node, pair);
      }
      for (const [key, value] of Object.entries(live)) {
        const pair = node.items.find((each) => keyText(each) === key);
        if (pair && isNode(pair.value)) this.assign(pair.value, value, false, `${path}.${key}`);
        else if (!pair && !isServerDefault(value) && !this.ignored(`${path}.${key}`))
          this.editor.insertMember(node, key, withoutDefaults(value));
      }
      return;
    }
    if (this.editor.holdsVariable(node)) {
      this.conflict(node, path, live, 'variable');
      return;
    }
    this.editor.replace(node, laidOver(current, live), inFlow);
  }

  private conflict(node: Node, path: string, live: unknown, reason: PullConflict['reason']): void {
    const { kind, key, file } = this.edit;
    this.result.conflicts.push({ kind, key, file, line: this.editor.lineOf(node), path, live, reason });
  }
}

/**
 * Where a list item added live goes: before the manifest's item after the one named like its
 * nearest live predecessor (`undefined`: at the end). `skipped`: manifest items not counted as
 * predecessors (removed ones).
 */
function insertBefore(
  items: readonly unknown[],
  list: readonly unknown[],
  index: number,
  skipped: ReadonlySet<number> = new Set(),
): number | undefined {
  for (let at = index - 1; at >= 0; at--) {
    const name = identityOf(list[at]);
    const found =
      name === undefined
        ? -1
        : items.findIndex((item, position) => !skipped.has(position) && identityOf(item) === name);
    if (found !== -1) return found + 1 < items.length ? found + 1 : undefined;
  }
  return items.length > 0 ? 0 : undefined;
}

/**
 * An item removed and another added in the same place of one list (a tile renamed in the
 * console: no manifest holds tile ids) is one item rewritten member by member, so only the
 * lines that differ change. Of several added in that place, the one most like the removed item
 * is taken; the other adds and removes stay as they are.
 */
function pairRenames(ops: readonly Op[], doc: Document): Op[] {
  const paired = new Set<Op>();
  const morphs: Op[] = [];
  const placed = new Map<Op, number | undefined>();
  const lists = new Set(ops.flatMap((op) => (op.type === 'add' || op.type === 'remove' ? [op.seq] : [])));
  for (const seq of lists) {
    const items = seq.items.map((item) => toJson(item, doc));
    const adds = ops.filter((op): op is Extract<Op, { type: 'add' }> => op.type === 'add' && op.seq === seq);
    const removes = ops.filter((op): op is Extract<Op, { type: 'remove' }> => op.type === 'remove' && op.seq === seq);
    const removed = new Set(removes.map((op) => op.index));
    for (const remove of removes) {
      const candidates = adds.filter(
        (add) => !paired.has(add) && insertBefore(items, add.list, add.index, removed) === remove.index,
      );
      const add = candidates.sort(
        (a, b) => likeness(items[remove.index], b.list[b.index]) - likeness(items[remove.index], a.list[a.index]),
      )[0];
      if (!add) continue;
      paired.add(add).add(remove);
      morphs.push({ type: 'morph', node: seq.items[remove.index] as Node, live: add.list[add.index], path: add.path });
      // The item is named as live names it now: what was added after it goes after it.
      items[remove.index] = add.list[add.index];
      removed.delete(remove.index);
    }
    for (const add of adds) if (!paired.has(add)) placed.set(add, insertBefore(items, add.list, add.index, removed));
  }
  return [
    ...ops.filter((op) => !paired.has(op)).map((op) => (op.type === 'add' ? { ...op, before: placed.get(op) } : op)),
    ...morphs,
  ];
}

/** How many members two items share with equal values. */
function likeness(a: unknown, b: unknown): number {
  if (!isRecord(a) || !isRecord(b)) return 0;
  return Object.keys(a).filter((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key])).length;
}

/** One op per node: what lies inside a node that is set or rewritten whole is left to that op. */
function dedupe(ops: readonly Op[]): Op[] {
  const wholes = ops.filter((op) => op.type === 'set' || op.type === 'morph');
  const seen = new Set<string>();
  return ops.filter((op) => {
    const node = opNode(op);
    const id = `${op.type}:${String(node.range?.[0])}:${op.path}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return !wholes.some(
      (whole) => whole !== op && contains(opNode(whole), node) && !(opNode(whole) === node && op.type === 'morph'),
    );
  });
}

function contains(outer: Node, inner: Node): boolean {
  const [start, end] = outer.range ?? [0, 0];
  const [innerStart, innerEnd] = inner.range ?? [0, 0];
  return start <= innerStart && innerEnd <= end && !(start === innerStart && end === innerEnd && outer !== inner);
}

function opNode(op: Op): Node {
  switch (op.type) {
    case 'set':
    case 'morph':
      return op.node;
    case 'insert-member':
    case 'remove-member':
      return op.map;
    case 'add':
    case 'remove':
      return op.seq;
  }
}

function opLive(op: Op): unknown {
  if (op.type === 'add') return op.list[op.index];
  return 'live' in op ? op.live : undefined;
}

/**
 * What replaces a manifest value: live's, except where the manifest's already agrees (kept as
 * written) and members live holds only as server defaults (left out, as the manifest had them).
 */
function laidOver(manifest: unknown, live: unknown): unknown {
  if (covers(manifest, live)) return manifest;
  if (isRecord(manifest) && isRecord(live)) {
    const result: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(manifest)) {
      if (Object.hasOwn(live, key)) result[key] = laidOver(value, live[key]);
      else if (covers(value, undefined)) result[key] = value;
    }
    for (const [key, value] of Object.entries(live))
      if (!Object.hasOwn(manifest, key) && !isServerDefault(value)) result[key] = withoutDefaults(value);
    return result;
  }
  if (Array.isArray(manifest) && Array.isArray(live) && manifest.length === live.length)
    return live.map((item, index) => laidOver(manifest[index], item));
  return withoutDefaults(live);
}

/** A live value without the members that hold only a server default: what a manifest leaves out. */
function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, member]) => (isServerDefault(member) ? [] : [[key, withoutDefaults(member)]])),
  );
}

/** `{ fromEnv: … }` or `{ fromFile: … }`: a secret's reference, which pull never writes. */
function isSecretReference(node: Node | null | undefined): boolean {
  if (!isMap(node) || node.items.length !== 1) return false;
  const key = keyText(node.items[0] as Pair);
  return key === 'fromEnv' || key === 'fromFile';
}

function isNode(value: unknown): value is Node {
  return isScalar(value) || isCollection(value) || isAlias(value);
}

/** A node's plain value; aliases resolved against its document. */
function toJson(node: unknown, doc: Document): unknown {
  return isNode(node) ? node.toJS(doc) : node;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => sameValue(item, b[index]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]))
    );
  }
  return false;
}
