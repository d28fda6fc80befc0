/**
 * A plan: per target, the closed union of changes the differ found, and the API operations that
 * carry each one out. Plan rendering, apply, logs, metrics and the state file all read this shape.
 */
import type { ErrorCode } from '../errors.js';
import type { ApplyEstimate } from './estimate.js';
import type { Kind } from './kinds.js';
import type { MarkChanges } from './state.js';

/**
 * What a plan does with one resource. `orphan`: in the inventory, named by no manifest, and not
 * pruned in this run (no `--prune`, or a manifest error holds the prune back); shown so a reviewer
 * sees what a later prune deletes, but not a change: apply leaves it alone. `suspended`: its
 * target or its manifest is suspended (or it waits on one that is); read and shown with the
 * difference it has, never written. `waiting`: a create held back because an earlier create of it
 * went unanswered and may still land (until `waitUntil`), or a write that needs such a create:
 * shown with its difference, not written in this run; the run after the window takes back what
 * landed, or creates it. Likewise a write an earlier run sent that the service may still be
 * carrying out (a CDC scaling takes minutes to show): not sent again before `waitUntil`.
 * `replace`: a create-only member changed, so the resource is deleted and created again; applied
 * only with `--allow-replace` or `stacksync.io/replace: allow`.
 */
export type Action =
  | 'create'
  | 'update'
  | 'replace'
  | 'delete'
  | 'adopt'
  | 'orphan'
  | 'suspended'
  | 'waiting'
  | 'unchanged'
  | 'error';
export const ACTIONS: readonly Action[] = [
  'create',
  'update',
  'replace',
  'delete',
  'adopt',
  'orphan',
  'suspended',
  'waiting',
  'unchanged',
  'error',
];

/** Actions that make API writes (or take a resource over) when applied; the rest leave live as it is. */
export const WRITE_ACTIONS: readonly Action[] = ['create', 'update', 'replace', 'delete', 'adopt'];

/** True for the actions apply carries out (`WRITE_ACTIONS`). */
export function isWrite(action: Action): boolean {
  return WRITE_ACTIONS.includes(action);
}

/** The marker shown instead of any write-only value. */
export const SENSITIVE = '(sensitive)';

/** Shown instead of a write-only value whose reference this run cannot resolve (docs/secrets.md). */
export const UNKNOWN_IN_PLAN = '(unknown in this plan)';

/** Shown where an id (dashboard, tile) is assigned only when the plan is applied. */
export const KNOWN_AFTER_APPLY = '(known after apply)';

/** One field-level difference; `path` like `tiles[p99].w` or `source.kafka.credentials`. */
export interface FieldDiff {
  path: string;
  /** Absent when the field is new. `(sensitive)` for write-only values. */
  before?: unknown;
  /** Absent when the field is removed. `(sensitive)` for write-only values. */
  after?: unknown;
}

/** `Kind/metadata.name`, the key a change is known by within its target. */
export type ChangeKey = `${Kind}/${string}`;

export function changeKey(kind: Kind, name: string): ChangeKey {
  return `${kind}/${name}`;
}

/**
 * Whether `value` is written as a change key: a kind's name (PascalCase, as every kind is named)
 * and a manifest name. A key of a kind no change has is simply never written, so the form is enough.
 */
export function isChangeKey(value: string): value is ChangeKey {
  return /^[A-Z][A-Za-z]*\/[^/]/.test(value);
}

/** The key apply results are given under: `target/Kind/name`, unique within a plan. */
export function changeRef(change: Pick<Change, 'target' | 'kind' | 'name'>): string {
  return `${change.target}/${change.kind}/${change.name}`;
}

/**
 * Ids an operation takes from a change written earlier in the same run (an alert on a dashboard
 * created with it: `{dashboard: 'Dashboard/api', tile: 'p99'}`). Which members name changes, and
 * how the ids are filled in, is the operation's kind's (its descriptor's `refs`).
 */
export type OperationRefs = Readonly<Record<string, string>>;

