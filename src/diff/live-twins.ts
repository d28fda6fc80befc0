/**
 * Live twins: a live resource with the API name of one stacksync manages (in the inventory), that
 * is neither in the inventory nor claimed by this plan. A create that landed late after it was
 * sent again leaves exactly this (issue 15), and so does a person creating a copy in the console.
 * Matching goes by inventory id, so nothing else in the plan would ever mention it: the plan
 * shows each one as a conflict instead of hiding it behind an `unchanged`.
 */
import type { PrunableKind } from './prune.js';
import type { Named } from '../kinds/shared/match.js';
import type { Change } from '../model/plan.js';
import type { TargetState } from '../model/state.js';

export interface TwinInput {
  target: string;
  kind: PrunableKind;
  /** The plan's changes (others than of `kind` are ignored): those of managed resources name the twins' owners. */
  changes: readonly Change[];
  live: readonly Named[];
  state: TargetState;
}

/** One `error` change (code `E_CONFLICT`) per live twin of a managed resource of `kind` that a manifest names. */
export function planTwins(input: TwinInput): Change[] {
  const { kind, changes, live, state } = input;
  // Nothing live of the kind, no twin: and a plan walks every kind, most of them empty.
  if (live.length === 0) return [];
  const inventory = state.inventory[kind];
  const liveById = new Map(live.map((item) => [item.id, item]));
  // Claimed: recorded in the inventory under any key, or matched by this plan (adopted, reclaimed).
  const ofKind = changes.filter((change) => change.kind === kind);
  const claimed = new Set([
    ...Object.values(inventory).map((entry) => entry.id),
    ...ofKind.flatMap((change) => (change.id === undefined ? [] : [change.id])),
  ]);
  // Unclaimed live resources by name, each with its place in `live`: a look-up per change, not a
  // scan of every live resource (10,000 × 10,000 took 1.4 s of an in-sync plan).
  const unclaimedByName = new Map<string, { twin: Named; at: number }[]>();
  live.forEach((twin, at) => {
    if (claimed.has(twin.id) || twin.name === undefined) return;
    const same = unclaimedByName.get(twin.name);
    if (same) same.push({ twin, at });
    else unclaimedByName.set(twin.name, [{ twin, at }]);
  });
  const twins: Change[] = [];
  for (const change of ofKind) {
    // A twin belongs to a manifest: deletes and orphans have none, and are on their way out or shown already.
    if (change.action === 'delete' || change.action === 'orphan') continue;
    const entry = inventory[change.name];
    const owned = entry && change.id === entry.id ? liveById.get(entry.id) : undefined;
    if (!owned) continue;
    const names = new Set([owned.name, change.liveName].filter((name): name is string => name !== undefined));
    const found = [...names].flatMap((name) => unclaimedByName.get(name) ?? []).sort((a, b) => a.at - b.at);
    for (const { twin } of found) twins.push(twinChange(input.target, change, owned, twin));
  }
  return twins;
}

function twinChange(target: string, owner: Change, owned: Named, twin: Named): Change {
  const { kind } = owner;
  const change: Change = {
    target,
    kind,
    // Not a manifest key (those are lowercase, digits and '-'), so it cannot collide with one.
    name: `${owner.name} (twin ${twin.id})`,
    action: 'error',
    id: twin.id,
    diff: [],
    operations: [],
    dependsOn: [],
    warnings: [],
    code: 'E_CONFLICT',
    error:
      `conflict: a second live ${kind} named "${twin.name ?? ''}" (id ${twin.id}) is not in the ` +
      `inventory; stacksync manages id ${owned.id} for ${kind}/${owner.name}. ` +
      `--adopt leaves it alone (the manifest already has its resource) and --prune does not delete it (prune deletes only what the inventory holds): ` +
      `delete or rename it in the API`,
  };
  if (twin.name !== undefined) change.liveName = twin.name;
  if (owner.file !== undefined) change.file = owner.file;
  if (owner.line !== undefined) change.line = owner.line;
  return change;
}
