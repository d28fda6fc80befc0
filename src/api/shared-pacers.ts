/**
 * One rate budget per credential. A service counts requests per key (managed) or per token
 * (self-hosted), not per target: twenty targets (services) on one key share the key's ten
 * requests per ten seconds. So clients whose targets share a base URL origin and a credential
 * share one {@link Pacer}, each with a lane of its own (fair turns, see pacer.ts).
 *
 * The credential is known here only as a SHA-256 of the Authorization value, held in memory in
 * the key of a map, never logged; a ledger (below) gets that key to file what the budget spent, and
 * keeps only a keyed hash of it.
 *
 * The server's window outlives a process: `plan` then `apply` a second later, and the apply's
 * first requests meet the plan's in the server's window. A {@link BudgetLedger} carries the times
 * a budget's requests ended from one process to the next on this machine, so the next pacer (and
 * the estimate, which reads the pacer) starts where the last one left off
 * (docs/apply.md#the-budget-across-commands).
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { RateLimit } from '../model/config.js';
import { Pacer, type LaneOptions, type PacerLane, type Sleep } from './pacer.js';

/** A client asking for its lane. */
export interface BudgetClient {
  /** Target name, for the warning when members disagree on the budget. */
  target: string;
  /** Origin of the base URL (`https://api.example.com`). */
  origin: string;
  /** The Authorization header value; only its hash is kept. */
  authorization: string;
  rateLimit: RateLimit;
}

/** What budgets spent, kept across processes. Best effort: a ledger that cannot be read recalls nothing. */
export interface BudgetLedger {
  /** When the requests of this budget that may still count ended (ms since the epoch), oldest first. */
  recall(budget: string): readonly number[];
  /** Files them when the budget's last client closes; `windowMs` says how long they matter. */
  remember(budget: string, stamps: readonly number[], windowMs: number): void;
}

export interface SharedPacersOptions {
  /** Carries what each budget spent to the next process (only with the real clock). */
  ledger?: BudgetLedger;
  /** Milliseconds clock; default `Date.now`. */
  now?: () => number;
  /** Default: a global `setTimeout`. */
  sleep?: Sleep;
  /** Gets a warning when targets on one credential configure different budgets. */
  logger?: Logger;
}

interface Entry {
  pacer: Pacer;
  /** The first member's target and budget, to name in the warning. */
  first: { target: string; rateLimit: RateLimit };
}

export class SharedPacers {
  private readonly entries = new Map<string, Entry>();
  /** Each target's budget, to tell what it has spent. */
  private readonly byTarget = new Map<string, Entry>();

  constructor(private readonly options: SharedPacersOptions = {}) {}

  /**
   * A lane in the budget of the member's origin and credential, created on first use. Members
   * that configure different budgets get all of them honoured at once (the strictest wins in
   * every window) and the lowest concurrency. Closing the last lane closes the pacer.
   */
  join(member: BudgetClient, lane: Omit<LaneOptions, 'onClose'> = {}): PacerLane {
    const key = budgetKey(member.origin, member.authorization);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const { ledger, now, sleep } = this.options;
      const spent = ledger ? ledger.recall(key) : [];
      const pacer = new Pacer({ ...member.rateLimit, ...(now ? { now } : {}), ...(sleep ? { sleep } : {}), spent });
      entry = { pacer, first: { target: member.target, rateLimit: member.rateLimit } };
      this.entries.set(key, entry);
    } else if (!sameLimit(entry.first.rateLimit, member.rateLimit)) {
      entry.pacer.restrict(member.rateLimit);
      this.options.logger?.warn(
        {
          targets: [entry.first.target, member.target],
          origin: member.origin,
          rateLimits: [entry.first.rateLimit, member.rateLimit],
        },
        'targets share one credential but configure different rate limits; each limit is honoured, and the lowest concurrency',
      );
    }
    const { pacer } = entry;
    this.byTarget.set(member.target, entry);
    return pacer.lane({
      ...lane,
      onClose: () => {
        if (pacer.laneCount > 0) return;
        this.options.ledger?.remember(key, pacer.spentStamps(), pacer.longestWindowMs);
        pacer.close();
        if (this.entries.get(key)?.pacer === pacer) this.entries.delete(key);
      },
    });
  }

  /**
   * When the requests that still count against this target's budget ended (ms, the pacer's clock),
   * oldest first, those of earlier processes included; empty before the target's client exists.
   */
  spentFor(target: string): number[] {
    return this.byTarget.get(target)?.pacer.spentStamps() ?? [];
  }

  /** Budgets in use, one per origin and credential. */
  get size(): number {
    return this.entries.size;
  }
}

function budgetKey(origin: string, authorization: string): string {
  return `${origin} ${createHash('sha256').update(authorization).digest('hex')}`;
}

function sameLimit(a: RateLimit, b: RateLimit): boolean {
  return a.requests === b.requests && a.perSeconds === b.perSeconds && a.concurrency === b.concurrency;
}
