/**
 * JSON Schemas of the manifests (docs/manifests/README.md), built from the API schema parts so the
 * two cannot disagree, and declared with TypeBox so `model/manifest.ts` derives the document types
 * from them. The loader validates with them and `schemas/*.json` publishes them for editors
 * (`# yaml-language-server: $schema=…`).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { constant, described, object, oneOf, optional, readable, type JsonSchema } from './build.js';
import { CONFIG_PATTERN_MESSAGES, SECRET_REF_MESSAGE, TARGET_NAME_PATTERN, configSchema, secretRefSchema } from './config.js';
import {
  MANIFEST_ALERT_SOURCES,
  MANIFEST_THRESHOLD_TYPES,
  PIPE_SOURCE_KINDS,
  RESOURCE_KINDS,
  SERIES_AGG_FNS,
  SERIES_DATA_SOURCES,
  SERIES_TYPES,
  SERIES_TYPES_NEEDING_AGG_FN,
  type ResourceKind as Kind,
} from './enums.js';
import {
  alertConfigMembers,
  columnSchema,
  dashboardNameSchema,
  dashboardTagsSchema,
  fieldMappingSchema,
  pipePatchBeyondSeedMembers,
  pipePatchBlockMembers,
  pipeSettingsSchema,
  tableMappingSchema,
  tileList,
  tileMembers,
} from './api.js';
import { cdcScalingBodySchema, currentPipeDestinationSchema, currentPipeSettingsSchema, PIPE_CREATE_BLOCKS, pipeScalingBodySchema } from './api-pipes.js';
import { PIPE_WRITE_ONLY_SOURCE_MEMBERS } from './pipe-create-only.js';
import { CDC_SCALING_BOUNDS, PIPE_FAMILIES, type PipeFamily } from './pipe-sources.js';

import { FIELD_PATH_PATTERN, ignoreDifferencesSchema, nameSchema, NAME_PATTERN } from './manifest-parts.js';
import { connectionSpecSchema, savedSearchSpecSchema, sourceSpecSchema, webhookSpecSchema } from './manifest-stack.js';
import { roleSpecSchema } from './manifest-role.js';
import { CURRENT_DASHBOARD_LIMITS, CURRENT_MAX_ALERT_CHANNELS, CURRENT_WHERE_LANGUAGES, CurrentDashboardContainer, CurrentDashboardFilter, CurrentSavedFilterValue } from './api-current.js';
import { CURRENT_CHANNEL_SEVERITIES } from './api-current-stack.js';

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
      [SUSPEND_ANNOTATION]: oneOf(['true', 'false'] as const, { description: '"true": read and report this resource, never write, heal or prune it.' }),
      [PRUNE_ANNOTATION]: oneOf(['disabled', 'enabled'] as const, { description: '"disabled": prune never deletes this resource, even once its manifest is gone.' }),
      [IGNORE_ANNOTATION]: Type.String({ pattern: FIELD_PATH_LIST_PATTERN, description: 'Comma-separated field paths whose live values are kept (like spec.ignoreDifferences).' }),
      [RESYNC_ANNOTATION]: Type.String({ minLength: 1, description: 'Pipes of a database source: each new value (any token) asks for one resync, sent once and recorded.' }),
      [REPLACE_ANNOTATION]: oneOf(['allow'] as const, { description: '"allow": a change of a create-only member deletes the resource and creates it again (without it, only apply --allow-replace does).' }),
    }),
  },
  { additionalProperties: Type.String(), description: 'Annotations: stacksync.io/ ones steer stacksync; others are kept for people and tools.' },
);

/** `metadata.forEach`: the items a template stands for (see `docs/many-services.md`). */
const forEachSchema = Type.Union(
  [
    object({ fromFile: Type.String({ minLength: 1, description: 'A YAML file in the manifests directory, relative to this manifest, holding a list of mappings (variable → value), one per item.' }) }),
    Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { minItems: 1 }), {
      minProperties: 1,
      description: 'Variable name → list of values: one resource per combination, in order.',
    }),
  ],
  { description: 'One resource per item: ${name} in this manifest takes the item\'s value; metadata.name must use ' +
    'a variable that tells the items apart. At most 1,000 items.' },
);

