/**
 * The JSON Schema of the config file (docs/reference/config.md), and of a secret
 * reference, which the manifest schemas reuse. Published as `schemas/config.json`; `model/config.ts`
 * derives the file's type from it.
 */
import { Type } from 'typebox';
import { object, oneOf, optional, readable } from './build.js';
import { API_PROFILES, DEFAULT_API_PROFILE, DEFAULT_RATE_LIMITS, TARGET_VARIANTS } from './enums.js';

/** The JSON Schema pattern of a duration (`30s`, `5m`, `1h30m`, `500ms`, `1d`). */
export const DURATION_PATTERN = '^([0-9]+(ms|s|m|h|d))+$';

/** Environment variable names as POSIX shells accept them. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
/** Target names: they appear in manifests, metric labels and the state file. */
export const TARGET_NAME_PATTERN = '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$';

export const SECRET_REF_MESSAGE = 'must be {fromEnv: NAME}, {fromFile: PATH} or a plain string';

/**
 * What a secret reference holds. Stated here rather than inferred: the schema below is one object
 * schema over two JSON types, a form TypeBox cannot infer a type from.
 */
export type SecretRefValue = { fromEnv: string } | { fromFile: string } | string;

/**
 * `{ fromEnv: NAME }`, `{ fromFile: PATH }` or a plain string. Written as one schema (not a oneOf)
 * so a mistake gives one error, not one per alternative. Always embedded by reference: the error
 * mapper recognises it by identity.
 */
export const secretRefSchema = readable(
  Type.Unsafe<SecretRefValue>({
    description:
      'A secret: {fromEnv: NAME} reads an environment variable; {fromFile: PATH} reads a file ' +
      '(relative to the file that names it; one trailing newline is dropped). A plain string works but ' +
      'is warned about.',
    type: ['string', 'object'],
    minLength: 1,
    properties: {
      fromEnv: Type.String({
        pattern: ENV_NAME_PATTERN,
        description: 'Name of the environment variable holding the secret.',
      }),
      fromFile: Type.String({ minLength: 1, description: 'Path of the file holding the secret.' }),
    },
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
  }),
);

export const rateLimitSchema = object(
  optional({
    requests: Type.Integer({ minimum: 1, description: 'Requests allowed per window.' }),
    perSeconds: Type.Number({ exclusiveMinimum: 0, description: 'Length of the window, in seconds.' }),
    concurrency: Type.Integer({ minimum: 1, description: 'Requests in flight at once.' }),
  }),
  {
    description:
      `Client-side pacing; members left out take the variant's default (managed ` +
      `${describeRate('managed')}, self-hosted ${describeRate('self-hosted')}).`,
  },
);

function describeRate(variant: keyof typeof DEFAULT_RATE_LIMITS): string {
  const rate = DEFAULT_RATE_LIMITS[variant];
  return `${rate.requests} per ${rate.perSeconds} s, concurrency ${rate.concurrency}`;
}

/** A path segment a server may name otherwise (the product's name where the seed writes `pipes`). */
export const PATH_SEGMENT_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]*$';
/** A settings prefix (the engine's name where the seed writes `engine_`). */
export const SETTINGS_PREFIX_PATTERN = '^[a-z][a-z0-9]*_$';

/** What the target's API is: which spelling its writes take, and how its server names paths and settings. */
export const targetApiSchema = object(
  optional({
    profile: oneOf(API_PROFILES, {
      default: DEFAULT_API_PROFILE,
      description:
        'seed: the API as the seed spec describes it (alert source `search`). current: the real services ' +
        'of today (alert source `saved_search`, tiles answered as `config`). Reading accepts both; this ' +
        'picks what is written.',
    }),
    paths: object(
      optional({
        pipes: Type.String({
          pattern: PATH_SEGMENT_PATTERN,
          description: 'Segment of the pipes routes (…/services/{id}/<pipes>, …/<pipes>CdcScaling); default pipes.',
        }),
        stack: Type.String({
          pattern: PATH_SEGMENT_PATTERN,
          description: 'Segment of the observability routes (…/services/{id}/<stack>/dashboards); default stack.',
        }),
      }),
      {
        description: "Path segments the target's server uses where the seed writes pipes and stack (managed targets).",
      },
    ),
    settingsPrefix: Type.String({
      pattern: SETTINGS_PREFIX_PATTERN,
      description:
        "Prefix of the pipes' engine settings on the target's server, where the seed writes engine_ (e.g. clickhouse_).",
    }),
  }),
  { description: 'What the API of this target is; set profile: current for the real services of today.' },
);

