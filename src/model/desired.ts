/**
 * Desired state: what the manifests say, after parse, validation and secret resolution. What
 * every kind shares is here; each kind's desired shape lives with its descriptor
 * (`kinds/<kind>/model.ts`), and their union is `DesiredResource` of `kinds/index.ts`.
 */
import type { Kind } from './kinds.js';
import type { SourceLocation } from '../errors.js';

/** A write-only value (credential) resolved from its reference. */
export interface SecretValue {
  /** The resolved value; never logged, rendered or persisted. */
  value: string;
  /** HMAC of `value` under the state's key; what the state file keeps and the differ compares. */
  hmac: string;
  /**
   * Set when the reference cannot be resolved in this run (a pull-request job holds no production
   * secrets): why, naming the env var or file, never a value. `value` and `hmac` are then empty;
   * the plan shows the member as unknown, and only a write that would send it fails (docs/secrets.md).
   */
  unknown?: string;
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
  /** `stacksync.io/resync: <token>`: each new token asks for one resync (a database pipe's), sent once. */
  resync?: string;
  /** `stacksync.io/replace: allow`: a change of a create-only member may delete and create the resource again. */
  replace?: true;
}

export interface DesiredBase {
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

/** One problem found while loading; many are collected per run. */
export interface LoadProblem {
  code:
    | 'E_MANIFEST_PARSE'
    | 'E_MANIFEST_INVALID'
    | 'E_MANIFEST_DUPLICATE'
    | 'E_REF_UNRESOLVED'
    | 'E_SECRET_MISSING'
    | 'E_TENANT_VIOLATION';
  message: string;
  location: SourceLocation;
  /** Target the broken document belongs to, when it could be told; prune is blocked for it. */
  target?: string;
  /** `Kind/metadata.name` when it could be told, so the daemon can mark just that resource. */
  subject?: string;
  /**
   * With tenants configured: the tenants of the file the problem is in (one; several when the
   * config's paths overlap; none when it is in no tenant's paths). Its writes are what the
   * problem holds back, instead of its target's (`diff/held-back.ts`).
   */
  tenants?: string[];
}

/** What a load gives: `R` is the union of the kinds' desired shapes (`LoadedManifests` of `kinds/`). */
export interface LoadResult<R extends DesiredBase = DesiredBase> {
  resources: R[];
  problems: LoadProblem[];
  warnings: LoadProblem[];
  /**
   * Targets whose writes a problem holds back, or '*' for a problem not attributable to one
   * target. A problem of one forEach item whose resource is known holds back only that item
   * (its resource stays wanted, never pruned); a problem in a tenant's file, only that tenant's
   * writes (`heldTenants`).
   */
  blockedTargets: Set<string>;
  /** With tenants configured: target (or '*') → the tenants whose writes to it a problem holds back. */
  heldTenants: Map<string, Set<string>>;
  /** With tenants configured: file (as locations name it) → the one tenant it belongs to. */
  fileTenants?: Map<string, string>;
}
