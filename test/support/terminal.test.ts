/** The escaper every terminal output goes through: each control character shown, never obeyed. */
import { describe, expect, it } from 'vitest';
import { show, showJson, showLines } from '../../src/support/terminal.js';

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
