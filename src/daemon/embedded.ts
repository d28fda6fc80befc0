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

/** Where embedded mode keeps the emulator's data and its own state. */
export const EMBEDDED_DIR = '.stacksync/embedded';
export const EMBEDDED_TOKEN = 'emulator-token';

export interface Embedded {
  emulator: RunningEmulator;
  config: Config;
}

export interface EmbeddedOptions {
  /** Where the emulator's data and the state live. Default `.stacksync/embedded`. */
  dir?: string;
  logger?: Logger;
  intervalMs?: number;
  /**
   * Whose behaviour the in-process emulator serves; default `seed`. Its data file remembers the
   * profile, so switching needs another `dir`.
   */
  profile?: Profile;
}

export async function startEmbedded(options: EmbeddedOptions = {}): Promise<Embedded> {
  const dir = resolve(options.dir ?? EMBEDDED_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const emulator = await startEmulator({ profile: options.profile ?? 'seed', port: 0, dataFile: join(dir, 'emulator.json'), logger: options.logger ?? false });
  const outcome = parseConfigText(embeddedConfigYaml(emulator.url, join(dir, 'state.json')), { file: '(embedded config)', path: join(dir, 'stacksync.yaml') });
  if (!outcome.ok) {
    await emulator.close();
    throw new StacksyncError('E_INTERNAL', `embedded config is invalid: ${outcome.problems.map((p) => p.message).join('; ')}`);
  }
  return { emulator, config: outcome.config };
}

/** The config embedded mode runs with; also what the README shows as a starting point. */
export function embeddedConfigYaml(url: string, statePath: string): string {
  const ids = DEFAULT_SEED_IDS;
  return `targets:
  - name: local
    variant: managed
    baseUrl: ${url}
    organizationId: ${ids.organizationId}
    serviceId: ${ids.serviceId}
    auth: { keyId: ${ids.keyId}, keySecret: ${ids.keySecret} }
    rateLimit: { requests: 50, perSeconds: 1, concurrency: 4 }
  - name: local-selfhosted
    variant: self-hosted
    baseUrl: ${url}
    auth: { token: ${EMBEDDED_TOKEN} }
    rateLimit: { requests: 50, perSeconds: 1, concurrency: 4 }
defaultTarget: local
sync:
  interval: 30s
  drift: heal
  prune: true
state: ${JSON.stringify(statePath)}
`;
}
