/** Deep immutability for data several stages share (parsed manifests, desired resources). */

/** Freezes `value` and everything in it, stopping at what is frozen already; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