export const managedAuthSchema = object({ keyId: secretRefSchema, keySecret: secretRefSchema });
export const selfHostedAuthSchema = object({ token: secretRefSchema });

const targetSchema = object(
  {
    name: Type.String({
      pattern: TARGET_NAME_PATTERN,
      description: 'Unique name; manifests pick it with metadata.target.',
    }),
    variant: oneOf(TARGET_VARIANTS, {
      description: 'managed: the cloud control API (HTTP Basic); self-hosted: the observability API (Bearer).',
    }),
    baseUrl: Type.String({
      format: 'uri',
      pattern: '^https?://',
      description: 'API base URL, e.g. https://api.example.com (no trailing path needed).',
    }),
    ...optional({
      organizationId: Type.String({
        format: 'uuid',
        description: 'Organization that owns the service (managed only).',
      }),
      serviceId: Type.String({
        format: 'uuid',
        description: 'Database service whose pipes and stack are managed (managed only).',
      }),
    }),
    // Which members auth holds depends on the variant: the `then` schemas below check them.
    auth: Type.Unsafe<Record<string, SecretRefValue>>({
      type: 'object',
      description: 'managed: {keyId, keySecret}; self-hosted: {token}. Each is a secret reference.',
    }),
    rateLimit: Type.Optional(rateLimitSchema),
    vars: Type.Optional(
      Type.Unsafe<Record<string, SecretRefValue>>({
        type: 'object',
        propertyNames: { pattern: ENV_NAME_PATTERN },
        additionalProperties: secretRefSchema,
        description:
          'Variables for ${NAME} in manifest string values of this target. A plain string is a value; ' +
          '{fromEnv: NAME} or {fromFile: PATH} is a secret, shown as (sensitive) in every output.',
      }),
    ),
    suspend: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Read and report this target, never write to it (no heal, no prune); POST /-/suspend does the same at run time.',
      }),
    ),
    api: Type.Optional(targetApiSchema),
  },
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
  settleWindow: '2m',
  markManaged: false,
} as const;

/** The tag `sync.markManaged` puts on what stacksync manages, where the kind has tags (docs/ownership.md, "The managed-by mark"). */
export const MANAGED_MARK = 'managed-by:stacksync';

/** The branch a drift proposal goes to, `{target}` standing for the target's name (docs/daemon.md, "Drift proposed as a branch"). */
export const DEFAULT_PROPOSE_BRANCH = 'stacksync/drift/{target}';

export const DEFAULT_STATE_PATH = '.stacksync/state.json';

/** The state's name in a database when the config gives none. */
export const DEFAULT_STATE_NAME = 'default';

/** The state backends a config may name (docs/ownership.md, "Where the state lives"). */
export const STATE_BACKENDS = ['file', 'postgres', 'kubernetes', 's3'] as const;

/** What `state:` holds: a path, or a backend with its settings. Stated, as for secret references: one schema over two JSON types. */
export type StateSettingsValue =
  | string
  | { backend: 'file'; path: string }
  | { backend: 'postgres'; url: SecretRefValue; name?: string }
  | { backend: 'kubernetes'; namespace: string; name: string; kubeconfig?: string; context?: string }
  | { backend: 's3'; bucket: string; key: string; region: string; endpoint?: string; forcePathStyle?: boolean };

/**
 * `state: PATH`, or `{ backend: file, path }`, `{ backend: postgres, url, name }`, `{ backend: kubernetes,
 * namespace, name, … }` or `{ backend: s3, bucket, key, region, … }` (docs/ownership.md,
 * "Where the state lives"). One schema, not a oneOf, so a mistake gives one error; which members
 * each backend needs is a rule of the config loader.
 */
