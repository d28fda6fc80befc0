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
import { describeSync, type SyncAccount } from './console.js';
import type { NextSync, Trigger } from './scheduler.js';
import type { SyncFailure, SyncRecord } from './sync.js';

/** One finished sync, as the daemon tells it. */
export interface SyncTold {
  target: string;
  trigger: Trigger;
  ok: boolean;
  /** `HH:MM:SS` of the console line. */
  time: string;
  /** The account of a sync that planned; none for one that crashed. */
  account?: SyncAccount;
  record?: SyncRecord;
  failure?: SyncFailure;
  /** The sync's own logger (target and sync id on every record). */
  logger: Logger;
}

export type SyncReporter = (told: SyncTold, next: NextSync | undefined) => void;

/** Where the accounts go: console text for people, or records on the logger for collectors. */
export type ReportTo = { console: (text: string) => void } | { records: true };

export function createSyncReporter(to: ReportTo): SyncReporter {
  // What each target's last failed sync was, to tell a retry that fails the same way in one line.
  const lastFailure = new Map<string, string>();
  return (told, next) => {
    const fingerprint = told.ok ? undefined : failureFingerprint(told);
    const repeated = fingerprint !== undefined && lastFailure.get(told.target) === fingerprint;
    if (fingerprint === undefined) lastFailure.delete(told.target);
    else lastFailure.set(told.target, fingerprint);
    if ('console' in to) tellPerson(to.console, told, next, repeated);
    else tellCollector(told, next, repeated);
  };
}

function tellPerson(write: (text: string) => void, told: SyncTold, next: NextSync | undefined, repeated: boolean): void {
  const again = againLine(told, next);
  if (repeated && again !== undefined) {
    write(`[${told.time}] ${told.target}: ${again}\n`);
    return;
  }
  const account = told.account ? describeSync(told.account) : `[${told.time}] ${told.target}: ${told.trigger} sync failed: ${failureText(told.failure)}\n`;
  write(account + (again !== undefined && next?.trigger === 'retry' ? `[${told.time}] ${told.target}: ${again}\n` : ''));
}

function tellCollector(told: SyncTold, next: NextSync | undefined, repeated: boolean): void {
  const { logger } = told;
  const nextFields = next === undefined ? {} : { next: { trigger: next.trigger, inSeconds: Math.round(next.delayMs / 100) / 10 } };
  const again = againLine(told, next);
  if (repeated && again !== undefined) {
    logger.error({ trigger: told.trigger, ok: false, ...failureFields(told.failure), ...nextFields }, again);
    return;
  }
  if (told.account?.results) for (const record of changeRecords(told.account.plan.changes, told.account.results)) logger[record.level](record.fields, record.msg);
  const record = told.record ?? { level: 'error' as const, msg: `sync failed: ${failureText(told.failure)}`, fields: { trigger: told.trigger, ok: false, ...failureFields(told.failure) } };
  logger[record.level]({ ...record.fields, ...nextFields }, record.msg);
}

/** `retrying Dashboard/x in 2 s: E_…: …`, or `still failing: …; next sync in 5 min` when it waits for the resync. */
export function againLine(told: Pick<SyncTold, 'failure'>, next: NextSync | undefined): string | undefined {
  if (told.failure === undefined || next === undefined) return undefined;
  const subjects = listSubjects(told.failure.subjects);
  const why = withCode(told.failure.code, told.failure.error);
  if (next.trigger === 'retry') return `retrying ${subjects ? `${subjects} ` : ''}in ${formatDelay(next.delayMs)}: ${why}`;
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
function failureFingerprint(told: SyncTold): string {
  const body = told.account ? describeSync({ ...told.account, time: '', trigger: 'resync' }) : '';
  return `${told.failure?.code ?? ''}\u0000${told.failure?.error ?? ''}\u0000${body}`;
}

function failureText(failure: SyncFailure | undefined): string {
  return failure === undefined ? 'failed' : withCode(failure.code, failure.error);
}

function failureFields(failure: SyncFailure | undefined): Record<string, unknown> {
  return failure === undefined ? {} : { code: failure.code, error: failure.error, ...(failure.subjects.length > 0 ? { failed: failure.subjects } : {}) };
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
    if (result.result === 'failed') return [{ level: 'error', msg: `failed ${key}: ${withCode(result.code, result.error)}`, fields: failed }];
    return [{ level: 'warn', msg: `${outcomeOf(change, result) ?? 'skipped'} ${key}: ${withCode(result.code, result.error)}`, fields: failed }];
  });
}
