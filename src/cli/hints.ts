/**
 * The "try this" lines a command prints after its output, written for the process that ran: the
 * config and manifests it was given (`-c FILE`, `-m DIR`, when not the defaults) and the targets
 * it ran for (`--target T`), so a hint pasted as it is acts on what was just shown, not on the
 * default config or on every target. Pure but for the table: which error code has which hint.
 */
import { chooseConfigPath, chooseManifestsDir, type Env } from '../config/paths.js';
import type { ErrorCode } from '../errors.js';

/** What a command line needs to name again: the config and manifests when not the defaults, the targets asked for. */
export interface Invocation {
  config?: string;
  manifests?: string;
  targets: readonly string[];
}

/** The invocation of a command from its flags (and the environment, which may name the config or manifests). */
export function invocationOf(
  flags: { config?: string; manifests?: string; target?: readonly string[] },
  env: Env,
): Invocation {
  const config = chooseConfigPath(flags.config, env);
  const manifests = chooseManifestsDir(flags.manifests, env);
  return {
    ...(config.from === 'default' ? {} : { config: config.path }),
    ...(manifests.from === 'default' ? {} : { manifests: manifests.path }),
    targets: flags.target ?? [],
  };
}

/** `stacksync apply -c some/other.yaml --target staging --allow-partial`; `targets: false` leaves them out (`--plan FILE` carries its own). */
export function commandLine(
  command: string,
  invocation: Invocation,
  extra: readonly string[] = [],
  options: { targets?: boolean } = {},
): string {
  const words = [
    'stacksync',
    command,
    ...(invocation.config === undefined ? [] : ['-c', invocation.config]),
    ...(invocation.manifests === undefined ? [] : ['-m', invocation.manifests]),
    ...(options.targets === false ? [] : invocation.targets.flatMap((target) => ['--target', target])),
    ...extra,
  ];
  return words.map(shellWord).join(' ');
}

/** What a problem's code lets a person do about it, as the flags of `apply` that do it. */
const HINTS: Partial<Record<ErrorCode, { what: string; flags: readonly string[] }>> = {
  E_MANIFEST_BLOCKED: { what: 'to apply the valid manifests anyway', flags: ['--allow-partial'] },
  E_PRUNE_REFUSED: { what: 'to delete them anyway', flags: ['--prune', '--force'] },
  E_REPLACE_REFUSED: { what: 'to let it be deleted and created again', flags: ['--allow-replace'] },
};

/** One line per code among `codes` that has a hint, in the table's order: `to …: stacksync apply … --flag`. */
export function hintLines(codes: Iterable<string>, invocation: Invocation): string[] {
  const seen = new Set(codes);
  return (Object.entries(HINTS) as [ErrorCode, { what: string; flags: readonly string[] }][])
    .filter(([code]) => seen.has(code))
    .map(([, hint]) => `${hint.what}: ${commandLine('apply', invocation, hint.flags)}`);
}

/** A word as a POSIX shell reads it back: plain when safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
