/**
 * Digests of what a plan was computed from: the spec of each manifest, the live resources and
 * inventory entries of each planned write, and the writes themselves. Saved plans compare them
 * (plan/saved.ts); the spec digest (spec.ts) is also what the state file records as "last
 * applied", to tell a Git change from drift. Data without secrets is digested with SHA-256; the writes, whose bodies
 * may hold credentials, and the live resources, which may hold a secret the service returns (a
 * webhook's URL), only under the state's HMAC key.
 */
import type { Config, Target } from '../model/config.js';
import type { Kind } from '../model/kinds.js';
import { changeRef, isWrite, type Change } from '../model/plan.js';
import { descriptorOf, liveOf, type LiveState } from '../kinds/index.js';
import type { ChangeFingerprint, PlanFingerprint } from '../plan/saved.js';
import type { SecretHasher } from '../state/hmac.js';
import type { StateStore } from '../state/store.js';
import { canonicalJson, digestOf } from '../support/digest.js';
import type { RunPlan } from './reconcile.js';
import { specDigest } from './spec.js';

/** Hashed with the state key, it tells whether two runs hold the same key without revealing it. */
const KEY_CHECK_INPUT = 'stacksync: saved plan key check';

/** Tells whether two runs hold the same key, without revealing it. */
export function keyCheckOf(hasher: SecretHasher): string {
  return hasher(KEY_CHECK_INPUT);
}

/** The part of a fingerprint known before reading anything live. */
export function setupFingerprint(
  config: Config,
  targets: readonly string[],
  hasher: SecretHasher,
  version: string,
): Pick<PlanFingerprint, 'stacksync' | 'keyCheck' | 'targets'> {
  const endpoints = config.targets
    .filter((target) => targets.includes(target.name))
    .map((target) => [target.name, endpointDigest(target)]);
  return { stacksync: version, keyCheck: keyCheckOf(hasher), targets: Object.fromEntries(endpoints) };
}

function endpointDigest(target: Target): string {
  const { variant, baseUrl } = target;
  return digestOf(
    target.variant === 'managed'
      ? { variant, baseUrl, organizationId: target.organizationId, serviceId: target.serviceId }
      : { variant, baseUrl },
  );
}

export interface FingerprintContext {
  config: Config;
  store: StateStore;
  hasher: SecretHasher;
  /** The running stacksync's version. */
  version: string;
  /** The salt of the key derived for a plan made before the state had one (plan-key.ts). */
  keySalt?: string;
}

/** The fingerprint of a computed plan, before anything of it is applied. */
export function fingerprintRun(run: RunPlan, ctx: FingerprintContext): PlanFingerprint {
  const targets = run.targets.map((targetRun) => targetRun.target.name);
  const inScope = (target: string | undefined): boolean =>
    target === undefined || target === '*' || targets.includes(target);
  const manifests = run.load.resources
    .filter((resource) => targets.includes(resource.target))
    .map((resource) => [`${resource.target}/${resource.kind}/${resource.key}`, specDigest(resource)]);
  const changes = run.targets.flatMap((targetRun) =>
    targetRun.changes
      .filter((change) => isWrite(change.action))
      .map((change) => [changeRef(change), changeFingerprint(change, targetRun.live, ctx)] as const),
  );
  return {
    ...setupFingerprint(ctx.config, targets, ctx.hasher, ctx.version),
    ...(ctx.keySalt !== undefined ? { keySalt: ctx.keySalt } : {}),
    request: { targets, prune: run.request.prune, adopt: run.request.adopt },
    manifests: Object.fromEntries(manifests),
    problems: problemDigests(run.load.problems.filter((problem) => inScope(problem.target))),
    changes: Object.fromEntries(changes),
  };
}

function changeFingerprint(change: Change, live: LiveState | undefined, ctx: FingerprintContext): ChangeFingerprint {
  const fingerprint: ChangeFingerprint = {
    action: change.action,
    writes: ctx.hasher(canonicalJson(change.operations)),
    dependsOn: [...change.dependsOn],
  };
  if (change.id !== undefined) fingerprint.id = change.id;
  const current = change.id === undefined ? undefined : liveResource(live, change.kind, change.id);
  // Under the key: a live resource may hold a secret the service returns (a webhook's URL).
  if (current !== undefined) fingerprint.live = ctx.hasher(canonicalJson(withoutStatus(change.kind, current)));
  const owned = ctx.store.get(change.target).inventory[change.kind][change.name]?.id;
  if (owned !== undefined) fingerprint.owned = owned;
  if (change.secretHashes && Object.keys(change.secretHashes).length > 0)
    fingerprint.secrets = { ...change.secretHashes };
  return fingerprint;
}

function liveResource(live: LiveState | undefined, kind: Kind, id: string): object | undefined {
  return liveOf(live, kind).find((item) => item.id === id);
}

/**
 * Without the live members the service changes on its own (an alert firing, a pipe pausing): a
 * plan does not depend on them, so they must not make a saved plan stale.
 */
function withoutStatus(kind: Kind, resource: object): object {
  const status = descriptorOf(kind).reader.statusMembers;
  return Object.fromEntries(Object.entries(resource).filter(([member]) => !status.includes(member)));
}

/** Per file, a digest of its problems (position, code, message). */
function problemDigests(problems: RunPlan['load']['problems']): Record<string, string> {
  const byFile = new Map<string, unknown[]>();
  for (const problem of problems) {
    const { file, line, column } = problem.location;
    byFile.set(file, [...(byFile.get(file) ?? []), { line, column, code: problem.code, message: problem.message }]);
  }
  return Object.fromEntries([...byFile].map(([file, list]) => [file, digestOf(list)]));
}
