/**
 * Durations in the config: `30s`, `5m`, `1h`, `1h30m`, `500ms`, `1d`.
 * A string pattern (for the JSON Schema, so editors check it too) and a parser to milliseconds.
 */

import { DURATION_PATTERN } from '../schema/config.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration like `5m`; undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  if (!new RegExp(DURATION_PATTERN).test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]+)(ms|s|m|h|d)/g)) {
    total += Number(amount) * (UNIT_MS[unit ?? ''] ?? Number.NaN);
  }
  return Number.isSafeInteger(total) ? total : undefined;
}
