/**
 * Pure transitions of one target's state, for the few places that change a whole state at once
 * (export, tests): each returns a new `TargetState` and never touches its input. They are the
 * records of `record-effects.ts` applied to a copy, so each rule has one home. The executor does not use
 * them: it appends records to the store, which applies them in place.
 */
import type { Kind } from '../model/kinds.js';
import { withUnreadable, type LiveBase } from '../model/resources.js';
import { DESCRIPTORS, liveOf, type LiveState } from '../kinds/index.js';
import type { CreateIntent, InventoryEntry, StateRecord, TargetState } from '../model/state.js';
import { createLandsBy, secretHashKey } from '../model/state.js';
import { withRecords } from './record-effects.js';

/** The inventory entry of `kind/key`, if stacksync owns it. */
export function inventoryEntry(state: TargetState, kind: Kind, key: string): InventoryEntry | undefined {
  return Object.hasOwn(state.inventory[kind], key) ? state.inventory[kind][key] : undefined;
}

/** `state` owning a resource this run created, without its create intent: both land in one save. */
export function withCreated(state: TargetState, kind: Kind, key: string, entry: InventoryEntry): TargetState {
  return withRecords(state, [ownedRecord(kind, key, entry)]);
}

/**
 * `state` owning a resource taken over (adopted, reclaimed after a crash, or simply updated: its id or
 * name may have changed). Drops any intent for it, since it is now owned.
 */
export function withAdopted(state: TargetState, kind: Kind, key: string, entry: InventoryEntry): TargetState {
  return withRecords(state, [ownedRecord(kind, key, entry)]);
}

/** Forgets a deleted resource: its inventory entry, any intent naming it, and the secret hashes kept for it. */
export function withDeleted(state: TargetState, kind: Kind, key: string): TargetState {
  return withRecords(state, [{ type: 'forgotten', kind, key }]);
}

/** The record of owning `kind/key` as `entry` (what a completed create, update or adoption appends). */
export function ownedRecord(kind: Kind, key: string, entry: InventoryEntry): StateRecord {
  const record: StateRecord = { type: 'owned', kind, key, id: entry.id };
  if (entry.name !== undefined) record.name = entry.name;
  if (entry.spec !== undefined) record.spec = entry.spec;
  if (entry.created === true) record.created = true;
  return record;
}

/**
 * How long an intent naming nothing live is kept. A create that timed out may still land later
 * (a proxy can hold the request and forward it), and only its intent makes the resource ours
 * when it does; no proxy or server holds a request for a day, so an older intent names a create
 * that never happened.
 */
export const INTENT_EXPIRY_MS = 24 * 60 * 60 * 1000;

/** What `staleRecords` compares the inventory with: the live resources, by id and API name. */
export type LiveIds = Partial<Record<Exclude<keyof LiveState, 'unread'>, readonly LiveBase[]>> &
  Pick<LiveState, 'unread'> & {
    /** Live resources that could not be read are still live: their entries stay. */
    unreadable?: readonly { kind: Kind; id: string; name?: string }[];
  };

/** What tells an intent whose manifest is gone. */
export interface IntentExpiry {
  /** `Kind/key` of every manifest of the target, also of those that failed to load. */
  wanted: ReadonlySet<string>;
  /** `sync.settleWindow`, milliseconds: how long a create may land after it was sent. */
  lateCreateWindowMs: number;
}

/**
 * The records that forget what names nothing live any more: entries of kinds whose descriptor
 * says so (dashboards, alerts) whose id is gone (deleted in the console, or by the service's
 * cascade), intents older than {@link INTENT_EXPIRY_MS} whose create never showed, and, given
 * `expiry`, intents of manifests that are gone once their create can no longer land (only a
 * manifest that wants it may take a create back, and no intent deletes anything, so such an
 * intent has nothing left to do). Without this, dead entries would inflate the count
 * `maxDeletePercent` is taken of. A kind without that rule (an existing pipe) is left alone: a
 * pipe that vanished is an error for a person to see, not something to forget. `nowMs`:
 * milliseconds since the epoch.
 */
