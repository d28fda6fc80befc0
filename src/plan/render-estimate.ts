/**
 * How an apply's estimate reads, in every output: `Apply: 3,003 requests (3,000 writes, 3 reads),
 * ≈ 52 min at 10 requests / 10 s, 2 at a time.` Pure.
 */
import type { RateLimit } from '../model/config.js';
import type { ApplyEstimate, TargetEstimate } from '../model/estimate.js';

/**
 * The lines that say how long the apply takes: one for a plan that writes to one target, else a
 * head line and one per target that writes. None when the apply would write nothing.
 */
export function estimateLines(estimate: ApplyEstimate | undefined): string[] {
  if (!estimate || estimate.writes === 0) return [];
  const writing = estimate.targets.filter((target) => target.writes > 0);
  const [only] = writing;
  if (writing.length === 1 && only) return [`Apply: ${requests(only.requests)} (${counts(only)}), ${pace(only)}.`];
  return [
    `Apply: ${requests(estimate.requests)}, ${approximately(estimate.seconds)}:`,
    ...writing.map((target) => `  ${target.target}: ${counts(target)}, ${pace(target)}`),
  ];
}

/** `≈ 52 min`, `≈ 40 s`, `≈ 1 h 5 min`, `< 1 s`. */
export function approximately(seconds: number): string {
  if (seconds < 1) return '< 1 s';
  if (seconds < 90) return `≈ ${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `≈ ${minutes} min`;
  return `≈ ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** `10 requests / 10 s`. */
export function formatBudget(rateLimit: Pick<RateLimit, 'requests' | 'perSeconds'>): string {
  return `${thousands(rateLimit.requests)} request${rateLimit.requests === 1 ? '' : 's'} / ${thousands(rateLimit.perSeconds)} s`;
}

/** The estimate as `plan --output json` carries it (its pace model left out). */
export function estimateToJson(estimate: ApplyEstimate): Record<string, unknown> {
  const { requests: total, reads, writes, seconds } = estimate;
  const targets = estimate.targets.map((target) => ({
    target: target.target,
    requests: target.requests,
    writes: target.writes,
    reads: target.reads,
    seconds: target.seconds,
    ...(target.waitSeconds > 0 ? { spent: target.spent, waitSeconds: target.waitSeconds } : {}),
    rateLimit: { ...target.rateLimit },
    ...(target.sharedWith.length > 0 ? { sharedWith: [...target.sharedWith] } : {}),
  }));
  return { requests: total, writes, reads, seconds, targets };
}

function pace(target: TargetEstimate): string {
  const shared = target.sharedWith.length > 0 ? `, a budget shared with ${target.sharedWith.join(', ')}` : '';
  return `${approximately(target.seconds)} at ${formatBudget(target.rateLimit)}, ${target.rateLimit.concurrency} at a time${shared}${spentWait(target)}`;
}

/**
 * `; ≈ 9 s of it a wait: 10 requests of the last 10 s still count against the budget`: the wait
 * that requests already spent (an earlier command's, the plan's reads) impose, said plainly.
 */
function spentWait(target: TargetEstimate): string {
  if (target.waitSeconds < 1) return '';
  const window = `${thousands(target.rateLimit.perSeconds)} s`;
  return `; ${approximately(target.waitSeconds)} of it a wait: ${requests(target.spent)} of the last ${window} still count against the budget`;
}

function counts(target: TargetEstimate): string {
  return `${thousands(target.writes)} write${target.writes === 1 ? '' : 's'}, ${thousands(target.reads)} read${target.reads === 1 ? '' : 's'}`;
}

function requests(n: number): string {
  return `${thousands(n)} request${n === 1 ? '' : 's'}`;
}

/** `3003` → `3,003`, the same on every machine (no locale). */
export function thousands(n: number): string {
  const [whole = '', fraction] = String(n).split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction === undefined ? '' : `.${fraction}`}`;
}
