/**
 * Authentication per variant (seed 5, api-notes): managed routes take HTTP Basic with a key id
 * and secret scoped to one organization; self-hosted routes take a Bearer token of one team.
 * Secrets are compared by SHA-256 in constant time and never logged or echoed.
 */
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';
import type { TeamRecord } from './model.js';
import { sha256Hex, type Store } from './store.js';

export type Presented =
  | { scheme: 'basic'; keyId: string; secret: string }
  | { scheme: 'bearer'; token: string }
  | { scheme: 'none' };

/** What the Authorization header carries; anything unparseable counts as nothing. */
export function parseAuthorization(header: string | undefined): Presented {
  if (!header) return { scheme: 'none' };
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() === 'bearer' && value) return { scheme: 'bearer', token: value };
  if (scheme?.toLowerCase() !== 'basic' || !value) return { scheme: 'none' };
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return { scheme: 'none' };
  return { scheme: 'basic', keyId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

const MANAGED_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="stacksync-emulator"' };

/** The organization the Basic key belongs to; 401 when the key is missing or wrong. */
export function authenticateKey(store: Store, presented: Presented): string {
  if (presented.scheme !== 'basic') throw new ApiError('unauthorized', 'missing or malformed Basic credentials', { headers: MANAGED_CHALLENGE });
  const key = store.key(presented.keyId);
  if (!key || !sameHash(key.secretSha256, sha256Hex(presented.secret))) {
    throw new ApiError('unauthorized', 'invalid key id or key secret', { headers: MANAGED_CHALLENGE });
  }
  return key.organizationId;
}

/** The team a Bearer token belongs to; 401 when the token is missing or unknown. */
export function authenticateToken(store: Store, presented: Presented): TeamRecord {
  const team = presented.scheme === 'bearer' ? store.teamByTokenHash(sha256Hex(presented.token)) : undefined;
  if (!team) throw new ApiError('unauthorized', 'missing or invalid bearer token');
  return team;
}

/** The rate-limit bucket of a request: one per presented credential (never the secret itself). */
export function credentialKey(presented: Presented): string {
  switch (presented.scheme) {
    case 'basic':
      return `basic:${presented.keyId}`;
    case 'bearer':
      return `bearer:${sha256Hex(presented.token)}`;
    case 'none':
      return 'anonymous';
  }
}
