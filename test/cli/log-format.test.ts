/**
 * Which form a command's logs take (cli/log-format.ts): human lines on a terminal; off one, JSON
 * only where a machine reads the output; `--log-format` decides over both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { logFormatFor } from '../../src/cli/log-format.js';

const CONFIG = 'config/emulator.yaml';

const CASES: { command: string; options: Record<string, unknown>; tty: boolean; format: 'human' | 'json' }[] = [
  { command: 'run', options: { config: CONFIG }, tty: true, format: 'human' },
  { command: 'run', options: { config: CONFIG }, tty: false, format: 'json' },
  { command: 'run', options: { config: CONFIG, once: true }, tty: false, format: 'human' },
  { command: 'run', options: { config: CONFIG, embedded: true }, tty: false, format: 'human' },
  { command: 'run', options: { config: CONFIG, logFormat: 'human' }, tty: false, format: 'human' },
  { command: 'emulator', options: {}, tty: false, format: 'json' },
  { command: 'emulator', options: {}, tty: true, format: 'human' },
  { command: 'apply', options: { output: 'text' }, tty: false, format: 'human' },
  { command: 'apply', options: { output: 'json' }, tty: false, format: 'json' },
  { command: 'plan', options: { output: 'json' }, tty: true, format: 'human' },
  { command: 'plan', options: { output: 'github' }, tty: false, format: 'human' },
  { command: 'plan', options: { output: 'text', logFormat: 'json' }, tty: true, format: 'json' },
  { command: 'export', options: {}, tty: false, format: 'human' },
];

describe('logFormatFor', () => {
  it.each(CASES)('$command $options on a terminal: $tty → $format', ({ command, options, tty, format }) => {
    expect(logFormatFor(command, options, tty)).toBe(format);
  });
});

describe('logFormatFor run with no config anywhere (npm start on a fresh clone)', () => {
  it('is the embedded demo a person watches: human lines, pipe or not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stacksync-log-format-'));
    const previous = process.cwd();
    vi.stubEnv('STACKSYNC_CONFIG', '');
    process.chdir(dir);
    try {
      expect(logFormatFor('run', {}, false)).toBe('human');
      expect(logFormatFor('run', { config: join(previous, CONFIG) }, false)).toBe('json');
    } finally {
      process.chdir(previous);
      vi.unstubAllEnvs();
      await rm(dir, { recursive: true });
    }
  });
});
