/**
 * Desired state: what the manifests say, after parse, validation and secret resolution.
 * Pure data; the differ compares it with the live model of `model/resources.ts`.
 */
import type { AlertConfig, Column, FieldMapping, PipeSettings, TableMapping, Tile } from './resources.js';
import type { Kind } from './kinds.js';
import type { SourceLocation } from '../errors.js';
import type { PipeSourceKind } from '../schema/enums.js';

/** A tile as manifests write it: the API's tile without the id the service assigns. */
export type ManifestTile = Omit<Tile, 'id'>;

/**
 * Alert fields as manifests write them: the API's configuration, with the dashboard and tile named
 * by manifest name and tile name (resolved to ids at apply time) instead of by id.
 */
export interface AlertFields extends Omit<AlertConfig, 'dashboardId' | 'tileId'> {
  /** `metadata.name` of the Dashboard manifest, for `source: tile`. */
  dashboard?: string;
  /** Tile name in that dashboard, for `source: tile`. */
  tile?: string;
}

/** A write-only value (credential) resolved from its reference. */
export interface SecretValue {
  /** The resolved value; never logged, rendered or persisted. */
  value: string;
  /** HMAC of `value` under the state's key; what the state file keeps and the differ compares. */
  hmac: string;
}

interface DesiredBase {
  kind: Kind;
  /** `metadata.name`: the manifest's own key, unique per kind per target. */
  key: string;
  target: string;
  location: SourceLocation;
}

export interface DesiredPipe extends DesiredBase {
  kind: 'Pipe';
  pipeId: string;
  name?: string;
  source?: {
    kind: PipeSourceKind;
    /** Block members other than credentials / accessKey / tableMappings. */
    block: Record<string, unknown>;
    /** `credentials` (username/password) or `accessKey` (accessKeyId/secretKey), resolved. */
    secrets?: { member: 'credentials' | 'accessKey'; fields: Record<string, SecretValue> };
    /** postgres only: the full desired list. */
    tableMappings?: TableMapping[];
    validateSamples?: boolean;
  };
  columns?: Column[];
  fieldMappings?: FieldMapping[];
  settings?: PipeSettings;
}

/**
 * A tile as a manifest states it: the API's tile without the service-assigned id. No location of
 * its own: finding a tile's line costs a second parse, and nothing reports per tile.
 */
export type DesiredTile = ManifestTile;

export interface DesiredDashboard extends DesiredBase {
  kind: 'Dashboard';
  name: string;
  tags?: string[];
  tiles: DesiredTile[];
}

export interface DesiredAlert extends DesiredBase, AlertFields {
  kind: 'Alert';
}

export type DesiredResource = DesiredPipe | DesiredDashboard | DesiredAlert;

/** One problem found while loading; many are collected per run. */
export interface LoadProblem {
  code: 'E_MANIFEST_PARSE' | 'E_MANIFEST_INVALID' | 'E_MANIFEST_DUPLICATE' | 'E_REF_UNRESOLVED' | 'E_SECRET_MISSING';
  message: string;
  location: SourceLocation;
  /** Target the broken document belongs to, when it could be told; prune is blocked for it. */
  target?: string;
  /** `Kind/metadata.name` when it could be told, so the daemon can mark just that resource. */
  subject?: string;
}

export interface LoadResult {
  resources: DesiredResource[];
  problems: LoadProblem[];
  warnings: LoadProblem[];
  /** Targets with at least one problem, or with a problem not attributable to one target ('*'). */
  blockedTargets: Set<string>;
}
