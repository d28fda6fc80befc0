/** The pure differ: manifests + live state + state file → changes. */
export { planTarget } from './plan-target.js';
export type { PlanOptions, PlanTargetInput } from './plan-target.js';
export { checkPruneCaps, PRUNABLE_KINDS } from './prune.js';
export type { PruneCaps, PruneCheck } from './prune.js';
export { compareChanges, KIND_RANK, sortChanges } from './order.js';
export { KNOWN_AFTER_APPLY } from '../model/plan.js';
