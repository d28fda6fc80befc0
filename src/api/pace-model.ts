/**
 * How long the pacer (pacer.ts) takes to let a number of requests through, for plans to say how
 * long an apply will take. Pure: it replays the pacer's rules on a clock of its own, with every
 * request taking the same time, and is checked against the real pacer in the tests.
 *
 * The rules replayed: at most `concurrency` requests in flight; for each window, a request waits
 * until the one `requests` places before it ended a window ago (a token counts from the end of its
 * exchange, and each window is kept `safetyMarginMs` longer than the server's).
 */
import { safetyMarginMs } from './pacer.js';

/** What paces one budget: its windows as the pacer keeps them, its concurrency, and a request's time. */
export interface PaceModel {
  /** Every window honoured (targets on one credential that configure different ones add theirs). */
  windows: readonly { requests: number; ms: number }[];
  concurrency: number;
  /** How long one request takes, from grant to answer. */
  latencyMs: number;
}

/** The windows the pacer keeps for these budgets: each `perSeconds`, plus its margin. */
export function paceWindows(budgets: readonly { requests: number; perSeconds: number }[]): PaceModel['windows'] {
  return budgets.map(({ requests, perSeconds }) => {
    const ms = perSeconds * 1000;
    return { requests: Math.max(1, Math.floor(requests)), ms: ms + safetyMarginMs(ms) };
  });
}

/**
 * Milliseconds from now to the last one's answer, `count` requests queued at once now. `spentAgoMs`:
 * how long ago the exchanges of requests already spent from the budget ended (another command's, or
 * this one's reads), which still hold their tokens until a window after their end.
 */
export function pacedMs(count: number, model: PaceModel, spentAgoMs: readonly number[] = []): number {
  if (count <= 0) return 0;
  const concurrency = Math.max(1, Math.floor(model.concurrency));
  const latency = Math.max(0, model.latencyMs);
  // The spent ones first, oldest first, ended before now (0); they are no longer in flight.
  const before = spentAgoMs.map((ago) => -Math.max(0, ago)).sort((a, b) => a - b);
  // Grants never go back in time and every request takes as long, so requests end in grant order.
  const ends = new Float64Array(before.length + count);
  ends.set(before);
  let now = 0;
  for (let queued = 0; queued < count; queued++) {
    const index = before.length + queued;
    let at = now;
    if (queued >= concurrency) at = Math.max(at, ends[index - concurrency] ?? 0);
    for (const window of model.windows) {
      if (index >= window.requests) at = Math.max(at, (ends[index - window.requests] ?? 0) + window.ms);
    }
    ends[index] = at + latency;
    now = at;
  }
  return ends[ends.length - 1] ?? 0;
}
