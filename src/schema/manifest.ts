/**
 * JSON Schemas of the manifests (design.md, "Manifests"), built from the API schema parts so the
 * two cannot disagree. The loader validates with them and `schemas/*.json` publishes them for
 * editors (`# yaml-language-server: $schema=…`).
 */
import { CONFIG_PATTERN_MESSAGES, SECRET_REF_MESSAGE, TARGET_NAME_PATTERN, configSchema, secretRefSchema } from './config.js';
import { PIPE_SOURCE_KINDS, RESOURCE_KINDS, type ResourceKind as Kind } from './enums.js';
import {
  alertWriteBodySchema,
  columnSchema,
  dashboardCreateBodySchema,
  fieldMappingSchema,
  pipePatchSourceBlockSchemas,
  pipeSettingsSchema,
  tableMappingSchema,
  tileWriteSchema,
  type JsonSchema,
} from './api.js';

export const API_VERSION = 'stacksync/v1';

/** `metadata.name`: lowercase letters, digits and '-', starting and ending with a letter or digit. */
export const NAME_PATTERN = '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$';
export const NAME_MAX_LENGTH = 128;

export const MANIFEST_PATTERN_MESSAGES: Record<string, string> = {
  ...CONFIG_PATTERN_MESSAGES,
  [NAME_PATTERN]: "must be lowercase letters, digits and '-', starting and ending with a letter or digit",
};

/** Errors anywhere inside these schemas are reported as one message. */
export const WHOLE_MESSAGES = new Map<JsonSchema, string>([[secretRefSchema, SECRET_REF_MESSAGE]]);

function object(properties: Record<string, unknown>, required: string[] = [], extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}

function properties(schema: JsonSchema): Record<string, JsonSchema> {
  return schema['properties'] as Record<string, JsonSchema>;
}

function without(record: Record<string, JsonSchema>, ...names: string[]): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => !names.includes(name)));
}

function described(schema: JsonSchema, description: string): JsonSchema {
  return { ...schema, description };
}

function describedMembers(members: Record<string, JsonSchema>, descriptions: Record<string, string>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(descriptions).map(([name, text]) => [name, described(members[name] ?? {}, text)]));
}

const nameSchema = { type: 'string', pattern: NAME_PATTERN, maxLength: NAME_MAX_LENGTH };

const metadataSchema = object(
  {
    name: { ...nameSchema, description: "The manifest's key: unique per kind per target; lowercase letters, digits and '-'." },
    target: { type: 'string', pattern: TARGET_NAME_PATTERN, description: 'Target (from the config) to apply to; defaultTarget when left out.' },
  },
  ['name'],
);

// ---------------------------------------------------------------- Pipe

const credentialsSecretSchema = object({ username: secretRefSchema, password: secretRefSchema }, ['username', 'password'], {
  description: 'Write-only; compared by an HMAC kept in the state file. Each member is a secret reference.',
});
const accessKeySecretSchema = object({ accessKeyId: secretRefSchema, secretKey: secretRefSchema }, ['accessKeyId', 'secretKey'], {
  description: 'Write-only; compared by an HMAC kept in the state file. Each member is a secret reference.',
});

/** Update pipe's source blocks, with secret references for credentials and, for postgres, the full mapping list. */
function manifestSourceBlock(kind: (typeof PIPE_SOURCE_KINDS)[number]): JsonSchema {
  const block = pipePatchSourceBlockSchemas[kind];
  const members = without(properties(block), 'credentials', 'accessKey', 'tableMappingsToAdd', 'tableMappingsToRemove');
  if ('credentials' in properties(block)) members['credentials'] = credentialsSecretSchema;
  if ('accessKey' in properties(block)) members['accessKey'] = accessKeySecretSchema;
  if (kind === 'postgres') {
    members['tableMappings'] = {
      type: 'array',
      items: tableMappingSchema,
      description: 'The full desired list; the plan sends the additions and removals (keyed by sourceSchemaName + sourceTable).',
    };
  }
  return object(members);
}

const pipeSourceSchema = object(
  { ...Object.fromEntries(PIPE_SOURCE_KINDS.map((kind) => [kind, manifestSourceBlock(kind)])), validateSamples: { type: 'boolean', description: 'Ask the service to check sample data with this update.' } },
  [],
  {
    description: 'Exactly one source block, of the kind the pipe already has, beside an optional validateSamples.',
    oneOf: PIPE_SOURCE_KINDS.map((kind) => ({ required: [kind] })),
  },
);

export const pipeSpecSchema: JsonSchema = object(
  {
    pipeId: { type: 'string', format: 'uuid', description: 'Id of the existing pipe (pipes cannot be created through the API).' },
    name: { type: 'string', minLength: 1, description: 'Pipe name.' },
    source: pipeSourceSchema,
    destination: object(
      { columns: { type: 'array', minItems: 1, items: columnSchema, description: 'Destination columns; sent together with fieldMappings.' } },
      [],
      { description: 'Only the columns can be changed.' },
    ),
    fieldMappings: { type: 'array', items: fieldMappingSchema, description: 'Source field → destination column.' },
    settings: described(pipeSettingsSchema, 'Engine and ingestion settings, with the bounds the service enforces.'),
  },
  ['pipeId'],
);

// ---------------------------------------------------------------- Dashboard

const manifestTileSchema: JsonSchema = {
  ...tileWriteSchema,
  properties: without(properties(tileWriteSchema), 'id'),
  description: 'A tile; `name` is its key within the dashboard (ids are assigned by the service and kept across updates).',
};

