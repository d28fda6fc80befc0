/**
 * The process logger: pino JSON lines by default (what log collectors parse), pino-pretty when a
 * human watches a terminal. Every field that could carry a secret is censored by path, on the
 * root logger and on every child, so a careless `log.info({ credentials })` cannot leak.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { DestinationStream, LevelWithSilent, Logger } from 'pino';
import { build as prettyStream } from 'pino-pretty';

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

export interface LoggerOptions {
  /** Minimum level; default `info`. */
  level?: LevelWithSilent;
  /** Human-readable output; default: true when `isTty` (stderr is a terminal). */
  pretty?: boolean;
  /** Where lines go; default stderr (fd 2), so stdout stays free for command output. */
  destination?: DestinationStream;
  /** Whether the output is a terminal; default `process.stderr.isTTY`. Decides `pretty` and colours. */
  isTty?: boolean;
}

/** The root logger of a stacksync process. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const isTty = options.isTty ?? process.stderr.isTTY === true;
  const pretty = options.pretty ?? isTty;
  const settings = {
    level: options.level ?? 'info',
    base: { name: 'stacksync' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
  };
  return pino(settings, pretty ? prettyDestination(options.destination, isTty) : (options.destination ?? pino.destination({ dest: 2, sync: false })));
}

function prettyDestination(destination: DestinationStream | undefined, colorize: boolean): DestinationStream {
  // Synchronous, in-process pretty printing: no worker thread to outlive a crash and lose lines.
  return prettyStream({
    destination: destination ?? 2,
    colorize,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
  });
}

/** A fresh id for one sync, short enough to read in a log line. */
export function newSyncId(): string {
  return randomUUID().replaceAll('-', '').slice(0, 12);
}

/** The logger of one sync of one target: every line carries `target` and a fresh `syncId`. */
export function childForSync(logger: Logger, target: string, syncId: string = newSyncId()): Logger {
  return logger.child({ target, syncId });
}
