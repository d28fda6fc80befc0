/**
 * Creates answered late, pure. A create nobody answered (a timeout, a connection closed without an
 * answer, a gateway's 502 or 504) may still be carried out: a proxy can hold the request past the
 * client's timeout and forward it anyway. Until
 * the end of its late-create window (`sync.settleWindow` after it was sent, `settleUntil` in its intent) a new create
 * of the same resource would make a second one, so the plan shows it as `waiting` instead, with
 * the writes that need it. Once the late create lands, the match takes it back as ours (see
 * `intents.ts`); once the window is over with nothing landed, the create is planned again.
 */
import { changeKey, isWrite, type Change, type ChangeKey } from '../model/plan.js';
import type { TargetState } from '../model/state.js';
import { requiredChanges, withDependents } from './graph.js';
import { lateCreateDeadline, type IntentTiming } from '../kinds/shared/intents.js';

/** What a waiting create says, with its deadline (`HH:MM UTC`). */
export function waitingNote(until: string): string {
  return (
    `waiting for an earlier create that may still land, until ${clockTime(until)}; it is taken back ` +
    `if it lands, and created by the first run after that if it does not`
  );
}

/**
 * Turns each create whose earlier create went unanswered and may still land into `waiting` (its
 * operations dropped, its diff kept), and each write that needs one of them too. Returns the same
 * array, changed in place.
 */
export function awaitLateCreates(changes: Change[], state: TargetState, timing: IntentTiming): Change[] {
  const waiting = new Map<ChangeKey, string>();
  const roots: Change[] = [];
  for (const change of changes) {
    if (change.action !== 'create') continue;
    const intent = state.intents.find((candidate) => candidate.kind === change.kind && candidate.key === change.name);
    const until = intent && lateCreateDeadline(intent, timing);
    if (until === undefined) continue;
    roots.push(change);
    waiting.set(changeKey(change.kind, change.name), until);
    makeWaiting(change, until, waitingNote(until));
  }
  if (roots.length === 0) return changes;
  // What needs a waiting create waits with it, as long as the longest wait it needs.
  let pending = withDependents(changes, roots).filter((change) => isWrite(change.action));
  for (let progressed = true; pending.length > 0 && progressed; ) {
    const before = pending.length;
    pending = pending.filter((change) => !waitWithNeeds(change, waiting));
    progressed = pending.length < before;
  }
  return changes;
}

/** Makes `change` wait if it requires a waiting change; returns whether it did. */
function waitWithNeeds(change: Change, waiting: Map<ChangeKey, string>): boolean {
  const needs = requiredChanges(change).filter((key) => waiting.has(key));
  if (needs.length === 0) return false;
  const until = latest(needs.map((key) => waiting.get(key) ?? ''));
  waiting.set(changeKey(change.kind, change.name), until);
  makeWaiting(
    change,
    until,
    `needs ${needs.join(', ')}, which waits for an earlier create that may still land, until ${clockTime(until)}: not written in this run`,
  );
  return true;
}

function makeWaiting(change: Change, until: string, why: string): void {
  change.action = 'waiting';
  change.operations = [];
  change.waitUntil = until;
  delete change.secretHashes;
  change.warnings.push(why);
}

/** The latest of ISO times (they sort as text). */
function latest(times: readonly string[]): string {
  return [...times].sort().at(-1) ?? '';
}

/** `HH:MM UTC` of an ISO time as written by the state (`…THH:MM:SS.sssZ`); the time as it is otherwise. */
function clockTime(iso: string): string {
  const match = /T(\d\d:\d\d)/.exec(iso);
  return match ? `${match[1]} UTC` : iso;
}