/** A request body as a differ built it for its kind's API; may hold secret values. */
export type WriteBody = Record<string, unknown>;

/**
 * What an operation does to its resource; the executor carries out each verb one way for every
 * kind. Beyond create, update and delete, the actions a kind's routes offer on one resource
 * (`KindRoutes.actions`): a pipe's state commands (`start`, `stop`, `resync`) and its `scale`.
 */
export type OperationVerb = 'create' | 'update' | 'delete' | ActionVerb;

/** Verbs carried out on a route of their own beside the resource (`…/pipes/{id}/state`). */
export type ActionVerb = 'start' | 'stop' | 'resync' | 'scale';
export const ACTION_VERBS: readonly ActionVerb[] = ['start', 'stop', 'resync', 'scale'];

/** `createDashboard`, `updatePipe`, …: an operation's verb and kind, as plans, events and the API's call log name it. */
export type OperationType = `${OperationVerb}${Kind}`;

/** The type of an operation of `verb` on `kind`. */
export function operationType(verb: OperationVerb, kind: Kind): OperationType {
  return `${verb}${kind}`;
}

const VERBS: readonly OperationVerb[] = ['create', 'update', 'delete', ...ACTION_VERBS];

/** The verb of an operation on a resource of `kind` (its type is the verb and the kind). */
export function operationVerb(operation: Pick<Operation, 'type'>, kind: Kind): OperationVerb {
  const verb = VERBS.find((candidate) => operation.type === operationType(candidate, kind));
  if (verb === undefined) throw new Error(`operation ${operation.type} is not one of a ${kind}`);
  return verb;
}

/**
 * Order of the operations of one change: a table-mapping change is remove, then add; a pipe that
 * must be paused for it is stopped first (`pause`) and started again last (`resume`).
 */
export type OperationStep = 'pause' | 'remove-mappings' | 'add-mappings' | 'resume';

/** What an operation asks of the executor besides its request. */
export interface OperationOptions {
  /**
   * Once it succeeded, wait until the resource settles at this goal, as its kind's `settle` reads
   * the live state (`running`, `stopped`): a pipe provisions asynchronously.
   */
  await?: string;
  /**
   * The resource is not there yet and comes into being on its own (a service makes its CDC scaling
   * once a database pipe is provisioned): before the request, the run waits until its kind's list
   * shows it, as long as `apply --wait` allows. A run that does not wait (the daemon, `--wait 0`)
   * fails the change instead, saying this reason; a later run sends it.
   */
  awaitPresence?: string;
  /** Runs even when an earlier operation of its change failed: it restores what those changed (a pipe stopped for an edit is started again). */
  always?: true;
  /** Marks recorded on the resource's inventory entry before the request leaves (a crash in between is finished from them). */
  marksBefore?: MarkChanges;
  /** Marks recorded once it succeeded. */
  marks?: MarkChanges;
}

/**
 * The API writes of a change, in order: a create (POST) or a full update (PUT) with a `body`, a
 * partial update (PATCH) with a `patch`, a delete with only the id, an action (`start`, `scale`)
 * with its body. An operation without an id after a create of the same change acts on what that
 * create made (a pipe born stopped: create, then stop). Bodies may hold secret values (pipe
 * credentials): operations are never rendered, logged or persisted.
 */
export type Operation = OperationOptions &
  (
    | { type: OperationType; body: WriteBody; refs?: OperationRefs; step?: OperationStep }
    | { type: OperationType; id: string; body: WriteBody; refs?: OperationRefs; step?: OperationStep }
    | { type: OperationType; id: string; patch: WriteBody; step?: OperationStep }
    | { type: OperationType; id: string; step?: OperationStep }
  );

