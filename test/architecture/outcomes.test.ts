/**
 * Outcomes travel as codes, never as message text (style.md): no code in src/ decides anything by
 * looking inside an error's or a result's message. And each rule has one table: the kind order,
 * the terminal codes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isRefusal, isTerminal, type ErrorCode } from '../../src/errors.js';
import { KIND_ORDER, kindRank } from '../../src/kinds/index.js';
import { SRC, sourceFiles } from './imports.js';

/** A string method or regex test applied to something named like a message or an error. */
const CLASSIFY_BY_TEXT =
  /\b(message|error|err|reason|result)\??\.(startsWith|endsWith|includes|indexOf|match|search)\(|\.test\(\s*(message|error|err|reason)\b/;

describe('outcomes are decided by code', () => {
  it('the pattern catches what it is meant to', () => {
    for (const line of [
      "result.error?.startsWith('cancelled')",
      "error.message.includes('x')",
      'if (/x/.test(message))',
      "message.startsWith('manifest:')",
    ]) {
      expect(CLASSIFY_BY_TEXT.test(line), line).toBe(true);
    }
    expect(CLASSIFY_BY_TEXT.test("rel.startsWith('..')")).toBe(false);
  });

  it.each(sourceFiles())('%s looks inside no message', (file) => {
    const lines = readFileSync(join(SRC, file), 'utf8').split('\n');
    const offending = lines
      .map((text, index) => ({ text, line: index + 1 }))
      .filter(({ text }) => CLASSIFY_BY_TEXT.test(text));
    expect(offending).toEqual([]);
  });
});

describe('one table per rule', () => {
  it('terminal codes: what repeats until someone changes something', () => {
    const terminal = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(isTerminal);
    expect(terminal).toEqual([
      'E_USAGE',
      'E_CONFIG_INVALID',
      'E_SECRET_MISSING',
      'E_MANIFEST_PARSE',
      'E_MANIFEST_INVALID',
      'E_MANIFEST_DUPLICATE',
      'E_REF_UNRESOLVED',
      'E_API_AUTH',
      'E_STATE_CORRUPT',
      'E_STATE_UNSUPPORTED',
      'E_PRUNE_REFUSED',
      'E_MANIFEST_BLOCKED',
      'E_TENANT_VIOLATION',
      'E_CONFLICT',
      'E_REPLACE_REFUSED',
      'E_RESOURCE_FAILED',
      'E_PLAN_INVALID',
      'E_PLAN_STALE',
      'E_EMULATOR_DATA',
      'E_PROPOSE_UNAVAILABLE',
    ]);
    for (const code of [
      'E_API_UNAVAILABLE',
      'E_API_THROTTLED',
      'E_API_AMBIGUOUS',
      'E_DEPENDENCY_FAILED',
      'E_PROPOSE_FAILED',
      'E_INTERNAL',
    ] as const)
      expect(isTerminal(code), code).toBe(false);
  });

  it('refusals: the API answered no, so nothing happened', () => {
    expect(isRefusal('E_API_VALIDATION')).toBe(true);
    expect(isRefusal('E_API_AMBIGUOUS')).toBe(false);
    expect(isRefusal('E_API_UNAVAILABLE')).toBe(false);
  });

  it('kind order: writes in table order, deletes reversed', () => {
    // Creates bottom-up: a connection before its sources, a source before what reads it, a saved search and a webhook before the alerts on them;
    // roles name nothing and nothing names them; the service's CDC scaling after everything (it may wait for a database pipe
    // this run creates, and nothing waits on it).
    expect(KIND_ORDER).toEqual([
      'Pipe',
      'Connection',
      'Source',
      'Dashboard',
      'SavedSearch',
      'Webhook',
      'Alert',
      'Role',
      'PipeCdcScaling',
    ]);
    expect(KIND_ORDER.map((kind) => kindRank(kind, false))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(KIND_ORDER.map((kind) => kindRank(kind, true))).toEqual([8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });
});
