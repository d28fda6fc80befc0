/**
 * Authentication per variant (seed 5, docs/reference/api-behaviour.md): managed routes take HTTP Basic with a key id
 * and secret scoped to one organization; self-hosted routes take a Bearer token of one team.
 * It runs on the headers alone, before any body is read, so a request without valid credentials
 * costs nothing but its headers. Secrets are compared as salted hashes in constant time and never
 * logged or echoed.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Variant } from '../model/kinds.js';
import { ApiError } from './errors.js';
import type { TeamRecord } from './model.js';
import type { Store } from './store.js';

export type Presented =
  | { scheme: 'basic'; keyId: string; secret: string }
  | { scheme: 'bearer'; token: string }
  | { scheme: 'none' };

/** Who a request is, once its credentials check out. */
export type Principal =
  | { variant: 'managed'; keyId: string; organizationId: string }
  | { variant: 'self-hosted'; team: TeamRecord; tokenHash: string };

// RFC 7235: `auth-scheme 1*SP credentials`. The credentials are one run of visible characters
// (looser than token68, so any seeded token works); anything after them makes the header invalid.
const CREDENTIALS = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) +([\x21-\x7e]+)$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** What the Authorization header carries; anything that is not exactly one scheme and one credential counts as nothing. */
export function parseAuthorization(header: string | undefined): Presented {
  const match = header === undefined ? null : CREDENTIALS.exec(header);
  if (!match) return { scheme: 'none' };
  const scheme = (match[1] ?? '').toLowerCase();
  const value = match[2] ?? '';
  if (scheme === 'bearer') return { scheme: 'bearer', token: value };
  if (scheme !== 'basic' || !BASE64.test(value)) return { scheme: 'none' };
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return { scheme: 'none' };
  return { scheme: 'basic', keyId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

const MANAGED_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="stacksync-emulator"' };

function authenticateKey(store: Store, presented: Presented): Principal {
  if (presented.scheme !== 'basic')
    throw new ApiError('unauthorized', 'missing or malformed Basic credentials', { headers: MANAGED_CHALLENGE });
  const key = store.key(presented.keyId);
  if (!key || !sameHash(key.secretHash, store.credentials.hash(presented.secret))) {
    throw new ApiError('unauthorized', 'invalid key id or key secret', { headers: MANAGED_CHALLENGE });
  }
  return { variant: 'managed', keyId: presented.keyId, organizationId: key.organizationId };
}

function authenticateToken(store: Store, presented: Presented): Principal {
  const tokenHash = presented.scheme === 'bearer' ? store.credentials.hash(presented.token) : undefined;
  const team = tokenHash === undefined ? undefined : store.teamByTokenHash(tokenHash);
  if (!team || tokenHash === undefined) throw new ApiError('unauthorized', 'missing or invalid bearer token');
  return { variant: 'self-hosted', team, tokenHash };
}

/** The principal of a request under a variant's prefix; 401 when its credentials are missing or wrong. */
export function authenticate(store: Store, variant: Variant, presented: Presented): Principal {
  return variant === 'managed' ? authenticateKey(store, presented) : authenticateToken(store, presented);
}

/** The rate-limit bucket of an authenticated request: one per key id or token (by its salted hash, never the token). */
export function rateKey(principal: Principal): string {
  return principal.variant === 'managed' ? `key:${principal.keyId}` : `token:${principal.tokenHash}`;
}
