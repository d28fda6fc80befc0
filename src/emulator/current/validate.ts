/**
 * Request validation of the current profile: a body is cleaned with its schema first (members the
 * schema does not name are dropped, as the real validators strip them), then checked, with ajv
 * configured as every other check of stacksync (`createAjv`). Problems become issues whose paths
 * are written the way the real service writes them (`tiles.0.config.select.1.aggFn`), in one 400:
 * `Body validation failed: <path>: <msg>; …`.
 */
import type { TSchema } from 'typebox';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { createAjv, parsePointer, type SchemaIssue } from '../../schema/validate.js';
import { ApiError } from '../errors.js';
import { isRecord } from '../../support/json.js';

export type Pointer = (string | number)[];

/** A 404 the self-hosted server answers as JSON `{"message": …}` (its v2 routers' `… not found`). */
export function jsonNotFound(message: string): ApiError {
  return new ApiError('not_found', message, { json: true });
}

/** A 400 whose message is the whole answer (the routers' own checks), not a `Body validation failed` list. */
export function refused(message: string): ApiError {
  return new ApiError('bad_request', message);
}

/** The body without the named members that are null: where the OpenAPI marks a member nullable, null means "not set". */
export function withoutNulls(body: unknown, members: readonly string[]): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([key, value]) => !(value === null && members.includes(key))));
}

/**
 * The members of `value` in the order of the schema's properties, the order the real service's
 * zod parse writes them in; members the schema does not name follow, undefined ones are left out.
 */
export function inSchemaOrder<T extends object>(schema: TSchema, value: T): T {
  const order = Object.keys((schema as { properties?: object }).properties ?? {});
  const entries = Object.entries(value).filter(([, member]) => member !== undefined);
  const rank = (key: string): number => (order.includes(key) ? order.indexOf(key) : order.length);
  return Object.fromEntries(entries.sort(([a], [b]) => rank(a) - rank(b))) as T;
}

/** A JSON Schema as the body schemas are written (TypeBox's objects are JSON Schema). */
type Schema = Record<string, unknown>;

// One ajv for every body schema; each is compiled once, on first use.
const ajv = createAjv();
const validators = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let validator = validators.get(schema);
  if (!validator) {
    validator = ajv.compile(schema);
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * The value without the members its schema does not name, in place: an object keeps what its
 * `properties` (or `patternProperties`) name and what `additionalProperties` admits; a list is
 * cleaned item by item; a union by the first alternative the cleaned value then fits (the value
 * as it was when none does).
 */
function strip(schema: Schema, value: unknown): unknown {
  if (Array.isArray(schema['anyOf'])) {
    for (const alternative of schema['anyOf'] as Schema[]) {
      const cleaned = strip(alternative, structuredClone(value));
      if (validatorOf(alternative)(cleaned)) return cleaned;
    }
    return value;
  }
  if (Array.isArray(value))
    return isRecord(schema['items']) ? value.map((item) => strip(schema['items'] as Schema, item)) : value;
  if (!isRecord(value) || !(isRecord(schema['properties']) || isRecord(schema['patternProperties']))) return value;
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const patterns = Object.entries((schema['patternProperties'] ?? {}) as Record<string, Schema>).map(
    ([pattern, member]) => [new RegExp(pattern), member] as const,
  );
  const additional = schema['additionalProperties'];
  for (const key of Object.keys(value)) {
    const member = Object.hasOwn(properties, key)
      ? properties[key]
      : patterns.find(([pattern]) => pattern.test(key))?.[1];
    if (member) value[key] = strip(member, value[key]);
    else if (additional === true) continue;
    else if (isRecord(additional) && validatorOf(additional)(value[key])) value[key] = strip(additional, value[key]);
    else delete value[key];
  }
  return value;
}

/** `['tiles', 0, 'x']` → `tiles.0.x`, the real service's path notation. */
export function dotted(pointer: readonly (string | number)[]): string {
  return pointer.join('.');
}

export function issueAt(pointer: Pointer, message: string): SchemaIssue {
  return { path: dotted(pointer), pointer, message };
}

/** One 400 for all the issues found; throws nothing when there are none. */
export function throwIfAny(issues: readonly SchemaIssue[]): void {
  if (issues.length) throw new ApiError('bad_request', 'body validation failed', { issues: [...issues] });
}

/**
 * The value cleaned of unknown members and checked against `schema`, or its issues (paths below
 * `at`). The input is never changed.
 */
export function clean<T>(schema: TSchema, value: unknown, at: Pointer = []): { value: T; issues: SchemaIssue[] } {
  const cleaned = strip(schema as Schema, structuredClone(value));
  const validate = validatorOf(schema);
  if (validate(cleaned)) return { value: cleaned as T, issues: [] };
  return { value: cleaned as T, issues: toIssues(validate.errors ?? [], at) };
}

/** `clean`, throwing a 400 when the value does not fit. */
export function cleaned<T>(schema: TSchema, value: unknown, at: Pointer = []): T {
  const result = clean<T>(schema, value, at);
  throwIfAny(result.issues);
  return result.value;
}

const isWithin = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`);

/**
 * Readable issues from ajv's errors. A failed union is one issue at its own path (what its
 * branches said there, minus "must be null"), not one per branch.
 */
function toIssues(errors: readonly ErrorObject[], at: Pointer): SchemaIssue[] {
  const unions = errors.filter((error) => error.keyword === 'anyOf').map((error) => error.instancePath);
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  const add = (pointer: Pointer, message: string): void => {
    const key = `${dotted(pointer)}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    issues.push(issueAt(pointer, message));
  };
  for (const error of errors) {
    const union = unions.find((path) => isWithin(error.instancePath, path));
    const pointer = [...at, ...parsePointer(union ?? error.instancePath)];
    if (union !== undefined) {
      if (error.keyword === 'anyOf') add(pointer, unionMessage(errors, union));
      continue;
    }
    if (error.keyword === 'required') add([...pointer, String(error.params['missingProperty'])], 'is required');
    else add(pointer, messageOf(error));
  }
  return issues;
}

function unionMessage(errors: readonly ErrorObject[], path: string): string {
  const own = errors.filter(
    (error) =>
      error.instancePath === path &&
      error.keyword !== 'anyOf' &&
      !(error.keyword === 'type' && error.params['type'] === 'null'),
  );
  return own.length ? [...new Set(own.map(messageOf))].join(' or ') : 'must match one of its alternatives';
}

/** The message of one error, in the words the answers have always had ("must not have more than 10 items"). */
function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'enum':
      return `must be one of ${(error.params['allowedValues'] as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(error.params['allowedValue'])}`;
    default:
      return (error.message ?? error.keyword).replace(/\bNOT\b/g, 'not');
  }
}
