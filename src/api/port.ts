/**
 * The port through which stacksync talks to one target's API. Two adapters implement it
 * (managed, self-hosted) over every registered kind; the planner and executor depend only on
 * this interface, and name kinds only as data.
 */
import type { Kind, Variant } from '../model/kinds.js';
import type { ActionVerb, WriteBody } from '../model/plan.js';
import type { LiveOfKind, LiveState } from '../kinds/index.js';

export interface Api {
  readonly variant: Variant;
  /**
   * The whole live state in the fewest calls: one list per collection of the kinds the target
   * offers (every page of a paged one), but the kinds it reads only when asked (`deferredKinds`:
   * those read on demand, those it lists but cannot write) only where `also` names them; the
   * others are said unread (`LiveState.unread`). A resource of a list that does not read is set
   * aside in `unreadable`, never failing the list.
   */
  readLiveState(also?: readonly Kind[]): Promise<LiveState>;

  /**
   * The live state of these kinds alone (every other collection empty), as `readLiveState` reads
   * them: what a plan reads of the deferred kinds once it knows it asks for them.
   */
  readKinds(kinds: readonly Kind[]): Promise<LiveState>;

  /** Every live object of `kind` that reads; none on a variant without the kind (nothing is sent). */
  list<K extends Kind>(kind: K): Promise<LiveOfKind<K>[]>;
  create<K extends Kind>(kind: K, body: WriteBody): Promise<LiveOfKind<K>>;
  /** A full replace (PUT) or a merge (PATCH), as the kind's route says. */
  update<K extends Kind>(kind: K, id: string, body: WriteBody): Promise<LiveOfKind<K>>;
  remove(kind: Kind, id: string): Promise<void>;
  /**
   * An action on one resource on its kind's route for it (a pipe's `start` on `…/pipes/{id}/state`,
   * its `scale`); the answer as the kind's live object, or undefined when it is not one.
   */
  act<K extends Kind>(kind: K, verb: ActionVerb, id: string, body: WriteBody): Promise<LiveOfKind<K> | undefined>;

  /**
   * Asks the target whether it would take `body` as a create of `kind`, storing nothing (the
   * dashboards' `validate` route); undefined when the target offers no such check.
   */
  validate(kind: Kind, body: WriteBody): Promise<ServerCheck | undefined>;

  /** Releases pooled connections and timers. */
  close(): Promise<void>;
}

/** What a target's check of a body said: whether it would take it, and each problem at its path (`tiles.0.x`). */
export interface ServerCheck {
  valid: boolean;
  errors: { path: string; message: string }[];
}

/** Observes every HTTP exchange; the metrics module plugs in here without the client knowing it. */
export interface ApiHooks {
  onRequest?(event: { method: string; route: string; status: number | 'error'; durationSeconds: number }): void;
  /** An attempt failed and another follows after `delayMs`: `attempt` of at most `maxAttempts`, `why` in words (redacted). */
  onRetry?(event: {
    method: string;
    route: string;
    reason: RetryReason;
    attempt: number;
    maxAttempts: number;
    delayMs: number;
    why: string;
  }): void;
  /** A request waited this long for the rate budget; told when the wait is over. */
  onRateLimitWait?(event: { waitedSeconds: number }): void;
  /** Requests start a wait of this long for the rate budget (the target's `rateLimit`); told when the wait starts. */
  onRateLimitDelay?(event: { waitSeconds: number; budget: { requests: number; perSeconds: number } }): void;
}

export type RetryReason = 'throttled' | 'server_error' | 'connection' | 'timeout';
