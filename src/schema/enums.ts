/**
 * Enumerations and bounds of the API that several kinds or stages share: the seed spec where it
 * speaks, `docs/reference/api-behaviour.md` where it says "not shown". Plain data, so schemas,
 * emulator, differ and docs read the same values. A list of one kind is in its folder
 * (`kinds/<kind>/wire.ts`, or `schema.ts` for what only its manifest takes).
 */

/**
 * Which spelling of the observability API a target takes on writes: the seed's (`search`,
 * `series` tiles) or the real services' of today (`saved_search`). Reading accepts both always.
 */
export const API_PROFILES = ['seed', 'current'] as const;
export type ApiProfile = (typeof API_PROFILES)[number];
export const DEFAULT_API_PROFILE: ApiProfile = 'seed';

/** The API variants a target speaks: the managed cloud API (HTTP Basic) or the self-hosted one (Bearer). */
export const TARGET_VARIANTS = ['managed', 'self-hosted'] as const;

export const SERVICE_STATES = ['running', 'idle', 'stopped'] as const;

/** The real services' request budgets; clients pace below these by default. */
export const DEFAULT_RATE_LIMITS = {
  managed: { requests: 10, perSeconds: 10, concurrency: 2 },
  'self-hosted': { requests: 100, perSeconds: 60, concurrency: 4 },
} as const;