export const stateSettingsSchema = readable(
  Type.Unsafe<StateSettingsValue>({
    description:
      'Where the state (inventory, secret hashes, create intents) is kept: a file path relative to the ' +
      'working directory, or { backend: file | postgres | kubernetes | s3, … }.',
    type: ['string', 'object'],
    minLength: 1,
    default: DEFAULT_STATE_PATH,
    required: ['backend'],
    properties: {
      backend: {
        type: 'string',
        enum: [...STATE_BACKENDS],
        description:
          'file: the state file with its journal, lock and key beside it (the default); postgres: tables ' +
          'stacksync creates in a PostgreSQL database, locked with an advisory lock and fenced by a ' +
          'generation; kubernetes: Secrets in a namespace, locked with a Lease; s3: one object in a ' +
          'bucket, kept by conditional writes, locked by a lock object beside it.',
      },
      path: Type.String({ minLength: 1, description: 'file: the state file, relative to the working directory.' }),
      url: secretRefSchema,
      name: Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "postgres: the state's name in the tables, so several installations can share a database " +
          '(default: default); kubernetes: the name of its Secrets and Lease (a DNS label of at most 40 ' +
          'characters).',
      }),
      namespace: Type.String({
        minLength: 1,
        maxLength: 63,
        description: 'kubernetes: the namespace of the Secrets and the Lease.',
      }),
      kubeconfig: Type.String({
        minLength: 1,
        description:
          "kubernetes: a kubeconfig file, relative to the config file (default: KUBECONFIG, else the pod's service account, else ~/.kube/config).",
      }),
      context: Type.String({
        minLength: 1,
        description: 'kubernetes: a context of the kubeconfig other than its current one.',
      }),
      bucket: Type.String({
        minLength: 3,
        maxLength: 63,
        description: 's3: the bucket (private: the HMAC key object beside the state is a secret).',
      }),
      key: Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          "s3: the state object's key; the lock, HMAC key and probe objects are <key>.lock, <key>.key and " +
          "<key>.probe. Credentials come from the AWS SDK's default chain (environment, profile, web " +
          'identity, instance role), never from the config.',
      }),
      region: Type.String({ minLength: 1, description: "s3: the bucket's region, e.g. eu-west-1." }),
      endpoint: Type.String({
        format: 'uri',
        description:
          's3: an S3-compatible endpoint instead of AWS S3 (it must refuse a second If-None-Match: * create with 412, which stacksync checks).',
      }),
      forcePathStyle: Type.Boolean({
        description:
          's3: address objects as <endpoint>/<bucket>/<key>, as most S3-compatible stores want (default false).',
      }),
    },
    additionalProperties: false,
  }),
);

/** heal: apply to undo drift; report: only show it; propose: commit it to a branch for review. */
export const DRIFT_MODES = ['heal', 'report', 'propose'] as const;

/** A git branch name as `git check-ref-format --branch` takes it, with `{target}` allowed. */
export const BRANCH_PATTERN =
  '^(?!/|.*([/.]\\.|//|@\\{|\\\\|\\.lock(/|$)))[^\\x00-\\x20~^:?*\\[\\x7f]*[^\\x00-\\x20~^:?*\\[\\x7f/.]$';

/** `sync.propose`: where and as whom the daemon commits drift (docs/daemon.md, "Drift proposed as a branch"). */
const proposeSchema = object(
  {
    author: object(
      {
        name: Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'Author and committer name of the proposal commits.',
        }),
        email: Type.String({
          minLength: 3,
          maxLength: 320,
          pattern: '^[^\\s<>@]+@[^\\s<>@]+$',
          description: 'Author and committer email of the proposal commits.',
        }),
      },
      { description: 'Who the proposal commits are by.' },
    ),
    base: Type.String({
      pattern: BRANCH_PATTERN,
      maxLength: 250,
      description: "The branch the daemon syncs from: the pull request's base. The proposal branch may never be it.",
    }),
    ...optional({
      branch: Type.String({
        pattern: BRANCH_PATTERN,
        maxLength: 250,
        default: DEFAULT_PROPOSE_BRANCH,
        description:
          "The branch each target's drift is committed to; {target} stands for the target's name (default stacksync/drift/{target}).",
      }),
      remote: Type.String({
        minLength: 1,
        maxLength: 2000,
        description:
          "Where the branch is pushed: a git URL (https://, ssh://, file://, or a path). Default: the manifests checkout's origin.",
      }),
      token: secretRefSchema,
    }),
  },
  {
    description:
      "With drift: propose, the daemon commits a drifted resource's live value to a branch instead of " +
      'undoing it. token: an https push credential (a secret reference), sent as an HTTP header, never ' +
      'in a URL or a command line; ssh and file remotes take none.',
  },
);

