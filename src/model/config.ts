/**
 * The validated, defaulted, frozen configuration (docs/reference/config.md).
 * Produced once by `config/load.ts` and passed in; nothing else reads `process.env`.
 */
import type { Static } from 'typebox';
import type { Kind, Variant } from './kinds.js';
import type { ApiProfile } from '../schema/enums.js';
import type {
  configSchemaOf,
  managedAuthSchema,
  NOTIFY_EVENTS,
  NOTIFY_PROVIDERS,
  rateLimitSchema,
  secretRefSchema,
  selfHostedAuthSchema,
  syncSchema,
} from '../schema/config.js';

/** The config file as written (schemas/config.json). */
export type ConfigFile = Static<ReturnType<typeof configSchemaOf<Kind>>>;
export type TargetFile = ConfigFile['targets'][number];
type SyncFile = Static<typeof syncSchema>;

/** The file once it passed its schema, which filled in the defaults of `sync` and `state`. */
export type DefaultedConfigFile = Omit<ConfigFile, 'sync' | 'state'> & {
  sync: Required<SyncFile>;
  state: NonNullable<ConfigFile['state']>;
};

/** A reference to a secret: an env var, a file, or (discouraged, `plan` warns) a plain string. */
export type SecretRef = Static<typeof secretRefSchema>;

/** Client-side pacing, with the variant's defaults filled in. */
export type RateLimit = Required<Static<typeof rateLimitSchema>>;

export type ManagedAuth = Static<typeof managedAuthSchema>;
export type SelfHostedAuth = Static<typeof selfHostedAuthSchema>;

/** `api` of a target with its default filled in. */
export interface TargetApi {
  /** Which spelling writes take; default `seed`. */
  profile: ApiProfile;
  /** Path segments the server names otherwise than the seed (`pipes`, `stack`); absent: the seed's. */
  paths?: { pipes?: string; stack?: string };
  /** The pipes' settings prefix on the server when not the seed's `engine_`. */
  settingsPrefix?: string;
}

type TargetBase = Pick<TargetFile, 'name' | 'baseUrl'> & {
  rateLimit: RateLimit;
  /** `suspend: true`: read and reported, never written. Absent: not suspended. */
  suspend?: true;
  /**
   * Values of `${NAME}` in this target's manifests: a plain string is a value; a `fromEnv` or
   * `fromFile` reference (anchored to the config's directory) is a secret. Absent: none.
   */
  vars?: Readonly<Record<string, SecretRef>>;
  /** Absent: the defaults (profile `seed`). */
  api?: TargetApi;
};
export interface ManagedTarget extends TargetBase {
  variant: 'managed';
  organizationId: string;
  serviceId: string;
  auth: ManagedAuth;
}
export interface SelfHostedTarget extends TargetBase {
  variant: 'self-hosted';
  auth: SelfHostedAuth;
}
export type Target = ManagedTarget | SelfHostedTarget;

/** `sync` of the file with its defaults, the interval parsed. */
export interface SyncSettings extends Omit<Required<SyncFile>, 'interval' | 'settleWindow' | 'propose'> {
  /** `sync.propose`, with its defaults; present exactly when `drift` is `propose`. */
  propose?: ProposeSettings;
  /** Periodic resync, milliseconds (config: `5m` style). */
  intervalMs: number;
  /**
   * How long a create whose answer never came may still land, milliseconds (config
   * `settleWindow`, default 2 minutes): later runs wait for it that long before creating again.
   */
  lateCreateWindowMs: number;
}

/** `sync.propose` of the file, its token anchored and its branch defaulted (docs/daemon.md, "Drift proposed as a branch"). */
export interface ProposeSettings {
  author: { name: string; email: string };
  /** The branch the daemon syncs from: the pull request's base, never pushed to. */
  base: string;
  /** The proposal branch, `{target}` standing for the target's name. */
  branch: string;
  /** Where to push; absent: the manifests checkout's `origin`. */
  remote?: string;
  /** An https push credential; absent for ssh and file remotes. */
  token?: SecretRef;
}

export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];
export type NotifyProvider = (typeof NOTIFY_PROVIDERS)[number];

/** One `notify` entry, its secret references anchored to the config's directory. */
export interface NotifierSettings {
  provider: NotifyProvider;
  /** webhook, slack: where to POST (a secret: Slack URLs carry a token). */
  url?: SecretRef;
  /** webhook: key of the `X-Stacksync-Signature: sha256=…` HMAC of the body. */
  secret?: SecretRef;
  /** github: a token allowed to create commit statuses. */
  token?: SecretRef;
  /** github: `owner/name`. */
  repository?: string;
  /** github: API base URL without a trailing `/` (default https://api.github.com). */
  apiUrl?: string;
  /** Events it sends (default: all). */
  events: readonly NotifyEvent[];
  /** Targets whose events it sends; absent: all. */
  targets?: readonly string[];
  /** One delivery attempt's time limit, ms (default 10 s). */
  timeoutMs: number;
}

/** `state:` of the file, normalised (docs/ownership.md, "Where the state lives"). */
export type StateSettings =
  | { backend: 'file'; path: string }
  | { backend: 'postgres'; url: SecretRef; name: string }
  | { backend: 'kubernetes'; namespace: string; name: string; kubeconfig?: string; context?: string }
  | { backend: 's3'; bucket: string; key: string; region: string; endpoint?: string; forcePathStyle: boolean };

/**
 * A tenant of `tenants:` (docs/many-services.md#tenants): the manifests under its paths may name
 * only its targets and kinds, and what they create is recorded as its own.
 */
export interface Tenant {
  name: string;
  /** Globs relative to the manifests directory (`config/tenants.ts` matches them). */
  paths: readonly string[];
  targets: readonly string[];
  kinds: readonly Kind[];
}

export interface Config {
  /** Absolute path of the file this came from; undefined for the embedded default. */
  file?: string;
  targets: Target[];
  defaultTarget: string;
  sync: SyncSettings;
  /** Where the state is kept: a file path resolved against the working directory, or a database. */
  state: StateSettings;
  /** Notification providers of the daemon; absent when none. */
  notify?: readonly NotifierSettings[];
  /** Bearer token of `POST /-/suspend` and `/-/resume`; absent: those endpoints are off. */
  controlToken?: SecretRef;
  /** The token `POST /-/reload` requires (bearer or `?token=`); absent: a header no web page can send (docs/daemon.md). */
  reloadToken?: SecretRef;
  /** `daemon:` of the file; absent when it has none. */
  daemon?: DaemonSettings;
  /** `tenants:` of the file; absent when it has none (every manifest may touch everything). */
  tenants?: readonly Tenant[];
}

/** Where the daemon serves and what its status page links to. */
export interface DaemonSettings {
  /** `HOST:PORT` (`run --listen` wins over it); absent: the default. */
  listen?: string;
  /** Prefix of links to manifest lines; `{revision}` stands for the synced commit. */
  repositoryUrl?: string;
}

/** Credentials after resolving the secret references; held in memory only. */
export type Credentials =
  | { variant: 'managed'; keyId: string; keySecret: string }
  | { variant: 'self-hosted'; token: string };

/** What a client needs to talk to one target. */
export interface TargetConnection {
  name: string;
  variant: Variant;
  baseUrl: string;
  organizationId?: string;
  serviceId?: string;
  credentials: Credentials;
  rateLimit: RateLimit;
  /** Which spelling writes take; default `seed`. */
  api?: TargetApi;
}
