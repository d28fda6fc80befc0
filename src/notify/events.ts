/**
 * What a finished sync is worth telling, pure: the events of one sync of one target, de-duplicated
 * against what was told before (the same failure every resync is told once, then its recovery
 * once). Flux's notification-controller is the model: events carry the target, the revision,
 * what changed (kinds, names, counts) and the first error with its file and line.
 */
import type { ErrorCode } from '../errors.js';
import type { NotifyEvent } from '../model/config.js';
import { changeRef, isWrite, type Change, type ChangeResult, type Plan, type PlanError } from '../model/plan.js';

/** What the daemon tells the notifier about one finished sync of one target. */
export interface SyncNotice {
  target: string;
  revision?: string;
  /** The sync completed without any error. */
  ok: boolean;
  /** The sync's error, when it failed before planning (API unreachable). */
  error?: string;
  /** The sync's plan; its changes are this target's. */
  plan?: Plan;
  /** Apply results by `changeRef`, when the sync applied. */
  results?: ReadonlyMap<string, ChangeResult>;
  /** Deletes the prune caps refused. */
  refusals?: readonly PlanError[];
  /** `sync.drift: propose`: the branch the drift was committed to, and its pull request. */
  proposal?: { branch: string; pullRequest?: string };
}

/** A resource an event is about. */
export interface EventResource {
  kind: string;
  name: string;
  action: string;
  file?: string;
  line?: number;
}

/** The first thing that went wrong, where it is known. */
export interface EventError {
  code?: ErrorCode;
  /** `Kind/name` when the error is one resource's. */
  subject?: string;
  message: string;
  file?: string;
  line?: number;
}

export interface NotificationEvent {
  event: NotifyEvent;
  target: string;
  revision?: string;
  /** One line for people: what happened, with counts. */
  summary: string;
  /** Resources concerned, at most {@link MAX_LISTED}. */
  resources: EventResource[];
  /** How many resources the event concerns in all (more than `resources` lists when cut short). */
  total: number;
  /** By action (`created`, `updated`, …) for `applied`; by kind otherwise. */
  counts: Record<string, number>;
  error?: EventError;
  /** `drift` under `sync.drift: propose`: the branch it was committed to, and its pull request. */
  proposal?: { branch: string; pullRequest?: string };
}

/** What was last told about a target, so a repeat is not told again. */
export interface NotifyMemory {
  /** Fingerprint of the failure last told; absent while the target is healthy. */
  failure?: string;
  drift?: string;
  refusal?: string;
}

/** Resources listed in one event; the rest are counted. */
export const MAX_LISTED = 20;

const PAST: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted', adopt: 'adopted' };

/** The events of one sync and the memory after it. */
export function eventsOf(
  account: SyncNotice,
  memory: NotifyMemory,
): { events: NotificationEvent[]; memory: NotifyMemory } {
  const events: NotificationEvent[] = [];
  const next: NotifyMemory = { ...memory };
  const base = { target: account.target, ...(account.revision ? { revision: account.revision } : {}) };

  // 1. Failure and recovery: told when the failure is new or different, and once when it ends.
  if (!account.ok) {
    const failure = failureOf(account);
    if (failure.fingerprint !== memory.failure) events.push({ ...base, event: 'failed', ...failure.event });
    next.failure = failure.fingerprint;
  } else if (memory.failure !== undefined) {
    events.push({
      ...base,
      event: 'recovered',
      summary: `${account.target} is in sync again`,
      resources: [],
      total: 0,
      counts: {},
    });
    delete next.failure;
  }

  // 2. What this sync applied.
  const applied = appliedChanges(account);
  if (applied.length > 0) events.push({ ...base, event: 'applied', ...appliedEvent(account.target, applied) });

  // 3. Drift: live edits made outside stacksync, told once per set of them.
  const drifted = (account.plan?.changes ?? []).filter((change) => change.drift === true);
  const drift =
    drifted.length > 0
      ? drifted
          .map((c) => `${c.kind}/${c.name}:${c.diff.map((d) => d.path).join(',')}`)
          .sort()
          .join('\n')
      : undefined;
  if (drift !== undefined && drift !== memory.drift) {
    const results = account.results;
    const healed = results !== undefined && drifted.every((change) => results.get(changeRef(change))?.result === 'ok');
    events.push({ ...base, event: 'drift', ...driftEvent(account.target, drifted, healed, account.proposal) });
  }
  if (drift === undefined) delete next.drift;
  else next.drift = drift;

  // 4. Refused prunes, told once per refusal.
  const refusals = account.refusals ?? [];
  const refusal = refusals.length > 0 ? refusals.map((r) => r.message).join('\n') : undefined;
  if (refusal !== undefined && refusal !== memory.refusal) {
    const first = refusals[0] as PlanError;
    events.push({
      ...base,
      event: 'pruneRefused',
      summary: first.message,
      resources: [],
      total: 0,
      counts: {},
      error: { code: first.code, message: first.message },
    });
  }
  if (refusal === undefined) delete next.refusal;
  else next.refusal = refusal;

  return { events, memory: next };
}

