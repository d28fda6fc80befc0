/**
 * The manifest rules of the kinds that are a flat set of members (sources, connections, webhooks,
 * saved searches): the API name is unique per kind and target, the spec is kept as written, and
 * its secret references are resolved by the secret stage and kept beside it (HMACs only in the
 * spec's digest).
 */
import type { DesiredBase, SecretValue } from '../../model/desired.js';
import type { Kind } from '../../model/kinds.js';
import type { Manifest } from '../../model/manifest.js';
import type { KindManifests, SecretSite } from '../descriptor.js';

/** A desired resource of such a kind (`K`, so the union of desired resources tells the kinds apart). */
export interface DesiredFlat<K extends Kind = Kind> extends DesiredBase {
  kind: K;
  /** The API name: what live resources are matched by. */
  name: string;
  /** The spec as written, without its secret members and `ignoreDifferences`. */
  spec: Record<string, unknown>;
  /** Resolved secret values by secret path (`password`, `headers.Authorization`). */
  secrets: Record<string, SecretValue>;
  /** The secret members the spec sets (`headers: {}` sets one with no value). */
  secretMembers: string[];
}

/** A manifest of such a kind (its API name is always `spec.name`). */
export type FlatManifest = Manifest & { spec: { name: string } };

/**
 * The rules of one such kind. `secretSites` finds the secret references of a spec; `secretMembers`
 * names the spec members that hold them (left out of `spec`).
 */
export function flatManifests<K extends Kind>(
  kind: K,
  secretMembers: readonly string[] = [],
  secretSites: (spec: Record<string, unknown>) => SecretSite[] = () => [],
): KindManifests<DesiredFlat<K>, FlatManifest> {
  return {
    // Live resources are found by their API name: two manifests with one name would fight over one resource.
    uniqueName: (manifest) => ({
      value: manifest.spec.name,
      pointer: ['spec', 'name'],
      what: (name) => `a ${kind} named "${name}"`,
    }),
    secrets: (manifest) => secretSites(manifest.spec),
    build: (manifest, base, secrets) => {
      const { ignoreDifferences: _ignored, ...written } = manifest.spec;
      const spec = Object.fromEntries(Object.entries(written).filter(([member]) => !secretMembers.includes(member)));
      const set = secretMembers.filter((member) => written[member] !== undefined);
      return { kind, ...base, name: written.name, spec, secrets: Object.fromEntries(secrets), secretMembers: set };
    },
    specView: (rest) => ({
      ...rest,
      secrets: Object.fromEntries(Object.entries(rest.secrets).map(([path, secret]) => [path, secret.hmac])),
    }),
  };
}

/** The secret site of one member holding one reference. */
export function secretSite(spec: Record<string, unknown>, member: string): SecretSite[] {
  return spec[member] === undefined ? [] : [{ pointer: ['spec', member], ref: spec[member], path: member }];
}

/** The secret sites of a member holding a map of references (`headers`), one per entry. */
export function secretMapSites(spec: Record<string, unknown>, member: string): SecretSite[] {
  const map = spec[member];
  if (map === null || typeof map !== 'object') return [];
  return Object.entries(map).map(([name, ref]) => ({
    pointer: ['spec', member, name],
    ref,
    path: `${member}.${name}`,
  }));
}
