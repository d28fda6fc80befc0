/**
 * The emulator's state: plain records, the shapes the API returns. `EmulatorData` is the
 * serialised form, used alike for `--data` files and `GET /_emulator/dump`; it never holds a
 * secret in clear (key secrets and tokens as salted hashes, pipe credentials as fingerprints).
 *
 * Dashboards and alerts come in the shape of the emulator's profile: the seed's (`seed`) or the
 * real services' of today (`current`, with sources, webhooks and saved searches of their own).
 */
import type { Variant } from '../model/kinds.js';
import type { IdFormat } from './ids.js';

/** Whose behaviour the emulator serves: the seed spec's (`seed`) or the real services' of today (`current`). */
export type Profile = 'seed' | 'current';
export const PROFILES: readonly Profile[] = ['seed', 'current'];

export type ServiceState = 'running' | 'idle' | 'stopped';

/** A pipe as the managed variant returns it (seed 2.2); credentials live apart, as fingerprints. */
export interface PipeResource {
  id: string;
  serviceId: string;
  name: string;
  /** Free text a create may set (current profile); no PATCH changes it. */
  description?: string;
  state: string;
  scaling?: Record<string, number>;
  source: Record<string, Record<string, unknown>>;
  destination: Record<string, unknown>;
  fieldMappings?: { sourceField: string; destinationField: string }[];
  settings?: Record<string, number | boolean>;
  createdAt: string;
  updatedAt: string;
}

/** Write-only members of one pipe by path (`kafka.credentials`), as `sha256:<hex>` fingerprints. */
export type PipeSecrets = Record<string, string>;

/** A state a pipe is still to reach, and when (ms since the epoch). */
export interface PipeStep {
  state: string;
  at: number;
}

/** Where a pipe of the current profile is going: the states still to come, in order. */
export interface PipeLifecycle {
  steps: PipeStep[];
  /** Tables were added while it was paused: it passes through `Snapshot` when it runs again. */
  snapshotPending?: boolean;
}

/** The service-wide sizing shared by its database pipes (`…/pipesCdcScaling`). */
export interface CdcScaling {
  replicaCpuMillicores: number;
  replicaMemoryGb: number;
}

/**
 * What the current profile keeps about a service's pipes beyond the resources themselves: their
 * pending state changes, the CDC scaling (absent until a database pipe has been provisioned), and
 * the names of pipes whose provisioning is made to fail (seed `failPipes`).
 */
export interface PipeRuntime {
  lifecycles: Map<string, PipeLifecycle>;
  cdcScaling?: CdcScaling & { pending?: CdcScaling & { at: number } };
  failPipes: string[];
}

/** `PipeRuntime` as saved in the data file and shown by `GET /_emulator/dump`. */
export interface PipeRuntimeData {
  lifecycles: Record<string, PipeLifecycle>;
  cdcScaling?: CdcScaling & { pending?: CdcScaling & { at: number } };
  failPipes?: string[];
}

export interface TileResource {
  id: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  asRatio?: boolean;
  series: Record<string, unknown>[];
}

export interface DashboardResource {
  id: string;
  name: string;
  tiles: TileResource[];
  tags: string[];
  team: string;
  createdAt: string;
  updatedAt: string;
}

