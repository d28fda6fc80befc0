/** Small helpers the commands share for flags and terminal output. */
import { showLines } from '../support/terminal.js';
import type { Logger } from 'pino';
import type { Plan } from '../model/plan.js';
import { buildPlan } from '../plan/build.js';
import type { LogFormat } from '../support/logger.js';
import { InvalidArgumentError } from 'commander';
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';

/** `--kind K`, repeatable and case-insensitive (`dashboards` too): the kinds named so far. */
export function parseKind(value: string, previous: Kind[] | undefined): Kind[] {
  const kind = KINDS.find((candidate) => candidate.toLowerCase() === value.toLowerCase().replace(/s$/, ''));
  if (!kind) throw new InvalidArgumentError(`must be one of ${KINDS.join(', ')}`);
  return [...(previous ?? []), kind];
}

/** commander reducer for repeatable options. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Colours on a terminal unless NO_COLOR is set (https://no-color.org). */
export function useColor(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  return stream.isTTY === true && !env['NO_COLOR'] && env['TERM'] !== 'dumb';
}

/** The plan with the config's warnings (e.g. plain-string secrets) added to its own. */
export function withConfigWarnings(
  plan: Plan,
  warnings: readonly { message: string; file: string; line?: number; column?: number }[],
): Plan {
  if (warnings.length === 0) return plan;
  const extra = warnings.map((warning) => ({ ...warning, code: 'W_CONFIG' as const }));
  return buildPlan(plan.changes, plan.errors, [...extra, ...plan.warnings]);
}

/**
 * Writes text pieces to a stream in writes of about 64 KiB, waiting whenever the stream asks to
 * (a pipe to a slow reader): a huge plan never sits in memory whole, as text or in buffers.
 */
export async function writeChunks(stream: NodeJS.WritableStream, chunks: Iterable<string>): Promise<void> {
  let pending = '';
  const flush = async (): Promise<void> => {
    const ok = stream.write(pending);
    pending = '';
    // A reader that went away never drains: its 'close' ends the wait too (see pipes.ts).
    if (!ok)
      await new Promise<void>((resolve) => {
        const done = (): void => {
          stream.off('drain', done);
          stream.off('close', done);
          resolve();
        };
        stream.once('drain', done);
        stream.once('close', done);
      });
  };
  for (const chunk of chunks) {
    pending += chunk;
    if (pending.length >= 64 * 1024) await flush();
  }
  if (pending.length > 0) await flush();
}

/**
 * A notice for whoever reads stderr: a `stacksync: …` line for a person, a record when the logs
 * are JSON (a human line among JSON records would break the collector's parse).
 */
export function notice(
  logger: Logger,
  format: LogFormat,
  level: 'info' | 'warn',
  message: string,
  fields: Record<string, unknown> = {},
): void {
  if (format === 'json') logger[level](fields, message);
  else process.stderr.write(`stacksync: ${level === 'warn' ? 'warning: ' : ''}${showLines(message)}\n`);
}
