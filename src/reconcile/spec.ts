/**
 * The spec of a manifest: what it asks the API for, with neither where it is written nor any
 * secret value. Its digest is recorded in the state file when applied (what tells drift from a
 * change in Git) and compared by saved plans.
 */
import type { DesiredResource } from '../model/desired.js';
import { digestOf } from '../support/digest.js';

/** A manifest as it matters to the API: no source location, secrets as their HMACs only. */
export function specOf(resource: DesiredResource): unknown {
  const { location: _where, ...rest } = resource;
  if (rest.kind === 'Pipe' && rest.source?.secrets) {
    const { member, fields } = rest.source.secrets;
    const hashes = Object.fromEntries(Object.entries(fields).map(([name, secret]) => [name, secret.hmac]));
    return { ...rest, source: { ...rest.source, secrets: { member, fields: hashes } } };
  }
  return rest;
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
