/**
 * A small, honest renderer for the Go-template subset the stacksync chart uses, so `npm test`
 * can render the chart where no helm binary is installed. What it supports (and nothing more;
 * anything else is an error, never silently ignored):
 *
 * - actions `{{ … }}` with `{{-`/`-}}` whitespace trimming, comments `{{/* … *\/}}`
 * - fields `.A.b`, `$`, variables `$x` (`:=`, `=`), literals, parentheses, pipelines `a | f b`
 * - `if` / `else if` / `else`, `range` (lists, maps in key order, `$k, $v :=`), `with`, `define`, `end`
 * - functions: include, default, required, fail, quote, toYaml, nindent, indent, printf, trunc,
 *   trimSuffix, contains, eq, ne, and, or, not, empty, sha256sum
 *
 * Like Helm, it checks the merged values against the chart's values.schema.json (when there is one)
 * before rendering, and refuses values that do not meet it (ValuesSchemaError).
 *
 * Semantics follow text/template and Helm: a missing map key is nil (printed as ""), a field of
 * nil is an error, `and`/`or` short-circuit and return an operand, emptiness is Go's (false, 0,
 * "", nil, empty list or map), `toYaml` sorts keys and does not indent lists inside maps (as
 * sigs.k8s.io/yaml does), and `required`/`fail` abort the render with their message.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml, stringify } from 'yaml';

const addFormats = addFormatsModule.default;

// ---------------------------------------------------------------- lexing

type Token =
  | { t: 'str'; v: string }
  | { t: 'num'; v: number }
  | { t: 'field'; v: string[] }
  | { t: 'var'; name: string; path: string[] }
  | { t: 'ident'; v: string }
  | { t: 'op'; v: '|' | '(' | ')' | ':=' | '=' | ',' };

type Piece = { kind: 'text'; text: string } | { kind: 'action'; tokens: Token[]; line: number };

export class TemplateError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
    this.name = 'TemplateError';
  }
}

function lex(source: string, file: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  let trimNext = false;
  while (at < source.length) {
    const open = source.indexOf('{{', at);
    let text = source.slice(at, open === -1 ? source.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open === -1) {
      pieces.push({ kind: 'text', text });
      break;
    }
    const trimLeft = /^\{\{-\s/.test(source.slice(open, open + 4));
    if (trimLeft) text = text.replace(/\s+$/, '');
    pieces.push({ kind: 'text', text });
    const line = source.slice(0, open).split('\n').length;
    const start = open + (trimLeft ? 3 : 2);
    const { tokens, end, trimRight, comment } = lexAction(source, start, file, line);
    if (!comment) pieces.push({ kind: 'action', tokens, line });
    trimNext = trimRight;
    at = end;
  }
  return pieces;
}

function lexAction(
  source: string,
  start: number,
  file: string,
  line: number,
): { tokens: Token[]; end: number; trimRight: boolean; comment: boolean } {
  const tokens: Token[] = [];
  let i = start;
  const fail = (message: string): never => {
    throw new TemplateError(file, line, message);
  };
  while (i < source.length) {
    const rest = source.slice(i);
    if (/^\s/.test(rest)) {
      if (/^\s-\}\}/.test(rest)) return { tokens, end: i + 4, trimRight: true, comment: false };
      i++;
      continue;
    }
    if (rest.startsWith('}}')) return { tokens, end: i + 2, trimRight: false, comment: false };
    if (rest.startsWith('/*')) {
      const close = source.indexOf('*/', i);
      if (close === -1 || tokens.length > 0) fail('unterminated or misplaced comment');
      const after = source.slice(close + 2);
      const match = /^(\s-)?\}\}/.exec(after);
      if (!match) fail('a comment must end its action');
      return { tokens, end: close + 2 + (match?.[0].length ?? 0), trimRight: match?.[1] !== undefined, comment: true };
    }
    let m: RegExpExecArray | null;
    if ((m = /^"((?:[^"\\]|\\.)*)"/.exec(rest))) {
      tokens.push({ t: 'str', v: JSON.parse(`"${m[1] ?? ''}"`) as string });
    } else if ((m = /^`([^`]*)`/.exec(rest))) {
      tokens.push({ t: 'str', v: m[1] ?? '' });
    } else if ((m = /^-?\d+(\.\d+)?/.exec(rest))) {
      tokens.push({ t: 'num', v: Number(m[0]) });
    } else if ((m = /^\$([A-Za-z_]\w*)?((?:\.[A-Za-z_]\w*)*)/.exec(rest))) {
      tokens.push({ t: 'var', name: `$${m[1] ?? ''}`, path: (m[2] ?? '').split('.').filter(Boolean) });
    } else if ((m = /^(?:\.[A-Za-z_]\w*)+|^\./.exec(rest))) {
      tokens.push({ t: 'field', v: m[0].split('.').filter(Boolean) });
    } else if ((m = /^[A-Za-z_]\w*/.exec(rest))) {
      tokens.push({ t: 'ident', v: m[0] });
    } else if ((m = /^(:=|\||\(|\)|=|,)/.exec(rest))) {
      tokens.push({ t: 'op', v: m[0] as '|' });
    } else {
      fail(`cannot read "${rest.slice(0, 20)}"`);
    }
    i += m?.[0].length ?? 1;
  }
  return fail('unterminated action');
}

// ---------------------------------------------------------------- parsing

type Operand =
  | { k: 'lit'; v: unknown }
  | { k: 'field'; path: string[] }
  | { k: 'var'; name: string; path: string[] }
  | { k: 'fn'; name: string }
  | { k: 'pipe'; pipe: Pipeline };

interface Pipeline {
  decl?: { names: string[]; op: ':=' | '=' };
  commands: Operand[][];
}

type Node =
  | { n: 'text'; text: string }
  | { n: 'out'; pipe: Pipeline; line: number }
  | { n: 'if'; branches: { cond: Pipeline; body: Node[] }[]; otherwise: Node[]; line: number }
  | { n: 'range'; pipe: Pipeline; body: Node[]; otherwise: Node[]; line: number }
  | { n: 'with'; pipe: Pipeline; body: Node[]; otherwise: Node[]; line: number };

const FUNCTIONS = new Set([
  'include',
  'default',
  'required',
  'fail',
  'quote',
  'toYaml',
  'nindent',
  'indent',
  'printf',
  'trunc',
  'trimSuffix',
  'contains',
  'eq',
  'ne',
  'and',
  'or',
  'not',
  'empty',
  'sha256sum',
]);

class Parser {
  private i = 0;
  constructor(
    private readonly pieces: Piece[],
    private readonly file: string,
    private readonly defines: Map<string, Node[]>,
  ) {}

  parseAll(): Node[] {
    const { nodes, stop } = this.parseUntil();
    if (stop) throw new TemplateError(this.file, stop.line, `unexpected {{ ${stop.word} }}`);
    return nodes;
  }

  /** Nodes up to an `else`/`end` (returned as `stop`) or the end of input. */
  private parseUntil(): { nodes: Node[]; stop?: { word: 'else' | 'end'; tokens: Token[]; line: number } } {
    const nodes: Node[] = [];
    while (this.i < this.pieces.length) {
      const piece = this.pieces[this.i++] as Piece;
      if (piece.kind === 'text') {
        if (piece.text) nodes.push({ n: 'text', text: piece.text });
        continue;
      }
      const [first, ...rest] = piece.tokens;
      const word = first?.t === 'ident' ? first.v : undefined;
      if (word === 'end' || word === 'else') return { nodes, stop: { word, tokens: rest, line: piece.line } };
      if (word === 'if') nodes.push(this.parseIf(rest, piece.line));
      else if (word === 'range' || word === 'with') nodes.push(this.parseBlock(word, rest, piece.line));
      else if (word === 'define') this.parseDefine(rest, piece.line);
      else nodes.push({ n: 'out', pipe: this.pipeline(piece.tokens, piece.line), line: piece.line });
    }
    return { nodes };
  }

  private parseIf(tokens: Token[], line: number): Node {
    const branches = [{ cond: this.pipeline(tokens, line), body: [] as Node[] }];
    for (;;) {
      const { nodes, stop } = this.parseUntil();
      if (!stop) throw new TemplateError(this.file, line, 'if without end');
      (branches.at(-1) as { body: Node[] }).body.push(...nodes);
      if (stop.word === 'end') return { n: 'if', branches, otherwise: [], line };
      const [next, ...cond] = stop.tokens;
      if (next?.t === 'ident' && next.v === 'if') {
        branches.push({ cond: this.pipeline(cond, stop.line), body: [] });
        continue;
      }
      if (next !== undefined) throw new TemplateError(this.file, stop.line, 'else takes nothing but "if"');
      const rest = this.parseUntil();
      if (rest.stop?.word !== 'end') throw new TemplateError(this.file, line, 'else must be followed by end');
      return { n: 'if', branches, otherwise: rest.nodes, line };
    }
  }

  private parseBlock(word: 'range' | 'with', tokens: Token[], line: number): Node {
    const pipe = this.pipeline(tokens, line);
    const body = this.parseUntil();
    if (!body.stop) throw new TemplateError(this.file, line, `${word} without end`);
    let otherwise: Node[] = [];
    if (body.stop.word === 'else') {
      const rest = this.parseUntil();
      if (rest.stop?.word !== 'end') throw new TemplateError(this.file, line, `${word} else without end`);
      otherwise = rest.nodes;
    }
    return { n: word, pipe, body: body.nodes, otherwise, line };
  }

  private parseDefine(tokens: Token[], line: number): void {
    const [name] = tokens;
    if (name?.t !== 'str' || tokens.length !== 1) throw new TemplateError(this.file, line, 'define takes one string');
    const body = this.parseUntil();
    if (body.stop?.word !== 'end') throw new TemplateError(this.file, line, 'define without end');
    this.defines.set(name.v, body.nodes);
  }

  private pipeline(tokens: Token[], line: number): Pipeline {
    const fail = (message: string): never => {
      throw new TemplateError(this.file, line, message);
    };
    let at = 0;
    const pipe: Pipeline = { commands: [] };
    const declEnd = tokens.findIndex((token) => token.t === 'op' && (token.v === ':=' || token.v === '='));
    if (
      declEnd > 0 &&
      tokens.slice(0, declEnd).every((token) => token.t === 'var' || (token.t === 'op' && token.v === ','))
    ) {
      const names = tokens.slice(0, declEnd).flatMap((token) => (token.t === 'var' ? [token.name] : []));
      pipe.decl = { names, op: (tokens[declEnd] as { v: ':=' | '=' }).v };
      at = declEnd + 1;
    }
    const parse = (stopAtParen: boolean): Pipeline['commands'] => {
      const commands: Operand[][] = [[]];
      while (at < tokens.length) {
        const token = tokens[at++] as Token;
        const current = commands.at(-1) as Operand[];
        if (token.t === 'op') {
          if (token.v === '|') commands.push([]);
          else if (token.v === '(') current.push({ k: 'pipe', pipe: { commands: parse(true) } });
          else if (token.v === ')') {
            if (!stopAtParen) fail('unbalanced )');
            return commands;
          } else fail(`unexpected ${token.v}`);
        } else if (token.t === 'str' || token.t === 'num') current.push({ k: 'lit', v: token.v });
        else if (token.t === 'field') current.push({ k: 'field', path: token.v });
        else if (token.t === 'var') current.push({ k: 'var', name: token.name, path: token.path });
        else if (token.v === 'true' || token.v === 'false') current.push({ k: 'lit', v: token.v === 'true' });
        else if (token.v === 'nil') current.push({ k: 'lit', v: null });
        else if (FUNCTIONS.has(token.v)) current.push({ k: 'fn', name: token.v });
        else fail(`unsupported function or keyword "${token.v}" (see the subset in test/helm/render.ts)`);
      }
      if (stopAtParen) fail('unbalanced (');
      return commands;
    };
    pipe.commands = parse(false);
    if (pipe.commands.some((command) => command.length === 0)) fail('empty command in pipeline');
    return pipe;
  }
}

// ---------------------------------------------------------------- evaluation

interface Scope {
  dot: unknown;
  root: unknown;
  vars: Map<string, unknown>[];
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Go's truth: false, 0, "", nil, empty list or map are false. */
export function truthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isMap(value)) return Object.keys(value).length > 0;
  return true;
}

class Renderer {
  constructor(
    private readonly defines: Map<string, Node[]>,
    private readonly file: string,
  ) {}

  run(nodes: Node[], scope: Scope): string {
    let out = '';
    for (const node of nodes) out += this.node(node, scope);
    return out;
  }

  private node(node: Node, scope: Scope): string {
    switch (node.n) {
      case 'text':
        return node.text;
      case 'out': {
        const value = this.pipe(node.pipe, scope, node.line);
        return node.pipe.decl ? '' : this.print(value, node.line);
      }
      case 'if': {
        const inner = child(scope, scope.dot);
        for (const branch of node.branches)
          if (truthy(this.pipe(branch.cond, inner, node.line))) return this.run(branch.body, inner);
        return this.run(node.otherwise, inner);
      }
      case 'with': {
        const inner = child(scope, scope.dot);
        const value = this.pipe({ commands: node.pipe.commands }, inner, node.line);
        if (!truthy(value)) return this.run(node.otherwise, inner);
        return this.run(node.body, { ...inner, dot: value });
      }
      case 'range':
        return this.range(node, scope);
    }
  }

  private range(node: Extract<Node, { n: 'range' }>, scope: Scope): string {
    const value = this.pipe({ commands: node.pipe.commands }, scope, node.line);
    const entries: [unknown, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : isMap(value)
        ? Object.keys(value)
            .sort()
            .map((key) => [key, value[key]])
        : value === undefined || value === null
          ? []
          : this.fail(node.line, `range over ${typeof value}`);
    if (entries.length === 0) return this.run(node.otherwise, child(scope, scope.dot));
    const names = node.pipe.decl?.names ?? [];
    return entries
      .map(([key, item]) => {
        const inner = child(scope, item);
        if (names.length === 1) inner.vars[0]?.set(names[0] as string, item);
        if (names.length === 2) {
          inner.vars[0]?.set(names[0] as string, key);
          inner.vars[0]?.set(names[1] as string, item);
        }
        return this.run(node.body, inner);
      })
      .join('');
  }

  private pipe(pipe: Pipeline, scope: Scope, line: number): unknown {
    let value: unknown;
    pipe.commands.forEach((command, index) => {
      value = this.command(command, scope, line, index === 0 ? [] : [value]);
    });
    if (pipe.decl && pipe.decl.names.length === 1) {
      const name = pipe.decl.names[0] as string;
      const frame = pipe.decl.op === ':=' ? scope.vars[0] : scope.vars.find((vars) => vars.has(name));
      if (!frame) this.fail(line, `undefined variable ${name}`);
      frame?.set(name, value);
    }
    return value;
  }

  private command(command: Operand[], scope: Scope, line: number, piped: unknown[]): unknown {
    const [head, ...args] = command as [Operand, ...Operand[]];
    if (head.k !== 'fn') {
      if (args.length > 0 || piped.length > 0) this.fail(line, 'only a function can take arguments');
      return this.operand(head, scope, line);
    }
    const lazy = args.map((arg) => () => this.operand(arg, scope, line));
    const all = [...lazy, ...piped.map((value) => () => value)];
    return this.call(head.name, all, line);
  }

  private operand(operand: Operand, scope: Scope, line: number): unknown {
    switch (operand.k) {
      case 'lit':
        return operand.v;
      case 'field':
        return this.walk(scope.dot, operand.path, line);
      case 'var': {
        if (operand.name === '$') return this.walk(scope.root, operand.path, line);
        const frame = scope.vars.find((vars) => vars.has(operand.name));
        if (!frame) return this.fail(line, `undefined variable ${operand.name}`);
        return this.walk(frame.get(operand.name), operand.path, line);
      }
      case 'pipe':
        return this.pipe(operand.pipe, scope, line);
      case 'fn':
        return this.call(operand.name, [], line);
    }
  }

  private walk(value: unknown, path: string[], line: number): unknown {
    let current = value;
    for (const key of path) {
      if (current === undefined || current === null)
        this.fail(line, `nil pointer evaluating .${path.join('.')} (at ${key})`);
      if (!isMap(current))
        this.fail(line, `cannot take field ${key} of a ${Array.isArray(current) ? 'list' : typeof current}`);
      current = (current as Record<string, unknown>)[key];
    }
    return current;
  }

  private call(name: string, args: (() => unknown)[], line: number): unknown {
    const values = (): unknown[] => args.map((arg) => arg());
    switch (name) {
      case 'and': {
        let last: unknown;
        for (const arg of args) if (!truthy((last = arg()))) return last;
        return last;
      }
      case 'or': {
        let last: unknown;
        for (const arg of args) if (truthy((last = arg()))) return last;
        return last;
      }
      case 'include': {
        const [template, dot] = values();
        const body = this.defines.get(String(template));
        if (!body) return this.fail(line, `include of undefined template "${String(template)}"`);
        return this.run(body, { dot, root: dot, vars: [new Map()] });
      }
      default:
        return this.pure(name, values(), line);
    }
  }

  private pure(name: string, args: unknown[], line: number): unknown {
    const arity = (count: number): void => {
      if (args.length !== count) this.fail(line, `${name} takes ${count} arguments, got ${args.length}`);
    };
    switch (name) {
      case 'default':
        arity(2);
        return truthy(args[1]) ? args[1] : args[0];
      case 'required':
        arity(2);
        if (args[1] === undefined || args[1] === null || args[1] === '')
          throw new TemplateError(this.file, line, `execution error: ${String(args[0])}`);
        return args[1];
      case 'fail':
        throw new TemplateError(this.file, line, `execution error: ${String(args[0])}`);
      case 'quote':
        return args
          .filter((arg) => arg !== undefined && arg !== null)
          .map((arg) => JSON.stringify(this.print(arg, line)))
          .join(' ');
      case 'toYaml':
        arity(1);
        return toYaml(args[0]);
      case 'nindent':
        arity(2);
        return `\n${indent(Number(args[0]), String(args[1]))}`;
      case 'indent':
        arity(2);
        return indent(Number(args[0]), String(args[1]));
      case 'printf':
        return printf(String(args[0]), args.slice(1), (value) => this.print(value, line));
      case 'trunc':
        arity(2);
        return String(args[1]).slice(0, Number(args[0]));
      case 'trimSuffix': {
        arity(2);
        const [suffix, text] = [String(args[0]), String(args[1])];
        return suffix && text.endsWith(suffix) ? text.slice(0, -suffix.length) : text;
      }
      case 'contains':
        arity(2);
        return String(args[1]).includes(String(args[0]));
      case 'eq':
        return args.slice(1).some((other) => other === args[0]);
      case 'ne':
        arity(2);
        return args[0] !== args[1];
      case 'not':
        arity(1);
        return !truthy(args[0]);
      case 'empty':
        arity(1);
        return !truthy(args[0]);
      case 'sha256sum':
        arity(1);
        return createHash('sha256').update(String(args[0])).digest('hex');
      default:
        return this.fail(line, `unsupported function ${name}`);
    }
  }

  /** How text/template prints a value; nil prints as "" (Helm drops "<no value>"). */
  private print(value: unknown, line: number): string {
    if (value === undefined || value === null) return '';
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    return this.fail(line, 'printing a list or map; use toYaml');
  }

  private fail(line: number, message: string): never {
    throw new TemplateError(this.file, line, message);
  }
}

function child(scope: Scope, dot: unknown): Scope {
  return { dot, root: scope.root, vars: [new Map(), ...scope.vars] };
}

function indent(spaces: number, text: string): string {
  const pad = ' '.repeat(spaces);
  return pad + text.replaceAll('\n', `\n${pad}`);
}

function printf(format: string, args: unknown[], print: (value: unknown) => string): string {
  let next = 0;
  return format.replace(/%[sdvq%]/g, (verb) => {
    if (verb === '%%') return '%';
    const value = args[next++];
    return verb === '%q' ? JSON.stringify(print(value)) : print(value);
  });
}

/** Like Helm's toYaml (sigs.k8s.io/yaml): sorted keys, lists not indented under their key, no final newline. */
export function toYaml(value: unknown): string {
  return stringify(value ?? null, {
    sortMapEntries: true,
    indentSeq: false,
    lineWidth: 0,
    aliasDuplicateObjects: false,
  }).replace(/\n$/, '');
}

// ---------------------------------------------------------------- charts

export interface Release {
  name: string;
  namespace: string;
}

export interface RenderedChart {
  /** Template path (`templates/deployment.yaml`) → rendered text; partials (`_*.tpl`) left out. */
  files: Map<string, string>;
  notes: string;
}

/** Helm's value merge: maps merge key by key, anything else replaces, null deletes. */
export function mergeValues(base: unknown, override: unknown): unknown {
  if (!isMap(base) || !isMap(override)) return override === undefined ? base : override;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete merged[key];
    else merged[key] = mergeValues(base[key], value);
  }
  return merged;
}

/** Values that do not meet the chart's values.schema.json; `problems` as Helm words them. */
export class ValuesSchemaError extends Error {
  constructor(
    readonly chart: string,
    readonly problems: string[],
  ) {
    super(
      `values don't meet the specifications of the schema(s) in the following chart(s):\n${chart}:\n${problems.map((problem) => `- ${problem}`).join('\n')}`,
    );
    this.name = 'ValuesSchemaError';
  }
}

