/**
 * The apply's estimate for `plan` and `apply`: what the plan's own read showed (how many requests
 * it took per target, how long the quickest one took) and which targets share a budget, given to
 * the pure estimate (apply/estimate.ts), which the plan then carries to every output.
 */
import { DEFAULT_REQUEST_MS, estimateApply } from '../apply/estimate.js';
import { credentialFingerprints } from '../config/credential-fingerprints.js';
import type { ApiHooks } from '../api/port.js';
import { budgetGroups } from '../daemon/resync-slots.js';
import { heldForTenants } from '../diff/index.js';
import type { Plan } from '../model/plan.js';
import type { ReconcileContext, RunPlan } from '../reconcile/reconcile.js';

/** A request's time is taken from what was seen, within these bounds (a cold connection, a huge list). */
const LATENCY_BOUNDS_MS = { min: 1, max: 1_000 } as const;

/** Counts the requests each target's client makes and notes the quickest. */
export interface RequestLog {
  hooksFor(target: string): ApiHooks;
  /** Requests per target so far. */
  counts(): Record<string, number>;
  /** The quickest request seen, ms; undefined before any. */
  quickestMs(): number | undefined;
}

export function createRequestLog(): RequestLog {
  const counts = new Map<string, number>();
  let quickest: number | undefined;
  return {
    hooksFor: (target) => ({
      onRequest: ({ durationSeconds }) => {
        counts.set(target, (counts.get(target) ?? 0) + 1);
        quickest = Math.min(quickest ?? Infinity, durationSeconds * 1000);
      },
    }),
    counts: () => Object.fromEntries(counts),
    quickestMs: () => quickest,
  };
}

/** What each target's budget has spent, and whether the apply estimated has made its reads already. */
export interface SpentBudgets {
  /** When the requests still counting against the target's budget ended (ms since the epoch): `ClientPool.spentFor`. */
  spentFor(target: string): readonly number[];
  /** `apply` estimating its own writes: its reads (the plan's) are done and among the spent. */
  readsDone: boolean;
}

/**
 * The plan with the estimate of its apply. Call right after planning: the reads counted so far are
 * the plan's, which a later apply makes again before writing (`apply` itself has made them). What
 * the budgets spent (this command's reads, and an earlier command's requests still in the window)
 * is counted as the server counts it: an apply right after a plan waits for it.
 */
export function withEstimate(
  plan: Plan,
  run: RunPlan,
  context: ReconcileContext,
  log: RequestLog,
  budgets: SpentBudgets,
  now = Date.now(),
): Plan {
  const planned = run.targets.filter((targetRun) => !targetRun.failed).map((targetRun) => targetRun.target);
  const groups = budgetGroups(planned, credentialFingerprints(planned, context.env));
  const heldBack = new Set(
    run.request.allowPartial
      ? []
      : run.targets.filter((targetRun) => targetRun.blocked).map((targetRun) => targetRun.target.name),
  );
  const seen = log.quickestMs();
  const latencyMs =
    seen === undefined ? DEFAULT_REQUEST_MS : Math.min(LATENCY_BOUNDS_MS.max, Math.max(LATENCY_BOUNDS_MS.min, seen));
  const spentAgoMs = Object.fromEntries(
    planned.map((target) => [target.name, budgets.spentFor(target.name).map((end) => Math.max(0, now - end))]),
  );
  // A held-back tenant's changes are not applied either (docs/many-services.md#what-a-problem-holds-back).
  const tenantsHeld = new Map(
    run.request.allowPartial
      ? []
      : run.targets.map((targetRun) => [targetRun.target.name, targetRun.heldTenants] as const),
  );
  const changes =
    tenantsHeld.size === 0
      ? plan.changes
      : plan.changes.filter((change) => !heldForTenants(change, tenantsHeld.get(change.target) ?? new Set()));
  const estimate = estimateApply({
    changes,
    budgets: groups,
    reads: log.counts(),
    heldBack,
    latencyMs,
    spentAgoMs,
    readsDone: budgets.readsDone,
  });
  return { ...plan, estimate };
}

/** Every hook a client calls: a record, so a hook added to ApiHooks and not here does not compile. */
const HOOKS: Readonly<Record<keyof ApiHooks, true>> = {
  onRequest: true,
  onRetry: true,
  onRateLimitWait: true,
  onRateLimitDelay: true,
};

type AnyHook = (event: never) => void;

/** Both sets of hooks on one client: each hook tells the first, then the second. */
export function bothHooks(first: ApiHooks, second: ApiHooks): ApiHooks {
  const both: Partial<Record<keyof ApiHooks, AnyHook>> = {};
  for (const name of Object.keys(HOOKS) as (keyof ApiHooks)[]) {
    const one = first[name] as AnyHook | undefined;
    const other = second[name] as AnyHook | undefined;
    if (!one && !other) continue;
    both[name] = (event) => {
      one?.(event);
      other?.(event);
    };
  }
  return both as ApiHooks;
}
