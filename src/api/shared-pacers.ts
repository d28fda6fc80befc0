/**
 * One rate budget per credential. A service counts requests per key (managed) or per token
 * (self-hosted), not per target: twenty targets (services) on one key share the key's ten
 * requests per ten seconds. So clients whose targets share a base URL origin and a credential
 * share one {@link Pacer}, each with a lane of its own (fair turns, see pacer.ts).
 *
 * The credential is known here only as a SHA-256 of the Authorization value, held in memory in
 * the key of a map, never logged or stored.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { RateLimit } from '../model/config.js';
import { Pacer, type LaneOptions, type PacerLane, type Sleep } from './pacer.js';

/** A client asking for its lane. */
export interface BudgetMember {
  /** Target name, for the warning when members disagree on the budget. */
  target: string;
  /** Origin of the base URL (`https://api.example.com`). */
  origin: string;
  /** The Authorization header value; only its hash is kept. */
  authorization: string;
  rateLimit: RateLimit;
}

export interface SharedPacersOptions {
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

  constructor(private readonly options: SharedPacersOptions = {}) {}

  /**
   * A lane in the budget of the member's origin and credential, created on first use. Members
   * that configure different budgets get all of them honoured at once (the strictest wins in
   * every window) and the lowest concurrency. Closing the last lane closes the pacer.
   */
  join(member: BudgetMember, lane: Omit<LaneOptions, 'onClose'> = {}): PacerLane {
    const key = budgetKey(member.origin, member.authorization);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const pacer = new Pacer({ ...member.rateLimit, ...(this.options.now ? { now: this.options.now } : {}), ...(this.options.sleep ? { sleep: this.options.sleep } : {}) });
      entry = { pacer, first: { target: member.target, rateLimit: member.rateLimit } };
      this.entries.set(key, entry);
    } else if (!sameLimit(entry.first.rateLimit, member.rateLimit)) {
      entry.pacer.restrict(member.rateLimit);
      this.options.logger?.warn(
        { targets: [entry.first.target, member.target], origin: member.origin, rateLimits: [entry.first.rateLimit, member.rateLimit] },
        'targets share one credential but configure different rate limits; each limit is honoured, and the lowest concurrency',
      );
    }
    const { pacer } = entry;
    return pacer.lane({
      ...lane,
      onClose: () => {
        if (pacer.laneCount > 0) return;
        pacer.close();
        if (this.entries.get(key)?.pacer === pacer) this.entries.delete(key);
      },
    });
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
