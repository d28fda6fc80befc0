/**
 * The README is part of the interface: these checks keep it in step with the code, so an error
 * code, a metric, a command or a flag cannot be added without being documented.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandFactories } from '../../src/cli/commands.js';
import { createMetrics } from '../../src/daemon/metrics.js';
import { ERROR_CODES, isTerminal, type ErrorCode } from '../../src/errors.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('starts with the two commands that work on a fresh clone', () => {
    const block = readme.split('```')[1] ?? '';
    const commands = block.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter((line) => line && line !== 'sh');
    expect(commands).toEqual(['npm ci && npm start', 'npm test']);
  });

  it('lists every error code with the meaning the code gives it', () => {
    for (const [code, meaning] of Object.entries(ERROR_CODES)) expect(readme).toContain(`| \`${code}\` | ${meaning} |`);
  });

  it("states the daemon's retry rule of every error code as the code has it", () => {
    for (const [code, meaning] of Object.entries(ERROR_CODES)) {
      const rule = isTerminal(code as ErrorCode) ? 'waits for a change' : 'retries with backoff';
      expect(readme).toContain(`| \`${code}\` | ${meaning} | ${rule} |`);
    }
  });

  it('documents every stacksync metric', async () => {
    const names = (await createMetrics({ defaultMetrics: false }).registry.getMetricsAsJSON()).map((metric) => metric.name);
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const name of names) expect(readme).toContain(`| \`${name.replace(/^stacksync_/, '')}\` |`);
  });

  it('names every command and every long flag of it', () => {
    for (const factory of commandFactories) {
      const command = factory(() => undefined);
      expect(readme).toContain(`stacksync ${command.name()} `);
      for (const option of command.options) {
        if (option.long && option.long !== '--help') expect(readme, `${command.name()} ${option.long}`).toContain(option.long);
      }
    }
  });
});
