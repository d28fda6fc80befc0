/**
 * Which form a command's log lines take (`--log-format`): human lines for a person, JSON records
 * for a log collector, never both in one stream. On a terminal, human lines unless asked. Off a
 * terminal, JSON where a machine reads the output: the daemon (a pod's log), the emulator (a test
 * server), any `--output json`; human lines where a person reads it later (a CI log of `plan` or
 * `apply`, `run --once`, the embedded demo).
 */
import { Option } from 'commander';
import { noConfigAnywhere, processEnv } from '../config/paths.js';
import { LOG_FORMATS, type LogFormat } from '../support/logger.js';

export type { LogFormat } from '../support/logger.js';

/** Commands whose output is for machines whatever `--output` says, given their options. */
const FOR_MACHINES: Readonly<Record<string, (options: Record<string, unknown>) => boolean>> = {
  // Embedded (asked for, or no config anywhere, as on a fresh clone) is the demo a person watches.
  run: (options) =>
    options['once'] !== true &&
    options['embedded'] !== true &&
    !noConfigAnywhere(typeof options['config'] === 'string' ? options['config'] : undefined, processEnv()),
  emulator: () => true,
};

/** The log format of `command` run with `options` (commander's, `logFormat` being `--log-format`). */
export function logFormatFor(command: string, flags: object, stderrIsTty = process.stderr.isTTY === true): LogFormat {
  const options = flags as Record<string, unknown>;
  const flag = options['logFormat'];
  if (flag === 'human' || flag === 'json') return flag;
  if (stderrIsTty) return 'human';
  const forMachines = options['output'] === 'json' || (FOR_MACHINES[command]?.(options) ?? false);
  return forMachines ? 'json' : 'human';
}

/** `--log-format human|json`. */
export function logFormatOption(): Option {
  return new Option(
    '--log-format <format>',
    'log lines on stderr: human (one line each) or json (for log collectors); default human on a terminal, else json for run, emulator and --output json',
  ).choices(LOG_FORMATS);
}
