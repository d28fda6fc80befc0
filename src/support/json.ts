/**
 * Guards for values read as JSON (a live object, a manifest's spec, a JSON Schema walked): each
 * checks at run time what it tells the type checker, so code that reads such a value narrows it
 * instead of asserting its type. They are cheap (no copy, no deep walk) because plans of many
 * resources go through them.
 */

/** A JSON object (not null, not a list). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a JSON object, else `undefined`. */
export function recordOr(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

/** A list whose every item passes `guard`. */
export function isArrayOf<T>(value: unknown, guard: (item: unknown) => item is T): value is T[] {
  return Array.isArray(value) && value.every(guard);
}

export function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** One of the values of `list` (a closed set of literals). */
export function isOneOf<T>(list: readonly T[], value: unknown): value is T {
  return list.some((item) => item === value);
}

/** A JSON object whose every member passes `guard`. */
export function isRecordOf<T>(value: unknown, guard: (item: unknown) => item is T): value is Record<string, T> {
  return isRecord(value) && Object.values(value).every(guard);
}
