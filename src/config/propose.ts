/**
 * The proposal branch of a target (docs/daemon.md, "Drift proposed as a branch"): one rule, read by
 * the config loader (which refuses a branch that would be the one the daemon syncs from) and by
 * the daemon (which pushes to it).
 */

/** `sync.propose.branch` with `{target}` replaced by the target's name. */
export function proposalBranch(template: string, target: string): string {
  return template.replaceAll('{target}', target);
}
