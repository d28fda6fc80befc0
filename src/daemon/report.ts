/**
 * How the daemon tells what each sync did: to a person as console text, or to a log collector as
 * JSON records, never both. A sync is told once the scheduler has decided what comes next, so a
 * retry is one line: a sync that failed exactly as the one before it is not told again in full,
 * only `retrying Dashboard/x in 2 s: E_API_VALIDATION: …`.
 */
import type { Logger } from 'pino';
import { PAST_TENSE } from '../apply/events.js';
import { changeRef, outcomeOf, type Change, type ChangeResult } from '../model/plan.js';
import { isListed, withCode } from '../plan/render-text.js';
import { describeSync, type ConsoleAccount } from './console.js';
import type { NextSync, Trigger } from './scheduler.js';
import type { SyncFailure, SyncLogRecord } from './sync-result.js';

/** One finished sync, as the daemon tells it. */
export interface FinishedSync {
  target: string;
  trigger: Trigger;
  ok: boolean;
  /** `HH:MM:SS` of the console line. */
  time: string;
  /** The account of a sync that planned; none for one that crashed. */
  account?: ConsoleAccount;
  logRecord?: SyncLogRecord;
  failure?: SyncFailure;
  /** The sync's own logger (target and sync id on every record). */
  logger: Logger;
}

export type SyncReporter = (finished: FinishedSync, next: NextSync | undefined) => void;

/** Where the accounts go: console text for people, or records on the logger for collectors. */
export type ReportTo = { console: (text: string) => void } | { records: true };

export function createSyncReporter(to: ReportTo): SyncReporter {
  // What each target's last failed sync was, to tell a retry that fails the same way in one line.
  const lastFailure = new Map<string, string>();
  return (finished, next) => {
    const fingerprint = finished.ok ? undefined : failureFingerprint(finished);
    const repeated = fingerprint !== undefined && lastFailure.get(finished.target) === fingerprint;
    if (fingerprint === undefined) lastFailure.delete(finished.target);
    else lastFailure.set(finished.target, fingerprint);
    if ('console' in to) tellPerson(to.console, finished, next, repeated);
    else tellCollector(finished, next, repeated);
  };
}

function tellPerson(
  write: (text: string) => void,
  finished: FinishedSync,
  next: NextSync | undefined,
  repeated: boolean,
): void {
  const again = againLine(finished, next);
  if (repeated && again !== undefined) {
    write(`[${finished.time}] ${finished.target}: ${again}\n`);
    return;
  }
  const account = finished.account
    ? describeSync(finished.account)
    : `[${finished.time}] ${finished.target}: ${finished.trigger} sync failed: ${failureText(finished.failure)}\n`;
  write(
    account +
      (again !== undefined && next?.trigger === 'retry' ? `[${finished.time}] ${finished.target}: ${again}\n` : ''),
  );
}

function tellCollector(finished: FinishedSync, next: NextSync | undefined, repeated: boolean): void {
  const { logger } = finished;
  const nextFields =
    next === undefined ? {} : { next: { trigger: next.trigger, inSeconds: Math.round(next.delayMs / 100) / 10 } };
  const again = againLine(finished, next);
  if (repeated && again !== undefined) {
    logger.error({ trigger: finished.trigger, ok: false, ...failureFields(finished.failure), ...nextFields }, again);
    return;
  }
  if (finished.account?.results)
    for (const record of changeRecords(finished.account.plan.changes, finished.account.results))
      logger[record.level](record.fields, record.msg);
  const record = finished.logRecord ?? {
    level: 'error' as const,
    msg: `sync failed: ${failureText(finished.failure)}`,
    fields: { trigger: finished.trigger, ok: false, ...failureFields(finished.failure) },
  };
  logger[record.level]({ ...record.fields, ...nextFields }, record.msg);
}

/** `retrying Dashboard/x in 2 s: E_…: …`, or `still failing: …; next sync in 5 min` when it waits for the resync. */
export function againLine(finished: Pick<FinishedSync, 'failure'>, next: NextSync | undefined): string | undefined {
  if (finished.failure === undefined || next === undefined) return undefined;
  const subjects = listSubjects(finished.failure.subjects);
  const why = withCode(finished.failure.code, finished.failure.error);
  if (next.trigger === 'retry')
    return `retrying ${subjects ? `${subjects} ` : ''}in ${formatDelay(next.delayMs)}: ${why}`;
  return `still failing: ${subjects ? `${subjects}: ` : ''}${why}; next sync in ${formatDelay(next.delayMs)}`;
}

/** `Alert/x`, `Alert/x and Dashboard/y`, `Alert/x, Dashboard/y and 3 more`. */
function listSubjects(subjects: readonly string[]): string {
  if (subjects.length <= 2) return subjects.join(' and ');
  return `${subjects.slice(0, 2).join(', ')} and ${subjects.length - 2} more`;
}

/** `2 s`, `0.5 s`, `5 min`. */
export function formatDelay(ms: number): string {
  if (ms >= 120_000) return `${Math.round(ms / 60_000)} min`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) || seconds >= 10 ? Math.round(seconds) : seconds.toFixed(1)} s`;
}

/** What makes two failed syncs "the same": what they would show, whatever the time and trigger. */
function failureFingerprint(finished: FinishedSync): string {
  const body = finished.account ? describeSync({ ...finished.account, time: '', trigger: 'resync' }) : '';
  return `${finished.failure?.code ?? ''}\u0000${finished.failure?.error ?? ''}\u0000${body}`;
}

function failureText(failure: SyncFailure | undefined): string {
  return failure === undefined ? 'failed' : withCode(failure.code, failure.error);
}

function failureFields(failure: SyncFailure | undefined): Record<string, unknown> {
  return failure === undefined
    ? {}
    : {
        code: failure.code,
        error: failure.error,
        ...(failure.subjects.length > 0 ? { failed: failure.subjects } : {}),
      };
}

/** One record per listed change with a result: what a collector needs to tell which resource did what. */
interface ChangeRecord {
  level: 'info' | 'warn' | 'error';
  msg: string;
  fields: Record<string, unknown>;
}

function changeRecords(changes: readonly Change[], results: ReadonlyMap<string, ChangeResult>): ChangeRecord[] {
  return changes.filter(isListed).flatMap((change): ChangeRecord[] => {
    const result = results.get(changeRef(change));
    if (!result) return [];
    const key = `${change.kind}/${change.name}`;
    const fields: Record<string, unknown> = { kind: change.kind, name: change.name, action: change.action };
    if (change.file !== undefined) fields['file'] = change.file;
    if (change.line !== undefined) fields['line'] = change.line;
    if (result.result === 'ok') return [{ level: 'info', msg: `${PAST_TENSE[change.action]} ${key}`, fields }];
    const failed = { ...fields, code: result.code, error: result.error };
    if (result.result === 'failed')
      return [{ level: 'error', msg: `failed ${key}: ${withCode(result.code, result.error)}`, fields: failed }];
    return [
      {
        level: 'warn',
        msg: `${outcomeOf(change, result) ?? 'skipped'} ${key}: ${withCode(result.code, result.error)}`,
        fields: failed,
      },
    ];
  });
}
