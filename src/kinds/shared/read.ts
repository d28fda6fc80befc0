/**
 * The tolerant reader's building blocks: every kind's reader (`kinds/<kind>/read.ts`) turns what
 * a service returned into its model with these, so the differ never sees a difference between
 * variants or between service versions. Responses are not validated against the API schemas:
 * the readers are the check, and they are tolerant by design — loose where real services vary
 * (docs/reference/api-behaviour.md), strict where a wrong shape would make a plan wrong (ids, names, numbers). Garbage
 * throws {@link ShapeError}; in a list it sets that one item aside as unreadable
 * ({@link readEach}), in a single answer the adapters turn it into `E_API_PROTOCOL`.
 */
import type { Kind } from '../../model/kinds.js';
import type { Extra, UnreadableResource } from '../../model/resources.js';
import { isRecord } from '../../support/json.js';

/** A response member that is not the documented shape; `path` like `data[3].tiles[0].w`. */
export class ShapeError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path || '(root)'}: ${problem}`);
    this.name = 'ShapeError';
  }
}

export type Obj = Record<string, unknown>;

/** Every item of a list, read by `read` with its index in the path. */
export function listOf<T>(value: unknown, path: string, read: (item: unknown, path: string) => T): T[] {
  if (!Array.isArray(value)) throw new ShapeError(path, 'is not a list');
  return value.map((item, index) => read(item, `${path}[${index}]`));
}

// ---------------------------------------------------------------- lists, one resource at a time

/** A list read item by item: what could be read, and what could not (with its id when it has one). */
export interface ReadList<T> {
  items: T[];
  unreadable: UnreadableResource[];
}

/**
 * Every item of a list, read by `read`; an item that does not read is set aside as unreadable
 * (an error on that resource only) instead of failing the list. An item without even an id
 * cannot be managed or named, so it is left out.
 */
export function readEach<T>(
  kind: Kind,
  value: unknown,
  path: string,
  read: (item: unknown, path: string) => T,
): ReadList<T> {
  if (!Array.isArray(value)) throw new ShapeError(path, 'is not a list');
  const list: ReadList<T> = { items: [], unreadable: [] };
  value.forEach((item, index) => {
    const at = `${path}[${index}]`;
    try {
      list.items.push(read(item, at));
    } catch (error) {
      if (!(error instanceof ShapeError)) throw error;
      const unreadable = unreadableOf(kind, item, error);
      if (unreadable) list.unreadable.push(unreadable);
    }
  });
  return list;
}

function unreadableOf(kind: Kind, item: unknown, error: ShapeError): UnreadableResource | undefined {
  if (!isRecord(item)) return undefined;
  const id = item['id'] ?? item['_id'];
  if (typeof id !== 'string' || id === '') return undefined;
  const name = item['name'];
  return { kind, id, ...(typeof name === 'string' ? { name } : {}), problem: error.message };
}

/** `{extra}` with the members of `raw` not in `known`, as read (nulls included); nothing when there are none. */
export function extraOf(raw: Obj, known: readonly string[]): { extra?: Extra } {
  const extra: Extra = {};
  for (const [key, member] of Object.entries(raw))
    if (!known.includes(key) && member !== undefined) extra[key] = member;
  return Object.keys(extra).length > 0 ? { extra } : {};
}

/**
 * `{createdAt}` when the service sent a creation time that reads as one; nothing otherwise. Only
 * ownership looks at it, and an unknown creation time proves nothing, so a strange one is not an
 * unreadable resource: it is as good as none.
 */
export function createdAtOf(raw: Obj): { createdAt?: string } {
  const createdAt = raw['createdAt'];
  return typeof createdAt === 'string' && !Number.isNaN(Date.parse(createdAt)) ? { createdAt } : {};
}

export function withoutNulls(raw: Obj): Obj {
  return Object.fromEntries(Object.entries(raw).filter(([, member]) => member !== null && member !== undefined));
}

// ---------------------------------------------------------------- leaves

export function object(value: unknown, path: string): Obj {
  if (!isRecord(value)) throw new ShapeError(path, 'is not an object');
  return value;
}

/** `id`, or `_id` as document stores name it; a non-empty string. */
export function idOf(raw: Obj, path: string): string {
  const id = raw['id'] ?? raw['_id'];
  if (typeof id !== 'string' || id === '') throw new ShapeError(join(path, 'id'), 'is not a non-empty string');
  return id;
}

export function asString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new ShapeError(path, 'is not a string');
  return value;
}

export function requiredString(raw: Obj, key: string, path: string): string {
  return asString(raw[key], join(path, key));
}

export function optionalString(raw: Obj, key: string, path: string): string | undefined {
  const value = raw[key];
  return value === undefined || value === null ? undefined : asString(value, join(path, key));
}

export function optionalBoolean(raw: Obj, key: string, path: string): boolean | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new ShapeError(join(path, key), 'is not a boolean');
  return value;
}

export function requiredNumber(raw: Obj, key: string, path: string): number {
  const value = raw[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ShapeError(join(path, key), 'is not a number');
  return value;
}

export function optionalList<T>(
  raw: Obj,
  key: string,
  path: string,
  read: (item: unknown, path: string) => T,
): T[] | undefined {
  const value = raw[key];
  return value === undefined || value === null ? undefined : listOf(value, join(path, key), read);
}

export function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