export function staleRecords(state: TargetState, live: LiveIds, nowMs: number, expiry?: IntentExpiry): StateRecord[] {
  const liveOfKind = (kind: Kind): readonly LiveBase[] =>
    withUnreadable(kind, liveOf(live as LiveState, kind), live.unreadable);
  const records: StateRecord[] = [];
  const forgotten = new Set<string>();
  for (const descriptor of DESCRIPTORS.filter((each) => each.prune?.forgetWhenGone === true)) {
    const { kind } = descriptor;
    // A collection that was not read (a target without pipes, a list no plan asked for) proves nothing gone: keep its entries.
    if (
      (live as Partial<Record<string, unknown>>)[descriptor.collection] === undefined ||
      live.unread?.includes(kind) === true
    )
      continue;
    const ids = new Set(liveOfKind(kind).map((item) => item.id));
    for (const [key, entry] of Object.entries(state.inventory[kind])) {
      if (ids.has(entry.id)) continue;
      records.push({ type: 'forgotten', kind, key });
      forgotten.add(`${kind}/${key}`);
    }
  }
  const names = new Map<Kind, Set<string | undefined>>();
  const namesOf = (kind: Kind): Set<string | undefined> =>
    names.get(kind) ?? names.set(kind, new Set(liveOfKind(kind).map((item) => item.name))).get(kind)!;
  for (const intent of state.intents) {
    const key = `${intent.kind}/${intent.key}`;
    if (forgotten.has(key)) continue;
    const unwanted =
      expiry !== undefined && !expiry.wanted.has(key) && !(nowMs <= createLandsBy(intent, expiry.lateCreateWindowMs));
    const unseen =
      live.unread?.includes(intent.kind) !== true &&
      !namesOf(intent.kind).has(intent.name) &&
      nowMs - Date.parse(intent.at) > INTENT_EXPIRY_MS;
    if (unwanted || unseen) records.push({ type: 'intent-dropped', kind: intent.kind, key: intent.key });
  }
  return records;
}

/** `state` without what names nothing live (see `staleRecords`); the same object when nothing is stale. */
export function refreshInventory(state: TargetState, live: LiveIds, nowMs: number, expiry?: IntentExpiry): TargetState {
  const records = staleRecords(state, live, nowMs, expiry);
  return records.length === 0 ? state : withRecords(state, records);
}

/** `state` noting that a create of `kind/key` is about to be sent; replaces an older intent for it. */
export function addIntent(state: TargetState, intent: CreateIntent): TargetState {
  return withRecords(state, [{ type: 'intent', ...intent }]);
}

export function clearIntent(state: TargetState, kind: Kind, key: string): TargetState {
  return findIntent(state, kind, { key }) ? withRecords(state, [{ type: 'intent-dropped', kind, key }]) : state;
}

/** A pending intent of `kind` matching the manifest key and/or the API name given. */
export function findIntent(
  state: TargetState,
  kind: Kind,
  match: { key?: string; name?: string },
): CreateIntent | undefined {
  return state.intents.find(
    (intent) =>
      intent.kind === kind &&
      (match.key === undefined || intent.key === match.key) &&
      (match.name === undefined || intent.name === match.name),
  );
}

/** `state` keeping the HMACs of write-only values sent for `kind/key`, keyed by secret path. */
export function withSecretHashes(
  state: TargetState,
  kind: Kind,
  key: string,
  hashes: Readonly<Record<string, string>>,
): TargetState {
  if (Object.keys(hashes).length === 0) return state;
  return withRecords(state, [{ type: 'secrets', kind, key, hashes: { ...hashes } }]);
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
 * `state` noting that `kind/key` matches the manifest whose spec has digest `spec` (found in sync, so
 * as good as applied), and whether that manifest disables prune for it. No entry, or both
 * already noted: the state is returned as it is.
 */
export function withSpec(
  state: TargetState,
  kind: Kind,
  key: string,
  spec: string,
  pruneDisabled = false,
  tenant?: string,
): TargetState {
  const record = specRecord(state, kind, key, spec, pruneDisabled, tenant);
  return record ? withRecords(state, [record]) : state;
}

/**
 * The record of `withSpec`, or none when it would change nothing (so an in-sync resource costs
 * no journal line). It also carries the tenant of the manifest (none without tenants): an entry
 * written before tenants were configured becomes its tenant's on the next run that finds it in sync.
 */
export function specRecord(
  state: TargetState,
  kind: Kind,
  key: string,
  spec: string,
  pruneDisabled = false,
  tenant?: string,
): StateRecord | undefined {
  const entry = inventoryEntry(state, kind, key);
  if (!entry || (entry.spec === spec && (entry.prune === 'disabled') === pruneDisabled && entry.tenant === tenant))
    return undefined;
  return {
    type: 'spec',
    kind,
    key,
    spec,
    ...(pruneDisabled ? { prune: 'disabled' as const } : {}),
    ...(tenant !== undefined ? { tenant } : {}),
  };
}
