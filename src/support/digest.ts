/**
 * Digests of data: SHA-256 over a canonical JSON text (object keys sorted, `undefined` members
 * left out), so two equal values give one digest whatever order their keys were built in.
 * For data without secret values only; what holds secrets is digested under the state's HMAC key.
 */
import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level; `undefined` members and array holes as JSON drops
 * them. Written out directly rather than through a `JSON.stringify` replacer that copies every
 * object: a plan digests every manifest's spec, and this takes a third less time.
 */
export function canonicalJson(value: unknown): string {
  return jsonOf(value) ?? 'null';
}

/** Hex SHA-256 of the canonical JSON of `value`. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}

/** What `JSON.stringify` gives for `value`, keys sorted; undefined where it leaves a member out. */
function jsonOf(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      const json = (value as { toJSON?: () => unknown }).toJSON;
      if (typeof json === 'function') return jsonOf(json.call(value));
      if (Array.isArray(value)) {
        let text = '[';
        for (let index = 0; index < value.length; index++)
          text += `${index > 0 ? ',' : ''}${jsonOf(value[index]) ?? 'null'}`;
        return `${text}]`;
      }
      let text = '';
      for (const key of sortedKeys(value)) {
        const member = jsonOf((value as Record<string, unknown>)[key]);
        if (member !== undefined) text += `${text ? ',' : ''}${JSON.stringify(key)}:${member}`;
      }
      return `{${text}}`;
    }
    case 'bigint':
      // As JSON.stringify does: a bigint has no JSON form.
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return undefined;
  }
}

/**
 * Keys in code-unit order, except that integer keys come first in numeric order: the order the
 * digests stored in state files were made with (a sorted copy of an object still puts its
 * integer keys first). `Object.keys` already lists those first, in that order.
 */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object);
  let integers = 0;
  while (integers < keys.length && isArrayIndex(keys[integers] as string)) integers++;
  if (integers === 0) return keys.sort();
  return [...keys.slice(0, integers), ...keys.slice(integers).sort()];
}

function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < 2 ** 32 - 1;
}
