/**
 * `stacksync pull`: live edits of managed resources written into their manifests in place, only
 * the changed members' lines (docs/pull.md). Reads the API, writes manifest files (or, with
 * `--dry-run`, prints their unified diff); never writes the API or the state.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import { processEnv } from '../config/paths.js';
import { pullTargets, writePulledFiles, type PullOutcome } from '../reconcile/pull.js';
import { notPulledLines, unifiedDiff } from '../pull/index.js';
import { showLines } from '../support/terminal.js';
import { addCommonOptions, openSession, type CommonFlags } from './context.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { logFormatFor } from './log-format.js';
import { collect, notice, parseKind } from './output.js';

interface PullFlags extends CommonFlags {
  target: string[];
  kind?: Kind[];
  dryRun?: boolean;
}

export interface PullIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** What the command prints: the diff or the files written on stdout; conflicts, deletions and errors on stderr. */
export function reportPull(outcome: PullOutcome, dryRun: boolean, io: PullIo): void {
  for (const file of outcome.files)
    io.stdout(dryRun ? unifiedDiff(file.path, file.before, file.after) : `pulled ${file.path}\n`);
  for (const line of notPulledLines(outcome)) io.stderr(`${line}\n`);
  const verb = dryRun ? 'would change' : 'changed';
  const pending = outcome.conflicts.length + outcome.deleted.length;
  io.stdout(
    `Pull: ${outcome.files.length} file${outcome.files.length === 1 ? '' : 's'} ${verb}, ${pending} ` +
      `not pulled (conflicts, deletions), ${outcome.errors.length} ` +
      `error${outcome.errors.length === 1 ? '' : 's'}.\n`,
  );
}

/** 1 when something differs that pull did not write (or errors), else 2 when files change, else 0. */
export function pullExitCode(outcome: PullOutcome): number {
  if (outcome.errors.length > 0 || outcome.conflicts.length > 0 || outcome.deleted.length > 0) return EXIT_ERROR;
  return outcome.files.length > 0 ? EXIT_CHANGES : EXIT_OK;
}

/** `KIND/NAME` → the kind (case-insensitive) and the manifest's `metadata.name`. */
export function parseSubject(text: string): { kind: Kind; name: string } {
  const slash = text.indexOf('/');
  const kind =
    slash > 0 ? KINDS.find((candidate) => candidate.toLowerCase() === text.slice(0, slash).toLowerCase()) : undefined;
  if (!kind || slash === text.length - 1)
    throw new InvalidArgumentError(
      `${text}: write KIND/NAME, KIND one of ${KINDS.join(', ')} and NAME a manifest's metadata.name`,
    );
  return { kind, name: text.slice(slash + 1) };
}

export const pullCommand: CommandFactory = (setExitCode) =>
  addCommonOptions(
    new Command('pull')
      .summary('write live edits of managed resources into their manifests, in place')
      .description(
        'For each managed resource whose live value differs from its manifest (an edit made in the UI), ' +
          "rewrite only the changed members in the manifest's own file and document: " +
          'comments, key order, quoting, flow or block style, anchors, blank lines, line endings and every other document stay byte for byte. ' +
          'List items are matched by name (a tile added live lands at its place). Secrets are never ' +
          'written; a member written with a ${VAR} or made by a metadata.forEach template is a conflict, ' +
          'reported at its line with the live value. ' +
          'ignoreDifferences members, server-only members and defaults a manifest leaves out are not ' +
          'written. Unmanaged live resources are not pulled (that is export), and no file is deleted: a ' +
          'managed resource deleted live is reported with its manifest.\n' +
          'Exit codes: 0 nothing differs, 2 files were (with --dry-run: would be) written, 1 errors, conflicts or resources deleted live.',
      ),
  )
    .argument('[resources...]', "only these resources, as KIND/NAME (NAME: the manifest's metadata.name)")
    .option('--target <name>', 'pull only from this target (repeatable; default every target)', collect, [])
    .option('--kind <kind>', `pull only this kind: ${KINDS.join(', ')} (repeatable; default all)`, parseKind)
    .option('--dry-run', 'print the unified diff of what would be written, and write nothing')
    .addHelpText(
      'after',
      '\nExamples:\n  stacksync pull --dry-run              # the diff, nothing written\n  stacksync ' +
        'pull Dashboard/api-latency  # one resource\n  stacksync plan --detailed-exitcode    # then: 0, ' +
        'what was pulled is in sync',
    )
    .action(async (resources: string[], flags: PullFlags) => {
      const subjects = resources.map(parseSubject);
      const env = processEnv();
      const logFormat = logFormatFor('pull', flags);
      const session = await openSession(flags, { writeKey: false, env, state: { mode: 'read' }, logFormat });
      try {
        const outcome = await pullTargets(session.context, {
          targets: flags.target,
          ...(flags.kind ? { kinds: flags.kind } : {}),
          subjects,
        });
        // Manifest text and live values reach a terminal: control characters shown, never obeyed (support/terminal.ts).
        const io: PullIo = {
          stdout: (text) => process.stdout.write(showLines(text)),
          stderr: (text) => process.stderr.write(showLines(text)),
        };
        if (flags.dryRun !== true) await writePulledFiles(outcome.files);
        reportPull(outcome, flags.dryRun === true, io);
        for (const warning of session.configWarnings)
          notice(
            session.logger,
            logFormat,
            'warn',
            `${warning.file}${warning.line !== undefined ? `:${warning.line}` : ''}: ${warning.message}`,
          );
        setExitCode(pullExitCode(outcome));
      } finally {
        await session.close();
      }
    });
