/**
 * What every manifest shares (docs/manifests/README.md): the envelope, its metadata and
 * annotations, and how a kind's spec becomes a whole document; each kind's spec is in its folder
 * (`kinds/<kind>/schema.ts`), built from the API schema parts so the two cannot disagree, and
 * declared with TypeBox so the document types derive from them. The loader validates with them
 * and `schemas/*.json` publishes them for editors (`# yaml-language-server: $schema=…`).
 */
import { Type, type TSchema } from 'typebox';
import { constant, described, object, oneOf, optional, type JsonSchema } from './build.js';
import {
  CONFIG_PATTERN_MESSAGES,
  SECRET_REF_MESSAGE,
  TARGET_NAME_PATTERN,
  configSchemaOf,
  secretRefSchema,
} from './config.js';
import { FIELD_PATH_PATTERN, nameSchema, NAME_PATTERN } from './manifest-parts.js';

export const API_VERSION = 'stacksync/v1';

export { FIELD_PATH_PATTERN, NAME_MAX_LENGTH, NAME_PATTERN } from './manifest-parts.js';
export const FIELD_PATH_LIST_PATTERN = '^\\s*[^,\\s][^,]*(,\\s*[^,\\s][^,]*)*\\s*$';

export const MANIFEST_PATTERN_MESSAGES: Record<string, string> = {
  ...CONFIG_PATTERN_MESSAGES,
  [FIELD_PATH_PATTERN]: 'must be a field path as the plan prints it, e.g. tiles[p99].w or threshold',
  [FIELD_PATH_LIST_PATTERN]: 'must be field paths separated by commas, e.g. "tiles[p99].w, threshold"',
  [NAME_PATTERN]: "must be lowercase letters, digits and '-', starting and ending with a letter or digit",
};

/** Errors anywhere inside these schemas are reported as one message. */
export const WHOLE_MESSAGES = new Map<JsonSchema, string>([[secretRefSchema, SECRET_REF_MESSAGE]]);

/** The annotation that suspends one resource: read and reported, never written. */
export const SUSPEND_ANNOTATION = 'stacksync.io/suspend';
/** The annotation that keeps prune from ever deleting a resource. */
export const PRUNE_ANNOTATION = 'stacksync.io/prune';
/** The annotation listing field paths whose live values are kept (comma-separated), as `spec.ignoreDifferences` does. */
export const IGNORE_ANNOTATION = 'stacksync.io/ignore-differences';
/** The annotation whose every new value asks a database pipe for one resync. */
export const RESYNC_ANNOTATION = 'stacksync.io/resync';
/** The annotation that lets a change of a create-only member delete and create the resource again. */
export const REPLACE_ANNOTATION = 'stacksync.io/replace';

const annotationsSchema = Type.Object(
  {
    ...optional({
      [SUSPEND_ANNOTATION]: oneOf(['true', 'false'] as const, {
        description: '"true": read and report this resource, never write, heal or prune it.',
      }),
      [PRUNE_ANNOTATION]: oneOf(['disabled', 'enabled'] as const, {
        description: '"disabled": prune never deletes this resource, even once its manifest is gone.',
      }),
      [IGNORE_ANNOTATION]: Type.String({
        pattern: FIELD_PATH_LIST_PATTERN,
        description: 'Comma-separated field paths whose live values are kept (like spec.ignoreDifferences).',
      }),
      [RESYNC_ANNOTATION]: Type.String({
        minLength: 1,
        description:
          'Pipes of a database source: each new value (any token) asks for one resync, sent once and recorded.',
      }),
      [REPLACE_ANNOTATION]: oneOf(['allow'] as const, {
        description:
          '"allow": a change of a create-only member deletes the resource and creates it again (without it, only apply --allow-replace does).',
      }),
    }),
  },
  {
    additionalProperties: Type.String(),
    description: 'Annotations: stacksync.io/ ones steer stacksync; others are kept for people and tools.',
  },
);

/** `metadata.forEach`: the items a template stands for (see `docs/many-services.md`). */
const forEachSchema = Type.Union(
  [
    object({
      fromFile: Type.String({
        minLength: 1,
        description:
          'A YAML file in the manifests directory, relative to this manifest, holding a list of mappings (variable → value), one per item.',
      }),
    }),
    Type.Record(
      Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
      Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { minItems: 1 }),
      {
        minProperties: 1,
        description: 'Variable name → list of values: one resource per combination, in order.',
      },
    ),
  ],
  {
    description:
      "One resource per item: ${name} in this manifest takes the item's value; " +
      'metadata.name must use a variable that tells the items apart. At most 1,000 items.',
  },
);