/** `config.sync: Additional property prun is not allowed`, in the style of Helm's messages. */
function schemaProblem(error: ErrorObject): string {
  const at = error.instancePath.split('/').slice(1).join('.') || '(root)';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties')
    return `${at}: Additional property ${String(params['additionalProperty'])} is not allowed`;
  return `${at}: ${error.message ?? error.keyword}`;
}

const compiledSchemas = new Map<string, ValidateFunction>();

function compiledSchema(path: string): ValidateFunction {
  let validate = compiledSchemas.get(path);
  if (!validate) {
    // ajv's strictSchema (its default) makes a misspelt keyword in the schema an error too; its
    // type checks are off, as the copied config schema uses union types and untyped if/then.
    const ajv = new Ajv({ allErrors: true, strictTypes: false, strictTuples: false });
    addFormats(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(path, 'utf8')) as object);
    compiledSchemas.set(path, validate);
  }
  return validate;
}

/** Checks merged values against `chartDir/values.schema.json`, as helm install/upgrade/template/lint do. */
export function validateValues(chartDir: string, chartName: string, values: unknown): void {
  const path = join(chartDir, 'values.schema.json');
  if (!existsSync(path)) return;
  const validate = compiledSchema(path);
  if (!validate(values)) throw new ValuesSchemaError(chartName, (validate.errors ?? []).map(schemaProblem));
}

