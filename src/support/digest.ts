/**
 * Digests of data: SHA-256 over a canonical JSON text (object keys sorted, `undefined` members
 * left out), so two equal values give one digest whatever order their keys were built in.
 * For data without secret values only; what holds secrets is digested under the state's HMAC key.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level; `undefined` members and array holes as JSON drops them. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => (isPlainObject(member) ? sortKeys(member) : member)) ?? 'null';
}

/** Hex SHA-256 of the canonical JSON of `value`. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}

function sortKeys(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(object).sort().map((key) => [key, object[key]]));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
