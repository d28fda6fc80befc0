/**
 * How many requests an apply of a plan makes and how long they take at each target's budget.
 * Pure: the caller says which targets share a budget, how many reads the plan made and how long a
 * request takes; the pacer's timing comes from its model (api/pace-model.ts).
 *
 * Requests per change: one per operation of the change. The executor sends each operation as one
 * request (a dashboard update is one PUT with its tiles, an alert on a new dashboard one POST with
 * the ids the dashboard's create returned, a pipe whose table mappings change two PATCHes); a
 * create that may have landed costs one list more, an update of something deleted meanwhile one
 * create more: failures, which are not counted. Before its writes an apply reads the live state
 * again, with as many requests as the plan's read took.
 *
 * Time per budget: targets on one origin and credential share one pacer, taking turns, so a
 * budget's time is that of all their requests in a row, and each target is done once every target
 * of the budget has sent as many requests as it has (or all of theirs). Budgets run side by side.
 *
 * What a budget already spent: the server counts requests for a window after they arrive, so the
 * requests of a command a moment ago (a `plan` before this `apply`) and this command's own reads
 * hold tokens the apply must wait for. The caller gives how long ago each of them ended, and the
 * pace model starts from them (docs/apply.md#the-budget-across-commands).
 */
import type { RateLimit } from '../model/config.js';
import type { ApplyEstimate, BudgetEstimate, TargetEstimate } from '../model/estimate.js';
import { isWrite, type Change } from '../model/plan.js';
import { pacedMs, paceWindows } from '../api/pace-model.js';

/** A target as the estimate needs it. */
export interface BudgetMember {
  name: string;
  rateLimit: RateLimit;
}

export interface EstimateInput {
  /** The plan's changes (of every target). */
  changes: readonly Change[];
  /** The plan's targets grouped by budget (origin and credential), each group in config order. */
  budgets: readonly (readonly BudgetMember[])[];
  /** Requests the plan's live read made, per target. */
  reads: Readonly<Record<string, number>>;
  /** Targets whose writes apply holds back (manifest errors, without --allow-partial). */
  heldBack?: ReadonlySet<string>;
  /** How long one request takes. */
  latencyMs: number;
  /** Per target, how long ago (ms) each request still counting against its budget ended (targets of one budget see the same). */
  spentAgoMs?: Readonly<Record<string, readonly number[]>>;
  /** The apply's reads are done (the estimate of `apply` itself, after its plan): among the spent, not ahead. */
  readsDone?: boolean;
}

/** What a request was taken to take when the plan's reads told nothing (none was timed). */
export const DEFAULT_REQUEST_MS = 100;

/** The requests applying one change makes (none for what apply leaves alone). */
export function writesOf(change: Change): number {
  return isWrite(change.action) ? change.operations.length : 0;
}

export function estimateApply(input: EstimateInput): ApplyEstimate {
  const writes = writesPerTarget(input);
  const budgets: BudgetEstimate[] = [];
  const targets: TargetEstimate[] = [];
  for (const members of input.budgets) {
    if (members.length === 0) continue;
    const rateLimit = strictest(members.map((member) => member.rateLimit));
    const windows = paceWindows(distinct(members.map((member) => member.rateLimit)));
    const model = { windows, concurrency: rateLimit.concurrency, latencyMs: input.latencyMs };
    const counts = members.map((member) => ({
      member,
      reads: input.reads[member.name] ?? 0,
      writes: writes.get(member.name) ?? 0,
    }));
    const requests = counts.map((count) => count.reads + count.writes);
    // What is still to send: reads done already are among the spent.
    const ahead = counts.map((count) => (input.readsDone ? 0 : count.reads) + count.writes);
    const spent = longest(members.map((member) => input.spentAgoMs?.[member.name] ?? []));
    const total = sum(ahead);
    budgets.push({
      targets: members.map((member) => member.name),
      rateLimit,
      windows,
      latencyMs: input.latencyMs,
      requests: sum(requests),
      seconds: seconds(pacedMs(total, model, spent)),
      spent: spent.length,
    });
    for (const [index, count] of counts.entries()) {
      const own = ahead[index] ?? 0;
      // Turns: by its last request, every other target has sent as many as it, or all it had.
      const position = sum(ahead.map((other) => Math.min(other, own)));
      const paced = seconds(pacedMs(position, model, spent));
      targets.push({
        target: count.member.name,
        reads: count.reads,
        writes: count.writes,
        requests: requests[index] ?? 0,
        seconds: paced,
        spent: spent.length,
        waitSeconds: Math.max(0, Math.round((paced - seconds(pacedMs(position, model))) * 10) / 10),
        rateLimit: count.member.rateLimit,
        sharedWith: members.filter((other) => other !== count.member).map((other) => other.name),
      });
    }
  }
  return {
    requests: sum(targets.map((target) => target.requests)),
    reads: sum(targets.map((target) => target.reads)),
    writes: sum(targets.map((target) => target.writes)),
    seconds: Math.max(0, ...budgets.map((budget) => budget.seconds)),
    targets,
    budgets,
  };
}

/**
 * Seconds left of an apply, from the writes done so far per target: the slowest budget's time for
 * what it has left. Its reads are done by the time writes start.
 */
export function remainingSeconds(estimate: ApplyEstimate, writesDone: ReadonlyMap<string, number>): number {
  const writes = new Map(estimate.targets.map((target) => [target.target, target.writes]));
  let longest = 0;
  for (const budget of estimate.budgets) {
    const left = sum(
      budget.targets.map((target) => Math.max(0, (writes.get(target) ?? 0) - (writesDone.get(target) ?? 0))),
    );
    const model = { windows: budget.windows, concurrency: budget.rateLimit.concurrency, latencyMs: budget.latencyMs };
    longest = Math.max(longest, seconds(pacedMs(left, model)));
  }
  return longest;
}

function writesPerTarget(input: EstimateInput): Map<string, number> {
  const writes = new Map<string, number>();
  for (const change of input.changes) {
    if (input.heldBack?.has(change.target)) continue;
    const count = writesOf(change);
    if (count > 0) writes.set(change.target, (writes.get(change.target) ?? 0) + count);
  }
  return writes;
}

/** The lowest rate and the lowest concurrency among budgets the pacer honours together. */
function strictest(limits: readonly RateLimit[]): RateLimit {
  const [first, ...rest] = limits as [RateLimit, ...RateLimit[]];
  let slowest = first;
  for (const limit of rest)
    if (limit.requests / limit.perSeconds < slowest.requests / slowest.perSeconds) slowest = limit;
  return {
    requests: slowest.requests,
    perSeconds: slowest.perSeconds,
    concurrency: Math.min(...limits.map((limit) => limit.concurrency)),
  };
}

function longest(lists: readonly (readonly number[])[]): readonly number[] {
  return lists.reduce((most, list) => (list.length > most.length ? list : most), [] as readonly number[]);
}

function distinct(limits: readonly RateLimit[]): RateLimit[] {
  const seen = new Map(limits.map((limit) => [`${limit.requests}/${limit.perSeconds}`, limit]));
  return [...seen.values()];
}

/** Milliseconds → seconds to a tenth. */
function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
