/**
 * The spec of a manifest: what it asks the API for, with neither where it is written nor any
 * secret value. Its digest is recorded in the state file when applied (what tells drift from a
 * change in Git) and compared by saved plans.
 */
import type { SecretValue } from '../model/desired.js';
import { descriptorOf, type DesiredResource } from '../kinds/index.js';
import { digestOf } from '../support/digest.js';

/** A manifest as it matters to the API: no source location, secrets as their HMACs only. */
export function specOf(resource: DesiredResource): unknown {
  const { location: _where, sensitive, ...rest } = resource;
  const spec = sensitive && sensitive.length > 0 ? (withHmacs(rest, sensitive) as typeof rest) : rest;
  // A kind whose manifests hold secrets of their own gives them as their HMACs.
  const view = descriptorOf(spec.kind).manifests.specView;
  return view ? view(spec) : spec;
}

/** A copy whose strings hold the HMAC of each substituted secret instead of its value. */
function withHmacs(value: unknown, secrets: readonly SecretValue[]): unknown {
  if (typeof value === 'string')
    return secrets.reduce(
      (text, secret) => (secret.value ? text.split(secret.value).join(`hmac:${secret.hmac}`) : text),
      value,
    );
  if (Array.isArray(value)) return value.map((item) => withHmacs(item, secrets));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withHmacs(item, secrets)]));
  return value;
}

/**
 * Digests by resource. The loader hands a daemon's every sync the same frozen resource for an
 * unchanged manifest, so at 10,000 resources a sync does not digest them all again.
 */
const digests = new WeakMap<DesiredResource, string>();

/** Digest of a manifest's spec: equal for two manifests that ask the API for the same thing. */
export function specDigest(resource: DesiredResource): string {
  if (!Object.isFrozen(resource)) return digestOf(specOf(resource));
  let digest = digests.get(resource);
  if (digest === undefined) {
    digest = digestOf(specOf(resource));
    digests.set(resource, digest);
  }
  return digest;
}
