/**
 * `--output text`: the plan for a person, grouped by target. Unchanged resources are counted in
 * the summary line, not listed. Pure: returns the text; colour only when asked for. Every value
 * from a manifest, a file name or a server goes through `show` before it is laid out or painted:
 * the text reaches a terminal, which must show its control characters, never obey them.
 */
import { formatLocation } from '../errors.js';
import {
  changeRef,
  formatOutcomes,
  KNOWN_AFTER_APPLY,
  noOutcomes,
  outcomeOf,
  withOutcome,
  SENSITIVE,
  UNKNOWN_IN_PLAN,
  type Action,
  type Change,
  type FieldDiff,
  type Plan,
  type PlanWarning,
} from '../model/plan.js';
import { waitingCount, type ChangeResults } from './build.js';
import { descriptorOf } from '../kinds/index.js';
import type { Kind } from '../model/kinds.js';
import { estimateLines } from './render-estimate.js';
import { show } from '../support/terminal.js';

export interface TextRenderOptions {
  /** ANSI colours (default false; the CLI turns them on for a TTY without NO_COLOR). */
  color?: boolean;
  /** Apply results by `changeRef`, shown under each change. */
  results?: ChangeResults;
}

const ANSI = { reset: 0, bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;
type Style = keyof typeof ANSI;

const MARKERS: Readonly<Record<Action, { sign: string; style: Style }>> = {
  create: { sign: '+', style: 'green' },
  update: { sign: '~', style: 'yellow' },
  replace: { sign: '-/+', style: 'red' },
  delete: { sign: '-', style: 'red' },
  adopt: { sign: '=', style: 'cyan' },
  orphan: { sign: '?', style: 'yellow' },
  suspended: { sign: '#', style: 'cyan' },
  waiting: { sign: '*', style: 'cyan' },
  unchanged: { sign: ' ', style: 'dim' },
  error: { sign: '!', style: 'red' },
};

type Paint = (text: string, style: Style) => string;

export function renderPlanText(plan: Plan, options: TextRenderOptions = {}): string {
  return [...planTextChunks(plan, options)].join('');
}

/**
 * The same text in pieces, a change at a time, for a caller that writes as it goes: a plan of
 * 100,000 changes is 46 MB of text, which need not be in memory at once (with its lines) on top
 * of the plan itself.
 */
export function* planTextChunks(plan: Plan, options: TextRenderOptions = {}): Generator<string> {
  const paint: Paint = options.color ? (text, style) => `\u001b[${ANSI[style]}m${text}\u001b[0m` : (text) => text;
  const text = (lines: readonly string[]): string => lines.map((line) => `${line}\n`).join('');
  const shown = plan.changes.filter((change) => isListed(change) || options.results?.has(changeRef(change)));
  for (const [target, changes] of groupByTarget(shown)) {
    yield text([paint(`Target ${show(target)}:`, 'bold')]);
    for (const change of changes) yield text(changeLines(change, paint, options.results));
    yield '\n';
  }
  // With errors, "matches" would be a claim about what could not be read or loaded.
  if (shown.length === 0)
    yield text([
      plan.errors.length > 0
        ? 'No changes planned; the errors below kept part of it from being planned.'
        : 'No changes. Live state matches the manifests.',
      '',
    ]);
  yield text(problemLines('Errors:', plan.errors, 'red', paint, true));
  yield text(problemLines('Warnings:', plan.warnings, 'yellow', paint, false));
  // After an apply the result line says what happened; before it, how long the apply takes.
  yield text(
    options.results ? [resultLine(plan, options.results)] : [summaryLine(plan), ...estimateLines(plan.estimate)],
  );
}

/**
 * `Plan: 1 to create, 2 to update, 0 to delete, 0 to adopt, 7 unchanged, 0 errors.`, with
 * `3 orphaned (apply --prune deletes them)` before `unchanged` when there are orphans, so the
 * line never reads as "in sync" while a prune would delete something.
 */
export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  const errors = `${s.errors} ${s.errors === 1 ? 'error' : 'errors'}`;
  const orphans = s.orphan > 0 ? ` ${s.orphan} orphaned (${ORPHANS_HINT}),` : '';
  const suspended = s.suspended > 0 ? ` ${s.suspended} suspended (not written),` : '';
  const waitingNow = waitingCount(plan);
  const waiting = waitingNow > 0 ? ` ${waitingNow} waiting (for an earlier write that may still land),` : '';
  const replace = s.replace > 0 ? ` ${s.replace} to replace (deleted and created again),` : '';
  return (
    `Plan: ${s.create} to create, ${s.update} to update,${replace} ${s.delete} to delete, ${s.adopt} ` +
    `to adopt,${deletesApart(s)}${orphans}${suspended}${waiting} ${s.unchanged} unchanged, ${errors}.`
  );
}

/**
 * ` 1 Pipe among the deletes and replaces (its ingestion stops),`: those a reviewer must see on
 * their own, by kind, with what each stops (`countApart`); '' when none.
 */
function deletesApart(summary: Plan['summary']): string {
  return Object.entries(summary.deleteByKind ?? {})
    .map(([kind, n]) => {
      const note = descriptorOf(kind as Kind).prune?.countApart;
      return ` ${n} ${kind}${n === 1 ? '' : 's'} among the deletes and replaces${note ? ` (${note})` : ''},`;
    })
    .join('');
}

