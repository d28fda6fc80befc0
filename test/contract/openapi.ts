/**
 * The real services' own OpenAPI documents as a contract (issue 32): loads them from
 * `../shared/openapi/` beside the repository (or `STACKSYNC_OPENAPI_DIR`), never from a copy in
 * the repository; maps our neutral names onto theirs; finds the operation of a request by method
 * and path template; and validates request and response bodies against the operation's schemas
 * with ajv. What the suite checks and how to run it: docs/api-client.md#the-contract-suite.
 *
 * The documents are read as their generators meant them (the known artefacts, each handled here
 * and listed in the suite's table of differences):
 * - ClickHouse Cloud's is OpenAPI 3.1, whose schemas are JSON Schema 2020-12 (`ajv/dist/2020`);
 *   HyperDX's is OpenAPI 3.0, whose `nullable: true` is turned into a `null` type first.
 * - `oneOf` alternatives that overlap (an object matching several of them) are read as `anyOf`:
 *   every `oneOf` becomes an `anyOf`, which accepts exactly what a oneOf does plus the overlaps.
 * - a `type` that lists `"null"` beside an `enum` that omits it: null is allowed.
 * - an `enum` of numeric strings under `type: number`: read as numbers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export type ServiceName = 'clickhouse-cloud' | 'hyperdx';

const FILES: Record<ServiceName, string> = {
  'clickhouse-cloud': 'clickhouse-cloud.openapi.json',
  hyperdx: 'hyperdx.openapi.json',
};
const INDEX = 'operations-index.json';

/** The repository's root. */
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Where the documents are read from: `STACKSYNC_OPENAPI_DIR`, else `../shared/openapi/` relative to the repository's root. */
export function openapiDir(): string {
  return process.env['STACKSYNC_OPENAPI_DIR'] ?? join(REPO, '..', 'shared', 'openapi');
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
}

export interface Operation {
  service: ServiceName;
  method: string;
  /** The document's path template, e.g. `/api/v2/alerts/{id}`. */
  template: string;
  parameters: Parameter[];
  /** The operation's prose (summary and description). */
  prose: string;
  /** The request body's JSON schema, when the operation takes one. */
  requestSchema?: unknown;
  /** Response JSON schemas by status (`'200'`, `'default'`): undefined for a status declared without a JSON body. */
  responses: Record<string, unknown>;
}

export type Lookup =
  | { found: true; operation: Operation; params: Record<string, string> }
  /** `left-out`: the full document has it, the trimmed one does not; `none`: no such operation at all. */
  | { found: false; why: 'left-out' | 'none'; service: ServiceName; key: string };

export interface ValidationProblem {
  /** JSON pointer into the body, e.g. `/tiles/0/config/displayType`. */
  at: string;
  message: string;
}

/** Our neutral path segments → the managed service's (`pipes…` → `clickpipes…`, `stack` → `clickstack`). */
export function documentPath(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment === 'stack' ? 'clickstack' : segment.startsWith('pipes') ? `click${segment}` : segment))
    .join('/');
}

