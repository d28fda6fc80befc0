/**
 * A command that exits when its work is done should exit then. The HTTP client's parser
 * (undici's llhttp) is WebAssembly: V8 runs it first with its baseline compiler and optimises it
 * in the background, and the process cannot exit until that optimisation has finished, which on
 * a 2-core machine came 0.15 to 0.4 s after the command's last output. A one-off command gains
 * nothing from the optimised parser (an apply of 2,000 writes was no slower without it), so it
 * keeps the baseline code; a daemon, which parses responses for as long as it runs, gets both.
 */
import { setFlagsFromString } from 'node:v8';
import type { HeapUse } from '../support/heap.js';

/** Commands that run until they are stopped. */
const LONG_RUNNING: Readonly<Record<string, (options: Record<string, unknown>) => boolean>> = {
  run: (options) => options['once'] !== true,
  emulator: () => true,
};

export function runsUntilStopped(command: string, options: Record<string, unknown>): boolean {
  return LONG_RUNNING[command]?.(options) ?? false;
}

/** Must come before the first HTTP request: the flag applies to WebAssembly compiled after it. */
export function compileForQuickExit(command: string, options: Record<string, unknown>): void {
  if (!runsUntilStopped(command, options)) setFlagsFromString('--liftoff-only');
}

/** Commands that make one pass, reading and reporting: what they allocate dies young. */
const PASSES: readonly string[] = ['plan', 'validate', 'export'];

/** How a command's process sizes its heap (`support/heap.ts`). */
export function heapUseOf(command: string, options: Record<string, unknown>): HeapUse {
  if (PASSES.includes(command)) return 'pass';
  return command !== 'emulator' && runsUntilStopped(command, options) ? 'daemon' : 'default';
}
