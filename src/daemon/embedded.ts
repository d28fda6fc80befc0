/**
 * `run --embedded` (the default when no config file exists, e.g. `npm start` on a fresh clone):
 * the emulator in-process on a free loopback port, seeded with the pipes the example manifests
 * name, and a config with one managed and one self-hosted target pointing at it.
 * Emulator data and stacksync state persist side by side, so a restart picks up where it left.
 */
import { mkdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Logger } from 'pino';
import { parseConfigText } from '../config/load.js';
import type { Config } from '../model/config.js';
import { DEFAULT_SEED_IDS, startEmulator, type Profile, type RunningEmulator } from '../emulator/index.js';
import { StacksyncError } from '../errors.js';
import { DEFAULT_LISTEN } from './http.js';

/** Where embedded mode keeps the emulator's data and its own state (`-current` appended under that profile). */
export const EMBEDDED_DIR = '.stacksync/embedded';
export const EMBEDDED_TOKEN = 'emulator-token';

export interface Embedded {
  emulator: RunningEmulator;
  config: Config;
  /** Where the emulator's data and the state live. */
  dir: string;
  /** What `run` prints when it starts in embedded mode. */
  banner(manifestsDir: string): string;
  /** What `run` prints once the first sync is done. */
  tips(httpUrl: string, manifestsDir: string): string;
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
  const emulator = await startEmulator({
    profile,
    port: 0,
    dataFile: join(dir, 'emulator.json'),
    logger: options.logger ?? false,
  });
  const outcome = parseConfigText(embeddedConfigYaml(emulator.url, join(dir, 'state.json'), profile), {
    file: '(embedded config)',
    path: join(dir, 'stacksync.yaml'),
  });
  if (!outcome.ok) {
    await emulator.close();
    throw new StacksyncError(
      'E_INTERNAL',
      `embedded config is invalid: ${outcome.problems.map((p) => p.message).join('; ')}`,
    );
  }
  return {
    emulator,
    config: outcome.config,
    dir,
    banner: (manifestsDir) => embeddedBanner(emulator.url, dir, manifestsDir),
    tips: (httpUrl, manifestsDir) => embeddedTips(httpUrl, emulator.url, manifestsDir),
  };
}

function embeddedBanner(url: string, dir: string, manifestsDir: string): string {
  return [
    '',
    `stacksync: no config file found, so running against the built-in emulator at ${url}`,
    `  managed target "local":              org ${DEFAULT_SEED_IDS.organizationId}, key ${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`,
    `  self-hosted target "local-selfhosted": bearer token ${EMBEDDED_TOKEN}`,
    `  reconciling ${manifestsDir}/ into it; state in ${relative(process.cwd(), dir) || '.'}/`,
    '',
  ].join('\n');
}

/**
 * `npx stacksync status`, with `--listen` when the daemon is not where status asks without one
 * (no config file: the default port on loopback), so the hint works as printed.
 */
function statusCommand(httpUrl: string): string {
  const listen = new URL(httpUrl).host;
  const asked = `127.0.0.1:${DEFAULT_LISTEN.split(':').at(-1) ?? ''}`;
  return listen === asked ? 'npx stacksync status' : `npx stacksync status --listen ${listen}`;
}

function embeddedTips(httpUrl: string, emulatorUrl: string, manifestsDir: string): string {
  return [
    '',
    'First sync done. Things to try (this keeps running; Ctrl-C stops it cleanly):',
    `  - edit a file in ${manifestsDir}/ (say, a tile's "w" in a dashboard) and watch it applied within a second`,
    `  - delete an alert manifest: embedded mode prunes, so the alert is deleted`,
    `  - change something behind stacksync's back and see it healed at the next resync (30s):`,
    `      curl -s -H 'Authorization: Bearer ${EMBEDDED_TOKEN}' ${emulatorUrl}/api/v2/dashboards`,
    `  - ${httpUrl}/   the status page, in a browser; \`${statusCommand(httpUrl)}\` prints it here`,
    `  - ${httpUrl}/status   per-resource state      ${httpUrl}/metrics   Prometheus metrics`,
    `  - curl -XPOST -H 'Content-Type: application/json' ${httpUrl}/-/reload   sync now`,
    '  - npx stacksync plan -c config/emulator.yaml  against a separately started `stacksync emulator`',
    '',
  ].join('\n');
}

/** The config embedded mode runs with; also what the docs show as a starting point. */
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
