/**
 * What a create intent proves, pure. An intent is written before a create leaves, so it says only
 * that a create of that kind and API name may have happened at its time. A live resource of that
 * name is that create only if it was made after the intent was written and before the create
 * could have landed (its late-create window, `sync.settleWindow`): one made an hour later by a
 * colleague is not. Where the service gives no creation time, only a resource seen while the
 * window is still open can be the create (the plan that wrote the intent had found none of that
 * name). Anything else is shown for a person to decide (`adopt`, a conflict); no intent ever makes
 * a resource deletable.
 */
import { createLandsBy, type CreateIntent } from '../../model/state.js';

/** When the plan is made, and the late-create window: the differ reads no clock, so both come in as data. */
export interface IntentTiming {
  /** Milliseconds since the epoch. */
  nowMs: number;
  /** `sync.settleWindow`, milliseconds. */
  lateCreateWindowMs: number;
}

/**
 * How far the server's clock (which stamps `createdAt`) may be off the client's (which stamps
 * intents) for a creation time still to count as inside the window.
 */
export const CLOCK_SKEW_MS = 60_000;

/** Whether `live` can be the resource the create of `intent` made. */
export function couldBeCreateOf(intent: CreateIntent, live: { createdAt?: string }, timing: IntentTiming): boolean {
  const sent = Date.parse(intent.at);
  const landsBy = createLandsBy(intent, timing.lateCreateWindowMs);
  if (Number.isNaN(sent) || Number.isNaN(landsBy)) return false;
  const created = live.createdAt === undefined ? Number.NaN : Date.parse(live.createdAt);
  if (Number.isNaN(created)) return timing.nowMs <= landsBy;
  return created >= sent - CLOCK_SKEW_MS && created <= landsBy + CLOCK_SKEW_MS;
}

/**
 * Until when (ISO) a create whose answer never came may still land, while it may; none when the
 * intent's create was answered, or its window has closed. (The state file keeps it as
 * `settleUntil`, the config as `sync.settleWindow`: public names, kept.)
 */
export function lateCreateDeadline(intent: CreateIntent, timing: IntentTiming): string | undefined {
  if (intent.settleUntil === undefined) return undefined;
  return timing.nowMs < createLandsBy(intent, timing.lateCreateWindowMs) ? intent.settleUntil : undefined;
}
