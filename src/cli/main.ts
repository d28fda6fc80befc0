import { Command, CommanderError } from 'commander';
import { formatLocation, isStacksyncError } from '../errors.js';
import { EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { packageVersion } from './version.js';
import { compileForQuickExit } from './quick-exit.js';
import { dropOutputOnClosedPipe } from './pipes.js';

export { packageVersion } from './version.js';

export function buildProgram(setExitCode: (code: number) => void, commands: CommandFactory[]): Command {
  const program = new Command('stacksync')
    .description('Keep ingestion pipes, dashboards and alerts in Git: plan and apply YAML manifests against the API.')
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const factory of commands) program.addCommand(factory(setExitCode).exitOverride());
  program.hook('preAction', (_program, action) => compileForQuickExit(action.name(), action.opts()));
  return program;
}

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  dropOutputOnClosedPipe(process.stdout);
  dropOutputOnClosedPipe(process.stderr);
  const { commandFactories } = await import('./commands.js');
  let exitCode = EXIT_OK;
  const program = buildProgram((code) => (exitCode = code), commandFactories);
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    return reportFailure(error);
  }
}

function reportFailure(error: unknown): number {
  if (error instanceof CommanderError) {
    // --help and --version end through here with code 0.
    return error.exitCode === 0 ? EXIT_OK : EXIT_ERROR;
  }
  if (isStacksyncError(error)) {
    const where = formatLocation(error.location);
    process.stderr.write(`stacksync: ${error.code}: ${where ? `${where}: ` : ''}${error.message}\n`);
    return EXIT_ERROR;
  }
  process.stderr.write(`stacksync: E_INTERNAL: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return EXIT_ERROR;
}
