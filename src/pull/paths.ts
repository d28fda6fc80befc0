/**
 * The plan's field paths (`tiles[p99].w`, `config.select[0].where`, `name`) as segments: a member
 * of a mapping, or an item of a list named in brackets, by the `name` it holds or by its index
 * (see docs/pull.md, "Lists").
 */

export type PathSegment = { member: string } | { item: string };

/** `tiles[p99].config.select[0]` → member tiles, item p99, member config, member select, item 0. */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let at = 0;
  while (at < path.length) {
    if (path[at] === '.') at++;
    if (path[at] === '[') {
      const end = closingBracket(path, at);
      segments.push({ item: path.slice(at + 1, end) });
      at = end + 1;
      continue;
    }
    let end = at;
    while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
    segments.push({ member: path.slice(at, end) });
    at = end;
  }
  return segments;
}

/** The `]` that ends the bracket opened at `open`: the first one followed by `.`, `[` or the end (a name may hold `]`). */
function closingBracket(path: string, open: number): number {
  for (let end = path.indexOf(']', open); end !== -1; end = path.indexOf(']', end + 1)) {
    const next = path[end + 1];
    if (next === undefined || next === '.' || next === '[') return end;
  }
  return path.length;
}

export function formatSegments(segments: readonly PathSegment[]): string {
  return segments
    .map((segment, index) =>
      'item' in segment ? `[${segment.item}]` : index === 0 ? segment.member : `.${segment.member}`,
    )
    .join('');
}

/** What names an item of a list: its `name` member (tiles, filters), else nothing (matched by index). */
export function identityOf(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const name = (item as Record<string, unknown>)['name'];
  return typeof name === 'string' ? name : undefined;
}

/** The index of the item a bracket names in a list of plain values: by name first, then by index. */
export function findItem(items: readonly unknown[], key: string): number {
  const named = items.findIndex((item) => identityOf(item) === key);
  if (named !== -1) return named;
  if (/^\d+$/.test(key)) {
    const index = Number(key);
    if (index < items.length && identityOf(items[index]) === undefined) return index;
  }
  return -1;
}
