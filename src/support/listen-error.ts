/**
 * Why a server could not listen, as one line for the person who picked the address: the fix is a
 * flag of the command that failed (`--port`/`--host` of the emulator, `--listen` of the daemon).
 */
import { StacksyncError } from '../errors.js';

/** The flags that choose a server's address. */
export interface AddressFlags {
  /** Where a port is chosen, and how to ask for a free one (e.g. `--port; 0 picks a free one`). */
  port: string;
  /** Where the host is chosen. */
  host: string;
}

const LISTEN_PROBLEMS: Readonly<Record<string, (flags: AddressFlags) => string>> = {
  EADDRINUSE: (flags) => `the port is already in use (stop what holds it, or pick another with ${flags.port})`,
  EACCES: (flags) => `permission denied (ports below 1024 need privileges; pick another with ${flags.port})`,
  EADDRNOTAVAIL: (flags) => `the address is not one of this machine’s (check ${flags.host})`,
};

/** `E_USAGE` naming the address and the flag to change; another error as it came. */
export function listenError(error: unknown, address: string, flags: AddressFlags): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const problem = code === undefined ? undefined : LISTEN_PROBLEMS[code];
  if (!problem) return error;
  return new StacksyncError('E_USAGE', `cannot listen on ${address}: ${problem(flags)}`, {
    subject: address,
    cause: error,
  });
}
