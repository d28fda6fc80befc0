/**
 * The state file (`state`, default `.stacksync/state.json`): per target, what stacksync owns.
 * Never holds a secret value: only HMACs under a key kept beside it (`state.key`, mode 0600).
 */
import type { Kind } from './kinds.js';

/**
 * A create that was about to be sent. It proves only that a create of this kind and API name may
 * have happened at `at`: a live resource of that name is taken back as ours only when it could be
 * that create (made after `at` and before the create could have landed, see `kinds/shared/intents.ts`)
 * and a manifest still wants it. It never makes anything deletable.
 */
export interface CreateIntent {
  kind: Kind;
  /** `metadata.name` of the manifest. */
  key: string;
  /** The API `name` the create sends; what recovery matches on. */
  name: string;
  /** ISO timestamp, written before the request left. */
  at: string;
  /**
   * ISO timestamp, set when the create was sent and its answer never came (timeout, cut
   * connection, 5xx): the server may still carry it out until then (`sync.settleWindow` after
   * `at`), so later runs wait for it instead of creating again.
   */
  settleUntil?: string;
}

/**
 * The last moment the create of `intent` could have landed, ms since the epoch: its
 * `settleUntil` when its answer never came, else `windowMs` (`sync.settleWindow`) after it was written.
 * NaN when the intent's time does not read as one.
 */
export function createLandsBy(intent: Pick<CreateIntent, 'at' | 'settleUntil'>, windowMs: number): number {
  return intent.settleUntil === undefined ? Date.parse(intent.at) + windowMs : Date.parse(intent.settleUntil);
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
  /** `disabled`: the manifest last applied said `stacksync.io/prune: disabled`, so prune never deletes it. */
  prune?: 'disabled';
  /**
   * The tenant whose manifest last applied it (or found it in sync), with tenants configured:
   * only that tenant's prune deletes it (docs/many-services.md#tenants). Absent in entries written
   * without tenants, or before they existed.
   */
  tenant?: string;
  /**
   * stacksync created it (a create it sent, or one taken back through its intent after a crash):
   * the proof prune needs for kinds that delete only what they made (a pipe born in Git). Kept
   * while the id stays the same; absent in entries written before it existed (never made here).
   */
  created?: true;
  /**
   * What a kind's descriptor keeps about the resource across runs (a pipe's last resync token, the
   * revision a failed pipe was last restarted for), by name. Kept while the id stays the same.
   */
  marks?: Marks;
}

/** Notes a descriptor keeps on an inventory entry, by name. */
export type Marks = Record<string, string>;
/** Changes to marks: a string sets one, null clears it. */
export type MarkChanges = Record<string, string | null>;

/**
 * An operator's suspension of a target (`POST /-/suspend`): the daemon reads and reports the
 * target but never writes to it, across restarts, until `POST /-/resume` lifts it.
 */
export interface Suspension {
  /** ISO timestamp of the suspend. */
  since: string;
  /** Why, as the operator gave it. */
  reason?: string;
  /** Who, as the operator gave it: not checked (the control token is the same for everyone). */
  by?: string;
}

/** The longest `reason` or `by` a suspension keeps. */
export const SUSPENSION_NOTE_MAX = 500;

/**
 * Why `text` cannot be a suspension's `reason` or `by`, or undefined when it can: one line of at
 * most {@link SUSPENSION_NOTE_MAX} characters. The state file's schema holds the same rule.
 */
export function suspensionNoteProblem(text: string): string | undefined {
  if (text.length === 0) return 'is empty';
  if (text.length > SUSPENSION_NOTE_MAX) return `is longer than ${SUSPENSION_NOTE_MAX} characters`;
  if (/[\u0000-\u001f\u007f]/u.test(text)) return 'holds a control character (a line break, a tab, …)';
  return undefined;
}

export interface TargetState {
  /** kind → metadata.name → what stacksync created or adopted. */
  inventory: Record<Kind, Record<string, InventoryEntry>>;
  /** `Kind/key:secret.path` → HMAC-SHA256 (hex) of the value last sent. */
  secretHashes: Record<string, string>;
  intents: CreateIntent[];
  /** Absent unless suspended over HTTP (a file written before suspensions were kept has none). */
  suspension?: Suspension;
}

export interface StateFile {
  version: 1;
  targets: Record<string, TargetState>;
}

/** The key under which a write-only value's HMAC is kept. */
export function secretHashKey(kind: Kind, key: string, path: string): string {
  return `${kind}/${key}:${path}`;
}

/**
 * One change to one target's state, as the journal keeps it: the store applies it in place and
 * appends it as one line, so a write costs the same whatever the size of the inventory. Each is
 * an assignment (set or remove), so replaying a record the state already holds changes nothing.
 */
export type StateRecord =
  /** A create is about to be sent (or went unanswered: `settleUntil`); replaces an older intent for `kind/key`. */
  | { type: 'intent'; kind: Kind; key: string; name: string; at: string; settleUntil?: string }
  /**
   * `kind/key` is owned (created, adopted, reclaimed or updated) with this id; replaces its entry
   * and drops its intent. `created`: stacksync made it; an entry of the same id keeps it (and its marks).
   */
  | { type: 'owned'; kind: Kind; key: string; id: string; name?: string; spec?: string; created?: true }
  /** Marks of `kind/key`, if owned: each string sets one, each null clears it. */
  | { type: 'marked'; kind: Kind; key: string; marks: MarkChanges }
  /**
   * `kind/key`, if owned, matches the manifest whose spec has this digest (applied in full, or
   * found in sync); `prune: disabled` when that manifest says so, and absent clears it.
   */
  | { type: 'spec'; kind: Kind; key: string; spec: string; prune?: 'disabled'; tenant?: string }
  /** `kind/key` is gone: its inventory entry, its intent and its secret hashes are forgotten. */
  | { type: 'forgotten'; kind: Kind; key: string }
  /** The create of `kind/key` certainly did not happen (or names nothing live): its intent goes. */
  | { type: 'intent-dropped'; kind: Kind; key: string }
  /** HMACs of the write-only values last sent for `kind/key`, by secret path. */
  | { type: 'secrets'; kind: Kind; key: string; hashes: Record<string, string> }
  /** Suspended over HTTP (replaces an earlier suspension). */
  | ({ type: 'suspended' } & Suspension)
  /** The suspension is lifted (`POST /-/resume`); nothing when there is none. */
  | { type: 'resumed' }
  /** The whole target replaced (tools, tests, whole-state transitions); costs the size of the target. */
  | { type: 'replaced'; state: TargetState };

export type StateRecordType = StateRecord['type'];
