import { Command, CommanderError } from 'commander';
import { show, showJson, showLines } from '../support/terminal.js';
import { formatLocation, isStacksyncError } from '../errors.js';
import { EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { packageVersion } from './version.js';
import { compileForQuickExit, heapUseOf } from './quick-exit.js';
import { sizeHeapFor } from '../support/heap.js';
import { dropOutputOnClosedPipe } from './closed-pipe.js';
import { maskWrites } from '../support/redaction.js';
import { logFormatFor, type LogFormat } from './log-format.js';

export { packageVersion } from './version.js';

export function buildProgram(
  setExitCode: (code: number) => void,
  commands: CommandFactory[],
  onLogFormat?: (format: LogFormat) => void,
): Command {
  const program = new Command('stacksync')
    .description('Keep ingestion pipes, dashboards and alerts in Git: plan and apply YAML manifests against the API.')
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const factory of commands) program.addCommand(factory(setExitCode).exitOverride());
  program.hook('preAction', (_program, action) => {
    compileForQuickExit(action.name(), action.opts());
    sizeHeapFor(heapUseOf(action.name(), action.opts()));
    onLogFormat?.(logFormatFor(action.name(), action.opts()));
  });
  return program;
}

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  dropOutputOnClosedPipe(process.stdout);
  dropOutputOnClosedPipe(process.stderr);
  // No secret of the run in anything printed, whichever request a server's answer quotes (docs/security.md).
  maskWrites(process.stdout);
  maskWrites(process.stderr);
  const { commandFactories } = await import('./commands.js');
  let exitCode = EXIT_OK;
  let logFormat: LogFormat = 'human';
  const program = buildProgram(
    (code) => (exitCode = code),
    commandFactories,
    (format) => (logFormat = format),
  );
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    return reportFailure(error, logFormat);
  }
}

function reportFailure(error: unknown, format: LogFormat): number {
  if (error instanceof CommanderError) {
    // --help and --version end through here with code 0.
    return error.exitCode === 0 ? EXIT_OK : EXIT_ERROR;
  }
  const code = isStacksyncError(error) ? error.code : 'E_INTERNAL';
  const location = isStacksyncError(error) ? error.location : undefined;
  const where = formatLocation(location);
  const message = isStacksyncError(error)
    ? error.message
    : error instanceof Error
      ? (error.stack ?? error.message)
      : String(error);
  // With JSON logs, the last word is a JSON record too, its location in the fields plan --output json uses.
  const problems =
    isStacksyncError(error) && Array.isArray(error.details?.['problems'])
      ? { problems: error.details['problems'] as unknown[] }
      : {};
  // The message may quote a manifest, a file name or a server: shown, never obeyed (support/terminal.ts).
  if (format === 'json')
    process.stderr.write(
      `${showJson(JSON.stringify({ level: 50, time: new Date().toISOString(), name: 'stacksync', code, ...location, ...problems, msg: message }))}\n`,
    );
  else process.stderr.write(`stacksync: ${code}: ${where ? `${show(where)}: ` : ''}${showLines(message)}\n`);
  return EXIT_ERROR;
}
