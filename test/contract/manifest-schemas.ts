/**
 * The services' own OpenAPI documents, read where they are kept (`../shared/openapi/` beside the
 * repository, or `STACKSYNC_OPENAPI_DIR`; never copied into it), and a comparison of a manifest's
 * JSON Schema with an operation's request schema: every way the manifest is looser than the
 * document, each a line `path: what`. Documents absent: the suite says so and skips, except under
 * `CI=true`, where their absence fails it.
 *
 * The documents' generator artefacts are read as their generators meant them: `oneOf`
 * alternatives that overlap as `anyOf`, `null` beside a `type` or an `enum` as "may be left out",
 * an `enum` of numeric strings under `type: number` as those numbers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Schema = Record<string, unknown>;
export type Variant = 'managed' | 'self-hosted';

export const OPENAPI_FILES: Record<Variant, string> = {
  managed: 'clickhouse-cloud.openapi.json',
  'self-hosted': 'hyperdx.openapi.json',
};

const REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function openApiDir(): string {
  return process.env['STACKSYNC_OPENAPI_DIR'] ?? resolve(REPOSITORY, '..', 'shared', 'openapi');
}

/** Both documents, or why they cannot be read. */
export function loadDocuments(): { documents: Record<Variant, Schema> } | { missing: string } {
  const dir = openApiDir();
  const paths = Object.values(OPENAPI_FILES).map((file) => join(dir, file));
  const absent = paths.filter((path) => !existsSync(path));
  if (absent.length > 0)
    return {
      missing: `the services' OpenAPI documents are not at ${dir} (missing ${absent.join(', ')}); set STACKSYNC_OPENAPI_DIR`,
    };
  const read = (variant: Variant): Schema =>
    JSON.parse(readFileSync(join(dir, OPENAPI_FILES[variant]), 'utf8')) as Schema;
  return { documents: { managed: read('managed'), 'self-hosted': read('self-hosted') } };
}

/** The JSON request schema of `METHOD path`, the path given by its end (`/clickpipes`, `/api/v2/sources/{id}`). */
export function requestSchema(document: Schema, method: string, pathEnd: string): Schema {
  const paths = document['paths'] as Record<string, Record<string, Schema>>;
  const path = Object.keys(paths).find(
    (each) =>
      each.endsWith(pathEnd) &&
      (each.length === pathEnd.length || each.endsWith(`}${pathEnd}`) || pathEnd.startsWith('/api/')),
  );
  const operation = path === undefined ? undefined : paths[path]?.[method.toLowerCase()];
  const body = (operation?.['requestBody'] as Schema | undefined)?.['content'] as Record<string, Schema> | undefined;
  const schema = body?.['application/json']?.['schema'] as Schema | undefined;
  if (!schema) throw new Error(`the document has no JSON request body for ${method} …${pathEnd}`);
  return schema;
}

export function component(document: Schema, name: string): Schema {
  const schema = ((document['components'] as Schema)['schemas'] as Record<string, Schema>)[name];
  if (!schema) throw new Error(`the document has no component ${name}`);
  return schema;
}

// ---------------------------------------------------------------- reading a document's schema

function deref(document: Schema, schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; typeof current['$ref'] === 'string' && depth < 32; depth++) {
    const name = String(current['$ref']).replace('#/components/schemas/', '');
    const { $ref: _ref, ...rest } = current;
    current = { ...component(document, name), ...rest };
  }
  return current;
}

const isNull = (schema: Schema): boolean =>
  schema['type'] === 'null' ||
  (Array.isArray(schema['enum']) && schema['enum'].length === 1 && schema['enum'][0] === null);

/** A document's schema with `$ref` resolved, `allOf` merged, `null` alternatives dropped, and a single remaining alternative taken as the schema. */
export function documentNode(document: Schema, schema: Schema): Schema {
  let node = deref(document, schema);
  if (Array.isArray(node['allOf'])) {
    const parts = (node['allOf'] as Schema[]).map((part) => documentNode(document, part));
    const { allOf: _all, ...rest } = node;
    node = parts.reduce<Schema>(
      (merged, part) => ({
        // biome-ignore lint/performance/noAccumulatingSpread: an allOf has a handful of parts
        ...merged,
        ...part,
        properties: { ...(merged['properties'] as Schema | undefined), ...(part['properties'] as Schema | undefined) },
        required: [
          ...((merged['required'] as string[] | undefined) ?? []),
          ...((part['required'] as string[] | undefined) ?? []),
        ],
      }),
      rest,
    );
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    if (!Array.isArray(node[keyword])) continue;
    const alternatives = (node[keyword] as Schema[])
      .map((each) => deref(document, each))
      .filter((each) => !isNull(each));
    const { [keyword]: _alternatives, ...rest } = node;
    if (alternatives.length === 1) return documentNode(document, { ...rest, ...(alternatives[0] as Schema) });
    node = { ...rest, anyOf: alternatives };
  }
  if (Array.isArray(node['type'])) {
    const types = (node['type'] as string[]).filter((type) => type !== 'null');
    node = { ...node, type: types.length === 1 ? types[0] : types };
  }
  if (Array.isArray(node['enum']))
    node = { ...node, enum: (node['enum'] as unknown[]).filter((value) => value !== null) };
  return node;
}