export const metadataSchema = object(
  {
    name: described(nameSchema, "The manifest's key: unique per kind per target; lowercase letters, digits and '-'."),
    ...optional({
      target: Type.Union(
        [
          Type.String({ pattern: TARGET_NAME_PATTERN }),
          Type.Array(Type.String({ pattern: TARGET_NAME_PATTERN }), { minItems: 1, uniqueItems: true }),
        ],
        {
          description:
            'Target (from the config) to apply to, or a list of them, each with its own vars; defaultTarget when left out.',
        },
      ),
      targets: constant('all', {
        description: '"all": apply to every configured target, each with its own vars (instead of target).',
      }),
      annotations: annotationsSchema,
      forEach: forEachSchema,
    }),
  },
  { not: { required: ['target', 'targets'] }, description: 'target and targets exclude each other.' },
);

// ---------------------------------------------------------------- documents

/** A whole manifest document of one kind, with that kind's spec; `description` says what the kind is. */
export function documentSchema<K extends string, S extends TSchema>(kind: K, spec: S, description: string) {
  return object({
    apiVersion: constant(API_VERSION, { description: `Always ${API_VERSION}.` }),
    kind: constant(kind, { description }),
    metadata: metadataSchema,
    spec,
  });
}

/** What every document must be before its kind is known: its kind one of `kinds` (the registry's). */
export function envelopeSchemaOf<K extends string>(kinds: readonly K[]) {
  return object({
    apiVersion: constant(API_VERSION),
    kind: oneOf(kinds),
    metadata: metadataSchema,
    spec: Type.Unsafe<Record<string, unknown>>({ type: 'object' }),
  });
}

// ---------------------------------------------------------------- publishing

const JSON_SCHEMA_DIALECT = 'http://json-schema.org/draft-07/schema#';

function published(name: string, title: string, description: string, schema: JsonSchema): JsonSchema {
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: `urn:stacksync:schema:v1:${name}`,
    title,
    description,
    ...(withTemplatedNames(schema) as JsonSchema),
  };
}

/**
 * A name as a template may write it: a name (`NAME_PATTERN`), or name characters with at least one
 * `${var}` reference (`errors-${service}-${severity}`) that a forEach item or a target's variable
 * replaces. Only the published schemas take it, so that an editor does not flag a valid forEach
 * manifest: the loader checks every name once substituted, against `NAME_PATTERN` itself.
 */
export const TEMPLATED_NAME_PATTERN =
  '^(?:[a-z0-9]([a-z0-9-]*[a-z0-9])?|(?=.*\\$\\{)(?:[a-z0-9-]|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\})+)$';

/** `schema` with every name pattern (`NAME_PATTERN`) turned into `TEMPLATED_NAME_PATTERN`; the rest as it is. */
function withTemplatedNames(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withTemplatedNames);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'pattern' && value === NAME_PATTERN ? TEMPLATED_NAME_PATTERN : withTemplatedNames(value),
    ]),
  );
}

/** What a kind is, as its document schema's `kind` member describes it (`documentSchema`). */
function kindDescriptionOf(document: JsonSchema): string {
  const properties = document['properties'];
  const kind =
    typeof properties === 'object' && properties !== null
      ? Object.getOwnPropertyDescriptor(properties, 'kind')?.value
      : undefined;
  const description: unknown =
    typeof kind === 'object' && kind !== null ? Object.getOwnPropertyDescriptor(kind, 'description')?.value : undefined;
  if (typeof description !== 'string')
    throw new Error('a manifest document schema without the description of its kind');
  return description;
}

/**
 * The files of `schemas/`, by file name, from the document schema of each of `kinds` (in that
 * order). `scripts/write-schemas.mjs` writes them; a test checks the written files are equal,
 * so they never go stale.
 */
export function publishedSchemas<K extends string>(
  kinds: readonly K[],
  documentOf: (kind: K) => JsonSchema,
): Record<string, JsonSchema> {
  const documents = Object.fromEntries(
    kinds.map((kind) => [
      `${kind.toLowerCase()}.json`,
      published(
        kind.toLowerCase(),
        `stacksync ${kind} manifest`,
        kindDescriptionOf(documentOf(kind)),
        documentOf(kind),
      ),
    ]),
  );
  return {
    ...documents,
    'manifest.json': published(
      'manifest',
      'stacksync manifest',
      `Any stacksync manifest: a ${kinds.join(', ')}, chosen by kind.`,
      {
        oneOf: kinds.map((kind) => documentOf(kind)),
      },
    ),
    'config.json': published(
      'config',
      'stacksync config',
      'The stacksync config file (config/stacksync.yaml).',
      configSchemaOf(kinds),
    ),
  };
}
