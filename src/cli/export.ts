/**
 * `stacksync export`: onboarding. Reads the live state of one target and writes one manifest per
 * resource, so that `plan` on the result right away shows nothing to change; with `--adopt` the
 * resources are recorded in the inventory, so stacksync manages (and may prune) them from then on.
 */
import { showLines } from '../support/terminal.js';
import { isAbsolute, relative, resolve } from 'node:path';
import { Command } from 'commander';
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import { countOf } from '../kinds/index.js';
import type { Env } from '../config/paths.js';
import { exportTarget as exportLiveTarget, type ExportOutcome } from '../reconcile/export.js';
import { DEFAULT_LOCK_TIMEOUT_MS } from '../state/lock.js';
import { openSession, type StateAccess } from './context.js';
import { EXIT_OK, type CommandFactory } from './exit.js';
import { logFormatFor, logFormatOption, type LogFormat } from './log-format.js';
import { parseKind } from './output.js';

export type { ExportOutcome } from '../reconcile/export.js';

export interface ExportFlags {
  config?: string;
  logLevel?: string;
  logFormat?: LogFormat;
  target?: string;
  out: string;
  /** Kinds to export; empty means all. */
  kind?: Kind[];
  adopt?: boolean;
  force?: boolean;
  schemaBase?: string;
}

export interface ExportIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Environment for the config's secret references; the process's by default. */
  env?: Env;
}

/** Exports one target into `flags.out`; throws `StacksyncError` on usage, config or API errors. */
export async function exportTarget(flags: ExportFlags, io: ExportIo): Promise<ExportOutcome> {
  // Only --adopt writes the state, and then under the lock like every writer.
  const state: StateAccess =
    flags.adopt === true
      ? { mode: 'guarded', command: 'export', lockTimeoutMs: DEFAULT_LOCK_TIMEOUT_MS }
      : { mode: 'read' };
  const session = await openSession(
    { ...flags, manifests: flags.out },
    { writeKey: false, state, logFormat: logFormatFor('export', flags), ...(io.env ? { env: io.env } : {}) },
  );
  try {
    return await session.guard.hold(() =>
      exportLiveTarget(session.context, {
        ...(flags.target !== undefined ? { target: flags.target } : {}),
        outDir: flags.out,
        kinds: flags.kind ?? [],
        adopt: flags.adopt === true,
        force: flags.force === true,
        ...(flags.schemaBase !== undefined ? { schemaBase: flags.schemaBase } : {}),
        warn: (message) => io.stderr(`stacksync: warning: ${message}\n`),
      }),
    );
  } finally {
    await session.close();
  }
}

/** What the command prints: the files on stdout, skipped resources on stderr, then what to do next. */
export function reportExport(outcome: ExportOutcome, flags: Pick<ExportFlags, 'out' | 'config'>, io: ExportIo): void {
  for (const file of outcome.files) io.stdout(`wrote ${file.relativePath}\n`);
  for (const skipped of outcome.skipped) {
    io.stderr(
      `stacksync: skipped ${skipped.kind} ${JSON.stringify(skipped.name ?? skipped.id)} (${skipped.id}): ${skipped.reason}\n`,
    );
  }
  const written = KINDS.map(
    (kind) => [kind, outcome.files.filter((file) => file.manifest.kind === kind).length] as const,
  ).filter(([, count]) => count > 0);
  const counts = written.length === 0 ? 'nothing' : written.map(([kind, count]) => countOf(kind, count)).join(', ');
  const out = displayPath(flags.out);
  const config = flags.config !== undefined ? ` -c ${flags.config}` : '';
  io.stdout(
    `Exported ${counts} from target ${outcome.target} to ${out}${outcome.adopted ? ', and recorded them in the state file as managed' : ''}.\n`,
  );
  io.stdout(
    `Next: stacksync plan${config} -m ${out} --target ${outcome.target}  (expect no ` +
      `changes${
        outcome.adopted
          ? ''
          : '; without --adopt, what is matched by name (dashboards, alerts, pipes without a pipeId) ' +
            "shows as 'adopt' until applied with --adopt"
      })\n`,
  );
}

/** Relative to the working directory when inside it, else absolute. */
function displayPath(path: string): string {
  const shown = relative(process.cwd(), resolve(path));
  if (shown === '') return '.';
  return shown.startsWith('..') || isAbsolute(shown) ? resolve(path) : shown;
}

export const exportCommand: CommandFactory = (setExitCode) =>
  new Command('export')
    .summary('write manifests for what a target already has (onboarding)')
    .description(
      'Read the live resources of every kind of one target and write one manifest per resource to DIR/<kinds>/<name>.yaml, ' +
        'so that `plan` on DIR shows no changes. Credentials are never written: the API does not return them; each file holding one ' +
        'shows it as a {fromEnv: …} placeholder in a comment. Resources that cannot be written as a manifest are skipped and named on stderr; ' +
        'a file written whose live values `validate` would refuse (a member the service documents lack or require) ' +
        'is kept and named on stderr with file:line, to fix before `apply`.\n' +
        'Exit codes: 0 exported, 1 error (bad config, unknown target, API failure, files already there without --force).',
    )
    .option('-c, --config <file>', 'config file (env STACKSYNC_CONFIG; default config/stacksync.yaml)')
    .option('--log-level <level>', 'log level on stderr: trace, debug, info, warn, error, silent', 'warn')
    .addOption(logFormatOption())
    .option(
      '--target <name>',
      'target to read (default: defaultTarget); metadata.target is written when it is not the default',
    )
    .requiredOption('--out <dir>', 'directory to write into (created if missing)')
    .option('--kind <kind>', `export only this kind: ${KINDS.join(', ')} (repeatable; default all)`, parseKind)
    .option(
      '--adopt',
      'record the exported resources in the state file, so stacksync manages (and may prune) them from now on',
    )
    .option('--force', 'overwrite files that already exist')
    .option(
      '--schema-base <url>',
      'prefix of the $schema line (e.g. where you publish schemas/); default: a relative path to schemas/ in the repository, else the installed package',
    )
    .addHelpText(
      'after',
      '\nExample:\n  stacksync export --target prod --out manifests --adopt\n  stacksync plan --detailed-exitcode   # 0: nothing to change',
    )
    .action(async (flags: ExportFlags) => {
      // Names and files come from the server: every line shown, never obeyed (support/terminal.ts).
      const io: ExportIo = {
        stdout: (text) => process.stdout.write(showLines(text)),
        stderr: (text) => process.stderr.write(showLines(text)),
      };
      reportExport(await exportTarget(flags, io), flags, io);
      setExitCode(EXIT_OK);
    });
