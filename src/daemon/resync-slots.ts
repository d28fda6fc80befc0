/**
 * Where the periodic resyncs of targets that share a rate budget fall. Pure: plain data in, plain
 * data out.
 *
 * The rule. Targets that share a base URL origin and credentials share one budget of B requests
 * per W seconds (the strictest `rateLimit` among them; see api/shared-pacers.ts). A resync of a
 * target costs c reads ({@link READS_PER_RESYNC}), so a round of all T targets costs R = Σ c
 * reads and takes at least R·W/B seconds of the budget. Then:
 * - the group's resync interval is `sync.interval`, stretched when needed so that a round takes
 *   at most {@link RESYNC_BUDGET_SHARE} of the budget over it: I = max(sync.interval, R·W/B ÷ share).
 *   The rest of the budget stays free for writes and change-triggered syncs. `sync.interval` is
 *   thus the minimum, never shortened;
 * - the k-th target of the group (config order, from 0) owns the slot k·I/T of every cycle of I,
 *   so resyncs come one after another, I/T apart, instead of all at once. I/T is at least the
 *   time one resync's reads take of the budget (twice that, with the share of one half).
 *
 * Targets are grouped as the pacer groups them: by origin and by what their credentials resolve
 * to (a fingerprint the caller gives), so two references that hold the same key are one group.
 * Without a fingerprint (a secret that cannot be read yet), by the references themselves.
 */
import type { Target } from '../model/config.js';
import type { Variant } from '../model/kinds.js';

/** Where a target's periodic resyncs fall: at `offsetMs` into every cycle of `intervalMs`. */
export interface ResyncSlot {
  intervalMs: number;
  offsetMs: number;
}

/** Reads one resync costs: managed lists pipes, dashboards and alerts; self-hosted dashboards and a page of alerts. */
export const READS_PER_RESYNC: Readonly<Record<Variant, number>> = { managed: 3, 'self-hosted': 2 };

/** Share of a shared budget that periodic resyncs may take over one interval. */
export const RESYNC_BUDGET_SHARE = 0.5;

/**
 * A fingerprint of what a target's credentials resolve to (never the credentials themselves), or
 * undefined when they cannot be resolved.
 */
export type CredentialFingerprint = (target: Target) => string | undefined;

/** Targets that share a rate budget, by origin and credentials; each group in config order. */
export function budgetGroups(targets: readonly Target[], fingerprint?: CredentialFingerprint): Target[][] {
  const groups = new Map<string, Target[]>();
  for (const target of targets) {
    const key = groupKey(target, fingerprint);
    groups.set(key, [...(groups.get(key) ?? []), target]);
  }
  return [...groups.values()];
}

/** A slot per target that shares its budget with others; targets alone on theirs get none. */
export function resyncSlots(
  targets: readonly Target[],
  intervalMs: number,
  fingerprint?: CredentialFingerprint,
): Map<string, ResyncSlot> {
  const slots = new Map<string, ResyncSlot>();
  for (const group of budgetGroups(targets, fingerprint)) {
    if (group.length < 2) continue;
    const cycleMs = groupIntervalMs(group, intervalMs);
    group.forEach((target, index) => {
      slots.set(target.name, { intervalMs: cycleMs, offsetMs: Math.round((index * cycleMs) / group.length) });
    });
  }
  return slots;
}

/** `intervalMs`, stretched until a round of the group's resyncs takes at most its share of the budget. */
export function groupIntervalMs(group: readonly Target[], intervalMs: number): number {
  const reads = group.reduce((sum, target) => sum + READS_PER_RESYNC[target.variant], 0);
  const perSecond = Math.min(...group.map((target) => target.rateLimit.requests / target.rateLimit.perSeconds));
  const roundMs = (reads / perSecond) * 1000;
  return Math.max(intervalMs, Math.ceil(roundMs / RESYNC_BUDGET_SHARE));
}

/**
 * Milliseconds from `nowMs` to the target's next slot that is at least half an interval away (so
 * a resync that ran long, or a sync just triggered by a change, is not followed at once by another).
 * `epochMs` is where every cycle of the group starts counting.
 */
export function delayToSlot(slot: ResyncSlot, epochMs: number, nowMs: number): number {
  const earliest = nowMs + slot.intervalMs / 2;
  const cycles = Math.ceil((earliest - epochMs - slot.offsetMs) / slot.intervalMs);
  return epochMs + slot.offsetMs + cycles * slot.intervalMs - nowMs;
}

function groupKey(target: Target, fingerprint: CredentialFingerprint | undefined): string {
  let origin: string;
  try {
    origin = new URL(target.baseUrl).origin;
  } catch {
    return `target ${target.name}`;
  }
  const credential = fingerprint?.(target);
  return JSON.stringify([
    origin,
    target.variant,
    credential === undefined ? { references: target.auth } : { resolved: credential },
  ]);
}
