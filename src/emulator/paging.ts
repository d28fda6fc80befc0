/**
 * Offset paging of the lists that page (hyperdx `utils/pagination.ts`): `limit` 1..1000 (default
 * 1000) and `offset` ≥ 0 (default 0), whole numbers; a bad value is a 400 naming it.
 */
import { ALERT_PAGE_LIMIT_MAX } from '../kinds/alert/wire.js';
import type { SchemaIssue } from '../schema/validate.js';
import { ApiError } from './errors.js';

export interface Paging {
  limit: number;
  offset: number;
}

export function parsePaging(query: URLSearchParams): Paging {
  const issues: SchemaIssue[] = [];
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const text = query.get(name);
    if (text === null) return fallback;
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    issues.push({ path: name, pointer: [name], message: `must be an integer from ${min} to ${max}` });
    return fallback;
  };
  const paging = {
    limit: read('limit', ALERT_PAGE_LIMIT_MAX, 1, ALERT_PAGE_LIMIT_MAX),
    offset: read('offset', 0, 0, Number.MAX_SAFE_INTEGER),
  };
  if (issues.length) throw new ApiError('bad_request', 'invalid query', { source: 'query', issues });
  return paging;
}

/** The page of `all` that `paging` asks for. */
export function pageOf<T>(all: readonly T[], { limit, offset }: Paging): T[] {
  return all.slice(offset, offset + limit);
}
