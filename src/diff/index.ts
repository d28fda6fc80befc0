/** The pure differ: manifests + live state + state file → changes. */
export { planTarget, planTargetAsking } from './plan-target.js';
export type { PlanOptions, PlanTargetInput } from './plan-target.js';
export { checkPruneCaps, guardDeletes, PRUNABLE_KINDS, pruneHeldBack, refusedResults } from './prune.js';
export type { DeleteGuardInput, GuardedChanges, PruneCaps, PruneCheck } from './prune.js';
export { requiredChanges, withDependents } from './graph.js';
export { compareChanges, sortChanges } from './order.js';
export { markDrift } from './drift.js';
export { suspendChanges } from './suspend.js';
export { isDegraded, pipeHealthWarnings } from './health.js';
export { referenceResolver } from './references.js';
export type { ReferenceContext } from './references.js';
export {
  holdBackBlocked,
  changeWrites,
  heldForTenants,
  HOLDS_BACK_TARGET,
  plannedProblemHoldsBack,
  plannedTenantsHeldBack,
  tenantWritesHeldBack,
  withPruneHeldBack,
  withTenantPrunesHeldBack,
  writesHeldBack,
} from './held-back.js';
export type { HeldBackWrites, HoldBackInput } from './held-back.js';
