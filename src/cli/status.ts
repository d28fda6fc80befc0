/**
 * `stacksync status`: asks a running daemon for its `/status` and prints what its status page
 * shows, or the document itself with `--output json`. Exit 1 when any resource is in error or any
 * target's last sync failed, so a script can gate on it; also when no daemon answers.
 */
import { existsSync } from 'node:fs';
import { Command, Option } from 'commander';
import { request } from 'undici';
import { chooseConfigPath, processEnv, type Env } from '../config/paths.js';
import { loadConfig } from '../config/load.js';
import { DEFAULT_LISTEN, parseListen, type ListenAddress } from '../daemon/http.js';
import type { StatusDocument } from '../daemon/status.js';
import { StacksyncError } from '../errors.js';
import { EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { collect } from './output.js';
import { logFormatOption } from './log-format.js';

interface StatusFlags {
  config?: string;
  listen?: string;
  target: string[];
  output: 'text' | 'json';
}

/** How long the daemon has to answer. */
const ANSWER_TIMEOUT_MS = 10_000;

export const statusCommand: CommandFactory = (setExitCode) =>
  new Command('status')
    .summary("ask a running daemon what is in sync, drifted or failing (its status page, in the terminal)")
    .description(
      "Reads /status from a running `stacksync run` and prints, per target, the last sync (when, revision, outcome, counts, rate-budget wait) and every resource with its status, manifest line, error and the fields a drifted one differs in.\n" +
        'The daemon is asked at --listen, else at the daemon.listen of the config, else at the default 0.0.0.0:9464 (asked on 127.0.0.1).\n' +
        'Exit codes: 0 nothing in error, 1 a resource in error, a target whose last sync failed, or no daemon answering.',
    )
    .option('-c, --config <file>', 'config file whose daemon.listen names the address (env STACKSYNC_CONFIG; default config/stacksync.yaml, when there is one)')
    .option('--listen <host:port>', `the address the daemon listens on, as given to run --listen (default: the config's daemon.listen, else ${DEFAULT_LISTEN})`)
    .option('--target <name>', 'only this target (repeatable; default every target)', collect, [])
    .addOption(new Option('--output <format>', 'text for people, json for tools (the /status document)').choices(['text', 'json']).default('text'))
    .addOption(logFormatOption())
    .action(async (flags: StatusFlags) => {
      const { address, from } = await daemonAddress(flags, processEnv());
      // The view of the document loads only for this command (it needs the metrics module's tables).
      const { anythingInError, onlyTargets, renderStatusText } = await import('./status-text.js');
      const document = onlyTargets(await fetchStatus(address, from), flags.target);
      process.stdout.write(flags.output === 'json' ? `${JSON.stringify(document, null, 2)}\n` : renderStatusText(document));
      setExitCode(anythingInError(document) ? EXIT_ERROR : EXIT_OK);
    });

/** Where to ask, and which setting said so (named when nothing answers there). */
async function daemonAddress(flags: StatusFlags, env: Env): Promise<{ address: ListenAddress; from: string }> {
  if (flags.listen !== undefined) return { address: parseListen(flags.listen), from: '--listen' };
  const chosen = chooseConfigPath(flags.config, env);
  if (chosen.from !== 'default' || existsSync(chosen.path)) {
    const { config } = await loadConfig(chosen.path);
    if (config.daemon?.listen !== undefined) return { address: parseListen(config.daemon.listen), from: `daemon.listen in ${chosen.path}` };
  }
  return { address: parseListen(DEFAULT_LISTEN), from: 'the default address' };
}

/** The host to connect to: a daemon listening on every interface is asked on loopback. */
export function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

async function fetchStatus(address: ListenAddress, from: string): Promise<StatusDocument> {
  const host = connectHost(address.host);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/status`;
  const unreachable = (why: string, cause?: unknown): StacksyncError =>
    new StacksyncError(
      'E_DAEMON_UNREACHABLE',
      `no stacksync daemon answered at ${url} (${why}); the address came from ${from}: start one with \`stacksync run\`, or pass --listen HOST:PORT as it was started with`,
      { subject: url, ...(cause === undefined ? {} : { cause }) },
    );
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(url, { headersTimeout: ANSWER_TIMEOUT_MS, bodyTimeout: ANSWER_TIMEOUT_MS, headers: { accept: 'application/json' } });
  } catch (error) {
    throw unreachable((error as NodeJS.ErrnoException).code ?? (error as Error).message, error);
  }
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw unreachable(`it answered HTTP ${answer.statusCode}`);
  const document = parseDocument(text);
  if (document === undefined) throw unreachable('what answered is not a stacksync status document');
  return document;
}

function parseDocument(text: string): StatusDocument | undefined {
  try {
    const data = JSON.parse(text) as Partial<StatusDocument>;
    return data.version === 1 && typeof data.targets === 'object' && data.targets !== null ? (data as StatusDocument) : undefined;
  } catch {
    return undefined;
  }
}
