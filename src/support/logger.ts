/**
 * The process logger. Two forms, one per process and never mixed in one stream: JSON lines (what
 * log collectors parse) or human lines, one short line per record (`18:02:03 WARN  prod: …`).
 * Every field that could carry a secret is censored by path, on the root logger and on every
 * child, so a careless `log.info({ credentials })` cannot leak, in either form; and every record
 * is masked of the run's secret values (support/redaction.ts), so neither can a server's error
 * that quotes another request.
 */
import { show, showJson } from './terminal.js';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { DestinationStream, LevelWithSilent, Logger } from 'pino';
import { runSecrets, writesMasked } from './redaction.js';

export type { Logger } from 'pino';

/** Keys whose values are secrets wherever they appear (API credentials, tokens, auth headers). */
export const SECRET_KEYS = [
  'password',
  'secretKey',
  'keySecret',
  'token',
  'accessToken',
  'credentials',
  'accessKey',
  'secret',
  'apiKey',
  'authorization',
  'Authorization',
  'cookie',
] as const;

/** What a censored value is replaced with. */
export const REDACTED = '[redacted]';

/**
 * How deep below the root a secret key is still censored. pino's `*` matches exactly one level,
 * so each depth is its own path; 6 covers the deepest body we log (`body.source.kafka.credentials.password`).
 */
export const REDACT_DEPTH = 6;

/** Redaction paths: each secret key at the top level and at every depth down to REDACT_DEPTH. */
export const REDACT_PATHS: readonly string[] = SECRET_KEYS.flatMap((key) =>
  Array.from({ length: REDACT_DEPTH + 1 }, (_unused, depth) => `${'*.'.repeat(depth)}${key}`),
);

/** `human`: a line a person reads; `json`: a record a log collector parses. */
export type LogFormat = 'human' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['human', 'json'];

export interface LoggerOptions {
  /** Minimum level; default `info`. */
  level?: LevelWithSilent;
  /** Default: human when `isTty`, else JSON. */
  format?: LogFormat;
  /** Where lines go; default stderr, so stdout stays free for command output. */
  destination?: DestinationStream;
  /** Whether the output is a terminal; default `process.stderr.isTTY`. Decides the default format. */
  isTty?: boolean;
  /** ANSI colours on human lines (default false; the CLI turns them on for a terminal without NO_COLOR). */
  color?: boolean;
}

/** The root logger of a stacksync process. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const isTty = options.isTty ?? process.stderr.isTTY === true;
  const format = options.format ?? (isTty ? 'human' : 'json');
  // stderr itself (not a file descriptor of its own): writes to a closed pipe end quietly (cli/closed-pipe.ts).
  const destination = options.destination ?? process.stderr;
  const settings = {
    level: options.level ?? 'info',
    base: { name: 'stacksync' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    // A stream the CLI masks already (maskWrites) gets each line scanned once, there.
    ...(writesMasked(destination) ? {} : { hooks: { streamWrite: (line: string) => runSecrets.redact(line) } }),
  };
  return pino(
    settings,
    format === 'human' ? humanDestination(destination, options.color === true) : jsonDestination(destination),
  );
}

/**
 * JSON records as pino writes them, but for DEL and the C1 controls, which it leaves as they are
 * in strings: escaped (`\u009b`), so a record of a hostile name read on a terminal is shown, never
 * obeyed (terminal.ts); a parser reads the same record.
 */
function jsonDestination(destination: DestinationStream): DestinationStream {
  return { write: (chunk: string): void => void destination.write(showJson(chunk)) };
}

/** Takes pino's serialised (already redacted) records and writes each as one human line. */
function humanDestination(destination: DestinationStream, color: boolean): DestinationStream {
  return {
    write(chunk: string): void {
      for (const line of chunk.split('\n')) {
        if (line.trim() === '') continue;
        destination.write(`${humanLine(line, color)}\n`);
      }
    },
  };
}

/** A record as a human line; a line that is no record (a mask that took a quote with it) as it is. */
function humanLine(line: string, color: boolean): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  return formatHumanRecord(record, color);
}

const LEVEL_NAMES: Readonly<Record<number, { name: string; color: number }>> = {
  10: { name: 'TRACE', color: 2 },
  20: { name: 'DEBUG', color: 2 },
  30: { name: 'INFO', color: 36 },
  40: { name: 'WARN', color: 33 },
  50: { name: 'ERROR', color: 31 },
  60: { name: 'FATAL', color: 31 },
};

/** What a human line shows elsewhere, or never: the time, level and message, the target as a prefix. */
const SHOWN_APART = new Set(['level', 'time', 'msg', 'name', 'pid', 'hostname', 'target', 'syncId']);

/** One record as one line: `18:02:03 WARN  prod: message key=value …`; an error as its type and message. */
export function formatHumanRecord(record: Record<string, unknown>, color = false): string {
  const level = LEVEL_NAMES[Number(record['level'])] ?? { name: String(record['level']), color: 0 };
  const time =
    typeof record['time'] === 'string' || typeof record['time'] === 'number'
      ? clockTime(new Date(record['time']).getTime())
      : '';
  const label = level.name.padEnd(5);
  const target = typeof record['target'] === 'string' ? `${record['target']}: ` : '';
  const fields = Object.entries(record)
    .filter(([key, value]) => !SHOWN_APART.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${humanValue(value)}`);
  // One line, whatever a name or a server's message holds: shown, never obeyed (terminal.ts).
  const text = show([`${target}${String(record['msg'] ?? '')}`, ...fields].join(' '));
  return `${time} ${color && level.color ? `\u001b[${level.color}m${label}\u001b[0m` : label} ${text}`;
}

function humanValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (isErrorRecord(value)) return JSON.stringify(`${value.type}: ${value.message}`);
  return JSON.stringify(value) ?? String(value);
}

/** pino's serialised `err`: `{ type, message, stack }`; the stack is for JSON logs. */
function isErrorRecord(value: unknown): value is { type: string; message: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string' &&
    typeof (value as { message?: unknown }).message === 'string' &&
    'stack' in value
  );
}

/** `HH:MM:SS` of `ms` in local time: how every human line is stamped (logs and the daemon's console alike). */
export function clockTime(ms: number): string {
  const date = new Date(ms);
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

/** A fresh id for one sync, short enough to read in a log line. */
export function newSyncId(): string {
  return randomUUID().replaceAll('-', '').slice(0, 12);
}

/** The logger of one sync of one target: every line carries `target` and a fresh `syncId`. */
export function childForSync(logger: Logger, target: string, syncId: string = newSyncId()): Logger {
  return logger.child({ target, syncId });
}
