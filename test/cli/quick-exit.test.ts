/** Which commands keep V8's baseline WebAssembly code so they exit as soon as they are done, and how each sizes its heap (quick-exit.ts). */
import { describe, expect, it } from 'vitest';
import { heapUseOf, runsUntilStopped } from '../../src/cli/quick-exit.js';

const CASES: { command: string; options: Record<string, unknown>; longRunning: boolean; heap: string }[] = [
  { command: 'run', options: {}, longRunning: true, heap: 'daemon' },
  { command: 'run', options: { once: true }, longRunning: false, heap: 'default' },
  { command: 'run', options: { once: true, dryRun: true }, longRunning: false, heap: 'default' },
  { command: 'emulator', options: {}, longRunning: true, heap: 'default' },
  { command: 'plan', options: {}, longRunning: false, heap: 'pass' },
  { command: 'apply', options: { prune: true }, longRunning: false, heap: 'default' },
  { command: 'validate', options: {}, longRunning: false, heap: 'pass' },
  { command: 'export', options: {}, longRunning: false, heap: 'pass' },
  { command: 'pull', options: { dryRun: true }, longRunning: false, heap: 'pass' },
];

describe('runsUntilStopped', () => {
  it.each(CASES)('$command $options → $longRunning', ({ command, options, longRunning }) => {
    expect(runsUntilStopped(command, options)).toBe(longRunning);
  });
});

describe('heapUseOf', () => {
  // A pass holds its young generation small, the daemon its old generation close; an apply and the emulator are left to V8.
  it.each(CASES)('$command $options → $heap', ({ command, options, heap }) => {
    expect(heapUseOf(command, options)).toBe(heap);
  });
});
