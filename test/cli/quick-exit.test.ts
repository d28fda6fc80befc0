/** Which commands keep V8's baseline WebAssembly code so they exit as soon as they are done (quick-exit.ts). */
import { describe, expect, it } from 'vitest';
import { runsUntilStopped } from '../../src/cli/quick-exit.js';

const CASES: { command: string; options: Record<string, unknown>; longRunning: boolean }[] = [
  { command: 'run', options: {}, longRunning: true },
  { command: 'run', options: { once: true }, longRunning: false },
  { command: 'run', options: { once: true, dryRun: true }, longRunning: false },
  { command: 'emulator', options: {}, longRunning: true },
  { command: 'plan', options: {}, longRunning: false },
  { command: 'apply', options: { prune: true }, longRunning: false },
  { command: 'validate', options: {}, longRunning: false },
  { command: 'export', options: {}, longRunning: false },
];

describe('runsUntilStopped', () => {
  it.each(CASES)('$command $options → $longRunning', ({ command, options, longRunning }) => {
    expect(runsUntilStopped(command, options)).toBe(longRunning);
  });
});
