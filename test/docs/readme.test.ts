/**
 * The documentation is part of the interface: these checks keep it in step with the code, so an
 * error code, a metric, a command or a flag cannot be added without being documented in its
 * reference page, and the README stays a short front page whose first block is the two commands
 * that work on a fresh clone.
 */
import { describe, expect, it } from 'vitest';
import { commandFactories } from '../../src/cli/commands.js';
import { createMetrics } from '../../src/daemon/metrics.js';
import { ERROR_CODES, isTerminal, type ErrorCode } from '../../src/errors.js';
import { codeBlocks, readDoc } from './markdown.js';

const readme = readDoc('README.md');
const errorCodesPage = readDoc('docs/reference/error-codes.md');
const metricsPage = readDoc('docs/reference/metrics.md');
const cliPage = readDoc('docs/reference/cli.md');
const troubleshootingPage = readDoc('docs/troubleshooting.md');

describe('README', () => {
  it('starts with the two commands that work on a fresh clone', () => {
    const block = readme.split('```')[1] ?? '';
    const commands = block
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter((line) => line && line !== 'sh');
    expect(commands).toEqual(['npm ci && npm start', 'npm test']);
    expect(codeBlocks('README.md', readme)[0]?.lang).toBe('sh');
  });

  it('is a front page of at most 300 lines: the manual is in docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    for (const heading of ['## A five-minute tour', '## Install', '## Documentation'])
      expect(readme).toContain(`\n${heading}\n`);
  });
});

describe('reference pages', () => {
  it('docs/reference/error-codes.md lists every error code with the meaning the code gives it', () => {
    for (const [code, meaning] of Object.entries(ERROR_CODES))
      expect(errorCodesPage).toContain(`| \`${code}\` | ${meaning} |`);
  });

  it("docs/reference/error-codes.md states the daemon's retry rule of every error code as the code has it", () => {
    for (const [code, meaning] of Object.entries(ERROR_CODES)) {
      const rule = isTerminal(code as ErrorCode) ? 'waits for a change' : 'retries with backoff';
      expect(errorCodesPage).toContain(`| \`${code}\` | ${meaning} | ${rule} |`);
    }
  });

  it('docs/troubleshooting.md says what to do about every error code, in its "By error code" table', () => {
    const section = /\n## By error code\n([\s\S]*?)(?=\n## )/.exec(troubleshootingPage)?.[1] ?? '';
    const rows = section.split('\n').filter((line) => line.startsWith('| `E_'));
    const advised = rows.map((row) => /^\| `(E_\w+)` \| (.*) \|$/.exec(row));
    expect(
      advised.every((match) => match !== null && match[2]!.trim().length > 10),
      'each row has advice',
    ).toBe(true);
    expect(advised.map((match) => match?.[1]).sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('docs/reference/metrics.md documents every stacksync metric', async () => {
    const names = (await createMetrics({ defaultMetrics: false }).registry.getMetricsAsJSON()).map(
      (metric) => metric.name,
    );
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const name of names) expect(metricsPage).toContain(`| \`${name.replace(/^stacksync_/, '')}\` |`);
  });

  it('docs/reference/cli.md names every command in its synopsis with every long flag of it', () => {
    const synopsis = synopsisEntries(
      codeBlocks('docs/reference/cli.md', cliPage).find((block) => block.text.startsWith('stacksync validate'))?.text ??
        '',
    );
    for (const factory of commandFactories) {
      const command = factory(() => undefined);
      const entry = synopsis.get(command.name()) ?? '';
      expect(entry, `synopsis of ${command.name()}`).not.toBe('');
      for (const option of command.options) {
        if (!option.long || option.long === '--help') continue;
        // The synopsis may use the short form (`[-c F]`); the long one is then explained on the page.
        const named =
          entry.includes(option.long) || (option.short !== undefined && entry.includes(`[${option.short} `));
        expect(named, `${command.name()} ${option.long} in the synopsis`).toBe(true);
        expect(cliPage, option.long).toContain(option.long);
      }
    }
  });
});

/** The synopsis block's entries by command: a line `stacksync NAME …` and the indented lines after it. */
function synopsisEntries(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split('\n')) {
    const start = /^stacksync (\S+)/.exec(line);
    if (start) current = start[1];
    else if (!line.startsWith(' ')) current = undefined;
    if (current !== undefined) entries.set(current, `${entries.get(current) ?? ''} ${line}`);
  }
  return entries;
}
