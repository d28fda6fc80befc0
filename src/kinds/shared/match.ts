/**
 * Matching live resources to manifests (docs/ownership.md): the inventory id
 * first, then the exact API name. A name match is ours when a pending create intent names it and
 * the resource could be that create (crash recovery, a create that landed late: see `intents.ts`);
 * otherwise it is someone else's and can only be adopted.
 */
import type { Kind } from '../../model/kinds.js';
import type { CreateIntent, TargetState } from '../../model/state.js';
import { couldBeCreateOf, type IntentTiming } from './intents.js';

export interface Named {
  id: string;
  name?: string;
  /** When the service made it, where it says so (ISO 8601). */
  createdAt?: string;
}

export type Match<L> =
  /** In the inventory, or taken back through a pending intent (`reclaimed`). */
  | { how: 'owned'; live: L; reclaimed: boolean }
  /** Same name, not ours: shown as `adopt`. */
  | { how: 'adopt'; live: L }
  | { how: 'none' }
  | { how: 'ambiguous'; count: number };

export interface MatchSubject {
  key: string;
  /** The API name the manifest sets; without one only the inventory can match. */
  name?: string;
}

/**
 * Matches every subject of one kind at once, so a live resource is never claimed twice:
 * inventory ids (of any key, including ones being pruned) are never name-matched by another key.
 */
export function matchAll<L extends Named>(
  kind: Kind,
  subjects: readonly MatchSubject[],
  live: readonly L[],
  state: TargetState,
  timing: IntentTiming,
): Map<string, Match<L>> {
  const inventory = state.inventory[kind];
  const byId = new Map(live.map((item) => [item.id, item]));
  const byName = groupByName(live);
  const claimed = new Set(Object.values(inventory).map((entry) => entry.id));
  const intents = state.intents.filter((intent) => intent.kind === kind);
  const matches = new Map<string, Match<L>>();
  for (const subject of subjects) {
    const owned = byId.get(inventory[subject.key]?.id ?? '');
    if (owned) matches.set(subject.key, { how: 'owned', live: owned, reclaimed: false });
  }
  for (const subject of subjects) {
    if (matches.has(subject.key)) continue;
    const free = (name: string | undefined): L[] =>
      (byName.get(name ?? '') ?? []).filter((item) => !claimed.has(item.id));
    const match = matchByName(subject, free, intents, timing);
    if (match.how === 'owned' || match.how === 'adopt') claimed.add(match.live.id);
    matches.set(subject.key, match);
  }
  return matches;
}

function groupByName<L extends Named>(live: readonly L[]): Map<string, L[]> {
  const byName = new Map<string, L[]>();
  for (const item of live) if (item.name !== undefined) byName.set(item.name, [...(byName.get(item.name) ?? []), item]);
  return byName;
}

function matchByName<L extends Named>(
  subject: MatchSubject,
  free: (name: string | undefined) => L[],
  intents: readonly CreateIntent[],
  timing: IntentTiming,
): Match<L> {
  let candidates = subject.name === undefined ? [] : free(subject.name);
  if (candidates.length === 0) {
    // A create whose manifest was renamed after a crash: its intent still names the old API name.
    const names = new Set(intents.filter((intent) => intent.key === subject.key).map((intent) => intent.name));
    candidates = [...names].flatMap((name) => free(name));
  }
  const [only] = candidates;
  if (only === undefined) return { how: 'none' };
  if (candidates.length > 1) return { how: 'ambiguous', count: candidates.length };
  // An intent proves only that a create with *that name* may have happened, at its time: the name
  // must agree, and the resource must have been made while that create could land.
  const ours = intents.some((intent) => intent.name === only.name && couldBeCreateOf(intent, only, timing));
  return ours ? { how: 'owned', live: only, reclaimed: true } : { how: 'adopt', live: only };
}