export interface AlertResource {
  id: string;
  name?: string;
  message?: string;
  threshold: number;
  interval: string;
  thresholdType: string;
  source: string;
  channel: { type: string; webhookId?: string };
  groupBy?: string;
  state: string;
  team: string;
  tileId?: string;
  dashboard?: string;
  savedSearch?: string;
  silenced: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface DataSourceResource {
  id: string;
  name: string;
  kind: string;
}

/** Write-only members of one resource (a webhook's headers and query parameters, a connection's password) by path, as `sha256:<hex>` fingerprints. */
export type StackSecrets = Record<string, string>;

/** The dashboards and alerts of one owner under the seed profile: a managed service's stack, or a self-hosted team. */
export interface SeedWorkspace {
  profile: 'seed';
  /** Service id or team id; returned as the `team` of its dashboards and alerts. */
  owner: string;
  idFormat: IdFormat;
  /** The managed `…/stack/sources` list; teams have none under this profile. */
  sources: DataSourceResource[];
  dashboards: Map<string, DashboardResource>;
  alerts: Map<string, AlertResource>;
}

/**
 * Each stack kind's collection in a workspace of the current profile, declared by the kind's own
 * file (`current/<kind>.ts`) by augmenting this interface, so a new kind touches only its file.
 */
// biome-ignore lint/suspicious/noEmptyInterface: each kind's file fills it in by declaration merging
export interface CurrentCollections {}

/** The same under the current profile, with the kinds the real services added (`CurrentCollections`). */
export interface CurrentWorkspace extends CurrentCollections {
  profile: 'current';
  /** Service id or team id; returned as the `teamId` of its alerts and saved searches. */
  owner: string;
  /** Who serves it (not saved: services are managed, teams self-hosted); the rules that differ read it. */
  variant: Variant;
  /** Write-only members by the id of the webhook or connection holding them. */
  secrets: Map<string, StackSecrets>;
}

export type Workspace = SeedWorkspace | CurrentWorkspace;

/**
 * The stack a service or team holds, as the profile's routes expect it. The route tables only
 * hand an owner to its own profile's rules, so a mismatch is a bug in the emulator, not a 4xx.
 */
export function stackOf<P extends Workspace['profile']>(
  owner: { id: string; stack: Workspace },
  profile: P,
): Extract<Workspace, { profile: P }> {
  if (owner.stack.profile !== profile)
    throw new Error(`${owner.id} holds a ${owner.stack.profile} stack under the ${profile} routes`);
  return owner.stack as Extract<Workspace, { profile: P }>;
}

export interface ServiceRecord {
  id: string;
  organizationId: string;
  state: ServiceState;
  pipes: Map<string, PipeResource>;
  pipeSecrets: Map<string, PipeSecrets>;
  /** Current profile only: the pipes' lifecycle and the CDC scaling. */
  pipeRuntime?: PipeRuntime;
  stack: Workspace;
}

export interface OrganizationRecord {
  id: string;
  /** Key id → salted hash of the key secret (see `CredentialHasher`). */
  keys: Map<string, string>;
  services: Map<string, ServiceRecord>;
}

export interface TeamRecord {
  id: string;
  /** Salted hash of each token. */
  tokenHashes: string[];
  stack: Workspace;
}

/**
 * Serialised state of the seed profile: the `--data` file's `state` member and the body of
 * `GET /_emulator/dump`. `secretSha256` and `tokenSha256` are HMAC-SHA-256 digests keyed by a
 * salt that is kept beside the state in the data file (and per process without one), never in
 * the dump, so a dump cannot be used to guess a secret offline.
 */
export interface EmulatorData {
  version: 1;
  /** Absent in files written before profiles existed: those are `seed`. */
  profile?: 'seed';
  organizations: {
    id: string;
    keys: { id: string; secretSha256: string }[];
    services: {
      id: string;
      state: ServiceState;
      pipes: PipeResource[];
      pipeSecrets: Record<string, PipeSecrets>;
      sources: DataSourceResource[];
      dashboards: DashboardResource[];
      alerts: AlertResource[];
    }[];
  }[];
  teams: {
    id: string;
    tokenSha256: string[];
    dashboards: DashboardResource[];
    alerts: AlertResource[];
  }[];
}

/** Each stack kind's collection as the data file holds it, declared by the kind's own file as `CurrentCollections` is. */
// biome-ignore lint/suspicious/noEmptyInterface: each kind's file fills it in by declaration merging
export interface CurrentCollectionsData {}

/** What a workspace serialises to under the current profile; files from before secrets have none. */
export interface CurrentWorkspaceData extends CurrentCollectionsData {
  secrets?: Record<string, StackSecrets>;
}

/** Serialised state of the current profile; as `EmulatorData`, with the current shapes. */
export interface CurrentEmulatorData {
  version: 1;
  profile: 'current';
  organizations: {
    id: string;
    keys: { id: string; secretSha256: string }[];
    services: ({
      id: string;
      state: ServiceState;
      pipes: PipeResource[];
      pipeSecrets: Record<string, PipeSecrets>;
      pipeRuntime?: PipeRuntimeData;
    } & CurrentWorkspaceData)[];
  }[];
  teams: ({ id: string; tokenSha256: string[] } & CurrentWorkspaceData)[];
}

/** Serialised state of either profile. */
export type ProfileData = EmulatorData | CurrentEmulatorData;

export function profileOf(data: ProfileData): Profile {
  return data.profile ?? 'seed';
}