export interface Change {
  target: string;
  kind: Kind;
  /** `metadata.name` of the manifest; for a delete, the inventory key. */
  name: string;
  action: Action;
  /** Live id, when the resource exists. */
  id?: string;
  /** Manifest location; absent for deletes and orphans. */
  file?: string;
  /**
   * With tenants configured: the tenant of its manifest, or for a delete or an orphan the tenant
   * the inventory recorded it for (absent when none is known). Docs: docs/many-services.md#tenants.
   */
  tenant?: string;
  line?: number;
  /**
   * The `metadata.forEach` item this resource stands for (`service=payments, severity=page`),
   * when its manifest is a template: a problem of one item holds back only that item
   * (docs/many-services.md).
   */
  item?: string;
  diff: FieldDiff[];
  /** What apply sends; empty for unchanged and error. For adopt, the writes after taking it over. */
  operations: Operation[];
  /** Changes (same target) that must succeed first. */
  dependsOn: ChangeKey[];
  /**
   * Write-only values this change would send that this run cannot resolve, each `path: why`
   * (`source.kafka.credentials: env var KAFKA_PASSWORD is not set`): apply fails this change alone
   * with `E_SECRET_MISSING`, and what needs it is skipped. Absent when there are none.
   */
  unresolved?: string[];
  /** HMACs of write-only values this change sends, keyed by secret path; recorded after success. */
  secretHashes?: Record<string, string>;
  /** Marks recorded on the inventory entry once the change succeeded in full (a resync token sent). */
  marks?: MarkChanges;
  /** For `replace`: the manifest says `stacksync.io/replace: allow`, so no `--allow-replace` is needed. */
  replaceAllowed?: true;
  /** Live API name, recorded with a create intent and in the inventory. */
  liveName?: string;
  /** Digest of the manifest's spec (no secret values), recorded in the inventory once applied. */
  spec?: string;
  /**
   * True for a write whose manifest is the one stacksync last applied: the difference is a live
   * edit made outside stacksync (drift), not a change from Git waiting to be applied.
   */
  drift?: boolean;
  /**
   * The manifest says `stacksync.io/prune: disabled`: recorded in the inventory once applied, so
   * prune leaves the resource alone even after the manifest is gone.
   */
  pruneDisabled?: true;
  /** The live `state` the service reported for a kind that has one (a pipe: Running, Failed, …), as it is. */
  liveState?: string;
  /** The state its manifest wants, for a kind whose resources are run and stopped (a pipe: Running or Stopped). */
  wantedState?: string;
  /** True when this resource was matched through a pending create intent (crash recovery). */
  reclaimed?: boolean;
  /** For `waiting`: ISO time until which the earlier create (or write) may still land. */
  waitUntil?: string;
  /** Things a reviewer must see, e.g. a tile removal that deletes alerts watching it. */
  warnings: string[];
  /**
   * For action `error`: what kind of problem it is. On a write: the code apply fails it with once
   * its operations ran (if any), because the resource stays where its manifest does not want it.
   */
  code?: ErrorCode;
  /**
   * For action `error`: why this resource cannot be planned. On a write: why apply fails it even so
   * (a pipe its manifest wants running that stays Failed, its one start for this revision spent).
   */
  error?: string;
}

/** A problem that is not one change: a manifest error, an unreachable target. */
export interface PlanError {
  file?: string;
  line?: number;
  column?: number;
  target?: string;
  code: ErrorCode;
  message: string;
}

/**
 * Worth a reviewer's eye, not fatal: the code of what it is about, `W_CONFIG` for the config
 * file's own, or `W_PIPE_DEGRADED` for a managed pipe whose live state is Failed, InternalError
 * or Paused.
 */
export interface PlanWarning extends Omit<PlanError, 'code'> {
  code: ErrorCode | 'W_CONFIG' | 'W_PIPE_DEGRADED';
}

export interface PlanSummary {
  create: number;
  update: number;
  /** Deleted and created again (a create-only member changed). */
  replace: number;
  delete: number;
  /**
   * Deletes of the kinds whose deletes a reviewer must see on their own (a pipe's: its ingestion
   * stops; `PrunePolicy.countApart`), by kind; replaces count too. Absent when there are none.
   */
  deleteByKind?: Partial<Record<Kind, number>>;
  adopt: number;
  /** Inventory resources no manifest names that this plan does not delete (see `Action`). */
  orphan: number;
  /** Resources of a suspended target or manifest: shown, never written. */
  suspended: number;
  unchanged: number;
  errors: number;
}

