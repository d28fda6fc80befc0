/**
 * What the executor reports while it works, for progress output, metrics and logs.
 * Events never carry request bodies: those may hold secret values.
 */
import type { Kind } from '../model/kinds.js';
import type { ErrorCode } from '../errors.js';
import {
  noOutcomes,
  outcomeOf,
  withOutcome,
  type Action,
  type Change,
  type ChangeKey,
  type ChangeResult,
  type Operation,
  type OutcomeCounts,
} from '../model/plan.js';

/** An API call the executor makes: a plan operation, or a list to find a create that may have happened. */
export type ApiCall = Operation['type'] | `list${Kind}s`;

/** Why a change did not run. */
export type SkipReason = 'dependency' | 'conflict' | 'cancelled';

interface ChangeEventBase {
  target: string;
  key: ChangeKey;
  kind: Kind;
  action: Action;
  /** Clock time of the event, ms. */
  at: number;
}

export type ApplyEvent =
  | { type: 'apply-started'; target: string; at: number /** Changes that will report a finish event. */; total: number }
  | { type: 'apply-finished'; target: string; at: number; durationMs: number; summary: ApplySummary }
  | (ChangeEventBase & { type: 'change-started' })
  | (ChangeEventBase & { type: 'change-succeeded'; durationMs: number })
  | (ChangeEventBase & { type: 'change-failed'; durationMs: number; code: ErrorCode; error: string })
  | (ChangeEventBase & { type: 'change-skipped'; reason: SkipReason; code: ErrorCode; error: string })
  | (ChangeEventBase & { type: 'operation-started'; call: ApiCall })
  | (ChangeEventBase & { type: 'operation-succeeded'; call: ApiCall; durationMs: number })
  | (ChangeEventBase & { type: 'operation-failed'; call: ApiCall; durationMs: number; code: ErrorCode; error: string })
  /** After each poll for resources settling asynchronously (pipes provisioning): how many of a kind still wait, by state. */
  | {
      type: 'settle-progress';
      target: string;
      at: number;
      kind: Kind;
      waiting: number;
      states: Record<string, number>;
    };

export type ChangeFinishedEvent = Extract<
  ApplyEvent,
  { type: 'change-succeeded' | 'change-failed' | 'change-skipped' }
>;

/** Counts for the closing line, in the vocabulary of every output (`Outcome` of `model/plan.ts`). */
export type ApplySummary = OutcomeCounts;

/** Past tense of a write action, as output and summaries say it. */
export const PAST_TENSE: Readonly<Record<Action, string>> = {
  create: 'created',
  update: 'updated',
  replace: 'replaced',
  delete: 'deleted',
  adopt: 'adopted',
  orphan: 'left alone',
  suspended: 'left alone (suspended)',
  waiting: 'left alone (waiting for an earlier create)',
  unchanged: 'unchanged',
  error: 'failed',
};

export function emptySummary(): ApplySummary {
  return noOutcomes();
}

/** Adds one change's outcome to a summary (returns a new one). */
export function addToSummary(
  summary: ApplySummary,
  change: Pick<Change, 'action'>,
  result: ChangeResult,
): ApplySummary {
  return withOutcome(summary, outcomeOf(change, result));
}
