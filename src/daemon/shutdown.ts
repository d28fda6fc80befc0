/**
 * Graceful shutdown on SIGTERM/SIGINT (docs/daemon.md): the first signal stops the daemon
 * cleanly (stop taking work, let in-flight requests finish, write the state file) and exits 0.
 * The stop is bounded: past the grace period the state may not have been written, so the
 * process exits 1 rather than claim a clean stop. A second signal means "now": exit 1 at once.
 */
import type { Logger } from 'pino';

/** What signals arrive on; `process` in production, an EventEmitter in tests. */
export interface SignalSource {
  on(event: string, listener: (signal: string) => void): unknown;
  removeListener(event: string, listener: (signal: string) => void): unknown;
}

export interface ShutdownTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ShutdownOptions {
  /** The clean stop; resolves once the state is written. Called once, with the signal's name. */
  onFirstSignal: (signal: string) => Promise<void>;
  /** How long the clean stop may take before the process gives up and exits 1. */
  graceMs: number;
  /** Ends the process; `process.exit` in production. Called at most once. */
  exit: (code: number) => void;
  /** Default `process`. */
  emitter?: SignalSource;
  /** Default `SIGTERM` and `SIGINT`. */
  signals?: readonly string[];
  logger?: Logger;
  /** Default the global timers. */
  timers?: ShutdownTimers;
}

export interface ShutdownHandle {
  /** True once a signal has started the shutdown. */
  readonly shuttingDown: boolean;
  /** Removes the signal listeners (a stop that did not come from a signal, or tests). */
  uninstall(): void;
}

export const DEFAULT_SIGNALS: readonly string[] = ['SIGTERM', 'SIGINT'];

const GLOBAL_TIMERS: ShutdownTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Listens for the shutdown signals; see the module comment for the exit codes. */
export function installShutdown(options: ShutdownOptions): ShutdownHandle {
  const emitter: SignalSource = options.emitter ?? process;
  const signals = options.signals ?? DEFAULT_SIGNALS;
  const timers = options.timers ?? GLOBAL_TIMERS;
  const log = options.logger;
  let shuttingDown = false;
  let exited = false;
  const exitOnce = (code: number): void => {
    if (exited) return;
    exited = true;
    options.exit(code);
  };

  const onSignal = (signal: string): void => {
    if (shuttingDown) {
      log?.warn({ signal }, 'second signal: exiting now');
      exitOnce(1);
      return;
    }
    shuttingDown = true;
    log?.info({ signal, graceMs: options.graceMs }, 'shutting down: finishing in-flight work');
    const grace = timers.setTimeout(() => {
      log?.error({ graceMs: options.graceMs }, 'shutdown grace period expired; the state file may be behind');
      exitOnce(1);
    }, options.graceMs);
    // Not awaited: a signal handler returns at once; stopCleanly never rejects (a failure is exit code 1).
    void stopCleanly(options.onFirstSignal, signal, log).then((code) => {
      timers.clearTimeout(grace);
      exitOnce(code);
    });
  };

  for (const signal of signals) emitter.on(signal, onSignal);
  return {
    get shuttingDown() {
      return shuttingDown;
    },
    uninstall() {
      for (const signal of signals) emitter.removeListener(signal, onSignal);
    },
  };
}

async function stopCleanly(
  stop: (signal: string) => Promise<void>,
  signal: string,
  log: Logger | undefined,
): Promise<number> {
  try {
    await stop(signal);
    log?.info('stopped cleanly');
    return 0;
  } catch (error) {
    log?.error({ err: error }, 'clean stop failed');
    return 1;
  }
}