export const metadataSchema = object(
  {
    name: described(nameSchema, "The manifest's key: unique per kind per target; lowercase letters, digits and '-'."),
    ...optional({
      target: Type.Union([Type.String({ pattern: TARGET_NAME_PATTERN }), Type.Array(Type.String({ pattern: TARGET_NAME_PATTERN }), { minItems: 1, uniqueItems: true })], {
        description: 'Target (from the config) to apply to, or a list of them, each with its own vars; defaultTarget when left out.',
      }),
      targets: constant('all', { description: '"all": apply to every configured target, each with its own vars (instead of target).' }),
      annotations: annotationsSchema,
      forEach: forEachSchema,
    }),
  },
  { not: { required: ['target', 'targets'] }, description: 'target and targets exclude each other.' },
);


// ---------------------------------------------------------------- Pipe

const SECRET_MEMBERS_DESCRIPTION = 'Write-only; compared by an HMAC kept in the state file. Each member is a secret reference.';
const credentialsSecretSchema = object({ username: secretRefSchema, password: secretRefSchema }, { description: SECRET_MEMBERS_DESCRIPTION });
const accessKeySecretSchema = object({ accessKeyId: secretRefSchema, secretKey: secretRefSchema }, { description: SECRET_MEMBERS_DESCRIPTION });

/**
 * Update pipe's source blocks, with secret references for credentials and, for postgres, the full
 * mapping list instead of the additions and removals.
 */
const manifestSourceBlocks = {
  kafka: object({ ...pipePatchBlockMembers.kafka, ...pipePatchBeyondSeedMembers.kafka, credentials: Type.Optional(credentialsSecretSchema) }),
  objectStorage: object({ ...pipePatchBlockMembers.objectStorage, accessKey: Type.Optional(accessKeySecretSchema) }),
  kinesis: object({ ...pipePatchBlockMembers.kinesis, accessKey: Type.Optional(accessKeySecretSchema) }),
  postgres: object({
    ...pipePatchBlockMembers.postgres,
    credentials: Type.Optional(credentialsSecretSchema),
    tableMappings: Type.Optional(
      Type.Array(tableMappingSchema, {
        description: 'The full desired list; the plan sends the additions and removals (keyed by sourceSchemaName + sourceTable).',
      }),
    ),
  }),
} satisfies Record<(typeof PIPE_SOURCE_KINDS)[number], TSchema>;

const pipeSourceSchema = object(
  { ...optional(manifestSourceBlocks), validateSamples: Type.Optional(Type.Boolean({ description: 'Ask the service to check sample data with this update.' })) },
  {
    description: 'Exactly one source block, of the kind the pipe already has, beside an optional validateSamples.',
    oneOf: PIPE_SOURCE_KINDS.map((kind) => ({ required: [kind] })),
  },
);