// ---------------------------------------------------------------- the comparison

export interface Context {
  document: Schema;
  /** The document's name for a manifest member at `path` (`engine_max_threads` → `clickhouse_max_threads`); undefined: stacksync's own, never sent. */
  rename: (path: string, member: string) => string | undefined;
  /** Members the manifest must hold at `path` beyond its schema's own `required` (a kind's rules). */
  alsoRequired?: (path: string) => readonly string[];
  /** Whether `schema` is a secret reference: the string it resolves to is what is sent. */
  isSecret: (schema: Schema) => boolean;
}

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

function typesOf(schema: Schema): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type as string[];
  const values = Array.isArray(schema['enum'])
    ? (schema['enum'] as unknown[])
    : schema['const'] !== undefined
      ? [schema['const']]
      : [];
  return [
    ...new Set(
      values.map((value) =>
        typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value,
      ),
    ),
  ];
}

function manifestNode(schema: Schema): Schema {
  if (!Array.isArray(schema['anyOf'])) return schema;
  const alternatives = (schema['anyOf'] as Schema[]).filter((each) => !isNull(each));
  return alternatives.length === 1
    ? { ...schema, ...(alternatives[0] as Schema), anyOf: undefined }
    : { ...schema, anyOf: alternatives };
}

/** Every way `manifest` (at `path`) lets through what `documented` does not. */
export function looser(manifest: Schema, documented: Schema, path: string, context: Context): string[] {
  const doc = documentNode(context.document, documented);
  if (context.isSecret(manifest))
    return typesOf(doc).length === 0 || typesOf(doc).includes('string')
      ? []
      : [`${path}: a secret (a string) where the document has ${typesOf(doc).join(' or ')}`];
  const own = manifestNode(manifest);
  if (Array.isArray(own['anyOf']))
    return (own['anyOf'] as Schema[]).flatMap((alternative) =>
      looser({ ...own, anyOf: undefined, ...alternative }, doc, path, context),
    );
  if (
    Array.isArray(doc['anyOf']) &&
    (doc['anyOf'] as Schema[]).every((alternative) => typeof alternative['properties'] === 'object')
  ) {
    const alternatives = doc['anyOf'] as Schema[];
    // Alternatives told apart by a member's values (a colour rule by its operator): the one that takes the manifest's values.
    const chosen = discriminated(own, alternatives, context.document);
    if (chosen) return looser(own, { ...doc, anyOf: undefined, ...chosen }, path, context);
    // Overlapping object alternatives (kafka credentials, by authentication): read as anyOf, a member fits if one alternative has it.
    const properties = Object.assign(
      {},
      ...alternatives.map((alternative) => alternative['properties'] as Schema),
    ) as Schema;
    const required = alternatives
      .map((alternative) => (alternative['required'] as string[] | undefined) ?? [])
      .reduce((both, each) => both.filter((member) => each.includes(member)));
    return looser(own, { ...doc, anyOf: undefined, type: 'object', properties, required }, path, context);
  }
  if (Array.isArray(doc['anyOf'])) {
    const tries = (doc['anyOf'] as Schema[]).map((alternative) =>
      looser(own, { ...doc, anyOf: undefined, ...alternative }, path, context),
    );
    return tries.reduce((best, each) => (each.length < best.length ? each : best));
  }
  const found: string[] = [];
  const docTypes = typesOf(doc);
  const ownTypes = typesOf(own);
  const numericStrings = docTypes.includes('number') && Array.isArray(doc['enum']);
  for (const type of ownTypes) {
    const fits =
      docTypes.length === 0 || docTypes.includes(type) || (type === 'integer' && docTypes.includes('number'));
    if (!fits) found.push(`${path}: ${type} where the document has ${docTypes.join(' or ')}`);
  }
  const docValues = Array.isArray(doc['enum'])
    ? (doc['enum'] as unknown[])
    : doc['const'] !== undefined
      ? [doc['const']]
      : undefined;
  const ownValues = Array.isArray(own['enum'])
    ? (own['enum'] as unknown[])
    : own['const'] !== undefined
      ? [own['const']]
      : undefined;
  if (docValues && !ownValues && !ownTypes.includes('boolean'))
    found.push(`${path}: any value where the document allows only ${docValues.map(String).join(', ')}`);
  if (docValues && ownValues) {
    const allowed = new Set(docValues.map((value) => (numericStrings ? Number(value) : value)));
    for (const value of ownValues)
      if (!allowed.has(value))
        found.push(`${path}: ${JSON.stringify(value)} is not among the document's ${docValues.map(String).join(', ')}`);
  }
  for (const bound of LOWER_BOUNDS) {
    const limit = doc[bound];
    // A lower bound of 0 on a length or a count bounds nothing.
    if (typeof limit !== 'number' || (limit === 0 && bound !== 'minimum' && bound !== 'exclusiveMinimum')) continue;
    const mine = own[bound];
    if (typeof mine !== 'number' || mine < limit)
      found.push(`${path}: ${bound} ${mine ?? 'none'} where the document has ${limit}`);
  }
  for (const bound of UPPER_BOUNDS) {
    const limit = doc[bound];
    if (typeof limit !== 'number') continue;
    const mine = own[bound];
    if (typeof mine !== 'number' || mine > limit)
      found.push(`${path}: ${bound} ${mine ?? 'none'} where the document has ${limit}`);
  }
  if (typeof doc['pattern'] === 'string' && own['pattern'] !== doc['pattern'] && !ownValues)
    found.push(`${path}: pattern ${String(own['pattern'] ?? 'none')} where the document has ${String(doc['pattern'])}`);
  found.push(...objectLooser(own, doc, path, context));
  if (own['items'] && doc['items'])
    found.push(...looser(own['items'] as Schema, doc['items'] as Schema, `${path}[]`, context));
  return found;
}

