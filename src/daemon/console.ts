/**
 * What the daemon tells a person on stdout after a sync that found something. Words matter here:
 * a manifest changed and not yet applied is a "change to apply" (applied "from Git" when the
 * checkout is at a commit, "from the working tree" when it holds uncommitted edits or is no git
 * checkout at all); "drift" is only a live edit made outside stacksync (see diff/drift.ts).
 * Pure: the time of day is passed in.
 */
import {
  changeRef,
  isWrite,
  outcomeOf,
  type Change,
  type ChangeResult,
  type Outcome,
  type Plan,
} from '../model/plan.js';
import { waitingCount } from '../plan/build.js';
import { isListed, renderPlanText } from '../plan/render-text.js';
import type { Trigger } from './scheduler.js';

/** Why found changes were not applied: a dry run, `sync.drift: report`, or drift left live by `sync.drift: propose`. */
export type NotApplied = 'dry-run' | 'report' | 'propose';

/** Where the manifests a sync read come from: a committed revision, or files as they are on disk. */
export type ManifestSource = 'git' | 'working-tree';

/** The source of a checkout: Git only for a known revision without uncommitted edits. */
export function manifestSource(revision: string | undefined, uncommitted: boolean | undefined): ManifestSource {
  return revision !== undefined && uncommitted !== true ? 'git' : 'working-tree';
}

const SOURCE_WORDS: Readonly<Record<ManifestSource, string>> = {
  git: 'from Git',
  'working-tree': 'from the working tree',
};

/** One sync as the console tells it (the notifier is told another account: notify/events.ts). */
export interface ConsoleAccount {
  target: string;
  trigger: Trigger;
  plan: Plan;
  /** Apply results by `changeRef`, when the sync applied the plan. */
  results?: ReadonlyMap<string, ChangeResult>;
  /** Set when the sync never writes; undefined when it heals. */
  notApplied?: NotApplied;
  /** `HH:MM:SS`, the time the line is stamped with. */
  time: string;
  /** Where the manifests came from; default the working tree (say "from Git" only when known). */
  source?: ManifestSource;
}

/** Writes the plan waits to make, split by cause. */
export interface PendingCounts {
  /** Manifest changes from Git not yet applied. */
  toApply: number;
  /** Live edits made outside stacksync. */
  drift: number;
}

export function pendingCounts(changes: readonly Change[]): PendingCounts {
  const writes = changes.filter((change) => isWrite(change.action));
  const drift = writes.filter((change) => change.drift).length;
  return { toApply: writes.length - drift, drift };
}

/** `3 changes to apply and 1 drift (a live edit made outside stacksync)`. */
export function describePending(counts: PendingCounts): string {
  const parts: string[] = [];
  if (counts.toApply > 0) parts.push(`${counts.toApply} ${counts.toApply === 1 ? 'change' : 'changes'} to apply`);
  if (counts.drift > 0)
    parts.push(`${counts.drift} drift (${counts.drift === 1 ? 'a live edit' : 'live edits'} made outside stacksync)`);
  return parts.join(' and ');
}

const NOT_APPLIED: Readonly<Record<NotApplied, string>> = {
  'dry-run': 'dry run: not applied',
  report: 'sync.drift is report: not applied',
  propose: 'sync.drift is propose: drift left live, for a branch to bring into Git',
};

/** One sync, for the console: a headline, then the plan (with results when it was applied). */
export function describeSync(account: ConsoleAccount): string {
  const { target, trigger, plan, results, time } = account;
  const counts = pendingCounts(plan.changes);
  const listed = plan.changes.filter(isListed);
  if (listed.length === 0 && plan.errors.length === 0)
    return `[${time}] ${target}: in sync (${plan.summary.unchanged} resources, ${trigger})\n`;
  const pending = describePending(counts);
  const headline = !pending
    ? nothingToApply(plan)
    : results
      ? describeApplied(plan.changes, results, account.source)
      : account.notApplied
        ? `found ${pending} (${NOT_APPLIED[account.notApplied]})`
        : `could not apply ${pending}`;
  // Results of unchanged resources are all `ok`; listing them would bury the changes.
  const listedRefs = new Set(listed.map(changeRef));
  const shown = results && new Map([...results].filter(([ref]) => listedRefs.has(ref)));
  return `[${time}] ${target}: ${trigger} sync ${headline}:\n${renderPlanText(plan, shown ? { results: shown } : {})}`;
}

/** Why a sync that writes nothing is still worth a look: orphans, errors. */
function nothingToApply(plan: Plan): string {
  const orphans =
    plan.summary.orphan > 0
      ? `; ${plan.summary.orphan} orphaned (apply --prune deletes ${plan.summary.orphan === 1 ? 'it' : 'them'})`
      : '';
  const suspended = plan.summary.suspended > 0 ? `; ${plan.summary.suspended} suspended` : '';
  const waiting =
    waitingCount(plan) > 0 ? `; ${waitingCount(plan)} waiting for an earlier write that may still land` : '';
  const errors =
    plan.summary.errors > 0 ? `; ${plan.summary.errors} ${plan.summary.errors === 1 ? 'error' : 'errors'}` : '';
  return `found nothing to apply${orphans}${suspended}${waiting}${errors}`;
}

/**
 * What became of the writes a sync tried: `applied 2 changes from Git and healed 1 drift (…)`,
 * then how many failed, were skipped or not applied, in the words of every output (`outcomeOf`).
 */
export function describeApplied(
  changes: readonly Change[],
  results: ReadonlyMap<string, ChangeResult>,
  source: ManifestSource = 'working-tree',
): string {
  const writes = changes.filter(
    (change) => isWrite(change.action) || change.action === 'error' || change.action === 'waiting',
  );
  const outcomes = writes.map((change) => ({ change, outcome: outcomeOf(change, results.get(changeRef(change))) }));
  const done = outcomes
    .filter(({ outcome }) => outcome !== undefined && !UNDONE.includes(outcome))
    .map(({ change }) => change);
  const parts = [describeDone(pendingCounts(done), source) || 'applied nothing'];
  for (const word of UNDONE) {
    const n = outcomes.filter(({ outcome }) => outcome === word).length;
    if (n > 0) parts.push(`${n} ${word}`);
  }
  return parts.join('; ');
}

const UNDONE: readonly Outcome[] = ['failed', 'skipped', 'not applied', 'waiting'];

function describeDone(counts: PendingCounts, source: ManifestSource): string {
  const parts: string[] = [];
  if (counts.toApply > 0)
    parts.push(`applied ${counts.toApply} ${counts.toApply === 1 ? 'change' : 'changes'} ${SOURCE_WORDS[source]}`);
  if (counts.drift > 0)
    parts.push(
      `healed ${counts.drift} drift (${counts.drift === 1 ? 'a live edit' : 'live edits'} made outside stacksync)`,
    );
  return parts.join(' and ');
}