/** The spec of a manifest naming an existing pipe by id: the members Update pipe can change. */
export const existingPipeSpecSchema = object({
  pipeId: Type.String({ format: 'uuid', description: 'Id of an existing pipe made elsewhere (leave out for a pipe born in Git, which stacksync creates).' }),
  ...optional({
    name: Type.String({ minLength: 1, description: 'Pipe name.' }),
    source: pipeSourceSchema,
    destination: object(
      { columns: Type.Optional(Type.Array(columnSchema, { minItems: 1, description: 'Destination columns; sent together with fieldMappings.' })) },
      { description: 'Only the columns can be changed.' },
    ),
    fieldMappings: Type.Array(fieldMappingSchema, { description: 'Source field → destination column.' }),
    settings: described(pipeSettingsSchema, 'Engine and ingestion settings, with the bounds the service enforces.'),
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

/**
 * A create block of the real service with its write-only members as secret references: at each
 * of the family's write-only paths, an object's every member (`credentials.password`), or the
 * member itself (`serviceAccountKey`), becomes a secret reference.
 */
function withSecretRefs(block: TSchema, family: PipeFamily): JsonSchema {
  const copy = JSON.parse(JSON.stringify(block)) as JsonSchema;
  for (const path of PIPE_WRITE_ONLY_SOURCE_MEMBERS[family]) {
    const parts = path.split('.');
    let parent: JsonSchema | undefined = copy;
    for (const part of parts.slice(0, -1)) parent = (parent?.['properties'] as Record<string, JsonSchema> | undefined)?.[part];
    const properties = parent?.['properties'] as Record<string, JsonSchema> | undefined;
    const last = parts[parts.length - 1] ?? '';
    const member = properties?.[last];
    if (!properties || !member) continue;
    const fields = member['properties'] as Record<string, JsonSchema> | undefined;
    properties[last] = fields
      ? { ...member, description: SECRET_MEMBERS_DESCRIPTION, properties: Object.fromEntries(Object.keys(fields).map((field) => [field, secretRefSchema])) }
      : secretRefSchema;
  }
  return copy;
}

const BORN_BLOCK_DESCRIPTIONS: Record<PipeFamily, string> = {
  kafka: 'A Kafka-compatible source: type (kafka, confluent, msk, azureeventhub, redpanda, warpstream, ' +
    'gcmk, dokafka), format, brokers, topics, authentication with credentials.',
  objectStorage: 'Files in object storage: type (s3, gcs, azureblobstorage), format, url (or path and ' +
    'azureContainerName), authentication with accessKey, iamRole or connectionString.',
  kinesis: 'An Amazon Kinesis stream: format, streamName, region, iteratorType, authentication with accessKey or iamRole.',
  pubsub: 'A Google Pub/Sub topic (limited preview): format, projectId, topic, seekType, authentication with a service account key.',
  postgres: 'A Postgres database (CDC): type (postgres, supabase, neon, alloydb, …), host, port, database, ' +
    'credentials, settings, and the full list of tableMappings.',
  mysql: 'A MySQL or MariaDB database (CDC): type, host, port, credentials, settings (replicationMode required), and the full list of tableMappings.',
  mongodb: 'A MongoDB database (CDC): uri, readPreference, credentials, settings (replicationMode required), and the full list of tableMappings.',
  bigquery: 'A BigQuery dataset, snapshot only (every change after create needs a replace): snapshotStagingPath, settings, credentials, tableMappings.',
};

/** The source of a pipe born in Git: exactly one family block, as the real service's create takes it. */
const bornPipeSourceSchema = Type.Unsafe<Partial<Record<PipeFamily, Record<string, unknown>>>>({
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(PIPE_FAMILIES.map((family) => [family, { ...withSecretRefs(PIPE_CREATE_BLOCKS[family], family), description: BORN_BLOCK_DESCRIPTIONS[family] }])),
  oneOf: PIPE_FAMILIES.map((family) => ({ required: [family] })),
  description: `Exactly one source block: ${PIPE_FAMILIES.join(', ')}. Credentials are secret references, sent once per new value and compared by their HMAC.`,
});

/** The states a pipe born in Git converges to (the state operation: start, stop). */
export const PIPE_DESIRED_STATES = ['Running', 'Stopped'] as const;

/** The spec of a pipe born in Git: what the real service's create takes, plus the state it should be in. */
export const bornPipeSpecSchema = object({
  name: Type.String({ minLength: 1, maxLength: 255, description: "Pipe name in the API: what the live pipe is matched by, unique in the service." }),
  source: bornPipeSourceSchema,
  destination: described(currentPipeDestinationSchema, 'database (always), table, managedTable, tableDefinition and columns (streaming and object-storage pipes); only columns can change once created.'),
  ...optional({
    description: Type.String({ description: 'Free text.' }),
    fieldMappings: Type.Array(fieldMappingSchema, { description: 'Source field → destination column.' }),
    scaling: described(pipeScalingBodySchema, 'kafka, kinesis and objectStorage pipes: replicas 1–40, replicaCpuMillicores 125–2000, ' +
      'replicaMemoryGb 0.5–8; concurrency (0–34, deprecated) for objectStorage only (database pipes ' +
      'share the service\'s CDC scaling, which no pipe\'s manifest sets).'),
    settings: described(currentPipeSettingsSchema, 'Engine and ingestion settings, with the bounds the service enforces.'),
    state: oneOf(PIPE_DESIRED_STATES, { default: 'Running', description: 'Running (default) or Stopped: converged with the state operation (start, stop).' }),
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

/**
 * A Pipe's spec in either form: with `pipeId`, an existing pipe made elsewhere; without, a pipe
 * born in Git that stacksync creates, owns and prunes.
 */
export const pipeSpecSchema = readable(Type.Unsafe<Static<typeof existingPipeSpecSchema> | Static<typeof bornPipeSpecSchema>>({
  type: 'object',
  if: { required: ['pipeId'] },
  then: existingPipeSpecSchema,
  else: bornPipeSpecSchema,
  description: 'With pipeId: an existing pipe, of which the manifest holds the members Update pipe can change. ' +
    'Without: a pipe born in Git (name, source, destination, …, state).',
}));

// ---------------------------------------------------------------- Dashboard

const SOURCE_NAME_DESCRIPTION = "Name of a data source of the target, resolved to its id from the target's sources list (instead of sourceId).";

/**
 * A series of the old tile format: the seed's members, and those current servers take (a series
 * names its data source by `sourceId`, or here by `source` name).
 */
const manifestSeriesSchema = object({
  type: oneOf(SERIES_TYPES),
  ...optional({
    dataSource: oneOf(SERIES_DATA_SOURCES),
    aggFn: oneOf(SERIES_AGG_FNS),
    field: Type.String(),
    where: Type.String(),
    groupBy: Type.Array(Type.String()),
    content: Type.String(),
    sourceId: Type.String({ minLength: 1, description: 'Id of a data source of the target (current servers).' }),
    source: Type.String({ minLength: 1, description: SOURCE_NAME_DESCRIPTION }),
    alias: Type.String(),
    level: Type.Number({ minimum: 0, maximum: 1 }),
    whereLanguage: Type.String(),
    fields: Type.Array(Type.String()),
    sortOrder: Type.String(),
    displayType: Type.String(),
    metricName: Type.String(),
    metricDataType: Type.String(),
    numberFormat: Type.Record(Type.String(), Type.Unknown()),
  }),
}, {
  if: { properties: { type: { enum: [...SERIES_TYPES_NEEDING_AGG_FN] } } },
  then: { required: ['aggFn'] },
});

/**
 * A tile's chart in the new format: an object passed to the service as written and compared
 * member by member with the live one (members it leaves out are not compared, and are kept).
 */
const manifestTileConfigSchema = Type.Object(
  optional({
    displayType: Type.String({ description: 'line, stacked_bar, table, number, pie, bar, heatmap, search, markdown, …' }),
    sourceId: Type.String({ minLength: 1, description: 'Id of a data source of the target.' }),
    source: Type.String({ minLength: 1, description: SOURCE_NAME_DESCRIPTION }),
  }),
  { additionalProperties: true, description: "The tile's chart as current servers take it (`config`); passed through as written." },
);

const { series: _seedSeries, ...tilePlacement } = tileMembers;

const manifestTileSchema = object(
  {
    ...tilePlacement,
    ...optional({
      series: Type.Array(manifestSeriesSchema, {
        description:
          "The chart in the seed's format (old format). Sent as series to a seed-profile target (by " +
            "dataSource), and as the equivalent config to a current one (by source), where it maps exactly.",
      }),
      config: manifestTileConfigSchema,
      containerId: Type.String({ minLength: 1, maxLength: CURRENT_DASHBOARD_LIMITS.containerIdMaxLength, description: 'The container (group) the tile is in (current servers).' }),
      tabId: Type.String({ minLength: 1, maxLength: CURRENT_DASHBOARD_LIMITS.containerIdMaxLength, description: 'The tab of that container the tile is on (current servers).' }),
    }),
  },
  {
    description:
      'A tile; `name` is its key within the dashboard (ids are assigned by the service and kept across ' +
        'updates). Give series or config, or neither: then the live chart is kept as it is.',
    not: { required: ['series', 'config'] },
  },
);

const { id: _filterId, sourceId: _filterSourceId, name: _filterName, type: _filterType, ...filterMembers } = CurrentDashboardFilter.properties;

/** A dashboard filter (a variable) as a manifest writes it: by name, its source by name or id; the service assigns its id. */
const manifestFilterSchema = object(
  {
    name: Type.String({ minLength: 1, description: 'The filter\'s name: its key within the dashboard (the service assigns its id, which updates keep).' }),
    ...optional({
      type: constant('QUERY_EXPRESSION', { description: 'Always QUERY_EXPRESSION (the default).' }),
      source: Type.String({ minLength: 1, description: SOURCE_NAME_DESCRIPTION }),
      sourceId: Type.String({ minLength: 1, description: 'Id of the source the filter reads its values from.' }),
    }),
    ...filterMembers,
  },
  { description: 'A filter of the dashboard; variableName needs isVariableEnabled: true.', oneOf: [{ required: ['source'] }, { required: ['sourceId'] }] },
);

export const dashboardSpecSchema = object({
  name: described(dashboardNameSchema, 'Dashboard name in the API; what live dashboards are matched by.'),
  ...optional({
    tags: described(dashboardTagsSchema, 'Tags (at most 50, each at most 32 characters).'),
    tiles: tileList(manifestTileSchema, { description: 'Tiles; each name unique in the dashboard. Default: none.' }),
    ownsAllTiles: Type.Boolean({
      description:
        'true: these tiles are the whole dashboard. An update (which replaces the tile list) then also ' +
          'deletes tiles a GET does not return (PromQL tiles); without it, a dashboard that may hold such ' +
          'tiles is never updated.',
    }),
    filters: Type.Array(manifestFilterSchema, { description: 'The filters (variables), in order; each name unique. Left out, the live ones are kept as they are (current servers).' }),
    containers: Type.Array(CurrentDashboardContainer, { maxItems: CURRENT_DASHBOARD_LIMITS.maxContainers, description: 'Groups and tabs that tiles name by containerId and tabId. Left out, the live ones are kept (current servers).' }),
    savedQuery: Type.Union([Type.String(), Type.Null()], { description: 'The query the dashboard opens with (current servers).' }),
    savedQueryLanguage: Type.Union([oneOf(CURRENT_WHERE_LANGUAGES), Type.Null()], { description: 'lucene or sql (current servers).' }),
    savedFilterValues: Type.Array(CurrentSavedFilterValue, { description: 'The filter values the dashboard opens with (current servers).' }),
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

// ---------------------------------------------------------------- Alert

/**
 * A channel: a webhook, by id or by name (a Webhook manifest's metadata.name or a live webhook's
 * name), with the members the managed service's integrations add; or, on the managed service, an
 * email channel.
 */
const manifestChannelSchema = object(
  {
    type: oneOf(['webhook', 'email'] as const, { description: 'webhook (every server) or email (the managed service).' }),
    ...optional({
      webhookId: Type.String({ minLength: 1, description: 'Id of the webhook.' }),
      webhook: Type.String({ minLength: 1, description: 'Name of a webhook: the metadata.name of a Webhook manifest of the target, or the API name of a live one; resolved to its id at apply time.' }),
      webhookService: Type.Union([Type.String(), Type.Null()], { description: 'The integration behind the webhook (managed service).' }),
      slackChannelId: Type.Union([Type.String(), Type.Null()], { description: 'The Slack channel of a Slack API webhook (managed service).' }),
      severity: Type.Union([oneOf(CURRENT_CHANNEL_SEVERITIES), Type.Null()], { description: 'PagerDuty severity (managed service).' }),
      emailRecipients: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'For type email: who gets it (managed service).' }),
    }),
  },
  {
    description: 'Where notifications go: {type: webhook, webhook: <name>} or {type: webhook, webhookId: …}, or ' +
      '{type: email, emailRecipients: […]} (managed service).',
    if: { properties: { type: { const: 'email' } } },
    then: { required: ['emailRecipients'], properties: { webhookId: false, webhook: false } },
    else: { oneOf: [{ required: ['webhookId'] }, { required: ['webhook'] }], properties: { emailRecipients: false } },
  },
);

const searchSources = MANIFEST_ALERT_SOURCES.filter((source) => source !== 'tile');
const { channel: _seedChannel, ...alertMembers } = alertConfigMembers;

export const alertSpecSchema = object(
  {
    ...alertMembers,
    name: Type.String({ minLength: 1, description: 'Alert name in the API; what live alerts are matched by.' }),
    message: described(alertConfigMembers.message, 'Text sent with the notification.'),
    threshold: described(alertConfigMembers.threshold, 'Value the watched series is compared with.'),
    thresholdType: oneOf(MANIFEST_THRESHOLD_TYPES, {
      description: 'When to fire: above, below (every server); above_exclusive, below_or_equal, equal, not_equal, between, not_between (newer servers).',
    }),
    interval: described(alertConfigMembers.interval, 'How often the alert is evaluated.'),
    source: oneOf(MANIFEST_ALERT_SOURCES, {
      description:
        "tile: watch a dashboard tile (needs dashboard and tile); saved_search: watch a saved search " +
          "(needs savedSearch or savedSearchId). The seed's word search is read as saved_search; each " +
          "target is sent the word its servers take.",
    }),
    groupBy: described(alertConfigMembers.groupBy, 'Field to group the evaluation by.'),
    ...optional({
      channel: described(manifestChannelSchema, 'The channel notifications go to. Left out (and channels too): the live channels are kept.'),
      channels: Type.Array(manifestChannelSchema, {
        minItems: 1,
        maxItems: CURRENT_MAX_ALERT_CHANNELS,
        description: 'Several channels (1 to 10, newer servers): the first is also `channel`. Instead of channel.',
      }),
      thresholdMax: Type.Number({ description: 'Upper end of the range, for thresholdType between and not_between. Left out, the live value is kept (a new range alert needs it).' }),
      dashboard: described(nameSchema, 'For source tile: metadata.name of a Dashboard manifest of the same target.'),
      tile: Type.String({ minLength: 1, description: 'For source tile: name of a tile in that dashboard.' }),
      savedSearchId: Type.String({ minLength: 1, description: 'For source saved_search: id of the saved search.' }),
      savedSearch: Type.String({
        minLength: 1,
        description: 'For source saved_search: name of the saved search (a SavedSearch manifest\'s metadata.name, or a live one\'s name), resolved to its id at apply time.',
      }),
      note: Type.String({ minLength: 1, maxLength: 4096, description: 'A note for whoever is notified, e.g. a runbook link (newer servers).' }),
      numConsecutiveWindows: Type.Integer({ minimum: 1, description: 'How many windows in a row must breach before it fires (newer servers).' }),
      scheduleOffsetMinutes: Type.Integer({ minimum: 0, maximum: 1439, description: 'Minutes the evaluation windows are shifted by, below the interval (newer servers).' }),
      scheduleStartAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the evaluation windows start (newer servers); with it, scheduleOffsetMinutes must be 0.' }),
      ignoreDifferences: ignoreDifferencesSchema,
    }),
  },
  {
    allOf: [
      {
        if: { properties: { source: { const: 'tile' } }, required: ['source'] },
        then: { required: ['dashboard', 'tile'], properties: { savedSearchId: false, savedSearch: false } },
      },
      {
        if: { properties: { source: { enum: searchSources } }, required: ['source'] },
        then: { oneOf: [{ required: ['savedSearchId'] }, { required: ['savedSearch'] }], properties: { dashboard: false, tile: false } },
      },
      { not: { required: ['channel', 'channels'] } },
    ],
  },
);

// ---------------------------------------------------------------- PipeCdcScaling

const { replicaCpuMillicores: cdcCpu, replicaMemoryGb: cdcMemory } = cdcScalingBodySchema.properties;

/** The service-wide sizing of its database pipes (`…/pipesCdcScaling`): both members, as the PATCH takes them. */
export const pipeCdcScalingSpecSchema = object({
  replicaCpuMillicores: described(cdcCpu, 'CPU of the CDC replicas, in millicores: 1000 to 24000, in steps of 1000 (1 to 24 cores).'),
  replicaMemoryGb: described(cdcMemory, `Memory of the CDC replicas, in GB: ${CDC_SCALING_BOUNDS.memoryGbPerCore} GB per CPU core (16 for 4000 millicores), 4 to 96.`),
});

// ---------------------------------------------------------------- documents

export const SPEC_SCHEMAS = {
  Pipe: pipeSpecSchema,
  Connection: connectionSpecSchema,
  Source: sourceSpecSchema,
  Dashboard: dashboardSpecSchema,
  SavedSearch: savedSearchSpecSchema,
  Webhook: webhookSpecSchema,
  Alert: alertSpecSchema,
  Role: roleSpecSchema,
  PipeCdcScaling: pipeCdcScalingSpecSchema,
} satisfies Record<Kind, JsonSchema>;

const KIND_DESCRIPTIONS: Record<Kind, string> = {
  Pipe: 'An ingestion pipe (managed targets only): born in Git (created, updated, started and stopped, ' +
    'pruned) or, with pipeId, an existing one updated to match.',
  Connection: 'A database connection sources query through (self-hosted targets; a managed service makes its own, which manifests name).',
  Source: 'A source of observability data (logs, traces, metrics, sessions) on a connection.',
  Dashboard: 'An observability dashboard with its tiles.',
  SavedSearch: 'A saved search on a source, which alerts may watch.',
  Webhook: 'A webhook alerts notify (Slack, incident.io or a generic HTTP endpoint).',
  Alert: 'An alert on a dashboard tile or a saved search.',
  Role: 'A ClickStack role of a managed service (api profile current): a named set of permissions. ' +
    'Predefined roles are the service\'s own and are never changed.',
  PipeCdcScaling:
    "The CDC scaling of a managed service (api profile current): one sizing shared by all its " +
      "database pipes. At most one manifest per target; the service has it once a database pipe is " +
      "provisioned; never deleted (without a manifest it is simply not managed).",
};

/** A whole manifest document of one kind, with that kind's spec. */
function documentSchema<K extends Kind, S extends TSchema>(kind: K, spec: S) {
  return object({
    apiVersion: constant(API_VERSION, { description: `Always ${API_VERSION}.` }),
    kind: constant(kind, { description: KIND_DESCRIPTIONS[kind] }),
    metadata: metadataSchema,
    spec,
  });
}

/** What every document must be before its kind is known. */
export const envelopeSchema = object({
  apiVersion: constant(API_VERSION),
  kind: oneOf(RESOURCE_KINDS),
  metadata: metadataSchema,
  spec: Type.Unsafe<Record<string, unknown>>({ type: 'object' }),
});

export const DOCUMENT_SCHEMAS = {
  Pipe: documentSchema('Pipe', pipeSpecSchema),
  Connection: documentSchema('Connection', connectionSpecSchema),
  Source: documentSchema('Source', sourceSpecSchema),
  Dashboard: documentSchema('Dashboard', dashboardSpecSchema),
  SavedSearch: documentSchema('SavedSearch', savedSearchSpecSchema),
  Webhook: documentSchema('Webhook', webhookSpecSchema),
  Alert: documentSchema('Alert', alertSpecSchema),
  Role: documentSchema('Role', roleSpecSchema),
  PipeCdcScaling: documentSchema('PipeCdcScaling', pipeCdcScalingSpecSchema),
} satisfies Record<Kind, JsonSchema>;

// ---------------------------------------------------------------- publishing

const JSON_SCHEMA_DIALECT = 'http://json-schema.org/draft-07/schema#';

function published(name: string, title: string, description: string, schema: JsonSchema): JsonSchema {
  return { $schema: JSON_SCHEMA_DIALECT, $id: `urn:stacksync:schema:v1:${name}`, title, description, ...(withTemplatedNames(schema) as JsonSchema) };
}

/**
 * A name as a template may write it: a name (`NAME_PATTERN`), or name characters with at least one
 * `${var}` reference (`errors-${service}-${severity}`) that a forEach item or a target's variable
 * replaces. Only the published schemas take it, so that an editor does not flag a valid forEach
 * manifest: the loader checks every name once substituted, against `NAME_PATTERN` itself.
 */
export const TEMPLATED_NAME_PATTERN = '^(?:[a-z0-9]([a-z0-9-]*[a-z0-9])?|(?=.*\\$\\{)(?:[a-z0-9-]|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\})+)$';

/** `schema` with every name pattern (`NAME_PATTERN`) turned into `TEMPLATED_NAME_PATTERN`; the rest as it is. */
function withTemplatedNames(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withTemplatedNames);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'pattern' && value === NAME_PATTERN ? TEMPLATED_NAME_PATTERN : withTemplatedNames(value)]));
}

/**
 * The files of `schemas/`, by file name. `scripts/write-schemas.mjs` writes them; a test checks
 * the committed files are equal, so they never go stale.
 */
export function publishedSchemas(): Record<string, JsonSchema> {
  const kinds = Object.fromEntries(
    RESOURCE_KINDS.map((kind) => [`${kind.toLowerCase()}.json`, published(kind.toLowerCase(), `stacksync ${kind} manifest`, KIND_DESCRIPTIONS[kind], DOCUMENT_SCHEMAS[kind])]),
  );
  return {
    ...kinds,
    'manifest.json': published('manifest', 'stacksync manifest', `Any stacksync manifest: a ${RESOURCE_KINDS.join(', ')}, chosen by kind.`, {
      oneOf: RESOURCE_KINDS.map((kind) => DOCUMENT_SCHEMAS[kind]),
    }),
    'config.json': published('config', 'stacksync config', 'The stacksync config file (config/stacksync.yaml).', configSchema),
  };
}
