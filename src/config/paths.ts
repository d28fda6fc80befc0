/**
 * Where the config and the manifests are: flag, else environment variable, else default
 * (docs/reference/config.md). Lives in config/ because nothing else reads `process.env`.
 */
import { existsSync } from 'node:fs';

export const DEFAULT_CONFIG_PATH = 'config/stacksync.yaml';
export const DEFAULT_MANIFESTS_DIR = 'manifests';
export const CONFIG_ENV = 'STACKSYNC_CONFIG';
export const MANIFESTS_ENV = 'STACKSYNC_MANIFESTS';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ChosenPath {
  path: string;
  /** Where the path came from; a missing file is an error unless it is the default. */
  from: 'flag' | 'env' | 'default';
}

/** `-c`, else `STACKSYNC_CONFIG`, else `config/stacksync.yaml`. */
export function chooseConfigPath(flag: string | undefined, env: Env = process.env): ChosenPath {
  return choose(flag, env[CONFIG_ENV], DEFAULT_CONFIG_PATH);
}

/** Neither the flag nor `STACKSYNC_CONFIG` names a config, and none is at the default path (`run` then goes embedded). */
export function noConfigAnywhere(flag: string | undefined, env: Env = process.env): boolean {
  const chosen = chooseConfigPath(flag, env);
  return chosen.from === 'default' && !existsSync(chosen.path);
}

/** `-m`, else `STACKSYNC_MANIFESTS`, else `manifests`. */
export function chooseManifestsDir(flag: string | undefined, env: Env = process.env): ChosenPath {
  return choose(flag, env[MANIFESTS_ENV], DEFAULT_MANIFESTS_DIR);
}

function choose(flag: string | undefined, fromEnv: string | undefined, fallback: string): ChosenPath {
  if (flag) return { path: flag, from: 'flag' };
  if (fromEnv) return { path: fromEnv, from: 'env' };
  return { path: fallback, from: 'default' };
}

/** The process environment, for callers outside config/ that must pass one on (e.g. to secret resolution). */
export function processEnv(): Env {
  return process.env;
}