/** Our neutral settings keys → the managed service's (`engine_*` → `clickhouse_*`), in a settings object. */
export function documentSettings(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([key, value]) => [
      key.startsWith('engine_') ? `clickhouse_${key.slice('engine_'.length)}` : key,
      value,
    ]),
  );
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The document's schemas read as their generator meant them (the artefacts above), OpenAPI 3.0's `nullable` as JSON Schema. */
function normalise(node: Json, openapi30: boolean): Json {
  if (Array.isArray(node)) return node.map((item) => normalise(item, openapi30));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  // Overlapping oneOf alternatives read as anyOf (the same where they do not overlap).
  for (const [key, value] of Object.entries(node)) out[key === 'oneOf' ? 'anyOf' : key] = normalise(value, openapi30);
  const types = Array.isArray(out['type']) ? out['type'] : typeof out['type'] === 'string' ? [out['type']] : [];
  const enumValues = Array.isArray(out['enum']) ? out['enum'] : undefined;
  // An enum of numeric strings under `type: number` (a quantile's `level`): read as numbers.
  if (
    enumValues &&
    types.includes('number') &&
    enumValues.every((value) => typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
  ) {
    out['enum'] = enumValues.map(Number);
  }
  // A `type` that lists "null" beside an enum that omits it: null is allowed.
  if (Array.isArray(out['enum']) && types.includes('null') && !out['enum'].includes(null))
    out['enum'] = [...out['enum'], null];
  if (openapi30 && out['nullable'] === true) {
    delete out['nullable'];
    if (types.length > 0) {
      out['type'] = [...types.filter((type) => type !== 'null'), 'null'];
      if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
    } else {
      return { anyOf: [{ type: 'null' }, out] };
    }
  }
  return out;
}

export interface Contract {
  dir: string;
  operations: Operation[];
  /** Every `METHOD template` of the two full documents, by service. */
  index: Record<ServiceName, string[]>;
  /** The operation of a request (path as sent, query left out; neutral names mapped). */
  find(method: string, path: string): Lookup;
  validateRequest(operation: Operation, body: unknown): ValidationProblem[];
  /** Whether `value` matches a schema of the operation's document. */
  matches(operation: Operation, schema: unknown, value: unknown): boolean;
  /** A schema of an operation with its top `$ref`s followed (`clickhouse-cloud#/components/schemas/…`), as normalised above. */
  deref(operation: Operation, schema: unknown): Record<string, unknown>;
  /** Problems of a JSON answer; `'undeclared'` when the operation declares no JSON body for the status. */
  validateResponse(operation: Operation, status: number, body: unknown): ValidationProblem[] | 'undeclared';
}

/** The documents, or undefined when they are absent from {@link openapiDir}. */
export function loadContract(): Contract | undefined {
  const dir = openapiDir();
  if (![...Object.values(FILES), INDEX].every((file) => existsSync(join(dir, file)))) return undefined;
  const index = JSON.parse(readFileSync(join(dir, INDEX), 'utf8')) as Record<ServiceName, string[]>;
  const operations: Operation[] = [];
  const validators: Record<ServiceName, Ajv> = {} as Record<ServiceName, Ajv>;
  const documents: Record<ServiceName, JsonObject> = {} as Record<ServiceName, JsonObject>;
  for (const service of Object.keys(FILES) as ServiceName[]) {
    const raw = JSON.parse(readFileSync(join(dir, FILES[service]), 'utf8')) as JsonObject;
    const openapi30 = String(raw['openapi']).startsWith('3.0');
    const document = normalise(raw, openapi30) as JsonObject;
    const options = { allErrors: true, strict: false, validateSchema: false, logger: false } as const;
    const ajv = openapi30 ? new Ajv(options) : (new Ajv2020(options) as unknown as Ajv);
    addFormats(ajv);
    ajv.addSchema(document, service);
    documents[service] = document;
    validators[service] = ajv;
    operations.push(...operationsOf(service, document));
  }
  const compiled = new Map<unknown, ValidateFunction>();
  const compiledByText = new Map<unknown, ValidateFunction>();
  const validate = (operation: Operation, schema: unknown, body: unknown): ValidationProblem[] => {
    let check = compiled.get(schema);
    // A schema object met again by content (sub-schemas are rebuilt by deref) compiles once.
    const key = typeof schema === 'object' && schema !== null ? JSON.stringify(schema) : schema;
    check ??= compiledByText.get(key);
    if (!check) {
      check = validators[operation.service].compile(schema as object);
      compiled.set(schema, check);
      compiledByText.set(key, check);
    }
    return check(body) ? [] : problemsOf(check.errors ?? []);
  };
  return {
    dir,
    operations,
    index,
    find(method, path) {
      const mapped = documentPath(path.split('?')[0] ?? path);
      const upper = method.toUpperCase();
      for (const operation of operations) {
        if (operation.method !== upper) continue;
        const params = matchTemplate(operation.template, mapped);
        if (params) return { found: true, operation, params };
      }
      const service: ServiceName = mapped.startsWith('/api/') ? 'hyperdx' : 'clickhouse-cloud';
      const key = index[service].find((entry) => {
        const [entryMethod, template = ''] = entry.split(' ');
        return entryMethod === upper && matchTemplate(template, mapped) !== undefined;
      });
      return { found: false, why: key ? 'left-out' : 'none', service, key: key ?? `${upper} ${mapped}` };
    },
    validateRequest(operation, body) {
      if (operation.requestSchema === undefined)
        return body === undefined ? [] : [{ at: '', message: 'the operation takes no body' }];
      return validate(operation, operation.requestSchema, body);
    },
    matches(operation, schema, value) {
      return validate(operation, schema, value).length === 0;
    },
    deref(operation, schema) {
      let node = schema as Json;
      for (let depth = 0; depth < 32 && isObject(node) && typeof node['$ref'] === 'string'; depth++) {
        const ref: string = node['$ref'];
        node = resolve(documents[operation.service], { $ref: ref.slice(ref.indexOf('#')) });
        node = rebase(node, operation.service);
      }
      return isObject(node) ? node : {};
    },
    validateResponse(operation, status, body) {
      const schema = operation.responses[String(status)] ?? operation.responses['default'];
      if (schema === undefined) return 'undeclared';
      return validate(operation, schema, body);
    },
  };
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

function operationsOf(service: ServiceName, document: JsonObject): Operation[] {
  const paths = (document['paths'] ?? {}) as Record<string, JsonObject>;
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(paths)) {
    const shared = (item['parameters'] ?? []) as Json[];
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const parameters = [...shared, ...((operation['parameters'] ?? []) as Json[])]
        .map((parameter) => resolve(document, parameter))
        .filter(isObject);
      const requestBody = resolve(document, operation['requestBody'] ?? null);
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries((operation['responses'] ?? {}) as JsonObject)) {
        const resolved = resolve(document, response);
        responses[status] = jsonSchemaOf(service, resolved);
      }
      operations.push({
        service,
        method: method.toUpperCase(),
        template,
        parameters: parameters.map((parameter) => ({
          name: String(parameter['name']),
          in: parameter['in'] as Parameter['in'],
          required: parameter['required'] === true,
        })),
        prose: [operation['summary'], operation['description']].filter((text) => typeof text === 'string').join('\n'),
        requestSchema: jsonSchemaOf(service, requestBody),
        responses,
      });
    }
  }
  return operations;
}

