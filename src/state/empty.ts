/**
 * The state of a target stacksync has done nothing on: an empty inventory section for every kind
 * the registry holds (so a reader never meets a missing section), no secret hashes, no intents.
 */
import { KINDS } from '../kinds/registry.js';
import type { Kind } from '../model/kinds.js';
import type { InventoryEntry, TargetState } from '../model/state.js';

export function emptyTargetState(): TargetState {
  return { inventory: emptyInventory(), secretHashes: {}, intents: [] };
}

/** An inventory with an empty section for every kind. */
export function emptyInventory(): Record<Kind, Record<string, InventoryEntry>> {
  return Object.fromEntries(KINDS.map((kind) => [kind, {}])) as Record<Kind, Record<string, InventoryEntry>>;
}