function appliedChanges(account: SyncNotice): Change[] {
  const results = account.results;
  if (!results) return [];
  return (account.plan?.changes ?? []).filter(
    (change) => isWrite(change.action) && results.get(changeRef(change))?.result === 'ok',
  );
}

function appliedEvent(
  target: string,
  changes: readonly Change[],
): Omit<NotificationEvent, 'event' | 'target' | 'revision'> {
  const counts: Record<string, number> = {};
  for (const change of changes)
    counts[PAST[change.action] ?? change.action] = (counts[PAST[change.action] ?? change.action] ?? 0) + 1;
  const parts = Object.entries(counts).map(([action, n]) => `${n} ${action}`);
  return {
    summary: `applied ${changes.length} ${plural(changes.length, 'change')} to ${target}: ${parts.join(', ')} (${names(changes)})`,
    resources: listed(changes),
    total: changes.length,
    counts,
  };
}

function driftEvent(
  target: string,
  changes: readonly Change[],
  healed: boolean,
  proposal: SyncNotice['proposal'],
): Omit<NotificationEvent, 'event' | 'target' | 'revision'> {
  const what = `${changes.length} ${plural(changes.length, 'resource')} of ${target} ${changes.length === 1 ? 'was' : 'were'} edited outside stacksync`;
  const how = healed
    ? ' (healed)'
    : proposal
      ? ` (proposed on branch ${proposal.branch}${proposal.pullRequest ? `, ${proposal.pullRequest}` : ''})`
      : '';
  return {
    summary: `${what}${how}: ${names(changes)}`,
    resources: listed(changes),
    total: changes.length,
    counts: byKind(changes),
    ...(proposal ? { proposal: { ...proposal } } : {}),
  };
}

interface Failure {
  fingerprint: string;
  event: Omit<NotificationEvent, 'event' | 'target' | 'revision'>;
}

/** What failed, the first error with its place, and a fingerprint that ignores what varies between resyncs (ids, times). */
function failureOf(account: SyncNotice): Failure {
  const results = account.results;
  const failedChanges = (account.plan?.changes ?? []).filter(
    (change) => change.action === 'error' || (results !== undefined && isFailed(results.get(changeRef(change)))),
  );
  const planErrors = account.plan?.errors ?? [];
  const errors: EventError[] = [
    ...failedChanges.map((change) => changeError(change, results?.get(changeRef(change)))),
    ...planErrors.map(planError),
  ];
  const first = errors[0] ?? { message: account.error ?? 'the sync failed' };
  const fingerprint = [
    ...failedChanges.map(
      (change) => `${change.kind}/${change.name}:${change.code ?? errorCodeOf(results?.get(changeRef(change)))}`,
    ),
    ...planErrors.map((error) => `${error.code}:${error.file ?? ''}:${error.line ?? ''}:${error.message}`),
    ...(errors.length === 0 ? [account.error ?? ''] : []),
  ]
    .sort()
    .join('\n');
  const count = failedChanges.length + planErrors.length;
  const where = first.file !== undefined ? ` at ${first.file}${first.line !== undefined ? `:${first.line}` : ''}` : '';
  const about = first.subject ? `${first.subject}: ` : '';
  const summary = `sync of ${account.target} failed${count > 1 ? ` (${count} errors)` : ''}: ${about}${first.message}${where}`;
  return {
    fingerprint,
    event: {
      summary,
      resources: listed(failedChanges),
      total: failedChanges.length,
      counts: byKind(failedChanges),
      error: first,
    },
  };
}

function isFailed(result: ChangeResult | undefined): boolean {
  return result !== undefined && result.result === 'failed';
}

function errorCodeOf(result: ChangeResult | undefined): string {
  return result && result.result !== 'ok' ? result.code : '';
}

function changeError(change: Change, result: ChangeResult | undefined): EventError {
  const failed = result && result.result !== 'ok' ? result : undefined;
  const error: EventError = {
    subject: `${change.kind}/${change.name}`,
    message: failed?.error ?? change.error ?? 'failed',
  };
  const code = failed?.code ?? change.code;
  if (code !== undefined) error.code = code;
  if (change.file !== undefined) error.file = change.file;
  if (change.line !== undefined) error.line = change.line;
  return error;
}

function planError(problem: PlanError): EventError {
  const error: EventError = { code: problem.code, message: problem.message };
  if (problem.file !== undefined) error.file = problem.file;
  if (problem.line !== undefined) error.line = problem.line;
  return error;
}

function listed(changes: readonly Change[]): EventResource[] {
  return changes.slice(0, MAX_LISTED).map((change) => {
    const resource: EventResource = { kind: change.kind, name: change.name, action: change.action };
    if (change.file !== undefined) resource.file = change.file;
    if (change.line !== undefined) resource.line = change.line;
    return resource;
  });
}

function byKind(changes: readonly Change[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const change of changes) counts[change.kind] = (counts[change.kind] ?? 0) + 1;
  return counts;
}

function names(changes: readonly Change[]): string {
  const shown = changes.slice(0, 5).map((change) => `${change.kind}/${change.name}`);
  return changes.length > 5 ? `${shown.join(', ')} and ${changes.length - 5} more` : shown.join(', ');
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
