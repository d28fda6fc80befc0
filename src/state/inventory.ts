/**
 * Pure transitions of one target's state: each takes a `TargetState` and returns a new one,
 * never touching its input (the store hands out frozen states). The executor composes them
 * and saves after each completed write.
 */
import type { Kind } from '../model/kinds.js';
import { secretHashKey, type CreateIntent, type InventoryEntry, type TargetState } from '../model/state.js';

/** The inventory entry of `kind/key`, if stacksync owns it. */
export function inventoryEntry(state: TargetState, kind: Kind, key: string): InventoryEntry | undefined {
  return Object.hasOwn(state.inventory[kind], key) ? state.inventory[kind][key] : undefined;
}

/** Records a resource this run created, and drops its create intent: both land in one save. */
export function recordCreated(state: TargetState, kind: Kind, key: string, entry: InventoryEntry): TargetState {
  return clearIntent(withEntry(state, kind, key, entry), kind, key);
}

/**
 * Records a resource taken over (adopted, reclaimed after a crash, or simply updated: its id or
 * name may have changed). Drops any intent for it, since it is now owned.
 */
export function recordAdopted(state: TargetState, kind: Kind, key: string, entry: InventoryEntry): TargetState {
  return clearIntent(withEntry(state, kind, key, entry), kind, key);
}

/** Forgets a deleted resource: its inventory entry, any intent naming it, and the secret hashes kept for it. */
export function recordDeleted(state: TargetState, kind: Kind, key: string): TargetState {
  const { [key]: _gone, ...rest } = state.inventory[kind];
  const prefix = secretHashKey(kind, key, '');
  const secretHashes = Object.fromEntries(Object.entries(state.secretHashes).filter(([name]) => !name.startsWith(prefix)));
  return clearIntent({ ...state, inventory: { ...state.inventory, [kind]: rest }, secretHashes }, kind, key);
}

/**
 * How long an intent naming nothing live is kept. A create that timed out may still land later
 * (a proxy can hold the request and forward it), and only its intent makes the resource ours
 * when it does; no proxy or server holds a request for a day, so an older intent names a create
 * that never happened.
 */
export const INTENT_EXPIRY_MS = 24 * 60 * 60 * 1000;

/**
 * Forgets what names nothing live any more: dashboard and alert entries whose id is gone (deleted
 * in the console, or by the service's cascade), and intents older than {@link INTENT_EXPIRY_MS}
 * whose create never showed. Without this, dead entries would inflate the count
 * `maxDeletePercent` is taken of. Pipes are left alone: a pipe that vanished is an error for a
 * person to see, not something to forget. `nowMs`: milliseconds since the epoch.
 */
export function refreshInventory(
  state: TargetState,
  live: { dashboards: readonly { id: string; name?: string }[]; alerts: readonly { id: string; name?: string }[] },
  nowMs: number,
): TargetState {
  const liveOf = { Dashboard: live.dashboards, Alert: live.alerts } as const;
  let next = state;
  for (const kind of ['Dashboard', 'Alert'] as const) {
    const ids = new Set(liveOf[kind].map((item) => item.id));
    for (const [key, entry] of Object.entries(next.inventory[kind])) {
      if (!ids.has(entry.id)) next = recordDeleted(next, kind, key);
    }
  }
  const names = { Pipe: new Set<string>(), Dashboard: new Set(live.dashboards.map((d) => d.name)), Alert: new Set(live.alerts.map((a) => a.name)) };
  const intents = next.intents.filter((intent) => names[intent.kind].has(intent.name) || !(nowMs - Date.parse(intent.at) > INTENT_EXPIRY_MS));
  return intents.length === next.intents.length ? next : { ...next, intents };
}

/** Records that a create of `kind/key` is about to be sent; replaces an older intent for it. */
export function addIntent(state: TargetState, intent: CreateIntent): TargetState {
  const others = state.intents.filter((pending) => !(pending.kind === intent.kind && pending.key === intent.key));
  return { ...state, intents: [...others, intent] };
}

export function clearIntent(state: TargetState, kind: Kind, key: string): TargetState {
  const intents = state.intents.filter((pending) => !(pending.kind === kind && pending.key === key));
  return intents.length === state.intents.length ? state : { ...state, intents };
}

/** A pending intent of `kind` matching the manifest key and/or the API name given. */
export function findIntent(state: TargetState, kind: Kind, match: { key?: string; name?: string }): CreateIntent | undefined {
  return state.intents.find(
    (intent) =>
      intent.kind === kind && (match.key === undefined || intent.key === match.key) && (match.name === undefined || intent.name === match.name),
  );
}

/** Records the HMACs of write-only values sent for `kind/key`, keyed by secret path. */
export function recordSecretHashes(state: TargetState, kind: Kind, key: string, hashes: Readonly<Record<string, string>>): TargetState {
  const entries = Object.entries(hashes);
  if (entries.length === 0) return state;
  const secretHashes = { ...state.secretHashes };
  for (const [path, hash] of entries) secretHashes[secretHashKey(kind, key, path)] = hash;
  return { ...state, secretHashes };
}

/** The HMAC last sent for one secret path of `kind/key`; unknown means "apply once". */
export function secretHash(state: TargetState, kind: Kind, key: string, path: string): string | undefined {
  return state.secretHashes[secretHashKey(kind, key, path)];
}

/** How many resources of this target stacksync owns, optionally of one kind (the base of maxDeletePercent). */
export function managedCount(state: TargetState, kind?: Kind): number {
  const kinds = kind ? [kind] : (Object.keys(state.inventory) as Kind[]);
  return kinds.reduce((sum, each) => sum + Object.keys(state.inventory[each]).length, 0);
}

/**
 * Records that `kind/key` matches the manifest whose spec has digest `spec` (found in sync, so
 * as good as applied). No entry, or the digest already recorded: the state is returned as it is.
 */
export function recordSpec(state: TargetState, kind: Kind, key: string, spec: string): TargetState {
  const entry = inventoryEntry(state, kind, key);
  if (!entry || entry.spec === spec) return state;
  return withEntry(state, kind, key, { ...entry, spec });
}

function withEntry(state: TargetState, kind: Kind, key: string, entry: InventoryEntry): TargetState {
  const clean: InventoryEntry = { id: entry.id };
  if (entry.name !== undefined) clean.name = entry.name;
  if (entry.spec !== undefined) clean.spec = entry.spec;
  return { ...state, inventory: { ...state.inventory, [kind]: { ...state.inventory[kind], [key]: clean } } };
}
