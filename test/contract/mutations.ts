/**
 * Bodies the documents refuse, made from one they accept: each member a schema requires left
 * out, each enum given a value outside it, each bound (minimum, maximum, lengths, item counts)
 * passed by one. Only mutations the document itself refuses are kept, so each is a body the real
 * service would answer with a 400: the contract suite sends them to the emulator's `current`
 * profile, which must refuse them too (issue 32, "request bodies are checked as the documents'
 * schemas check them").
 */
import type { Contract, Operation } from './openapi.js';

export interface Mutation {
  /** JSON pointer of the member changed, e.g. `/source/kafka/format`. */
  at: string;
  /** What was done: `left out`, `not in enum`, `above maximum`, … */
  what: string;
  body: unknown;
}

type Schema = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** `body` with the member at `path` set to `value` (undefined: removed). */
function changed(body: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const copy = clone(body);
  let node = copy as Record<string | number, unknown>;
  for (const part of path.slice(0, -1)) node = node[part] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

const pointer = (path: readonly (string | number)[]): string => path.map((part) => `/${part}`).join('');

/** Every mutation of `body` the operation's request schema refuses. */
export function mutationsOf(contract: Contract, operation: Operation, body: unknown): Mutation[] {
  if (operation.requestSchema === undefined) return [];
  const found: Mutation[] = [];
  const seen = new Set<string>();
  const add = (path: readonly (string | number)[], what: string, value: unknown): void => {
    const at = pointer(path);
    if (seen.has(`${at} ${what}`)) return;
    seen.add(`${at} ${what}`);
    const mutated = changed(body, path, value);
    if (contract.validateRequest(operation, mutated).length > 0) found.push({ at, what, body: mutated });
  };

  const leaf = (schema: Schema, value: unknown, path: readonly (string | number)[]): void => {
    if (Array.isArray(schema['enum']))
      add(path, 'not in enum', typeof value === 'number' ? -987654 : 'not-in-the-enum');
    if (typeof schema['maximum'] === 'number') add(path, 'above maximum', schema['maximum'] + 1);
    if (typeof schema['minimum'] === 'number') add(path, 'below minimum', schema['minimum'] - 1);
    if (typeof schema['maxLength'] === 'number' && typeof value === 'string')
      add(path, 'too long', 'x'.repeat(schema['maxLength'] + 1));
    if (typeof schema['minLength'] === 'number' && schema['minLength'] > 0 && typeof value === 'string')
      add(path, 'too short', '');
    if (typeof schema['minItems'] === 'number' && schema['minItems'] > 0 && Array.isArray(value))
      add(path, 'too few items', []);
  };

  const walk = (raw: unknown, value: unknown, path: readonly (string | number)[], depth: number): void => {
    if (depth > 12) return;
    const schema = contract.deref(operation, raw);
    for (const part of (schema['allOf'] as unknown[] | undefined) ?? []) walk(part, value, path, depth + 1);
    // Of alternatives, only those the value matches: a mutation must break the one it is of.
    for (const part of (schema['anyOf'] as unknown[] | undefined) ?? [])
      if (contract.matches(operation, part, value)) walk(part, value, path, depth + 1);
    leaf(schema, value, path);
    if (isRecord(value)) {
      const properties = isRecord(schema['properties']) ? schema['properties'] : {};
      for (const name of (schema['required'] as string[] | undefined) ?? [])
        if (name in value) add([...path, name], 'left out', undefined);
      for (const [name, member] of Object.entries(value))
        if (properties[name] !== undefined) walk(properties[name], member, [...path, name], depth + 1);
    } else if (Array.isArray(value) && value.length > 0 && schema['items'] !== undefined) {
      walk(schema['items'], value[0], [...path, 0], depth + 1);
    }
  };
  walk(operation.requestSchema, body, [], 0);
  return found;
}
