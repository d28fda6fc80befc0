/**
 * `stacksync validate`: the offline check. Config and manifests are loaded exactly as plan and
 * apply load them (schema, names, targets, references, secrets), but nothing touches the network
 * and nothing is written. Problems are printed as `file:line:column: message` on stderr.
 */
import { randomBytes, createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { loadConfig, type ConfigProblem } from '../config/load.js';
import type { Config } from '../model/config.js';
import { chooseConfigPath, chooseManifestsDir, processEnv, type Env } from '../config/paths.js';
import { formatLocation, isStacksyncError, type SourceLocation } from '../errors.js';
import { loadManifests } from '../manifests/load.js';
import { countOf, KIND_ORDER, type DesiredResource } from '../kinds/index.js';
import { EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';

export interface ValidateIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Env;
}

interface ValidateFlags {
  config?: string;
  manifests?: string;
}

interface Finding {
  location: SourceLocation;
  message: string;
}

const HELP_AFTER = `
Checks, without any network access:
  - the config file: schema, unique target names, defaultTarget, durations
  - every *.yaml / *.yml under the manifests directory: the schema of its kind,
    unique names per kind and target, known targets, Pipes only on managed targets,
    alert dashboard and tile references, unique tile names, and that every secret
    reference in the manifests ({fromEnv} / {fromFile}) can be read

Not checked: the config's auth secrets (keyId, keySecret, token). validate runs where the
API credentials usually are not (a CI job on a pull request); plan, apply and run resolve
them per target and report a missing one as E_SECRET_MISSING naming the target.

Without a config file at the default path, manifests are checked without target checks.

Exit codes: 0 valid (warnings allowed), 1 any error.

Examples:
  stacksync validate
  stacksync validate -c examples/stacksync.yaml -m manifests
  STACKSYNC_MANIFESTS=deploy/manifests stacksync validate
`;

/** The command with its output and environment injectable, for tests. */
export function createValidateCommand(setExitCode: (code: number) => void, io: Partial<ValidateIo> = {}): Command {
  const out: ValidateIo = {
    stdout: io.stdout ?? ((text) => void process.stdout.write(text)),
    stderr: io.stderr ?? ((text) => void process.stderr.write(text)),
    env: io.env ?? processEnv(),
  };
  return new Command('validate')
    .summary("check config and manifests offline (schema, names, references, manifests' secrets)")
    .description('Load the config and every manifest as plan and apply would, and report every problem with its file, line and column. Never touches the network.')
    .option('-c, --config <file>', 'config file (env STACKSYNC_CONFIG; default config/stacksync.yaml)')
    .option('-m, --manifests <dir>', 'manifests directory (env STACKSYNC_MANIFESTS; default manifests/)')
    .addHelpText('after', HELP_AFTER)
    .action(async (flags: ValidateFlags) => {
      setExitCode(await runValidate(flags, out));
    });
}

export const validateCommand: CommandFactory = (setExitCode) => createValidateCommand(setExitCode);

async function runValidate(flags: ValidateFlags, io: ValidateIo): Promise<number> {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  // 1. Config, when there is one.
  const config = await loadConfigFor(flags, io.env, errors, warnings);
  // 2. Manifests, with a throwaway HMAC key: hashes are computed but never kept.
  const dir = chooseManifestsDir(flags.manifests, io.env).path;
  const key = randomBytes(32);
  const hmac = (value: string): string => createHmac('sha256', key).update(value).digest('hex');
  const result = await loadManifests(dir, { ...(config ? { config } : {}), env: io.env, hmac });
  errors.push(...result.problems);
  warnings.push(...result.warnings);
  // 3. Report.
  for (const finding of errors) io.stderr(`${describe(finding)}\n`);
  for (const finding of warnings) io.stderr(`${describe(finding, 'warning: ')}\n`);
  io.stdout(`${summary(result.resources, errors.length, warnings.length, dir)}\n`);
  return errors.length > 0 ? EXIT_ERROR : EXIT_OK;
}

async function loadConfigFor(flags: ValidateFlags, env: Env, errors: Finding[], warnings: Finding[]): Promise<Config | undefined> {
  const chosen = chooseConfigPath(flags.config, env);
  if (chosen.from === 'default' && !existsSync(chosen.path)) {
    warnings.push({
      location: { file: chosen.path },
      message: 'no config file here, so manifests were checked without target checks (pass -c FILE or set STACKSYNC_CONFIG)',
    });
    return undefined;
  }
  try {
    const loaded = await loadConfig(chosen.path);
    warnings.push(...loaded.warnings);
    return loaded.config;
  } catch (error) {
    if (!isStacksyncError(error, 'E_CONFIG_INVALID')) throw error;
    errors.push(...configFindings(error.details?.['problems'], error.message, chosen.path));
    warnings.push({ location: { file: chosen.path }, message: 'the config is invalid, so manifests were checked without target checks' });
    return undefined;
  }
}

function configFindings(problems: unknown, message: string, file: string): Finding[] {
  if (!Array.isArray(problems) || problems.length === 0) return [{ location: { file }, message }];
  return (problems as (SourceLocation & Pick<ConfigProblem, 'message'>)[]).map(({ message: text, ...location }) => ({ location, message: text }));
}

function describe(finding: Finding, prefix = ''): string {
  const where = formatLocation(finding.location);
  return where ? `${where}: ${prefix}${finding.message}` : `${prefix}${finding.message}`;
}

function summary(resources: readonly DesiredResource[], errors: number, warnings: number, dir: string): string {
  const counts = KIND_ORDER.map((kind) => [kind, resources.filter((r) => r.kind === kind).length] as const).filter(([, count]) => count > 0);
  const status = errors > 0 ? 'failed' : 'ok';
  const byKind = counts.length > 0 ? ` (${counts.map(([kind, count]) => countOf(kind, count)).join(', ')})` : '';
  return `validate ${status}: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}; ${plural(resources.length, 'valid resource')} in ${dir}${byKind}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
