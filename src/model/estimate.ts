/**
 * How long an apply of a plan will take: the requests it makes and the time they take at each
 * target's rate budget. Made by apply/estimate.ts, shown by every plan renderer and by apply's
 * progress.
 */
import type { RateLimit } from './config.js';

/** One target's part of an apply. */
export interface TargetEstimate {
  target: string;
  /** The list reads an apply makes first, as many as the plan made. */
  reads: number;
  /** The writes of the plan's changes that apply carries out. */
  writes: number;
  /** `reads + writes`. */
  requests: number;
  /** Seconds until this target's last request is answered, its budget shared as the pacer shares it. */
  seconds: number;
  /** Requests its budget had spent that still counted when the estimate was made (an earlier command's, the plan's reads). */
  spent: number;
  /** Of `seconds`, the wait those spent requests add (0 when they add none). */
  waitSeconds: number;
  /** The budget it is paced by (the strictest when targets on one credential configure different ones). */
  rateLimit: RateLimit;
  /** Other targets of the plan on the same origin and credential, whose requests share the budget. */
  sharedWith: string[];
}

/** A budget of the plan's targets: one origin and credential. */
export interface BudgetEstimate {
  targets: string[];
  rateLimit: RateLimit;
  /** Every window the pacer keeps for it, with its margin (what the pace model replays). */
  windows: readonly { requests: number; ms: number }[];
  /** How long one request was taken to take. */
  latencyMs: number;
  requests: number;
  seconds: number;
  /** Requests spent that still counted when the estimate was made. */
  spent: number;
}

export interface ApplyEstimate {
  requests: number;
  reads: number;
  writes: number;
  /** The whole apply: budgets are paced independently, so the slowest one. */
  seconds: number;
  targets: TargetEstimate[];
  budgets: BudgetEstimate[];
}