const dashboardBody = properties(dashboardCreateBodySchema);
export const dashboardSpecSchema: JsonSchema = object(
  {
    name: described(dashboardBody['name'] as JsonSchema, 'Dashboard name in the API; what live dashboards are matched by.'),
    tags: described(dashboardBody['tags'] as JsonSchema, 'Tags (at most 50, each at most 32 characters).'),
    tiles: { ...(dashboardBody['tiles'] as JsonSchema), items: manifestTileSchema, description: 'Tiles; each name unique in the dashboard. Default: none.' },
  },
  ['name'],
);

// ---------------------------------------------------------------- Alert

const alertBody = properties(alertWriteBodySchema);
export const alertSpecSchema: JsonSchema = object(
  {
    ...without(alertBody, 'dashboardId', 'tileId', 'savedSearchId'),
    ...describedMembers(alertBody, {
      message: 'Text sent with the notification.',
      threshold: 'Value the watched series is compared with.',
      thresholdType: 'Fire when the value is above or below the threshold.',
      interval: 'How often the alert is evaluated.',
      source: 'tile: watch a dashboard tile (needs dashboard and tile); search: watch a saved search (needs savedSearchId).',
      channel: 'Where notifications go: {type: webhook, webhookId: …}.',
      groupBy: 'Field to group the evaluation by.',
    }),
    name: { type: 'string', minLength: 1, description: 'Alert name in the API; what live alerts are matched by.' },
    dashboard: { ...nameSchema, description: 'For source tile: metadata.name of a Dashboard manifest of the same target.' },
    tile: { type: 'string', minLength: 1, description: 'For source tile: name of a tile in that dashboard.' },
    savedSearchId: { type: 'string', minLength: 1, description: 'For source search: id of the saved search.' },
  },
  ['name', 'threshold', 'interval', 'thresholdType', 'source', 'channel'],
  {
    allOf: [
      {
        if: { properties: { source: { const: 'tile' } }, required: ['source'] },
        then: { required: ['dashboard', 'tile'], properties: { savedSearchId: false } },
      },
      {
        if: { properties: { source: { const: 'search' } }, required: ['source'] },
        then: { required: ['savedSearchId'], properties: { dashboard: false, tile: false } },
      },
    ],
  },
);

// ---------------------------------------------------------------- documents

export const SPEC_SCHEMAS: Record<Kind, JsonSchema> = { Pipe: pipeSpecSchema, Dashboard: dashboardSpecSchema, Alert: alertSpecSchema };

const KIND_DESCRIPTIONS: Record<Kind, string> = {
  Pipe: 'An existing ingestion pipe, updated to match (managed targets only).',
  Dashboard: 'An observability dashboard with its tiles.',
  Alert: 'An alert on a dashboard tile or a saved search.',
};

/** A whole manifest document of one kind. */
export function documentSchema(kind: Kind): JsonSchema {
  return object(
    {
      apiVersion: { const: API_VERSION, description: `Always ${API_VERSION}.` },
      kind: { const: kind, description: KIND_DESCRIPTIONS[kind] },
      metadata: metadataSchema,
      spec: SPEC_SCHEMAS[kind],
    },
    ['apiVersion', 'kind', 'metadata', 'spec'],
  );
}

/** What every document must be before its kind is known. */
export const envelopeSchema: JsonSchema = object(
  {
    apiVersion: { const: API_VERSION },
    kind: { enum: [...RESOURCE_KINDS] },
    metadata: metadataSchema,
    spec: { type: 'object' },
  },
  ['apiVersion', 'kind', 'metadata', 'spec'],
);

export const DOCUMENT_SCHEMAS: Record<Kind, JsonSchema> = {
  Pipe: documentSchema('Pipe'),
  Dashboard: documentSchema('Dashboard'),
  Alert: documentSchema('Alert'),
};

// ---------------------------------------------------------------- publishing

const JSON_SCHEMA_DIALECT = 'http://json-schema.org/draft-07/schema#';

function published(name: string, title: string, description: string, schema: JsonSchema): JsonSchema {
  return { $schema: JSON_SCHEMA_DIALECT, $id: `urn:stacksync:schema:v1:${name}`, title, description, ...schema };
}

/**
 * The files of `schemas/`, by file name. `scripts/write-schemas.mjs` writes them; a test checks
 * the committed files are equal, so they never go stale.
 */
export function publishedSchemas(): Record<string, JsonSchema> {
  return {
    'pipe.json': published('pipe', 'stacksync Pipe manifest', KIND_DESCRIPTIONS.Pipe, DOCUMENT_SCHEMAS.Pipe),
    'dashboard.json': published('dashboard', 'stacksync Dashboard manifest', KIND_DESCRIPTIONS.Dashboard, DOCUMENT_SCHEMAS.Dashboard),
    'alert.json': published('alert', 'stacksync Alert manifest', KIND_DESCRIPTIONS.Alert, DOCUMENT_SCHEMAS.Alert),
    'manifest.json': published('manifest', 'stacksync manifest', 'Any stacksync manifest: a Pipe, a Dashboard or an Alert, chosen by kind.', {
      oneOf: [DOCUMENT_SCHEMAS.Pipe, DOCUMENT_SCHEMAS.Dashboard, DOCUMENT_SCHEMAS.Alert],
    }),
    'config.json': published('config', 'stacksync config', 'The stacksync config file (config/stacksync.yaml).', configSchema),
  };
}
