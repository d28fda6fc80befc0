/**
 * Live objects of the kinds that are a flat set of members (sources, connections, webhooks, saved
 * searches): the id, the API name, the creation time, and every other member as the service sent
 * it, minus what the service sets itself, so a full replace built from it sends back exactly what
 * it had (the managed gateway refuses a top-level `id`, `teamId`, `createdAt`, … in a body).
 */
import type { WriteBody } from '../../model/plan.js';
import { isOneOf } from '../../support/json.js';
import { createdAtOf, idOf, object, requiredString, withoutNulls } from './read.js';

/** Members every kind's service sets itself: never sent back. */
export const SERVER_MEMBERS = ['id', '_id', '__v', 'team', 'teamId', 'state', 'createdAt', 'updatedAt'] as const;

export interface LiveFlat {
  id: string;
  name: string;
  /** When the service made it (ISO 8601), where it says so. */
  createdAt?: string;
  /** Every member but the server's (`id`, `teamId`, timestamps), as read; nulls left out. */
  members: WriteBody;
}

/** A live resource of a flat kind; `name` must be text (live objects are matched by it). */
export function readFlat(value: unknown, path: string): LiveFlat {
  const raw = object(value, path);
  const members = withoutNulls(
    Object.fromEntries(Object.entries(raw).filter(([key]) => !isOneOf(SERVER_MEMBERS, key))),
  );
  return { id: idOf(raw, path), name: requiredString(raw, 'name', path), ...createdAtOf(raw), members };
}
