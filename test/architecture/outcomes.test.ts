/**
 * Outcomes travel as codes, never as message text (style.md): no code in src/ decides anything by
 * looking inside an error's or a result's message. And each rule has one table: the kind order,
 * the terminal codes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isRefusal, isTerminal, type ErrorCode } from '../../src/errors.js';
import { DESCRIPTORS, KIND_ORDER, kindRank } from '../../src/kinds/index.js';
import type { Kind } from '../../src/model/kinds.js';
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

  it('kind order: every kind after the kinds it names, ties in registry order', () => {
    expect(orderProblems(KIND_ORDER, DESCRIPTORS)).toEqual([]);
  });

  it('kind order: the pairs users rely on', () => {
    const before = (first: Kind, then: Kind): boolean => KIND_ORDER.indexOf(first) < KIND_ORDER.indexOf(then);
    // Creates bottom-up: a connection before its sources, a source before what reads it, a dashboard, a saved search
    // and a webhook before the alerts on them.
    for (const [first, then] of [
      ['Connection', 'Source'],
      ['Source', 'Dashboard'],
      ['Source', 'SavedSearch'],
      ['Dashboard', 'Alert'],
      ['SavedSearch', 'Alert'],
      ['Webhook', 'Alert'],
    ] as const)
      expect(before(first, then), `${first} before ${then}`).toBe(true);
    // The service's CDC scaling after everything: it may wait for a database pipe this run creates, and nothing waits on it.
    expect(KIND_ORDER.at(-1)).toBe('PipeCdcScaling');
  });

  it('kind rank: writes in table order, deletes reversed', () => {
    const last = KIND_ORDER.length - 1;
    expect(KIND_ORDER.map((kind) => kindRank(kind, false))).toEqual(KIND_ORDER.map((_, index) => index));
    expect(KIND_ORDER.map((kind) => kindRank(kind, true))).toEqual(KIND_ORDER.map((_, index) => last - index));
  });

  it('kind order: the check finds an order that is not the table (it can fail)', () => {
    const swapped = (first: Kind, then: Kind): Kind[] =>
      KIND_ORDER.map((kind) => (kind === first ? then : kind === then ? first : kind));
    expect(orderProblems(swapped('Dashboard', 'Alert'), DESCRIPTORS)).toContain(
      'Alert is before Dashboard, which it names',
    );
    // Neither names the other, so the registry's order holds between them.
    expect(orderProblems(swapped('Pipe', 'Connection'), DESCRIPTORS)).toEqual([
      'Connection is before Pipe, registered before it, though Pipe names nothing placed at or after Connection',
    ]);
    expect(orderProblems(KIND_ORDER.slice(1), DESCRIPTORS)).toContain('the order holds Pipe 0 times');
  });
});

/**
 * What keeps `order` from being the registry's write order: every kind exactly once; every kind
 * after the kinds it names; and among kinds that do not wait on each other, registry order (a
 * kind placed before one registered earlier only when that one names a kind not placed yet).
 * These hold of exactly one order, so a new kind needs no line here.
 */
function orderProblems(
  order: readonly Kind[],
  descriptors: readonly { kind: Kind; references: readonly Kind[] }[],
): string[] {
  const at = (kind: Kind): number => order.indexOf(kind);
  const problems: string[] = [];
  for (const { kind } of descriptors) {
    const times = order.filter((placed) => placed === kind).length;
    if (times !== 1) problems.push(`the order holds ${kind} ${times} times`);
  }
  if (problems.length > 0) return problems;
  for (const { kind, references } of descriptors)
    for (const named of references)
      if (at(named) > at(kind)) problems.push(`${kind} is before ${named}, which it names`);
  descriptors.forEach((earlier, registered) => {
    for (const later of descriptors.slice(registered + 1)) {
      const waits = earlier.references.some((named) => at(named) >= at(later.kind));
      if (at(later.kind) < at(earlier.kind) && !waits)
        problems.push(
          `${later.kind} is before ${earlier.kind}, registered before it, though ${earlier.kind} names nothing placed at or after ${later.kind}`,
        );
    }
  });
  return problems;
}
