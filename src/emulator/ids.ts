/**
 * Identifier and timestamp formats of the two variants (docs/reference/api-behaviour.md, "Both variants"):
 * managed resources use UUIDv4, self-hosted ones 24-hex object ids.
 */
import { randomBytes, randomUUID } from 'node:crypto';

export type IdFormat = 'uuid' | 'objectId';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OBJECT_ID = /^[0-9a-f]{24}$/;

export function isUuid(text: string): boolean {
  return UUID.test(text);
}

export function isObjectId(text: string): boolean {
  return OBJECT_ID.test(text);
}

export function isIdOfFormat(text: string, format: IdFormat): boolean {
  return format === 'uuid' ? isUuid(text) : isObjectId(text);
}

// Object ids are seconds + a per-process random part + a counter, like the real ones,
// so they sort by creation time and never collide within one process.
const processPart = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

export function newObjectId(nowMs: number): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(nowMs / 1000)
    .toString(16)
    .padStart(8, '0')
    .slice(-8);
  return `${seconds}${processPart}${counter.toString(16).padStart(6, '0')}`;
}

export function newId(format: IdFormat, nowMs: number): string {
  return format === 'uuid' ? randomUUID() : newObjectId(nowMs);
}

/** ISO 8601 with milliseconds and `Z`, the timestamp format of both variants. */
export function isoTimestamp(nowMs: number): string {
  return new Date(nowMs).toISOString();
}