/** Renders `chartDir` with its values.yaml overlaid by `overrides` (in order), as `helm template` would. */
export function renderChart(
  chartDir: string,
  overrides: unknown[] = [],
  release: Release = { name: 'release', namespace: 'default' },
): RenderedChart {
  const chart = parseYaml(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as {
    name: string;
    version: string;
    appVersion?: string;
  };
  const defaults: unknown = parseYaml(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) ?? {};
  const values = overrides.reduce((merged, override) => mergeValues(merged, override), defaults);
  validateValues(chartDir, chart.name, values);
  const root = {
    Values: values,
    Release: {
      Name: release.name,
      Namespace: release.namespace,
      Service: 'Helm',
      IsInstall: true,
      IsUpgrade: false,
      Revision: 1,
    },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion ?? '' },
  };
  const defines = new Map<string, Node[]>();
  const templatesDir = join(chartDir, 'templates');
  const parsed = readdirSync(templatesDir)
    .sort()
    .map((name) => {
      const path = `templates/${name}`;
      return {
        path,
        name,
        nodes: new Parser(lex(readFileSync(join(templatesDir, name), 'utf8'), path), path, defines).parseAll(),
      };
    });
  const files = new Map<string, string>();
  let notes = '';
  for (const { path, name, nodes } of parsed) {
    if (name.startsWith('_')) continue;
    const text = new Renderer(defines, path).run(nodes, { dot: root, root, vars: [new Map()] });
    if (name === 'NOTES.txt') notes = text;
    else files.set(path, text);
  }
  return { files, notes };
}

/** Renders one template text against `root` (its `.`), after the `define`s in `partials`. */
export function renderTemplate(source: string, root: unknown, partials = ''): string {
  const defines = new Map<string, Node[]>();
  new Parser(lex(partials, '_partials.tpl'), '_partials.tpl', defines).parseAll();
  const nodes = new Parser(lex(source, 'inline'), 'inline', defines).parseAll();
  return new Renderer(defines, 'inline').run(nodes, { dot: root, root, vars: [new Map()] });
}