/** The `application/json` schema of a request body or response, with its `$ref`s pointing into the document (added to ajv under the service's name). */
function jsonSchemaOf(service: ServiceName, holder: Json): unknown {
  if (!isObject(holder)) return undefined;
  const content = holder['content'];
  if (!isObject(content)) return undefined;
  const json = content['application/json'];
  if (!isObject(json) || json['schema'] === undefined) return undefined;
  return rebase(json['schema'], service);
}

/** A schema taken out of its document, with its local `$ref`s made absolute (`service#/components/…`). */
function rebase(node: Json, service: string): Json {
  if (Array.isArray(node)) return node.map((item) => rebase(item, service));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node))
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#')
        ? `${service}${value}`
        : rebase(value, service);
  return out;
}

/** Follows a local `$ref` (`#/components/parameters/…`). */
function resolve(document: JsonObject, node: Json): Json {
  if (!isObject(node) || typeof node['$ref'] !== 'string') return node;
  const pointer = node['$ref'].replace(/^#\//, '').split('/');
  let current: Json = document;
  for (const part of pointer)
    current = isObject(current) ? (current[part.replace(/~1/g, '/').replace(/~0/g, '~')] ?? null) : null;
  return resolve(document, current);
}

function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const pattern = template.split('/');
  const segments = path.split('/');
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index++) {
    const expected = pattern[index] ?? '';
    const actual = segments[index] ?? '';
    if (expected.startsWith('{') && expected.endsWith('}')) {
      if (actual === '') return undefined;
      params[expected.slice(1, -1)] = decodeURIComponent(actual);
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

function problemsOf(errors: readonly ErrorObject[]): ValidationProblem[] {
  return errors.map((error) => ({ at: error.instancePath, message: messageOf(error) }));
}

function messageOf(error: ErrorObject): string {
  const params = error.params as { allowedValues?: unknown; additionalProperty?: unknown };
  const detail =
    error.keyword === 'enum'
      ? ` ${JSON.stringify(params.allowedValues)}`
      : error.keyword === 'additionalProperties'
        ? ` (${String(params.additionalProperty)})`
        : '';
  return `${error.message ?? error.keyword}${detail}`;
}

/**
 * Where the documents are absent the suite says so and skips, except under `CI=true`, where their
 * absence fails it. Returns the contract, or undefined (having said why) to skip.
 */
export function contractOrSkip(): Contract | undefined {
  const contract = loadContract();
  if (contract) return contract;
  const message = `the contract suite needs the services' OpenAPI documents in ${openapiDir()} (set STACKSYNC_OPENAPI_DIR): they are absent`;
  if (process.env['CI'] === 'true') throw new Error(`${message}, and CI=true makes that a failure`);
  console.warn(`${message}: skipped`);
  return undefined;
}
