/** The escaper every terminal output goes through: each control character shown, never obeyed. */
import { describe, expect, it } from 'vitest';
import { show, showJson, showLines } from '../../src/support/terminal.js';
import { formatHumanRecord } from '../../src/support/logger.js';
import { createProgressReporter } from '../../src/cli/progress.js';

describe('show, showLines, showJson', () => {
  it.each([
    ['plain text', 'plain text'],
    ['ESC, BEL', 'a\u001b]0;t\u0007b', 'a\\x1b]0;t\\x07b'],
    ['CR, BS, newline, tab', 'x\ry\bz\nw\tv', 'x\\ry\\x08z\\nw\\tv'],
    ['NUL, DEL', '\u0000\u007f', '\\x00\\x7f'],
    ['C1 controls (CSI, NEL)', '\u009b2J\u0085', '\\x9b2J\\x85'],
    ['what lies beyond C1', 'é → ✓ \u00a0', 'é → ✓ \u00a0'],
  ])('show: %s', (_name, text, shown = text) => {
    expect(show(text)).toBe(shown);
    // Idempotent: what it shows has nothing left to escape.
    expect(show(shown)).toBe(shown);
  });

  it('keeps only the newline in text laid out in lines', () => {
    expect(showLines('one\ntwo\r\n\u001b[2Jthree\t')).toBe('one\ntwo\\r\n\\x1b[2Jthree\\t');
  });

  it('escapes in JSON what JSON.stringify leaves raw, and a parser reads the same value', () => {
    const value = { name: 'a\u001b\u007f\u009b\u0085b' };
    const json = showJson(JSON.stringify(value));
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('the places text reaches a terminal', () => {
  const hostile = 'x\u001b]0;owned\u0007\r\b\u009b2J';
  const ESCAPES_BUT_OURS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

  it('a human log line shows a hostile message and field, never obeys them', () => {
    const line = formatHumanRecord(
      { level: 50, time: 0, msg: `failed ${hostile}`, target: `prod${hostile}`, name: 'stacksync', detail: hostile },
      false,
    );
    expect(line).not.toMatch(ESCAPES_BUT_OURS);
    expect(line).toContain('failed x\\x1b]0;owned\\x07\\r\\x08\\x9b2J');
  });

  it('the progress on a terminal keeps its own line clearing, and shows a failure from a server', () => {
    let written = '';
    const reporter = createProgressReporter({
      stream: { isTTY: true, columns: 200, write: (chunk: string) => (written += chunk) },
      clock: () => 0,
    });
    reporter.onEvent({ type: 'apply-started', target: 'prod', at: 0, total: 1 });
    reporter.onEvent({
      type: 'change-failed',
      target: 'prod',
      kind: 'Dashboard',
      action: 'create',
      key: 'Dashboard/x',
      at: 0,
      durationMs: 1,
      code: 'E_API_VALIDATION',
      error: hostile,
    });
    // The only escape sequence left is the reporter's own: CR and "erase line" before each redraw.
    expect(written.replaceAll('\r\u001b[2K', '')).not.toMatch(ESCAPES_BUT_OURS);
    expect(written).toContain('failed Dashboard/x: E_API_VALIDATION: x\\x1b]0;owned\\x07\\r\\x08\\x9b2J');
  });
});
