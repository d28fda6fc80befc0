/**
 * The JSON Schema of the config file (design.md, "Targets and configuration"), and of a secret
 * reference, which the manifest schemas reuse. Published as `schemas/config.json`.
 */
import { DEFAULT_RATE_LIMITS } from './enums.js';
import type { JsonSchema } from './api.js';

/** The JSON Schema pattern of a duration (`30s`, `5m`, `1h30m`, `500ms`, `1d`). */
export const DURATION_PATTERN = '^([0-9]+(ms|s|m|h|d))+$';

/** Environment variable names as POSIX shells accept them. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
/** Target names: they appear in manifests, metric labels and the state file. */
export const TARGET_NAME_PATTERN = '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$';

export const SECRET_REF_MESSAGE = 'must be {fromEnv: NAME}, {fromFile: PATH} or a plain string';

/**
 * `{ fromEnv: NAME }`, `{ fromFile: PATH }` or a plain string. Written as one schema (not a oneOf)
 * so a mistake gives one error, not one per alternative. Always embedded by reference: the error
 * mapper recognises it by identity.
 */
export const secretRefSchema: JsonSchema = {
  description:
    'A secret: {fromEnv: NAME} reads an environment variable; {fromFile: PATH} reads a file (relative to the file that names it; one trailing newline is dropped). A plain string works but is warned about.',
  type: ['string', 'object'],
  minLength: 1,
  properties: {
    fromEnv: { type: 'string', pattern: ENV_NAME_PATTERN, description: 'Name of the environment variable holding the secret.' },
    fromFile: { type: 'string', minLength: 1, description: 'Path of the file holding the secret.' },
  },
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
};

const uuid = { type: 'string', format: 'uuid' };

function object(properties: Record<string, unknown>, required: string[] = [], extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}

const rateLimitSchema = object(
  {
    requests: { type: 'integer', minimum: 1, description: 'Requests allowed per window.' },
    perSeconds: { type: 'number', exclusiveMinimum: 0, description: 'Length of the window, in seconds.' },
    concurrency: { type: 'integer', minimum: 1, description: 'Requests in flight at once.' },
  },
  [],
  {
    description: `Client-side pacing; members left out take the variant's default (managed ${describeRate('managed')}, self-hosted ${describeRate('self-hosted')}).`,
  },
);

function describeRate(variant: keyof typeof DEFAULT_RATE_LIMITS): string {
  const rate = DEFAULT_RATE_LIMITS[variant];
  return `${rate.requests} per ${rate.perSeconds} s, concurrency ${rate.concurrency}`;
}

const managedAuthSchema = object(
  { keyId: secretRefSchema, keySecret: secretRefSchema },
  ['keyId', 'keySecret'],
);
const selfHostedAuthSchema = object({ token: secretRefSchema }, ['token']);

const targetSchema: JsonSchema = object(
  {
    name: { type: 'string', pattern: TARGET_NAME_PATTERN, description: 'Unique name; manifests pick it with metadata.target.' },
    variant: { enum: ['managed', 'self-hosted'], description: 'managed: the cloud control API (HTTP Basic); self-hosted: the observability API (Bearer).' },
    baseUrl: { type: 'string', format: 'uri', pattern: '^https?://', description: 'API base URL, e.g. https://api.example.com (no trailing path needed).' },
    organizationId: { ...uuid, description: 'Organization that owns the service (managed only).' },
    serviceId: { ...uuid, description: 'Database service whose pipes and stack are managed (managed only).' },
    auth: { type: 'object', description: 'managed: {keyId, keySecret}; self-hosted: {token}. Each is a secret reference.' },
    rateLimit: rateLimitSchema,
  },
  ['name', 'variant', 'baseUrl', 'auth'],
  {
    allOf: [
      {
        if: { properties: { variant: { const: 'managed' } }, required: ['variant'] },
        then: { required: ['organizationId', 'serviceId'], properties: { auth: managedAuthSchema } },
      },
      {
        if: { properties: { variant: { const: 'self-hosted' } }, required: ['variant'] },
        then: { properties: { organizationId: false, serviceId: false, auth: selfHostedAuthSchema } },
      },
    ],
  },
);

/** Defaults of `sync`, also written into the schema so editors show them. */
export const SYNC_DEFAULTS = {
  interval: '5m',
  drift: 'heal',
  prune: false,
  maxDeletes: 10,
  maxDeletePercent: 25,
  adopt: false,
} as const;

export const DEFAULT_STATE_PATH = '.stacksync/state.json';

const syncSchema = object(
  {
    interval: { type: 'string', pattern: DURATION_PATTERN, default: SYNC_DEFAULTS.interval, description: 'Periodic resync (drift detection), e.g. 30s, 5m, 1h.' },
    drift: { enum: ['heal', 'report'], default: SYNC_DEFAULTS.drift, description: 'heal: apply to undo drift; report: only show it.' },
    prune: { type: 'boolean', default: SYNC_DEFAULTS.prune, description: 'Delete what stacksync created and Git no longer has.' },
    maxDeletes: { type: 'integer', minimum: 0, default: SYNC_DEFAULTS.maxDeletes, description: 'Refuse a plan that deletes more than this, unless --force.' },
    maxDeletePercent: {
      type: 'number',
      minimum: 0,
      maximum: 100,
      default: SYNC_DEFAULTS.maxDeletePercent,
      description: "Refuse a plan that deletes more than this share (percent) of a target's managed resources, unless --force.",
    },
    adopt: { type: 'boolean', default: SYNC_DEFAULTS.adopt, description: 'Take over same-named live resources not created by stacksync.' },
  },
  [],
  { default: {}, description: 'How the daemon and apply behave.' },
);

/** The config file schema, with defaults (ajv `useDefaults` fills them). */
export const configSchema: JsonSchema = object(
  {
    targets: { type: 'array', minItems: 1, items: targetSchema, description: 'The API endpoints manifests are applied to.' },
    defaultTarget: { type: 'string', minLength: 1, description: 'Target of manifests without metadata.target; needed when there are several targets.' },
    sync: syncSchema,
    state: { type: 'string', minLength: 1, default: DEFAULT_STATE_PATH, description: 'State file (inventory, secret hashes), relative to the working directory.' },
  },
  ['targets'],
);

/** Readable descriptions of the patterns above, for error messages. */
export const CONFIG_PATTERN_MESSAGES: Record<string, string> = {
  [ENV_NAME_PATTERN]: 'must be an environment variable name (letters, digits and _, not starting with a digit)',
  [TARGET_NAME_PATTERN]: "must be letters, digits, '.', '_' and '-', starting and ending with a letter or digit",
  [DURATION_PATTERN]: 'must be a duration like 30s, 5m, 1h or 1h30m',
  '^https?://': 'must start with http:// or https://',
};
