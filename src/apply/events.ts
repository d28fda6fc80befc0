/**
 * What the executor reports while it works, for progress output, metrics and logs.
 * Events never carry request bodies: those may hold secret values.
 */
import type { Kind } from '../model/kinds.js';
import type { ErrorCode } from '../errors.js';
import type { Action, ChangeKey, ChangeResult, Operation } from '../model/plan.js';

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
  | { type: 'apply-started'; target: string; at: number; /** Changes that will report a finish event. */ total: number }
  | { type: 'apply-finished'; target: string; at: number; durationMs: number; summary: ApplySummary }
  | (ChangeEventBase & { type: 'change-started' })
  | (ChangeEventBase & { type: 'change-succeeded'; durationMs: number })
  | (ChangeEventBase & { type: 'change-failed'; durationMs: number; code: ErrorCode; error: string })
  | (ChangeEventBase & { type: 'change-skipped'; reason: SkipReason; code: ErrorCode; error: string })
  | (ChangeEventBase & { type: 'operation-started'; call: ApiCall })
  | (ChangeEventBase & { type: 'operation-succeeded'; call: ApiCall; durationMs: number })
  | (ChangeEventBase & { type: 'operation-failed'; call: ApiCall; durationMs: number; code: ErrorCode; error: string })
  /** After each poll for resources settling asynchronously (pipes provisioning): how many of a kind still wait, by state. */
  | { type: 'settle-progress'; target: string; at: number; kind: Kind; waiting: number; states: Record<string, number> };

export type ChangeFinishedEvent = Extract<ApplyEvent, { type: 'change-succeeded' | 'change-failed' | 'change-skipped' }>;

/** Counts for the closing line; `created` etc. count changes that succeeded. */
export interface ApplySummary {
  created: number;
  updated: number;
  /** Deleted and created again; absent until there is one. */
  replaced?: number;
  deleted: number;
  adopted: number;
  failed: number;
  skipped: number;
}

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
  return { created: 0, updated: 0, deleted: 0, adopted: 0, failed: 0, skipped: 0 };
}

/** Adds one change's outcome to a summary (returns a new one). */
export function addToSummary(summary: ApplySummary, action: Action, result: ChangeResult['result']): ApplySummary {
  if (result === 'failed') return { ...summary, failed: summary.failed + 1 };
  if (result === 'skipped') return { ...summary, skipped: summary.skipped + 1 };
  switch (action) {
    case 'create':
      return { ...summary, created: summary.created + 1 };
    case 'update':
      return { ...summary, updated: summary.updated + 1 };
    case 'replace':
      return { ...summary, replaced: (summary.replaced ?? 0) + 1 };
    case 'delete':
      return { ...summary, deleted: summary.deleted + 1 };
    case 'adopt':
      return { ...summary, adopted: summary.adopted + 1 };
    default:
      return summary;
  }
}
