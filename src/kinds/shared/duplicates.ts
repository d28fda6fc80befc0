/** Finding repeats in a list, for the names a manifest must keep unique. */

/** `[index, index of the first with the same key]` for every repeat. */
export function duplicatesIn<T>(items: readonly T[], keyOf: (item: T) => string): [number, number][] {
  const seen = new Map<string, number>();
  const repeats: [number, number][] = [];
  items.forEach((item, index) => {
    const earlier = seen.get(keyOf(item));
    if (earlier === undefined) seen.set(keyOf(item), index);
    else repeats.push([index, earlier]);
  });
  return repeats;
}