/** The one alternative whose enum of some member holds every value the manifest allows there, where each alternative has an enum of it. */
function discriminated(own: Schema, alternatives: readonly Schema[], document: Schema): Schema | undefined {
  const ownProperties = (own['properties'] ?? {}) as Record<string, Schema>;
  for (const [member, schema] of Object.entries(ownProperties)) {
    const values = Array.isArray(schema['enum'])
      ? (schema['enum'] as unknown[])
      : schema['const'] !== undefined
        ? [schema['const']]
        : undefined;
    if (!values) continue;
    const enums = alternatives.map((alternative) => {
      const target = ((alternative['properties'] ?? {}) as Record<string, Schema>)[member];
      return target ? (documentNode(document, target)['enum'] as unknown[] | undefined) : undefined;
    });
    if (enums.some((each) => each === undefined)) continue;
    const fitting = alternatives.filter((_alternative, index) =>
      values.every((value) => (enums[index] as unknown[]).includes(value)),
    );
    if (fitting.length === 1) return fitting[0];
  }
  return undefined;
}

function objectLooser(own: Schema, doc: Schema, path: string, context: Context): string[] {
  const found: string[] = [];
  const ownProperties = (own['properties'] ?? {}) as Record<string, Schema>;
  const docProperties = doc['properties'] as Record<string, Schema> | undefined;
  const sent = new Map<string, string>();
  for (const [member, schema] of Object.entries(ownProperties)) {
    if (schema === (false as unknown)) continue;
    const name = context.rename(path, member);
    if (name === undefined) continue;
    sent.set(name, member);
    const at = path ? `${path}.${member}` : member;
    const target = docProperties?.[name];
    if (target) found.push(...looser(schema, target, at, context));
    else if (docProperties && doc['additionalProperties'] === undefined)
      found.push(`${at}: the document has no such member${name === member ? '' : ` (${name})`}`);
    else if (docProperties && typeof doc['additionalProperties'] === 'object')
      found.push(...looser(schema, doc['additionalProperties'] as Schema, at, context));
  }
  if (typeof own['additionalProperties'] === 'object' && typeof doc['additionalProperties'] === 'object') {
    found.push(
      ...looser(own['additionalProperties'] as Schema, doc['additionalProperties'] as Schema, `${path}.*`, context),
    );
  }
  if (!docProperties) return found;
  const required = new Set([
    ...((own['required'] as string[] | undefined) ?? []),
    ...(context.alsoRequired?.(path) ?? []),
  ]);
  for (const member of (doc['required'] as string[] | undefined) ?? []) {
    const mine = sent.get(member);
    if (mine === undefined || !required.has(mine))
      found.push(
        `${path ? `${path}.` : ''}${mine ?? member}: required by the document's create, optional in the manifest`,
      );
  }
  return found;
}
