/**
 * The state file (`state`, default `.stacksync/state.json`): per target, what stacksync owns.
 * Never holds a secret value: only HMACs under a key kept beside it (`state.key`, mode 0600).
 */
import type { Kind } from './kinds.js';

/** A create that was about to be sent; a live resource of this kind and name after a crash is ours. */
export interface CreateIntent {
  kind: Kind;
  /** `metadata.name` of the manifest. */
  key: string;
  /** The API `name` the create sends; what recovery matches on. */
  name: string;
  /** ISO timestamp. */
  at: string;
}

export interface InventoryEntry {
  id: string;
  /** API name when last written; helps a person reading the file. */
  name?: string;
  /**
   * Digest of the manifest's spec when stacksync last wrote the resource or found it in sync:
   * a later difference while the manifest still has this digest was made outside stacksync (drift).
   */
  spec?: string;
}

export interface TargetState {
  /** kind → metadata.name → what stacksync created or adopted. */
  inventory: Record<Kind, Record<string, InventoryEntry>>;
  /** `Kind/key:secret.path` → HMAC-SHA256 (hex) of the value last sent. */
  secretHashes: Record<string, string>;
  intents: CreateIntent[];
}

export interface StateFile {
  version: 1;
  targets: Record<string, TargetState>;
}

export function emptyTargetState(): TargetState {
  return { inventory: { Pipe: {}, Dashboard: {}, Alert: {} }, secretHashes: {}, intents: [] };
}

/** The key under which a write-only value's HMAC is kept. */
export function secretHashKey(kind: Kind, key: string, path: string): string {
  return `${kind}/${key}:${path}`;
}
