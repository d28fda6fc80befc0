/**
 * Value comparison under the diff rule "only fields the manifest sets are compared".
 * The desired side drives every walk: a key it leaves out is never looked at, and a server
 * default (absent, `false`, `''`, `[]`, `{}`) equals the manifest saying the same default.
 */
import type { FieldDiff } from '../../model/plan.js';
import { isRecord } from '../../support/json.js';

// The walks below narrow by the one JSON-object guard (support/json.ts); the kinds take it from here.
export { isRecord };

/** What the services store when a member is left out; absent and these compare equal. */
export function isServerDefault(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

/** True when `live` agrees with every field `desired` sets (recursively). */
export function covers(desired: unknown, live: unknown): boolean {
  if (desired === undefined) return true;
  if (isServerDefault(desired) && isServerDefault(live)) return true;
  if (isRecord(desired)) {
    const liveObject = isRecord(live) ? live : {};
    return Object.keys(desired).every((key) => covers(desired[key], liveObject[key]));
  }
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length && desired.every((item, i) => covers(item, live[i]));
  }
  return desired === live;
}

/**
 * Field-level differences where `live` does not cover `desired`, as leaf paths under `path`.
 * Objects recurse by key; arrays of objects of equal length recurse by index; anything else
 * differs as a whole.
 */
export function diffValues(path: string, desired: unknown, live: unknown, out: FieldDiff[] = []): FieldDiff[] {
  if (covers(desired, live)) return out;
  if (isRecord(desired) && (isRecord(live) || live === undefined)) {
    for (const key of Object.keys(desired)) diffValues(`${path}.${key}`, desired[key], live?.[key], out);
    return out;
  }
  if (Array.isArray(desired) && Array.isArray(live) && live.length === desired.length && desired.every(isRecord)) {
    desired.forEach((item, i) => {
      diffValues(`${path}[${i}]`, item, live[i], out);
    });
    return out;
  }
  out.push(fieldDiff(path, live, desired));
  return out;
}

/** A FieldDiff with `before`/`after` left out when that side is absent. */
export function fieldDiff(path: string, before: unknown, after: unknown): FieldDiff {
  const diff: FieldDiff = { path };
  if (before !== undefined) diff.before = before;
  if (after !== undefined) diff.after = after;
  return diff;
}

/**
 * `desired` laid over `live`: members the manifest leaves out keep their live value, so a
 * replacing write (dashboard PUT) does not silently reset what the manifest does not manage.
 */
export function overlay(desired: unknown, live: unknown): unknown {
  if (isRecord(desired) && isRecord(live)) return overlayMembers(desired, live);
  if (Array.isArray(desired) && Array.isArray(live) && desired.length === live.length) {
    return desired.map((item, i) => (isRecord(item) ? overlay(item, live[i]) : item));
  }
  return desired;
}

/** {@link overlay} of two objects: an object. */
export function overlayMembers(
  desired: Record<string, unknown>,
  live: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...live };
  // A member set to undefined is one the manifest leaves out: the live value stays.
  for (const [key, value] of Object.entries(desired)) if (value !== undefined) merged[key] = overlay(value, live[key]);
  return merged;
}

/** Same members regardless of order (tags). */
export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
}

/** A copy without the given keys (strip `location`, `id` before showing or sending). */
export function omit<T extends object, K extends keyof T>(value: T, ...keys: K[]): Omit<T, K> {
  const copy = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}
