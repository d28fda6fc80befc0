/**
 * The prefix of a pipe's engine settings: the seed writes `engine_max_threads`, the real service
 * `clickhouse_max_threads`. The emulator stores the seed's spelling and renames at the edge of the
 * pipe routes, so it can serve another prefix (docs/reference/config.md, `api: { settingsPrefix }`). Served that
 * way, the seed's own spelling is a member the server does not know: refused under the seed
 * profile, dropped under the current one (as each drops or refuses any unknown member).
 */
import { StacksyncError } from '../errors.js';
import { PIPE_BOOLEAN_SETTINGS, PIPE_SETTING_BOUNDS } from '../kinds/pipe/wire.js';
import { DEFAULT_SETTINGS_PREFIX } from '../schema/pipe-sources.js';
import { ApiError, invalidMember } from './errors.js';
import type { Profile } from './model.js';
import { isRecord } from '../support/json.js';

const ENGINE_SETTINGS = new Set(
  [...Object.keys(PIPE_SETTING_BOUNDS), ...PIPE_BOOLEAN_SETTINGS].filter((key) =>
    key.startsWith(DEFAULT_SETTINGS_PREFIX),
  ),
);

/** A prefix is letters, digits and underscores, like the setting names it starts. */
export function checkSettingsPrefix(prefix: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(prefix)) {
    throw new StacksyncError(
      'E_USAGE',
      `settings prefix must be letters, digits and underscores, starting with a letter (e.g. clickhouse_), got "${prefix}"`,
    );
  }
  return prefix;
}

type Settings = Record<string, unknown>;

/** Renames the engine settings between the served prefix and the stored one; `null` for the identity. */
export interface SettingsSpelling {
  /** Settings as sent → as stored. */
  in(settings: unknown): unknown;
  /** Settings as stored → as served. */
  out<T>(settings: T): T;
  /** An error about stored names → about served names. */
  error(error: unknown): unknown;
}

export function settingsSpelling(prefix: string, profile: Profile): SettingsSpelling | undefined {
  if (prefix === DEFAULT_SETTINGS_PREFIX) return undefined;
  const served = (stored: string): string =>
    ENGINE_SETTINGS.has(stored) ? `${prefix}${stored.slice(DEFAULT_SETTINGS_PREFIX.length)}` : stored;
  const storedName = (sent: string): string | undefined => {
    const candidate = sent.startsWith(prefix) ? `${DEFAULT_SETTINGS_PREFIX}${sent.slice(prefix.length)}` : undefined;
    if (candidate && ENGINE_SETTINGS.has(candidate)) return candidate;
    if (ENGINE_SETTINGS.has(sent)) return undefined;
    return sent;
  };
  return {
    in(settings) {
      if (!isRecord(settings)) return settings;
      const out: Settings = {};
      for (const [key, value] of Object.entries(settings)) {
        const name = storedName(key);
        if (name !== undefined) out[name] = value;
        else if (profile === 'seed') throw invalidMember(`settings.${key}`, 'is not a known member here');
      }
      return out;
    },
    out(settings) {
      if (!isRecord(settings)) return settings;
      return Object.fromEntries(
        Object.entries(settings).map(([key, value]) => [served(key), value]),
      ) as typeof settings;
    },
    error(error) {
      if (!(error instanceof ApiError) || error.kind !== 'bad_request') return error;
      const respell = (text: string): string =>
        text.replace(
          new RegExp(`(^|[.\\s])${DEFAULT_SETTINGS_PREFIX}([a-z_]+)`, 'g'),
          (whole, before: string, rest: string) =>
            ENGINE_SETTINGS.has(`${DEFAULT_SETTINGS_PREFIX}${rest}`) ? `${before}${prefix}${rest}` : whole,
        );
      const issues = error.issues?.map((issue) => ({
        ...issue,
        path: respell(issue.path),
        message: respell(issue.message),
      }));
      return new ApiError(error.kind, respell(error.message), {
        ...(issues && { issues }),
        source: error.source,
        headers: error.headers,
        json: error.json,
      });
    },
  };
}
