/**
 * `stacksync export`: onboarding. Reads the live state of one target and writes one manifest per
 * resource, so that `plan` on the result right away shows nothing to change; with `--adopt` the
 * resources are recorded in the inventory, so stacksync manages (and may prune) them from then on.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { KINDS, type Kind } from '../model/kinds.js';
import type { Config } from '../model/config.js';
import type { Env } from '../config/paths.js';
import { StacksyncError } from '../errors.js';
import { exportLiveState, placeManifests, writeExportFiles, type ExportFile, type SkippedResource } from '../export/index.js';
import { recordAdopted } from '../state/inventory.js';
import type { StateStore } from '../state/store.js';
import { openSession } from './context.js';
import { EXIT_OK, type CommandFactory } from './exit.js';

export interface ExportFlags {
  config?: string;
  logLevel?: string;
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

export interface ExportOutcome {
  target: string;
  files: ExportFile[];
  skipped: SkippedResource[];
  adopted: boolean;
}

/** Exports one target into `flags.out`; throws `StacksyncError` on usage, config or API errors. */
export async function exportTarget(flags: ExportFlags, io: ExportIo): Promise<ExportOutcome> {
  const session = await openSession({ ...flags, manifests: flags.out }, { writeKey: false, ...(io.env ? { env: io.env } : {}) });
  try {
    const { config, store } = session.context;
    const target = chooseTarget(config, flags.target);
    const live = await session.context.apiFor(target).readLiveState();
    const kinds = flags.kind && flags.kind.length > 0 ? flags.kind : KINDS;
    if (target.variant === 'self-hosted' && flags.kind?.includes('Pipe')) {
      io.stderr(`stacksync: warning: target ${target.name} is self-hosted, which has no pipes\n`);
    }
    const result = exportLiveState(live, {
      target: target.name,
      setTarget: target.name !== config.defaultTarget,
      kinds,
      owned: ownedKeys(store, target.name),
    });
    const files = placeManifests(result.manifests, {
      outDir: flags.out,
      target: target.name,
      ...(flags.schemaBase !== undefined ? { schemaBase: flags.schemaBase } : {}),
    });
    await writeExportFiles(files, { force: flags.force === true });
    if (flags.adopt === true) await adopt(store, target.name, files);
    return { target: target.name, files, skipped: result.skipped, adopted: flags.adopt === true };
  } finally {
    await session.close();
  }
}

function chooseTarget(config: Config, name: string | undefined) {
  const wanted = name ?? config.defaultTarget;
  const target = config.targets.find((candidate) => candidate.name === wanted);
  if (!target) {
    const known = config.targets.map((candidate) => candidate.name).join(', ');
    throw new StacksyncError('E_USAGE', `target ${wanted} is not configured (configured: ${known})`);
  }
  return target;
}

/** Live id → key for what the inventory already holds, so a re-export keeps those keys. */
function ownedKeys(store: StateStore, target: string): Record<Kind, Map<string, string>> {
  const inventory = store.get(target).inventory;
  const byId = (kind: Kind) => new Map(Object.entries(inventory[kind]).map(([key, entry]) => [entry.id, key]));
  return { Pipe: byId('Pipe'), Dashboard: byId('Dashboard'), Alert: byId('Alert') };
}

/** Records every exported resource as owned, in one durable write. */
async function adopt(store: StateStore, target: string, files: readonly ExportFile[]): Promise<void> {
  store.update(target, (state) =>
    files.reduce((next, { manifest }) => recordAdopted(next, manifest.kind, manifest.key, { id: manifest.id, name: manifest.liveName }), state),
  );
  await store.save();
}

/** What the command prints: the files on stdout, skipped resources on stderr, then what to do next. */
export function reportExport(outcome: ExportOutcome, flags: Pick<ExportFlags, 'out' | 'config'>, io: ExportIo): void {
  for (const file of outcome.files) io.stdout(`wrote ${file.relativePath}\n`);
  for (const skipped of outcome.skipped) {
    io.stderr(`stacksync: skipped ${skipped.kind} ${JSON.stringify(skipped.name ?? skipped.id)} (${skipped.id}): ${skipped.reason}\n`);
  }
  const counts = KINDS.map((kind) => `${outcome.files.filter((file) => file.manifest.kind === kind).length} ${kind.toLowerCase()}s`).join(', ');
  const out = displayPath(flags.out);
  const config = flags.config !== undefined ? ` -c ${flags.config}` : '';
  io.stdout(`Exported ${counts} from target ${outcome.target} to ${out}${outcome.adopted ? ', and recorded them in the state file as managed' : ''}.\n`);
  io.stdout(`Next: stacksync plan${config} -m ${out} --target ${outcome.target}  (expect no changes${outcome.adopted ? '' : "; without --adopt, dashboards and alerts show as 'adopt' until applied with --adopt"})\n`);
}

/** Relative to the working directory when inside it, else absolute. */
function displayPath(path: string): string {
  const shown = relative(process.cwd(), resolve(path));
  if (shown === '') return '.';
  return shown.startsWith('..') || isAbsolute(shown) ? resolve(path) : shown;
}

function parseKind(value: string, previous: Kind[] | undefined): Kind[] {
  const kind = KINDS.find((candidate) => candidate.toLowerCase() === value.toLowerCase().replace(/s$/, ''));
  if (!kind) throw new InvalidArgumentError(`must be one of ${KINDS.join(', ')}`);
  return [...(previous ?? []), kind];
}

export const exportCommand: CommandFactory = (setExitCode) =>
  new Command('export')
    .summary('write manifests for what a target already has (onboarding)')
    .description(
      'Read the live pipes, dashboards and alerts of one target and write one manifest per resource to DIR/<kind>s/<name>.yaml, ' +
        'so that `plan` on DIR shows no changes. Credentials are never written: the API does not return them; each pipe file ' +
        'shows them as {fromEnv: …} placeholders in a comment. Resources that cannot be written as a valid manifest are skipped and named on stderr.\n' +
        'Exit codes: 0 exported, 1 error (bad config, unknown target, API failure, files already there without --force).',
    )
    .option('-c, --config <file>', 'config file (env STACKSYNC_CONFIG; default config/stacksync.yaml)')
    .option('--log-level <level>', 'log level on stderr: trace, debug, info, warn, error, silent', 'warn')
    .option('--target <name>', 'target to read (default: defaultTarget); metadata.target is written when it is not the default')
    .requiredOption('--out <dir>', 'directory to write into (created if missing)')
    .option('--kind <kind>', 'export only this kind: Pipe, Dashboard or Alert (repeatable; default all)', parseKind)
    .option('--adopt', 'record the exported resources in the state file, so stacksync manages (and may prune) them from now on')
    .option('--force', 'overwrite files that already exist')
    .option('--schema-base <url>', 'prefix of the $schema line (e.g. where you publish schemas/); default: a relative path to schemas/ in the repository, else the installed package')
    .addHelpText('after', '\nExample:\n  stacksync export --target prod --out manifests --adopt\n  stacksync plan --detailed-exitcode   # 0: nothing to change')
    .action(async (flags: ExportFlags) => {
      const io: ExportIo = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };
      reportExport(await exportTarget(flags, io), flags, io);
      setExitCode(EXIT_OK);
    });
