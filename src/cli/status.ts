/**
 * `stacksync status`: asks a running daemon for its `/status` and prints what its status page
 * shows, or the document itself with `--output json`. Exit 1 when any resource is in error or any
 * target's last sync failed, so a script can gate on it; also when no daemon answers.
 */
import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { request } from 'undici';
import { chooseConfigPath, processEnv, type Env } from '../config/paths.js';
import { loadConfig } from '../config/load.js';
import { DEFAULT_LISTEN, parseListen, type ListenAddress } from '../daemon/http.js';
import type { StatusDocument } from '../daemon/status.js';
import { StacksyncError } from '../errors.js';
import { showJson } from '../support/terminal.js';
import { EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { collect } from './output.js';
import { logFormatOption } from './log-format.js';
import { parseLockTimeout } from './context.js';
import {
  checkStatusDocument,
  DEFAULT_MAX_STATUS_BYTES,
  DEFAULT_STATUS_TIMEOUT_MS,
  formatSize,
  parseSize,
  readCapped,
  TooLarge,
} from './status-document.js';

interface StatusFlags {
  config?: string;
  listen?: string;
  target: string[];
  output: 'text' | 'json';
  /** `--timeout`, milliseconds: the whole answer, headers and body. */
  timeout: number;
  /** `--max-size`, bytes of the body at most. */
  maxSize: number;
}

/** How much of an answer is read, and for how long: the bounds of a daemon that may be broken or hostile. */
interface AnswerBounds {
  timeoutMs: number;
  maxBytes: number;
}

function parseTimeout(text: string): number {
  const ms = parseLockTimeout(text);
  if (ms <= 0) throw new InvalidArgumentError('must be longer than 0');
  return ms;
}

function parseMaxSize(text: string): number {
  const bytes = parseSize(text);
  if (bytes === undefined) throw new InvalidArgumentError('must be a size like 64MiB, 512KiB or a number of bytes');
  return bytes;
}

export const statusCommand: CommandFactory = (setExitCode) =>
  new Command('status')
    .summary('ask a running daemon what is in sync, drifted or failing (its status page, in the terminal)')
    .description(
      'Reads /status from a running `stacksync run` and prints, per target, the last sync (when, ' +
        'revision, outcome, counts, rate-budget wait) and every resource with its status, manifest line, ' +
        'error and the fields a drifted one differs in.\n' +
        'The daemon is asked at --listen, else at the daemon.listen of the config, else at the default 0.0.0.0:9464 (asked on 127.0.0.1).\n' +
        'Exit codes: 0 nothing in error, 1 a resource in error, a target whose last sync failed, or no daemon answering.',
    )
    .option(
      '-c, --config <file>',
      'config file whose daemon.listen names the address (env STACKSYNC_CONFIG; default config/stacksync.yaml, when there is one)',
    )
    .option(
      '--listen <host:port>',
      `the address the daemon listens on, as given to run --listen (default: the config's daemon.listen, else ${DEFAULT_LISTEN})`,
    )
    .option('--target <name>', 'only this target (repeatable; default every target)', collect, [])
    .addOption(
      new Option('--output <format>', 'text for people, json for tools (the /status document)')
        .choices(['text', 'json'])
        .default('text'),
    )
    .addOption(
      new Option(
        '--timeout <duration>',
        'how long the daemon has to send its whole answer, e.g. 10s, 1m, or seconds; then exit 1',
      )
        .argParser(parseTimeout)
        .default(DEFAULT_STATUS_TIMEOUT_MS, `${DEFAULT_STATUS_TIMEOUT_MS / 1000}s`),
    )
    .addOption(
      new Option(
        '--max-size <size>',
        'the largest answer read, e.g. 64MiB, 512KiB, or bytes; a longer one is cut off and the command exits 1',
      )
        .argParser(parseMaxSize)
        .default(DEFAULT_MAX_STATUS_BYTES, formatSize(DEFAULT_MAX_STATUS_BYTES).replace(' ', '')),
    )
    .addOption(logFormatOption())
    .action(async (flags: StatusFlags) => {
      const { address, from } = await daemonAddress(flags, processEnv());
      // The view of the document loads only for this command (it needs the metrics module's tables).
      const { anythingInError, onlyTargets, renderStatusText } = await import('./status-text.js');
      const document = onlyTargets(
        await fetchStatus(address, from, { timeoutMs: flags.timeout, maxBytes: flags.maxSize }),
        flags.target,
      );
      process.stdout.write(
        flags.output === 'json' ? `${showJson(JSON.stringify(document, null, 2))}\n` : renderStatusText(document),
      );
      setExitCode(anythingInError(document) ? EXIT_ERROR : EXIT_OK);
    });

/** Where to ask, and which setting said so (named when nothing answers there). */
async function daemonAddress(flags: StatusFlags, env: Env): Promise<{ address: ListenAddress; from: string }> {
  if (flags.listen !== undefined) return { address: parseListen(flags.listen), from: '--listen' };
  const chosen = chooseConfigPath(flags.config, env);
  if (chosen.from !== 'default' || existsSync(chosen.path)) {
    const { config } = await loadConfig(chosen.path);
    if (config.daemon?.listen !== undefined)
      return { address: parseListen(config.daemon.listen), from: `daemon.listen in ${chosen.path}` };
  }
  return { address: parseListen(DEFAULT_LISTEN), from: 'the default address' };
}

/** The host to connect to: a daemon listening on every interface is asked on loopback. */
export function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

async function fetchStatus(address: ListenAddress, from: string, bounds: AnswerBounds): Promise<StatusDocument> {
  const host = connectHost(address.host);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/status`;
  const unreachable = (why: string, cause?: unknown): StacksyncError =>
    new StacksyncError(
      'E_DAEMON_UNREACHABLE',
      `no stacksync daemon answered at ${url} (${why}); the address came from ${from}: start one with ` +
        `\`stacksync run\`, or pass --listen HOST:PORT as it was started with`,
      { subject: url, ...(cause === undefined ? {} : { cause }) },
    );
  const unusable = (why: string): StacksyncError =>
    new StacksyncError(
      'E_DAEMON_UNREACHABLE',
      `what answered at ${url} sent no usable stacksync status document: ${why}; the address came from ${from}`,
      { subject: url },
    );
  // One deadline for the whole answer: undici's own timeouts restart with each chunk, so a body
  // trickled a byte at a time would never end.
  const deadline = AbortSignal.timeout(bounds.timeoutMs);
  const late = `it did not answer in full within ${bounds.timeoutMs / 1000}s (--timeout)`;
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(url, { signal: deadline, headers: { accept: 'application/json' } });
  } catch (error) {
    if (deadline.aborted) throw unreachable(late);
    throw unreachable((error as NodeJS.ErrnoException).code ?? (error as Error).message, error);
  }
  if (answer.statusCode !== 200) {
    answer.body.destroy();
    throw unreachable(`it answered HTTP ${answer.statusCode}`);
  }
  const length = Number(answer.headers['content-length']);
  if (Number.isFinite(length) && length > bounds.maxBytes) {
    answer.body.destroy();
    throw unusable(`it announced ${length} bytes, more than ${formatSize(bounds.maxBytes)} (--max-size)`);
  }
  let text: string;
  try {
    text = await readCapped(answer.body, bounds.maxBytes);
  } catch (error) {
    answer.body.destroy();
    if (error instanceof TooLarge) throw unusable(`it sent ${error.message} (--max-size)`);
    if (deadline.aborted) throw unusable(late);
    throw unusable(`its answer broke off (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const checked = checkStatusDocument(text);
  if ('problem' in checked) throw unusable(checked.problem);
  return checked.document;
}