export const syncSchema = object(
  optional({
    interval: Type.String({
      pattern: DURATION_PATTERN,
      default: SYNC_DEFAULTS.interval,
      description: 'Periodic resync (drift detection), e.g. 30s, 5m, 1h.',
    }),
    drift: oneOf(DRIFT_MODES, {
      default: SYNC_DEFAULTS.drift,
      description:
        'heal: apply to undo drift; report: only show it; propose: commit the live value to a branch of the manifests repository (sync.propose) and leave it.',
    }),
    prune: Type.Boolean({
      default: SYNC_DEFAULTS.prune,
      description: 'Delete what stacksync created and Git no longer has.',
    }),
    maxDeletes: Type.Integer({
      minimum: 0,
      default: SYNC_DEFAULTS.maxDeletes,
      description: 'Refuse a plan that deletes more than this, unless --force.',
    }),
    maxDeletePercent: Type.Number({
      minimum: 0,
      maximum: 100,
      default: SYNC_DEFAULTS.maxDeletePercent,
      description:
        "Refuse a plan that deletes more than this share (percent) of a target's managed resources, unless --force.",
    }),
    adopt: Type.Boolean({
      default: SYNC_DEFAULTS.adopt,
      description: 'Take over same-named live resources not created by stacksync.',
    }),
    settleWindow: Type.String({
      pattern: DURATION_PATTERN,
      default: SYNC_DEFAULTS.settleWindow,
      description:
        'How long a create whose answer never came (timeout, cut connection, 5xx) may still land: later ' +
        'runs wait this long before creating it again, and take it back as ours if it lands. Keep it at ' +
        'least twice the request time limit (30 s headers + 30 s body).',
    }),
    markManaged: Type.Boolean({
      default: SYNC_DEFAULTS.markManaged,
      description:
        `Tag what stacksync creates or adopts ${MANAGED_MARK}, where the kind has tags, so people in the ` +
        `UI know it is managed from Git; the tag is never a difference (plan, drift, export).`,
    }),
    propose: proposeSchema,
  }),
  { default: {}, description: 'How the daemon and apply behave.' },
);

/** What a notification can be about (Flux's notification-controller is the model). */
export const NOTIFY_EVENTS = ['applied', 'failed', 'drift', 'pruneRefused', 'recovered'] as const;
/** Where notifications go: a generic JSON POST, a Slack incoming webhook, or GitHub commit statuses. */
export const NOTIFY_PROVIDERS = ['webhook', 'slack', 'github'] as const;

const notifierSchema = object(
  {
    provider: oneOf(NOTIFY_PROVIDERS, {
      description:
        'webhook: JSON POST; slack: incoming-webhook message; github: commit status on the applied revision.',
    }),
    ...optional({
      url: secretRefSchema,
      secret: secretRefSchema,
      token: secretRefSchema,
      repository: Type.String({
        pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$',
        description: 'github: owner/name of the repository the manifests come from.',
      }),
      apiUrl: Type.String({
        format: 'uri',
        pattern: '^https?://',
        description: 'github: API base URL (default https://api.github.com; GitHub Enterprise: https://HOST/api/v3).',
      }),
      events: Type.Array(oneOf(NOTIFY_EVENTS), {
        minItems: 1,
        uniqueItems: true,
        description: 'Events sent (default: all). github reports the sync of a revision and ignores this.',
      }),
      targets: Type.Array(Type.String({ pattern: TARGET_NAME_PATTERN }), {
        minItems: 1,
        uniqueItems: true,
        description: 'Targets whose events are sent (default: all).',
      }),
      timeout: Type.String({
        pattern: DURATION_PATTERN,
        default: '10s',
        description: 'Longest one delivery attempt may take.',
      }),
    }),
  },
  {
    description:
      'A notification provider. url (webhook, slack; a secret reference, since Slack URLs carry a ' +
      'token), secret (webhook: HMAC-SHA256 key of the X-Stacksync-Signature header), token and ' +
      'repository (github).',
    allOf: [
      {
        if: { properties: { provider: { enum: ['webhook', 'slack'] } }, required: ['provider'] },
        then: { required: ['url'], properties: { token: false, repository: false, apiUrl: false } },
      },
      {
        if: { properties: { provider: { const: 'slack' } }, required: ['provider'] },
        then: { properties: { secret: false } },
      },
      {
        if: { properties: { provider: { const: 'github' } }, required: ['provider'] },
        then: { required: ['token', 'repository'], properties: { url: false, secret: false } },
      },
    ],
  },
);

/** The daemon's control endpoints: suspend and resume (off unless a token is set), and who may reload. */
const controlSchema = object(
  optional({
    token: secretRefSchema,
    reloadToken: secretRefSchema,
  }),
  {
    minProperties: 1,
    description:
      'token: bearer token that POST /-/suspend and /-/resume require; without it those endpoints are ' +
      'off. reloadToken: the token POST /-/reload then requires (Authorization: Bearer, or ?token= for ' +
      "git-sync's --webhook-url); without it a reload needs Content-Type: application/json, " +
      "git-sync's Gitsync-Hash header or token.",
  },
);