/**
 * Under a plan that was applied, the closing line counts what happened, not what was planned, in
 * the words of every output (`outcomeOf`): `Result: 1 created, 0 updated, 0 deleted, 0 adopted,
 * 2 failed, 0 skipped, 1 not applied, 0 waiting, 7 unchanged.` A change that could not be planned
 * is one that failed; errors of the plan that are no change (a manifest that does not load, a
 * target that cannot be read) are added when there are any.
 */
export function resultLine(plan: Plan, results: ChangeResults): string {
  let counts = noOutcomes();
  for (const change of plan.changes) counts = withOutcome(counts, outcomeOf(change, results.get(changeRef(change))));
  const s = plan.summary;
  const orphans = s.orphan > 0 ? ` ${s.orphan} orphaned (${ORPHANS_HINT}),` : '';
  const suspended = s.suspended > 0 ? ` ${s.suspended} suspended (not written),` : '';
  const n = plan.errors.length;
  const errors = n > 0 ? `, ${n} ${n === 1 ? 'error' : 'errors'} in the plan` : '';
  return `Result: ${formatOutcomes(counts)},${orphans}${suspended} ${s.unchanged} unchanged${errors}.`;
}

/**
 * Whether a change is listed, not only counted: everything but what is in sync, and a suspended
 * resource only when it differs (a suspended target would otherwise list all it has every time).
 */
export function isListed(change: Change): boolean {
  if (change.action === 'suspended') return change.diff.length > 0;
  return change.action !== 'unchanged';
}

/** Marks a write that undoes a live edit rather than applying a manifest change (`Change.drift`). */
export const DRIFT_NOTE = 'drift: edited outside stacksync; the manifest is as last applied';

/** Why an orphan is listed and what removes it; every renderer says it the same way. */
export const ORPHAN_NOTE = 'no manifest names it; apply --prune deletes it';
const ORPHANS_HINT = 'apply --prune deletes them';

function groupByTarget(changes: readonly Change[]): Map<string, Change[]> {
  const groups = new Map<string, Change[]>();
  for (const change of changes) {
    const group = groups.get(change.target);
    // Appended in place: copying the group per change made 100,000 changes take a minute.
    if (group) group.push(change);
    else groups.set(change.target, [change]);
  }
  return groups;
}

function changeLines(change: Change, paint: Paint, results: ChangeResults | undefined): string[] {
  const marker = MARKERS[change.action];
  const details = [
    change.tenant === undefined ? '' : `tenant ${show(change.tenant)}`,
    change.id === undefined ? '' : `id ${show(change.id)}`,
    where(change.file, change.line),
  ]
    .filter(Boolean)
    .join(', ');
  const reclaimed = change.reclaimed ? ' (reclaimed after an interrupted create)' : '';
  const action = paint(`${marker.sign} ${change.action}`, marker.style);
  const lines = [
    `  ${action} ${change.kind}/${show(change.name)}${reclaimed}${details ? paint(`  (${details})`, 'dim') : ''}`,
  ];
  if (change.error !== undefined)
    lines.push(`      ${paint(`error: ${withCode(change.code, show(change.error))}`, 'red')}`);
  if (change.action === 'orphan') lines.push(`      ${paint(ORPHAN_NOTE, 'dim')}`);
  if (change.drift) lines.push(`      ${paint(DRIFT_NOTE, 'yellow')}`);
  for (const diff of change.diff) lines.push(`      ${diffLine(diff, paint)}`);
  for (const warning of change.warnings) lines.push(`      ${paint(`warning: ${show(warning)}`, 'yellow')}`);
  const result = results?.get(changeRef(change));
  if (result)
    lines.push(
      `      result: ${result.result}${result.result === 'ok' ? '' : `: ${withCode(result.code, show(result.error))}`}`,
    );
  return lines;
}

function diffLine(diff: FieldDiff, paint: Paint): string {
  const path = show(diff.path);
  if (diff.before === undefined) return `${paint('+', 'green')} ${path}: ${show(formatValue(diff.after))}`;
  if (diff.after === undefined) return `${paint('-', 'red')} ${path}: ${show(formatValue(diff.before))}`;
  return `${paint('~', 'yellow')} ${path}: ${show(formatValue(diff.before))} → ${show(formatValue(diff.after))}`;
}

/** Compact JSON, except the markers `(sensitive)` and `(known after apply)`, shown bare. */
export function formatValue(value: unknown): string {
  if (value === SENSITIVE || value === KNOWN_AFTER_APPLY || value === UNKNOWN_IN_PLAN) return value;
  return JSON.stringify(value) ?? String(value);
}

function problemLines(
  title: string,
  problems: readonly PlanWarning[],
  style: Style,
  paint: Paint,
  coded: boolean,
): string[] {
  if (problems.length === 0) return [];
  const lines = [paint(title, style)];
  for (const problem of problems) {
    const location = where(problem.file, problem.line, problem.column);
    const prefix = [problem.target === undefined ? '' : `[${show(problem.target)}]`, location]
      .filter(Boolean)
      .join(' ');
    lines.push(
      `  ${prefix ? `${prefix}: ` : ''}${show(coded ? withCode(problem.code, problem.message) : problem.message)}`,
    );
  }
  lines.push('');
  return lines;
}

/** `E_CODE: message`: every error line carries the stable code scripts match on (README, "Error codes"). */
export function withCode(code: string | undefined, message: string): string {
  return code === undefined ? message : `${code}: ${message}`;
}

/** `file:line:column`, or '' without a file. */
function where(file: string | undefined, line?: number, column?: number): string {
  return file === undefined ? '' : show(formatLocation({ file, line, column }));
}
