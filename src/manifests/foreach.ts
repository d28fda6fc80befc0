/**
 * `metadata.forEach`: one manifest document that stands for one resource per item (see
 * `docs/many-services.md`). The items are a mapping of variable → list (every combination, the
 * first variable outermost) or `{ fromFile: PATH }` (a YAML list of mappings). Each item's
 * `${name}` references are substituted before the per-target variables (`vars.ts`), so every later
 * stage sees plain documents. Deliberately no code, no conditions and no nesting: a list, a
 * product, or a file of rows. Pure: the caller reads the file a `fromFile` names.
 */
import type { Pointer } from '../yaml/positions.js';
import { asRecord } from './entries.js';

/** Most items one manifest may stand for, unless the limits say otherwise. */
export const DEFAULT_MAX_FOREACH_ITEMS = 1_000;

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const REFERENCE = /\$(\$?)\{([^}]*)\}/g;
const FOREACH: Pointer = ['metadata', 'forEach'];

export interface ForEachProblem {
  pointer: Pointer;
  message: string;
}

/** What a document's `metadata.forEach` asks for, read but not yet expanded. */
export type ForEachSpec = { matrix: [string, string[]][] } | { fromFile: string };

/** One item: its variables, and how messages name it (`service=payments, severity=page`). */
export interface ForEachItem {
  vars: Record<string, string>;
  label: string;
}

/** One expansion of a template: the document's value for one item (without `metadata.forEach`). */
export interface ForEachInstance {
  item: ForEachItem;
  value: unknown;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** True when the document has a `metadata.forEach` (well formed or not). */
export function hasForEach(value: unknown): boolean {
  const metadata = asRecord(asRecord(value)?.['metadata']);
  return metadata !== undefined && Object.hasOwn(metadata, 'forEach');
}

/** The document's `metadata.forEach`, or the problem with it. */
export function readForEach(value: unknown): { spec: ForEachSpec } | { problem: ForEachProblem } {
  const raw = asRecord(asRecord(value)?.['metadata'])?.['forEach'];
  const record = asRecord(raw);
  if (!record || Object.keys(record).length === 0) {
    return {
      problem: {
        pointer: FOREACH,
        message: 'must be a mapping of variable name to a list of values, or { fromFile: PATH }',
      },
    };
  }
  if (Object.hasOwn(record, 'fromFile')) {
    const path = record['fromFile'];
    if (Object.keys(record).length !== 1)
      return {
        problem: { pointer: FOREACH, message: 'fromFile stands alone: the file holds every item (a list of mappings)' },
      };
    if (typeof path !== 'string' || path.trim() === '')
      return {
        problem: {
          pointer: [...FOREACH, 'fromFile'],
          message: 'must be the path of a YAML file (a list of mappings), relative to this manifest',
        },
      };
    return { spec: { fromFile: path } };
  }
  const matrix: [string, string[]][] = [];
  for (const [name, list] of Object.entries(record)) {
    const pointer = [...FOREACH, name];
    if (!VAR_NAME.test(name))
      return {
        problem: {
          pointer,
          message: `${name} is not a variable name (letters, digits and _, not starting with a digit)`,
        },
      };
    if (!Array.isArray(list) || list.length === 0)
      return { problem: { pointer, message: 'must be a non-empty list of values' } };
    const bad = list.findIndex((each) => !isScalar(each));
    if (bad >= 0)
      return {
        problem: {
          pointer: [...pointer, bad],
          message: 'must be a string, number or boolean (no nesting of generators)',
        },
      };
    matrix.push([name, list.map(String)]);
  }
  return { spec: { matrix } };
}

/** Every combination of the lists, in order (the first variable outermost); a problem beyond `max` items. */
export function matrixItems(
  matrix: readonly [string, readonly string[]][],
  max: number,
): { items: ForEachItem[] } | { problem: ForEachProblem } {
  const count = matrix.reduce((product, [, values]) => product * values.length, 1);
  if (count > max)
    return {
      problem: {
        pointer: FOREACH,
        message: `stands for ${count} items, more than the ${max} one manifest may (split it into several manifests)`,
      },
    };
  let rows: Record<string, string>[] = [{}];
  for (const [name, values] of matrix) rows = rows.flatMap((row) => values.map((value) => ({ ...row, [name]: value })));
  return { items: rows.map(itemOf) };
}

/** The items of a `fromFile` list (its parsed value), or the problem with it; `file` is how messages name it. */
export function listItems(
  list: unknown,
  file: string,
  max: number,
): { items: ForEachItem[] } | { problem: ForEachProblem } {
  const pointer = [...FOREACH, 'fromFile'];
  if (!Array.isArray(list) || list.length === 0)
    return { problem: { pointer, message: `${file} must hold a non-empty YAML list of mappings (one per item)` } };
  if (list.length > max)
    return {
      problem: {
        pointer,
        message: `${file} lists ${list.length} items, more than the ${max} one manifest may (split it into several manifests)`,
      },
    };
  const rows: Record<string, string>[] = [];
  for (const [index, each] of list.entries()) {
    const record = asRecord(each);
    if (!record || Object.keys(record).length === 0)
      return {
        problem: { pointer, message: `${file}: item ${index + 1} must be a mapping of variable name to value` },
      };
    const row: Record<string, string> = {};
    for (const [name, value] of Object.entries(record)) {
      if (!VAR_NAME.test(name))
        return {
          problem: {
            pointer,
            message: `${file}: item ${index + 1}: ${name} is not a variable name (letters, digits and _)`,
          },
        };
      if (!isScalar(value))
        return {
          problem: {
            pointer,
            message: `${file}: item ${index + 1}: ${name} must be a string, number or boolean (no nesting of generators)`,
          },
        };
      row[name] = String(value);
    }
    rows.push(row);
  }
  return { items: rows.map(itemOf) };
}

function itemOf(vars: Record<string, string>): ForEachItem {
  return {
    vars,
    label: Object.entries(vars)
      .map(([name, value]) => `${name}=${value}`)
      .join(', '),
  };
}

/**
 * The document for one item: a copy without `metadata.forEach`, each `${name}` of the item's
 * variables replaced. Any other reference, and every escaped `$${…}`, is left as written for the
 * per-target stage, which replaces it or reports it at its line (strictly: never an empty string).
 */
export function instantiate(value: unknown, item: ForEachItem): unknown {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return node.includes('${') ? substitute(node, item.vars) : node;
    if (Array.isArray(node)) return node.map(walk);
    const record = asRecord(node);
    return record ? Object.fromEntries(Object.entries(record).map(([key, each]) => [key, walk(each)])) : node;
  };
  const copy = walk(value);
  // The walk made fresh objects, so the template (frozen, perhaps shared by a cache) is untouched.
  const metadata = asRecord(asRecord(copy)?.['metadata']);
  if (metadata) delete metadata['forEach'];
  return copy;
}