/** `HOST:PORT`, `[IPv6]:PORT` or `:PORT`, a port 0-65535: what `run --listen` takes. */
export const LISTEN_PATTERN =
  '^(\\[[0-9a-fA-F:.]+\\]|[^:\\[\\]]*):([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$';

/** Where the daemon serves, and how its status page links to manifests. */
const daemonSchema = object(
  optional({
    listen: Type.String({
      pattern: LISTEN_PATTERN,
      description:
        "HOST:PORT of the daemon's HTTP endpoints and status page (default 0.0.0.0:9464; run --listen wins over it); stacksync status asks it.",
    }),
    repositoryUrl: Type.String({
      pattern: '^https?://',
      description:
        "Prefix of links from the status page to manifest lines: the manifest's path in its repository and #L<line> are added, and {revision} is replaced by the synced commit, e.g. https://github.com/OWNER/REPO/blob/{revision}/",
    }),
  }),
  { description: 'The daemon (stacksync run): its listen address and the links of its status page.' },
);

/** Tenant names: they appear in plans, headings and the state file. */
export const TENANT_NAME_PATTERN = TARGET_NAME_PATTERN;

/**
 * A tenant: the manifests under some paths of the manifests directory, and the targets and kinds
 * (of `kinds`) they may touch (docs/many-services.md#tenants).
 */
function tenantSchemaOf<K extends string>(kinds: readonly K[]) {
  return object(
    {
      name: Type.String({
        pattern: TENANT_NAME_PATTERN,
        description:
          'The tenant (a team): plans group its changes under it, and the state records what it created as its own.',
      }),
      paths: Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description:
          "Globs, relative to the manifests directory, of the tenant's manifest files: * (within a " +
          'directory), ** (any depth), ?; a path ending in / is everything under it (teams/payments/).',
      }),
      targets: Type.Array(Type.String({ pattern: TARGET_NAME_PATTERN }), {
        minItems: 1,
        uniqueItems: true,
        description: "The targets the tenant's manifests may name.",
      }),
      kinds: Type.Array(oneOf(kinds), {
        minItems: 1,
        uniqueItems: true,
        description: "The kinds the tenant's manifests may be.",
      }),
    },
    { description: 'A tenant: which manifest files are its own (paths), and the targets and kinds they may touch.' },
  );
}

/**
 * The config file schema, with defaults (ajv `useDefaults` fills them), for the kinds the registry
 * holds (`kinds/registry.ts`'s `KINDS`: the kinds are not known below `kinds/`).
 */
export function configSchemaOf<K extends string>(kinds: readonly K[]) {
  return object({
    targets: Type.Array(targetSchema, { minItems: 1, description: 'The API endpoints manifests are applied to.' }),
    ...optional({
      defaultTarget: Type.String({
        minLength: 1,
        description: 'Target of manifests without metadata.target; needed when there are several targets.',
      }),
      sync: syncSchema,
      state: stateSettingsSchema,
      notify: Type.Array(notifierSchema, {
        description: 'Where the daemon sends notifications (applied, failed, drift, pruneRefused, recovered).',
      }),
      control: controlSchema,
      daemon: daemonSchema,
      tenants: Type.Array(tenantSchemaOf(kinds), {
        minItems: 1,
        description:
          'Tenants (teams) that bound what the manifests under their paths may touch; with tenants, every manifest must be under the paths of exactly one.',
      }),
    }),
  });
}

/** Readable descriptions of the patterns above, for error messages. */
export const CONFIG_PATTERN_MESSAGES: Record<string, string> = {
  [ENV_NAME_PATTERN]: 'must be an environment variable name (letters, digits and _, not starting with a digit)',
  [TARGET_NAME_PATTERN]: "must be letters, digits, '.', '_' and '-', starting and ending with a letter or digit",
  [DURATION_PATTERN]: 'must be a duration like 30s, 5m, 1h or 1h30m',
  '^https?://': 'must start with http:// or https://',
  [PATH_SEGMENT_PATTERN]: "must be one path segment: letters, digits, '_' and '-'",
  [SETTINGS_PREFIX_PATTERN]: "must be lowercase letters and digits ending with '_', like engine_",
  [LISTEN_PATTERN]: 'must be HOST:PORT, [IPv6]:PORT or :PORT with a port 0-65535',
  [BRANCH_PATTERN]:
    'must be a git branch name (no spaces, ~ ^ : ? * [ \\, .., //, @{, or a leading or trailing / or .)',
};
