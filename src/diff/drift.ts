/**
 * Telling drift from a change waiting in Git. A write is drift when its manifest is exactly the
 * one stacksync last applied (the inventory keeps the digest of its spec): the manifest did not
 * move, so the live resource did. Everything else is a change to apply: a manifest that is new
 * or edited since, one never recorded (a state from before digests were kept), an adoption, a
 * prune, and a write that waits on such a change (an alert re-pointed because its dashboard's
 * tiles change in Git).
 */
import { changeKey, isWrite, type Change } from '../model/plan.js';
import type { TargetState } from '../model/state.js';

/** Sets `drift` on the writes among one target's changes that are drift; returns the same changes. */
export function markDrift(changes: Change[], state: TargetState): Change[] {
  for (const change of changes) {
    const recorded = state.inventory[change.kind][change.name]?.spec;
    if (isDriftAction(change) && change.spec !== undefined && recorded === change.spec) change.drift = true;
  }
  const fromGit = new Set(
    changes
      .filter((change) => isWrite(change.action) && !change.drift)
      .map((change) => changeKey(change.kind, change.name)),
  );
  for (const change of changes)
    if (change.drift && change.dependsOn.some((key) => fromGit.has(key))) delete change.drift;
  return changes;
}

/** Only a create (deleted behind stacksync's back) or an update can be drift. */
function isDriftAction(change: Change): boolean {
  return change.action === 'create' || change.action === 'update';
}