function substitute(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(REFERENCE, (whole, escape: string, name: string) =>
    escape || !Object.hasOwn(vars, name) ? whole : (vars[name] as string),
  );
}

/** Expands a template into its items' documents; two items that give one `metadata.name` are problems naming both. */
export function instantiateAll(
  value: unknown,
  items: readonly ForEachItem[],
): { instances: ForEachInstance[]; problems: { item: ForEachItem; problem: ForEachProblem }[] } {
  const instances = items.map((item) => ({ item, value: instantiate(value, item) }));
  const problems: { item: ForEachItem; problem: ForEachProblem }[] = [];
  const byName = new Map<string, ForEachInstance>();
  const repeated = new Set<ForEachInstance>();
  for (const instance of instances) {
    const name = asRecord(asRecord(instance.value)?.['metadata'])?.['name'];
    if (typeof name !== 'string') continue;
    const earlier = byName.get(name);
    if (!earlier) {
      byName.set(name, instance);
      continue;
    }
    const message = (other: ForEachItem): string =>
      `gives the name ${name}, as item (${other.label}) does; metadata.name must use a forEach variable that tells the items apart`;
    problems.push({ item: instance.item, problem: { pointer: ['metadata', 'name'], message: message(earlier.item) } });
    repeated.add(instance);
    if (!repeated.has(earlier)) {
      repeated.add(earlier);
      problems.push({
        item: earlier.item,
        problem: { pointer: ['metadata', 'name'], message: message(instance.item) },
      });
    }
  }
  return { instances: instances.filter((instance) => !repeated.has(instance)), problems };
}
