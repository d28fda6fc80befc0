/**
 * Typed ways over literal tables (`as const` objects and lists) that TypeScript's own
 * `Object.keys`/`Object.fromEntries` type too loosely (`string[]`, `Record<string, …>`). Each
 * holds the one assertion its operation needs, and says why its signature is sound.
 */

/**
 * The own keys of a literal table. Sound for the tables it is meant for, whose type names every
 * key they hold (an `as const` object); an object typed by a wider interface may hold more.
 */
export function keysOf<T extends object>(table: T): (keyof T & string)[] {
  return Object.keys(table) as (keyof T & string)[];
}

/** `table` with each value mapped by `f`, key for key: the result has exactly `table`'s keys. */
export function mapValues<T extends object, U>(
  table: T,
  f: (value: T[keyof T & string], key: keyof T & string) => U,
): { [K in keyof T]: U } {
  // Sound: fromEntries over every own key of `table` (see keysOf) gives one member per key.
  return Object.fromEntries(keysOf(table).map((key) => [key, f(table[key], key)])) as { [K in keyof T]: U };
}

/** One member per name of `names`, its value `f(name)`: the result has exactly those names. */
export function recordOf<const K extends string, U>(names: readonly K[], f: (name: K) => U): Record<K, U> {
  // Sound: fromEntries gives one member for each name in the list, and no other.
  return Object.fromEntries(names.map((name) => [name, f(name)])) as Record<K, U>;
}
