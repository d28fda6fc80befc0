/**
 * Desired state: what the manifests say, after parse, validation and secret resolution.
 * Pure data; the differ compares it with the live model of `model/resources.ts`.
 */
import type { Column, TableMapping } from './resources.js';
import type { AlertSpec, DashboardSpec, ManifestTile, PipeSpec } from './manifest.js';
import type { Kind } from './kinds.js';
import type { SourceLocation } from '../errors.js';
import type { PipeSourceKind } from '../schema/enums.js';

/** A write-only value (credential) resolved from its reference. */
export interface SecretValue {
  /** The resolved value; never logged, rendered or persisted. */
  value: string;
  /** HMAC of `value` under the state's key; what the state file keeps and the differ compares. */
  hmac: string;
}

/**
 * What a manifest's annotations (and `spec.ignoreDifferences`) ask of stacksync beyond its
 * spec. Members are absent when not asked for.
 */
export interface ResourcePolicy {
  /** `stacksync.io/suspend: "true"`: read and reported, never written, healed or pruned. */
  suspend?: true;
  /** `stacksync.io/prune: disabled`: never deleted by prune, even once the manifest is gone. */
  noPrune?: true;
  /** Field paths (plan syntax, `tiles[p99].w`) whose live values are kept: never diffed, never written. */
  ignore?: readonly string[];
}

interface DesiredBase {
  kind: Kind;
  /** `metadata.name`: the manifest's own key, unique per kind per target. */
  key: string;
  target: string;
  location: SourceLocation;
  /** Absent when the manifest asks for nothing beyond its spec. */
  policy?: ResourcePolicy;
  /**
   * Secret values that `${NAME}` variables put into its strings: shown as `(sensitive)` in every
   * output, and kept out of the spec digest by their HMACs. Absent when there are none.
   */
  sensitive?: readonly SecretValue[];
}

/** A Pipe's spec with the source split into the block, the resolved secrets and the mappings. */
export interface DesiredPipe extends DesiredBase, Pick<PipeSpec, 'pipeId' | 'name' | 'fieldMappings' | 'settings'> {
  kind: 'Pipe';
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
  /** `destination.columns` of the spec. */
  columns?: Column[];
}

/**
 * A tile as a manifest states it: the API's tile without the service-assigned id. No location of
 * its own: finding a tile's line costs a second parse, and nothing reports per tile.
 */
export type DesiredTile = ManifestTile;

export interface DesiredDashboard extends DesiredBase, Pick<DashboardSpec, 'name' | 'tags'> {
  kind: 'Dashboard';
  tiles: DesiredTile[];
}

/**
 * An Alert's spec as is: the API's configuration, with the dashboard and tile named by manifest
 * name and tile name (resolved to ids at apply time) instead of by id.
 */
export interface DesiredAlert extends DesiredBase, AlertSpec {
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