export interface Plan {
  version: 1;
  summary: PlanSummary;
  changes: Change[];
  errors: PlanError[];
  warnings: PlanWarning[];
  /** How many requests applying it makes and how long they take at each target's budget; set by the CLI. */
  estimate?: ApplyEstimate;
}

/**
 * Result of applying one change (apply --output json adds these to each change). A change that did
 * not succeed carries the code of why, so callers decide by code, never by the message.
 */
export type ChangeResult = { result: 'ok' } | { result: 'failed' | 'skipped'; code: ErrorCode; error: string };

/**
 * What became of one change in an apply, in the one vocabulary every output uses: stdout, stderr,
 * JSON, the status page and notifications (docs/apply.md#what-became-of-each-change). `failed`: it
 * was tried, or could not be planned, and is not live as the manifest says; `skipped`: not tried
 * because what it needs failed or was skipped, or the run was cancelled; `not applied`: held back
 * before the apply began (a rule of docs/apply.md); `waiting`: for an earlier write that may
 * still land. `replaced` is shown only when there is one.
 */
export type Outcome =
  | 'created'
  | 'updated'
  | 'replaced'
  | 'deleted'
  | 'adopted'
  | 'failed'
  | 'skipped'
  | 'not applied'
  | 'waiting';
export const OUTCOMES: readonly Outcome[] = [
  'created',
  'updated',
  'replaced',
  'deleted',
  'adopted',
  'failed',
  'skipped',
  'not applied',
  'waiting',
];

/** Codes of a write held back before the apply began: `not applied`, not `skipped`. */
export const HELD_BACK_CODES: readonly ErrorCode[] = ['E_MANIFEST_BLOCKED', 'E_PRUNE_REFUSED'];

const DONE: Partial<Record<Action, Outcome>> = {
  create: 'created',
  update: 'updated',
  replace: 'replaced',
  delete: 'deleted',
  adopt: 'adopted',
};

/** The outcome of `change` given its result; undefined for what an apply never writes (unchanged, orphan, suspended). */
export function outcomeOf(change: Pick<Change, 'action'>, result: ChangeResult | undefined): Outcome | undefined {
  if (change.action === 'error') return 'failed';
  if (change.action === 'waiting') return 'waiting';
  if (!isWrite(change.action)) return result !== undefined && result.result !== 'ok' ? result.result : undefined;
  if (result === undefined) return 'not applied';
  if (result.result === 'failed') return 'failed';
  if (result.result === 'skipped') return HELD_BACK_CODES.includes(result.code) ? 'not applied' : 'skipped';
  return DONE[change.action];
}

export type OutcomeCounts = Record<Outcome, number>;

export function noOutcomes(): OutcomeCounts {
  return {
    created: 0,
    updated: 0,
    replaced: 0,
    deleted: 0,
    adopted: 0,
    failed: 0,
    skipped: 0,
    'not applied': 0,
    waiting: 0,
  };
}

/** Counts with one more `outcome` (a new object). */
export function withOutcome(counts: OutcomeCounts, outcome: Outcome | undefined): OutcomeCounts {
  return outcome === undefined ? counts : { ...counts, [outcome]: counts[outcome] + 1 };
}

/** The sum of two counts. */
export function addOutcomes(a: OutcomeCounts, b: OutcomeCounts): OutcomeCounts {
  return Object.fromEntries(OUTCOMES.map((outcome) => [outcome, a[outcome] + b[outcome]])) as OutcomeCounts;
}

/** `1 created, 0 updated, 0 deleted, 0 adopted, 1 failed, 0 skipped, 1 not applied, 0 waiting`: every output's words. */
export function formatOutcomes(counts: OutcomeCounts): string {
  return OUTCOMES.filter((outcome) => outcome !== 'replaced' || counts.replaced > 0)
    .map((outcome) => `${counts[outcome]} ${outcome}`)
    .join(', ');
}
