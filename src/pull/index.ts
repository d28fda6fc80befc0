/** `stacksync pull`: live edits of managed resources written into their manifests in place (pure). */
export { pullEdits } from './pull.js';
export type {
  DeletedResource,
  PullConflict,
  PulledFile,
  PullInput,
  PullProblem,
  PullResult,
  ResourceEdit,
} from './pull.js';
export { unifiedDiff } from './unified-diff.js';
export { notPulledLines } from './not-pulled.js';
