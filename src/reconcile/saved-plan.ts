/**
 * `apply --plan FILE`: the use case that turns a saved plan back into a run to execute, or refuses.
 * The plan is computed again, as it was asked for; its fingerprint must match the saved one for
 * every planned write, and the run is then cut down to exactly those writes.
 */
import { StacksyncError } from '../errors.js';
import { changeRef, isWrite, type Change } from '../model/plan.js';
import { buildPlan } from '../plan/build.js';
import {
  describeStale,
  editedPlan,
  maskedFingerprint,
  plannedWrites,
  sealMatches,
  setupReasons,
  staleReasons,
  type SavedPlan,
} from '../plan/saved.js';
import { runSecrets } from '../support/redaction.js';
import { fingerprintRun, setupFingerprint } from './plan-fingerprint.js';
import { computePlan, type ReconcileContext, type RunPlan } from './reconcile.js';

export interface SavedRun {
  /** The run to execute: the saved plan's writes, plus what needs no write (unchanged, errors). */
  run: RunPlan;
  /** Writes the plan computed now has and the saved one had not (live drift since): not applied. */
  left: Change[];
}

/**
 * The saved plan as a run, or `E_PLAN_STALE` listing everything that differs (nothing is
 * written either way). `file` names the plan in messages; `version` is the running stacksync's.
 */
export async function prepareSavedPlan(
  ctx: ReconcileContext,
  saved: SavedPlan,
  file: string,
  version: string,
): Promise<SavedRun> {
  const { request } = saved.fingerprint;

  // 1. What can be told without the network: version, state key, where each target points; then
  //    that the file is as plan wrote it (a seal under another key would fail too, and say less).
  // The saved fingerprint is masked of the run's secrets (a resource named as one): so is this one.
  const mask = <T>(value: T): T => runSecrets.redactDeep(value);
  const setup = setupReasons(
    saved.fingerprint,
    mask(setupFingerprint(ctx.config, request.targets, ctx.hasher, version)),
  );
  if (setup.length > 0) throw new StacksyncError('E_PLAN_STALE', describeStale(file, setup), { subject: file });
  if (!sealMatches(saved, ctx.hasher)) throw editedPlan(file);

  // 2. The plan again, asked as it was asked then; it must be the same plan.
  const run = await computePlan(ctx, { targets: request.targets, prune: request.prune, adopt: request.adopt });
  const now = fingerprintRun(run, {
    ...ctx,
    version,
    ...(saved.fingerprint.keySalt !== undefined ? { keySalt: saved.fingerprint.keySalt } : {}),
  });
  const reasons = staleReasons(saved.fingerprint, maskedFingerprint(now, mask));
  if (reasons.length > 0) throw new StacksyncError('E_PLAN_STALE', describeStale(file, reasons), { subject: file });

  // 3. Exactly the planned writes: a write that appeared since (drift elsewhere) waits for a new plan.
  const planned = plannedWrites(saved.fingerprint);
  const keep = (change: Change): boolean =>
    !isWrite(change.action) || planned.has(runSecrets.redact(changeRef(change)));
  const targets = run.targets.map((targetRun) => ({ ...targetRun, changes: targetRun.changes.filter(keep) }));
  const left = run.targets.flatMap((targetRun) => targetRun.changes.filter((change) => !keep(change)));
  const plan = buildPlan(run.plan.changes.filter(keep), run.plan.errors, run.plan.warnings);
  return { run: { ...run, plan, targets }, left };
}
