/** Picking, from a live object, the members a manifest schema declares: what export writes. */
import type { JsonSchema } from '../../schema/api.js';
import { isRecord } from './values.js';

/**
 * The members of `value` that `schema` declares, recursively (objects by `properties`, lists by
 * `items`). Absent, null and empty values are dropped unless required: an empty list or object
 * in a manifest would manage nothing the service's default does not already say.
 */
export function pickBySchema(value: unknown, schema: JsonSchema | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => pickBySchema(item, asSchema(schema?.['items'])));
  if (!isRecord(value)) return value;
  // An open object (a tile's config) is the service's own: kept whole.
  if (schema?.['additionalProperties'] === true) return value;
  const properties = asSchema(schema?.['properties']);
  if (properties === undefined) return value;
  const listed = schema?.['required'];
  const required = new Set<unknown>(Array.isArray(listed) ? listed : []);
  const picked: Record<string, unknown> = {};
  for (const [member, item] of Object.entries(value)) {
    if (!(member in properties)) continue;
    const kept = pickBySchema(item, asSchema(properties[member]));
    if (isEmpty(kept) && !required.has(member)) continue;
    picked[member] = kept;
  }
  return picked;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

function asSchema(value: unknown): JsonSchema | undefined {
  return isRecord(value) ? value : undefined;
}
