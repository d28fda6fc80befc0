/**
 * The CDC scaling's differ, pure. A service has one, made by the service itself once its first
 * database pipe is provisioned, and never deleted: a manifest only ever changes it (one PATCH of
 * both members), and once the manifest is gone it is simply no longer managed.
 *
 * - Live and different: an update, which apply follows until a GET shows the new sizing (the
 *   service takes minutes). The inventory keeps what was asked and when, so a run that did not
 *   wait (the daemon) does not ask again while the service may still be applying it: the change
 *   is `waiting` until {@link CDC_SCALING_PROPAGATION_MS} after the ask.
 * - Not there yet (404): an update after the database pipes this plan creates, that first waits
 *   for the service to make it (a live database pipe still provisioning counts too); with no
 *   database pipe on the way, an error on this manifest alone that says why.
 */
import { operationType, type Change, type FieldDiff, type Operation } from '../../model/plan.js';
import { CDC_SCALING_PIPE_FAMILIES } from '../../schema/pipe-sources.js';
import type { KindPlan, KindPlanInput } from '../descriptor.js';
import { addDependsOn, changeFor, errorChange, unreadableChange } from '../shared/change.js';
import { fieldDiff } from '../shared/values.js';
import { FAILED_STATES } from '../pipe/lifecycle.js';
import { PIPE } from '../pipe/model.js';
import {
  ASKED_AT_MARK,
  ASKED_MARK,
  CDC_SCALING_ID,
  CDC_SCALING_PROPAGATION_MS,
  PIPE_CDC_SCALING,
  SIZING_MEMBERS,
  sizingGoal,
  type DesiredCdcScaling,
  type LiveCdcScaling,
} from './model.js';

type Input = KindPlanInput<DesiredCdcScaling, LiveCdcScaling>;

/** Why the PATCH waits before it is sent, and what a run that does not wait says. */
export const NOT_THERE_YET = 'the service has no CDC scaling yet: it makes one once a database pipe is provisioned';

export function planCdcScaling(input: Input): KindPlan<undefined> {
  return { changes: input.desired.map((desired) => planOne(input, desired)) };
}

function planOne(input: Input, desired: DesiredCdcScaling): Change {
  const unreadable = input.unreadable[0];
  if (unreadable) return unreadableChange(input.target, desired, unreadable);
  const live = input.live[0];
  return live ? planLive(input, desired, live) : planAbsent(input, desired);
}

function planLive(input: Input, desired: DesiredCdcScaling, live: LiveCdcScaling): Change {
  const diff = SIZING_MEMBERS.flatMap((member): FieldDiff[] =>
    desired.spec[member] === live[member] ? [] : [fieldDiff(member, live[member], desired.spec[member])],
  );
  const change = changeFor(input.target, desired, diff.length > 0 ? 'update' : 'unchanged');
  change.id = live.id;
  change.diff = diff;
  if (diff.length === 0) return change;
  const applying = stillApplying(input, desired);
  if (applying !== undefined) {
    change.action = 'waiting';
    change.waitUntil = applying.until.toISOString();
    change.warnings.push(
      `the service is still applying this sizing, asked for at ${clockTime(applying.askedAt)} (it ` +
        `takes minutes to show); not asked for again before ${clockTime(applying.until)}`,
    );
    return change;
  }
  change.operations = [patchOperation(input, desired)];
  return change;
}

function planAbsent(input: Input, desired: DesiredCdcScaling): Change {
  const creates = input.planned.get(PIPE)?.outcome?.databaseCreates ?? [];
  const provisioning = input
    .liveOf(PIPE)
    .filter(
      (pipe) => CDC_SCALING_PIPE_FAMILIES.includes(pipe.source.kind) && !FAILED_STATES.includes(pipe.state ?? ''),
    );
  if (creates.length === 0 && provisioning.length === 0) {
    const message =
      `target ${input.target} has no CDC scaling yet: the service makes it once a database pipe ` +
      `(${CDC_SCALING_PIPE_FAMILIES.join(', ')}) is provisioned, and only then can it be set; it is ` +
      `set by the first run after that (or by the run that creates that pipe from a manifest)`;
    return errorChange(input.target, desired, 'E_API_NOT_FOUND', message);
  }
  const change = changeFor(input.target, desired, 'update');
  change.id = CDC_SCALING_ID;
  change.diff = SIZING_MEMBERS.map((member) => fieldDiff(member, undefined, desired.spec[member]));
  addDependsOn(change, ...creates);
  const which =
    creates.length > 0
      ? `the database pipe this run creates (${creates.join(', ')})`
      : `pipe ${provisioning.map((pipe) => pipe.name).join(', ')}`;
  change.warnings.push(
    `the service makes its CDC scaling once ${which} is provisioned: apply waits for it (--wait), then sets it`,
  );
  change.operations = [{ ...patchOperation(input, desired), awaitPresence: NOT_THERE_YET }];
  return change;
}

/** The PATCH of both members; apply follows it until the service shows them, and the inventory keeps what was asked, and when. */
function patchOperation(input: Input, desired: DesiredCdcScaling): Operation {
  const goal = sizingGoal(desired.spec);
  return {
    type: operationType('update', PIPE_CDC_SCALING),
    id: CDC_SCALING_ID,
    patch: { replicaCpuMillicores: desired.spec.replicaCpuMillicores, replicaMemoryGb: desired.spec.replicaMemoryGb },
    await: goal,
    marks: { [ASKED_MARK]: goal, [ASKED_AT_MARK]: new Date(input.timing.nowMs).toISOString() },
  };
}

/** When an earlier run asked for this very sizing, and until when the service may still be applying it; undefined when it is not. */
function stillApplying(input: Input, desired: DesiredCdcScaling): { askedAt: number; until: Date } | undefined {
  const marks = input.state.inventory[PIPE_CDC_SCALING][desired.key]?.marks;
  if (marks?.[ASKED_MARK] !== sizingGoal(desired.spec)) return undefined;
  const askedAt = Date.parse(marks[ASKED_AT_MARK] ?? '');
  const until = askedAt + CDC_SCALING_PROPAGATION_MS;
  return Number.isFinite(askedAt) && input.timing.nowMs < until && input.timing.nowMs >= askedAt
    ? { askedAt, until: new Date(until) }
    : undefined;
}

/** `HH:MM UTC` of a time. */
function clockTime(at: number | Date): string {
  return `${new Date(at).toISOString().slice(11, 16)} UTC`;
}
