/**
 * What each `StateRecord` does to a target's state: the one home of those rules. The store applies
 * records in place to its own copy (O(1) per write, whatever the size of the inventory); the pure
 * transitions of `inventory.ts` apply them to a copy.
 */
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import {
  secretHashKey,
  type InventoryEntry,
  type MarkChanges,
  type Marks,
  type StateRecord,
  type TargetState,
} from '../model/state.js';
import { emptyTargetState } from './empty.js';

/** Changes `state` in place. Only the store's own state and fresh copies may be passed here. */
export function applyRecord(state: TargetState, record: StateRecord): void {
  switch (record.type) {
    case 'intent':
      dropIntent(state, record.kind, record.key);
      state.intents.push({
        kind: record.kind,
        key: record.key,
        name: record.name,
        at: record.at,
        ...(record.settleUntil === undefined ? {} : { settleUntil: record.settleUntil }),
      });
      return;
    case 'owned': {
      const previous = Object.hasOwn(state.inventory[record.kind], record.key)
        ? state.inventory[record.kind][record.key]
        : undefined;
      setOwn(
        state.inventory[record.kind],
        record.key,
        entryOf(record, previous?.id === record.id ? previous : undefined),
      );
      dropIntent(state, record.kind, record.key);
      return;
    }
    case 'marked': {
      const entry = Object.hasOwn(state.inventory[record.kind], record.key)
        ? state.inventory[record.kind][record.key]
        : undefined;
      if (!entry) return;
      setOwn(state.inventory[record.kind], record.key, withMarks(entry, record.marks));
      return;
    }
    case 'spec': {
      const entry = Object.hasOwn(state.inventory[record.kind], record.key)
        ? state.inventory[record.kind][record.key]
        : undefined;
      // Entries are shared with copies (see copyTargetState), so the entry is replaced, not changed.
      if (!entry) return;
      const { prune: _was, tenant: _tenant, ...rest } = entry;
      setOwn(state.inventory[record.kind], record.key, {
        ...rest,
        spec: record.spec,
        ...(record.prune ? { prune: record.prune } : {}),
        ...(record.tenant !== undefined ? { tenant: record.tenant } : {}),
      });
      return;
    }
    case 'forgotten':
      delete state.inventory[record.kind][record.key];
      forgetSecretHashes(state, record.kind, record.key);
      dropIntent(state, record.kind, record.key);
      return;
    case 'intent-dropped':
      dropIntent(state, record.kind, record.key);
      return;
    case 'secrets':
      for (const [path, hash] of Object.entries(record.hashes))
        setOwn(state.secretHashes, secretHashKey(record.kind, record.key, path), hash);
      return;
    case 'suspended': {
      const { type: _type, ...suspension } = record;
      state.suspension = suspension;
      return;
    }
    case 'resumed':
      delete state.suspension;
      return;
    case 'replaced':
      replaceInPlace(state, copyTargetState(record.state));
      return;
  }
}

/** A copy whose maps and lists can be changed without touching `state` (entries are shared: they are never changed, only replaced). */
export function copyTargetState(state: TargetState): TargetState {
  const inventory = emptyTargetState().inventory;
  for (const kind of KINDS) Object.assign(inventory[kind], state.inventory[kind]);
  return {
    inventory,
    secretHashes: { ...state.secretHashes },
    intents: [...state.intents],
    ...(state.suspension ? { suspension: { ...state.suspension } } : {}),
  };
}

/** `state` with `records` applied, leaving `state` as it was. */
export function withRecords(state: TargetState, records: readonly StateRecord[]): TargetState {
  const next = copyTargetState(state);
  for (const record of records) applyRecord(next, record);
  return next;
}

/** The entry an `owned` record makes; what stacksync made and noted about the same id stays. */
function entryOf(
  record: { id: string; name?: string; spec?: string; created?: true },
  sameId: InventoryEntry | undefined,
): InventoryEntry {
  const entry: InventoryEntry = { id: record.id };
  if (record.name !== undefined) entry.name = record.name;
  if (record.spec !== undefined) entry.spec = record.spec;
  if (record.created === true || sameId?.created === true) entry.created = true;
  if (sameId?.marks !== undefined) entry.marks = sameId.marks;
  if (sameId?.tenant !== undefined) entry.tenant = sameId.tenant;
  return entry;
}

/** A copy of `entry` with marks set or cleared (entries are shared with copies, so never changed). */
function withMarks(entry: InventoryEntry, changes: MarkChanges): InventoryEntry {
  const marks: Marks = { ...entry.marks };
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete marks[name];
    else setOwn(marks, name, value);
  }
  const { marks: _old, ...rest } = entry;
  return Object.keys(marks).length > 0 ? { ...rest, marks } : rest;
}

function dropIntent(state: TargetState, kind: Kind, key: string): void {
  // Intents are few (creates in flight, or left by a crash), so a scan is cheap.
  const index = state.intents.findIndex((intent) => intent.kind === kind && intent.key === key);
  if (index >= 0) state.intents.splice(index, 1);
}

function forgetSecretHashes(state: TargetState, kind: Kind, key: string): void {
  const prefix = secretHashKey(kind, key, '');
  // Only pipes carry write-only values, so this scans a handful of hashes.
  for (const name of Object.keys(state.secretHashes)) if (name.startsWith(prefix)) delete state.secretHashes[name];
}

function replaceInPlace(state: TargetState, next: TargetState): void {
  state.inventory = next.inventory;
  state.secretHashes = next.secretHashes;
  state.intents = next.intents;
  if (next.suspension) state.suspension = next.suspension;
  else delete state.suspension;
}

/**
 * Sets an own property, even one named `__proto__`: keys come from manifests and the state file,
 * and a plain assignment of that name would change the object's prototype instead.
 */
export function setOwn<T>(map: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
  else map[key] = value;
}
