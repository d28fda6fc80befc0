/**
 * `stacksync validate`: the offline check. Config and manifests are loaded exactly as plan and
 * apply load them (schema, names, targets, references, secrets), but nothing touches the network
 * and nothing is written. Its output, problems and summary alike, goes to stdout, so one stream
 * holds the whole report: `file:line:column: CODE: message` lines then the summary, or one JSON
 * object with `--output json`.
 */
import { show, showJson } from '../support/terminal.js';
import { throwawaySecretHasher } from '../state/hmac.js';
import { existsSync } from 'node:fs';
import { Command, Option } from 'commander';
import { loadConfig, type ConfigProblem } from '../config/load.js';
import type { Config } from '../model/config.js';
import { chooseConfigPath, chooseManifestsDir, processEnv, type Env } from '../config/paths.js';
import { formatLocation, isStacksyncError, type ErrorCode, type SourceLocation } from '../errors.js';
import { loadManifests } from '../manifests/load.js';
import { countOf, KIND_ORDER, type DesiredResource } from '../kinds/index.js';
import { EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';

export interface ValidateIo {
  stdout: (text: string) => void;
  env: Env;
}

interface ValidateFlags {
  config?: string;
  manifests?: string;
  output?: 'text' | 'json';
}

interface Finding {
  location: SourceLocation;
  /** The stable code scripts match on; `W_CONFIG` for a warning about the config. */
  code: ErrorCode | 'W_CONFIG';
  message: string;
}

/** What one run of validate found. */
interface Report {
  errors: readonly Finding[];
  warnings: readonly Finding[];
  resources: readonly DesiredResource[];
  dir: string;
}

const HELP_AFTER = `
Checks, without any network access:
  - the config file: schema, unique target names, defaultTarget, durations
  - every *.yaml / *.yml under the manifests directory: the schema of its kind,
    unique names per kind and target, known targets, Pipes only on managed targets,
    alert dashboard and tile references, unique tile names; a secret reference in a
    manifest ({fromEnv} / {fromFile}) that cannot be read here is a warning (apply
    refuses only the write that would send it)

Not checked: the config's auth secrets (keyId, keySecret, token). validate runs where the
API credentials usually are not (a CI job on a pull request); plan, apply and run resolve
them per target and report a missing one as E_SECRET_MISSING naming the target.

Without a config file at the default path, manifests are checked without target checks.

Output: one line per problem (file:line:column: CODE: message, warnings as
file:line:column: warning: message), then a summary line, all on stdout; with
--output json one object: {version, ok, summary, errors, warnings}.

Exit codes: 0 valid (warnings allowed), 1 any error.

Examples:
  stacksync validate
  stacksync validate -c config/emulator.yaml -m manifests
  stacksync validate --output json
  STACKSYNC_MANIFESTS=deploy/manifests stacksync validate
`;

/** The command with its output and environment injectable, for tests. */
export function createValidateCommand(setExitCode: (code: number) => void, io: Partial<ValidateIo> = {}): Command {
  const out: ValidateIo = {
    stdout: io.stdout ?? ((text) => void process.stdout.write(text)),
    env: io.env ?? processEnv(),
  };
  return new Command('validate')
    .summary("check config and manifests offline (schema, names, references, manifests' secrets)")
    .description(
      'Load the config and every manifest as plan and apply would, and report every problem with its file, line and column. Never touches the network.',
    )
    .option('-c, --config <file>', 'config file (env STACKSYNC_CONFIG; default config/stacksync.yaml)')
    .option('-m, --manifests <dir>', 'manifests directory (env STACKSYNC_MANIFESTS; default manifests/)')
    .addOption(
      new Option('--output <format>', 'text for people, json for tools').choices(['text', 'json']).default('text'),
    )
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
  const result = await loadManifests(dir, {
    ...(config ? { config } : {}),
    env: io.env,
    hmac: throwawaySecretHasher(),
  });
  errors.push(...result.problems);
  warnings.push(...result.warnings);
  // 3. Report.
  const report: Report = { errors, warnings, resources: result.resources, dir };
  io.stdout(flags.output === 'json' ? renderJson(report) : renderText(report));
  return errors.length > 0 ? EXIT_ERROR : EXIT_OK;
}

async function loadConfigFor(
  flags: ValidateFlags,
  env: Env,
  errors: Finding[],
  warnings: Finding[],
): Promise<Config | undefined> {
  const chosen = chooseConfigPath(flags.config, env);
  if (chosen.from === 'default' && !existsSync(chosen.path)) {
    warnings.push({
      location: { file: chosen.path },
      code: 'W_CONFIG',
      message:
        'no config file here, so manifests were checked without target checks (pass -c FILE or set STACKSYNC_CONFIG)',
    });
    return undefined;
  }
  try {
    const loaded = await loadConfig(chosen.path);
    warnings.push(...loaded.warnings.map((warning) => ({ ...warning, code: 'W_CONFIG' as const })));
    return loaded.config;
  } catch (error) {
    if (!isStacksyncError(error, 'E_CONFIG_INVALID')) throw error;
    errors.push(...configFindings(error.details?.['problems'], error.message, chosen.path));
    warnings.push({
      location: { file: chosen.path },
      code: 'W_CONFIG',
      message: 'the config is invalid, so manifests were checked without target checks',
    });
    return undefined;
  }
}

function configFindings(problems: unknown, message: string, file: string): Finding[] {
  if (!Array.isArray(problems) || problems.length === 0)
    return [{ location: { file }, code: 'E_CONFIG_INVALID', message }];
  return (problems as (SourceLocation & Pick<ConfigProblem, 'message'>)[]).map(({ message: text, ...location }) => ({
    location,
    code: 'E_CONFIG_INVALID',
    message: text,
  }));
}

/** Every problem on a line of its own (`file:line:column: CODE: message`), then the summary. */
function renderText(report: Report): string {
  const lines = [
    ...report.errors.map((finding) => describe(finding, finding.code)),
    ...report.warnings.map((finding) => describe(finding, 'warning')),
    summary(report),
  ];
  // File names and messages quote the manifests: each line is shown, never obeyed (support/terminal.ts).
  return lines.map((line) => `${show(line)}\n`).join('');
}

function describe(finding: Finding, label: string): string {
  const where = formatLocation(finding.location);
  return `${where ? `${where}: ` : ''}${label}: ${finding.message}`;
}

function summary(report: Report): string {
  // Seven kinds: only those present are counted, so the line stays short.
  const byCount = kindCounts(report.resources);
  const counts = KIND_ORDER.filter((kind) => (byCount[kind] ?? 0) > 0).map((kind) => countOf(kind, byCount[kind] ?? 0));
  const status = report.errors.length > 0 ? 'failed' : 'ok';
  const byKind = counts.length > 0 ? ` (${counts.join(', ')})` : '';
  return (
    `validate ${status}: ${plural(report.errors.length, 'error')}, ` +
    `${plural(report.warnings.length, 'warning')}; ` +
    `${plural(report.resources.length, 'valid resource')} in ${report.dir}${byKind}`
  );
}

/** `--output json`: the whole report as one object, problems in the shape `plan --output json` gives them. */
function renderJson(report: Report): string {
  const document = {
    version: 1,
    ok: report.errors.length === 0,
    summary: {
      errors: report.errors.length,
      warnings: report.warnings.length,
      resources: report.resources.length,
      kinds: kindCounts(report.resources),
      manifests: report.dir,
    },
    errors: report.errors.map(findingToJson),
    warnings: report.warnings.map(findingToJson),
  };
  return `${showJson(JSON.stringify(document, null, 2))}\n`;
}

function findingToJson(finding: Finding): Record<string, unknown> {
  const { file, line, column } = finding.location;
  return {
    file,
    ...(line !== undefined ? { line } : {}),
    ...(column !== undefined ? { column } : {}),
    code: finding.code,
    message: finding.message,
  };
}

function kindCounts(resources: readonly DesiredResource[]): Record<string, number> {
  return Object.fromEntries(
    KIND_ORDER.map((kind) => [kind, resources.filter((resource) => resource.kind === kind).length]),
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
