/**
 * The PipeCdcScaling kind's shapes: the sizing a manifest asks for, the live sizing as read, and
 * how an apply tells that the service shows what it asked (its settle goal).
 */
import type { Static } from 'typebox';
import type { DesiredBase } from '../../model/desired.js';
import { isOneOf } from '../../support/json.js';
import type { pipeCdcScalingSpecSchema } from './schema.js';

/** The kind's name, as manifests, plans and the state file write it. */
import { PIPE_CDC_SCALING } from './schema.js';

export { PIPE_CDC_SCALING };

/**
 * What stacksync calls the one CDC scaling of a service (its route has no id): its id in the plan
 * and the inventory.
 */
export const CDC_SCALING_ID = 'cdc-scaling';

/** The sizing's members, in the order plans list them. */
export const SIZING_MEMBERS = ['replicaCpuMillicores', 'replicaMemoryGb'] as const;

export type CdcScalingSpec = Static<typeof pipeCdcScalingSpecSchema>;

export interface DesiredCdcScaling extends DesiredBase {
  kind: typeof PIPE_CDC_SCALING;
  spec: CdcScalingSpec;
}

export interface LiveCdcScaling {
  id: typeof CDC_SCALING_ID;
  replicaCpuMillicores: number;
  replicaMemoryGb: number;
}

/**
 * How long after a sizing was asked for the service may still be applying it: its docs say the
 * change "typically" takes 3 to 5 minutes to show in a GET. Until then the same sizing is not
 * asked for again (a daemon's next sync would otherwise send it again and again); after it, a
 * live sizing that still differs is asked for once more.
 */
export const CDC_SCALING_PROPAGATION_MS = 15 * 60 * 1000;

/** The marks the inventory keeps of the last sizing asked for: its goal and when (ISO). */
export const ASKED_MARK = 'asked';
export const ASKED_AT_MARK = 'askedAt';

/** The settle goal of a sizing (`Operation.await`): `replicaCpuMillicores=4000,replicaMemoryGb=16`. */
export function sizingGoal(sizing: Pick<CdcScalingSpec, (typeof SIZING_MEMBERS)[number]>): string {
  return SIZING_MEMBERS.map((member) => `${member}=${sizing[member]}`).join(',');
}

/** The sizing a goal names; members it does not name are left out. */
export function sizingOfGoal(goal: string): Partial<Record<(typeof SIZING_MEMBERS)[number], number>> {
  const pairs = goal.split(',').map((pair) => pair.split('='));
  return Object.fromEntries(
    pairs
      .filter(([member, value]) => isOneOf(SIZING_MEMBERS, member) && value !== undefined)
      .map(([member, value]) => [member, Number(value)]),
  );
}

/** A sizing as progress shows it: `4000m, 16 GB`. */
export function sizingText(sizing: Pick<LiveCdcScaling, (typeof SIZING_MEMBERS)[number]>): string {
  return `${sizing.replicaCpuMillicores}m, ${sizing.replicaMemoryGb} GB`;
}
