/**
 * `run --embedded` (the default when no config file exists, e.g. `npm start` on a fresh clone):
 * the emulator in-process on a free loopback port, seeded with the pipes the example manifests
 * name, and a config with one managed and one self-hosted target pointing at it.
 * Emulator data and stacksync state persist side by side, so a restart picks up where it left.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { parseConfigText } from '../config/load.js';
import type { Config } from '../model/config.js';
import { DEFAULT_SEED_IDS, startEmulator, type Profile, type RunningEmulator } from '../emulator/index.js';
import { StacksyncError } from '../errors.js';

/** Where embedded mode keeps the emulator's data and its own state (`-current` appended under that profile). */
export const EMBEDDED_DIR = '.stacksync/embedded';
export const EMBEDDED_TOKEN = 'emulator-token';

export interface Embedded {
  emulator: RunningEmulator;
  config: Config;
  /** Where the emulator's data and the state live. */
  dir: string;
}

export interface EmbeddedOptions {
  /** Where the emulator's data and the state live. Default `.stacksync/embedded`. */
  dir?: string;
  logger?: Logger;
  intervalMs?: number;
  /**
   * Whose behaviour the in-process emulator serves; default `seed`. Every target of the embedded
   * config writes that profile's spelling (`api.profile`). The data file remembers the profile, so
   * the default `dir` of `current` is `.stacksync/embedded-current`.
   */
  profile?: Profile;
}

export async function startEmbedded(options: EmbeddedOptions = {}): Promise<Embedded> {
  const profile = options.profile ?? 'seed';
  const dir = resolve(options.dir ?? (profile === 'seed' ? EMBEDDED_DIR : `${EMBEDDED_DIR}-${profile}`));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const emulator = await startEmulator({ profile, port: 0, dataFile: join(dir, 'emulator.json'), logger: options.logger ?? false });
  const outcome = parseConfigText(embeddedConfigYaml(emulator.url, join(dir, 'state.json'), profile), { file: '(embedded config)', path: join(dir, 'stacksync.yaml') });
  if (!outcome.ok) {
    await emulator.close();
    throw new StacksyncError('E_INTERNAL', `embedded config is invalid: ${outcome.problems.map((p) => p.message).join('; ')}`);
  }
  return { emulator, config: outcome.config, dir };
}

/** The config embedded mode runs with; also what the README shows as a starting point. */
export function embeddedConfigYaml(url: string, statePath: string, profile: Profile = 'seed'): string {
  const ids = DEFAULT_SEED_IDS;
  return `targets:
  - name: local
    variant: managed
    baseUrl: ${url}
    organizationId: ${ids.organizationId}
    serviceId: ${ids.serviceId}
    auth: { keyId: ${ids.keyId}, keySecret: ${ids.keySecret} }
    rateLimit: { requests: 50, perSeconds: 1, concurrency: 4 }
    api: { profile: ${profile} }
  - name: local-selfhosted
    variant: self-hosted
    baseUrl: ${url}
    auth: { token: ${EMBEDDED_TOKEN} }
    rateLimit: { requests: 50, perSeconds: 1, concurrency: 4 }
    api: { profile: ${profile} }
defaultTarget: local
sync:
  interval: 30s
  drift: heal
  prune: true
state: ${JSON.stringify(statePath)}
`;
}
