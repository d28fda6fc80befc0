/**
 * What targets' credentials resolve to, hashed: targets on one key share a rate budget whatever
 * references name the key (see api/shared-pacers.ts), so the daemon's resync spread and a plan's
 * estimate group targets by it. Only a SHA-256 of the resolved values is kept, in memory.
 */
import { createHash } from 'node:crypto';
import type { Target } from '../model/config.js';
import { resolveCredentials } from './secrets.js';

/** Fingerprint of each target's resolved credentials; undefined for one whose secrets cannot be read yet. */
export function credentialFingerprints(
  targets: readonly Target[],
  env: Readonly<Record<string, string | undefined>>,
): (target: Target) => string | undefined {
  const fingerprints = new Map<string, string>();
  for (const target of targets) {
    try {
      fingerprints.set(
        target.name,
        createHash('sha256')
          .update(JSON.stringify(resolveCredentials(target, { env })))
          .digest('hex'),
      );
    } catch {
      // Not readable yet: grouped by its references; the target's own sync or plan reports the secret.
    }
  }
  return (target) => fingerprints.get(target.name);
}
