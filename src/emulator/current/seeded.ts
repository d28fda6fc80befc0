/** What seeding any kind's records shares: ids kept or assigned, and the times as seeded or now. */
import { isoTimestamp, newObjectId } from '../ids.js';

/** Created and updated times as seeded, or now. */
export function timesOf(seed: Record<string, unknown>, nowMs: number): { createdAt: string; updatedAt: string } {
  const createdAt = typeof seed['createdAt'] === 'string' ? seed['createdAt'] : isoTimestamp(nowMs);
  return { createdAt, updatedAt: typeof seed['updatedAt'] === 'string' ? seed['updatedAt'] : createdAt };
}

export const idOf = (seed: Record<string, unknown>, nowMs: number): string =>
  typeof seed['id'] === 'string' ? seed['id'] : newObjectId(nowMs);
