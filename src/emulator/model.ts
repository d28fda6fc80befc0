/**
 * The emulator's state: plain records, the shapes the API returns. `EmulatorData` is the
 * serialised form, used alike for `--data` files and `GET /_emulator/dump`; it never holds a
 * secret in clear (key secrets and tokens as SHA-256, pipe credentials as fingerprints).
 */
import type { IdFormat } from './ids.js';

export type ServiceState = 'running' | 'idle' | 'stopped';

/** A pipe as the managed variant returns it (seed 2.2); credentials live apart, as fingerprints. */
export interface PipeResource {
  id: string;
  serviceId: string;
  name: string;
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

/** The dashboards and alerts of one owner: a managed service's stack, or a self-hosted team. */
export interface Workspace {
  /** Service id or team id; returned as the `team` of its dashboards and alerts. */
  owner: string;
  idFormat: IdFormat;
  dashboards: Map<string, DashboardResource>;
  alerts: Map<string, AlertResource>;
}

export interface ServiceRecord {
  id: string;
  organizationId: string;
  state: ServiceState;
  pipes: Map<string, PipeResource>;
  pipeSecrets: Map<string, PipeSecrets>;
  sources: DataSourceResource[];
  stack: Workspace;
}

export interface OrganizationRecord {
  id: string;
  /** Key id → SHA-256 hex of the key secret. */
  keys: Map<string, string>;
  services: Map<string, ServiceRecord>;
}

export interface TeamRecord {
  id: string;
  /** SHA-256 hex of each token. */
  tokenHashes: string[];
  stack: Workspace;
}

/** Serialised state: the `--data` file's `state` member and the body of `GET /_emulator/dump`. */
export interface EmulatorData {
  version: 1;
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
