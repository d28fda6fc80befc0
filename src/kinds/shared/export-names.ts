/**
 * Manifest keys (`metadata.name`) for exported live resources. Pure and deterministic, so two
 * exports of the same live state name things alike (alerts exported later still find the
 * dashboards exported earlier).
 */
import { NAME_MAX_LENGTH } from '../../schema/manifest.js';

const VALID_KEY = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export interface NameSubject {
  id: string;
  /** The API name; absent or unusable names fall back to `fallback`. */
  name?: string;
}

/**
 * Lowercase, every run of other characters turned into one '-', trimmed of '-' at both ends,
 * cut to the name limit; `fallback` when nothing is left.
 */
export function slugify(name: string | undefined, fallback: string): string {
  const slug = (name ?? '')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '') // accents off: 'Café' → 'cafe', not 'cafe-'
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = slug.slice(0, NAME_MAX_LENGTH).replace(/-+$/, '');
  return cut === '' ? fallback : cut;
}

/** True when `key` may be a `metadata.name`. */
export function isValidKey(key: string): boolean {
  return key.length <= NAME_MAX_LENGTH && VALID_KEY.test(key);
}

/**
 * Keys for one kind, by live id. A resource already in the inventory keeps its key there (so an
 * export of a managed target reproduces its manifests); the others get the slug of their name,
 * with `-2`, `-3`, … when taken. Subjects are visited by (name, id), so the order of the API's
 * list does not change which duplicate gets the suffix.
 */
export function assignKeys(
  subjects: readonly NameSubject[],
  fallback: string,
  owned: ReadonlyMap<string, string> = new Map(),
): Map<string, string> {
  const keys = new Map<string, string>();
  const taken = new Set<string>();
  for (const subject of subjects) {
    const key = owned.get(subject.id);
    if (key !== undefined && isValidKey(key) && !taken.has(key)) {
      keys.set(subject.id, key);
      taken.add(key);
    }
  }
  for (const subject of [...subjects].sort(byNameThenId)) {
    if (keys.has(subject.id)) continue;
    const key = freeKey(slugify(subject.name, fallback), taken);
    keys.set(subject.id, key);
    taken.add(key);
  }
  return keys;
}

function freeKey(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, NAME_MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function byNameThenId(a: NameSubject, b: NameSubject): number {
  // Plain code-unit order: the same on every machine, whatever its locale.
  return compare(a.name ?? '', b.name ?? '') || compare(a.id, b.id);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An environment variable name for a credential placeholder: `PIPE_<KEY>_<FIELD>` (the prefix names the kind). */
export function envName(key: string, field: string, prefix = 'PIPE'): string {
  const part = (text: string): string =>
    text
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .toUpperCase();
  return `${prefix}_${part(key)}_${part(field)}`;
}
