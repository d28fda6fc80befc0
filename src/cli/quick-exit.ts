/**
 * A command that exits when its work is done should exit then. The HTTP client's parser
 * (undici's llhttp) is WebAssembly: V8 runs it first with its baseline compiler and optimises it
 * in the background, and the process cannot exit until that optimisation has finished, which on
 * a 2-core machine came 0.15 to 0.4 s after the command's last output. A one-off command gains
 * nothing from the optimised parser (an apply of 2,000 writes was no slower without it), so it
 * keeps the baseline code; a daemon, which parses responses for as long as it runs, gets both.
 * The same hook sizes the heap by what the process is (`HEAP_USE`).
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

/**
 * How each command's process sizes its heap (`support/heap.ts`), where not V8's defaults (an
 * apply, the emulator): a pass that reads and reports, whose allocations die young, or the daemon.
 */
const HEAP_USE: Readonly<Record<string, (options: Record<string, unknown>) => HeapUse>> = {
  plan: () => 'pass',
  validate: () => 'pass',
  export: () => 'pass',
  pull: () => 'pass',
  run: (options) => (runsUntilStopped('run', options) ? 'daemon' : 'default'),
};

export function heapUseOf(command: string, options: Record<string, unknown>): HeapUse {
  return HEAP_USE[command]?.(options) ?? 'default';
}
