/**
 * The `/status` document and the in-memory tracker that builds it from sync reports. No I/O and
 * no clock of its own (the clock is passed in), so it is tested with plain data. The same figures
 * feed the `stacksync_resources` and `stacksync_drift_seconds` gauges.
 */
import type { ErrorCode } from '../errors.js';
import type { Kind } from '../model/kinds.js';
import type { Suspension } from '../model/state.js';
import { KINDS } from '../kinds/registry.js';
import type { FieldDiff } from '../model/plan.js';
import type { Metrics, ResourceStatus } from './metrics.js';
import { RESOURCE_STATUSES, setPipeStates, setResourceCounts } from './metrics.js';
import { descriptorOf } from '../kinds/index.js';

/** What one sync found out about one resource. */
export interface ResourceObservation {
  kind: Kind;
  /** `metadata.name` of the manifest (or the inventory key of something being pruned). */
  name: string;
  status: ResourceStatus;
  /**
   * Why a `drifted` resource differs from its manifest: `git`, a manifest change not yet applied
   * (a dry run, `sync.drift: report`); `live`, an edit made outside stacksync (drift proper).
   */
  cause?: 'git' | 'live';
  /** Live id, when the resource exists. */
  id?: string;
  /** Why the resource is in `error`; never holds a secret. */
  error?: string;
  /** The code of that error. */
  code?: ErrorCode;
  /** Manifest location, when there is one. */
  file?: string;
  line?: number;
  /** Pipes: the live state the service reports (Running, Failed, …), as it is. */
  state?: string;
  /** Pipes: `degraded` when that state is Failed, InternalError or Paused. */
  health?: 'healthy' | 'degraded';
  /**
   * ISO time until which a `drifted` resource waits for an earlier create of it that may still
   * land (the plan's `waiting`); it is not written before then.
   */
  waitUntil?: string;
  /**
   * How a live `drifted` resource (or a suspended one that differs) differs from its manifest,
   * the first {@link STATUS_DIFF_LIMIT} fields; write-only values as `(sensitive)`, as in plans.
   * None for one not created yet.
   */
  diff?: FieldDiff[];
  /** Fields that differ beyond those in `diff`. */
  diffOmitted?: number;
  /** `sync.drift: propose`: the branch a live `drifted` resource's live value is committed to. */
  proposed?: string;
}

/** What `sync.drift: propose` made of a target's drift (docs/daemon.md, "Drift proposed as a branch"). */
export interface ProposalStatus {
  branch: string;
  /** The branch's tip, once a commit holds the drift. */
  commit?: string;
  /** The pull request's address. */
  pullRequest?: string;
  /** Why nothing, or only the branch, was proposed. */
  error?: string;
  code?: ErrorCode;
  /**
   * What drifted but was not written to the branch, one `file:line: …` line each (paths from the
   * repository's root): a member written with a variable or made by a template (a conflict), a
   * resource deleted live. A person settles these; the rest of the drift is proposed.
   */
  notPulled?: string[];
}

/** Fields of a resource's difference kept in the status (a page of them is enough to see what drifted). */
export const STATUS_DIFF_LIMIT = 20;

/** A resource as `/status` shows it. */
export interface ResourceStatusEntry extends ResourceObservation {
  /** ISO time since when the resource has been drifted without a heal; only on `drifted`. */
  driftSince?: string;
  /**
   * The manifest's path in its repository (relative to the checkout's top level), and a link to
   * its line when `daemon.repositoryUrl` is set. Set in the served document (see `source-links.ts`).
   */
  path?: string;
  url?: string;
}

export interface TargetStatus {
  /** ISO time the last sync finished, whatever its result. */
  lastSyncAt?: string;
  lastResult?: 'success' | 'failure';
  /** ISO time the last fully successful sync finished. */
  lastSuccessAt?: string;
  /** The most recent sync error and when it happened; kept after later successes, for diagnosis. */
  lastError?: string;
  lastErrorAt?: string;
  /** The checkout revision the last finished sync read, when the checkout is a git worktree. */
  revision?: string;
  /** True when the files that sync read held uncommitted edits: they are not that revision. Absent otherwise. */
  uncommitted?: true;
  /** How long the last finished sync took, in seconds. */
  lastSyncSeconds?: number;
  /** Of that, the seconds its API requests waited for the rate budget. */
  lastSyncWaitSeconds?: number;
  /** True while a sync of this target runs. */
  syncing: boolean;
  /** True while the target is suspended (config `suspend`, or `POST /-/suspend`): read and reported, never written. */
  suspended?: boolean;
  /** A suspension made over HTTP: since when, and the reason and author it was given; it holds until `POST /-/resume`. */
  suspension?: Suspension;
  /**
   * Seconds this target's API requests have waited for their rate budget since the process
   * started: the budget is shared by every target on the same origin and credential, so this
   * grows when they crowd it. The same figure as `stacksync_rate_limit_wait_seconds_total`.
   * Set in the served document (see {@link withRateLimitWaits}).
   */
  rateLimitWaitSeconds?: number;
  /** Every resource the last sync that could tell reported, sorted by kind then name. */
  resources: ResourceStatusEntry[];
  /** `sync.drift: propose`: where the last sync's drift was proposed, while there is drift. */
  proposal?: ProposalStatus;
}

/** The `/status` JSON document. */
export interface StatusDocument {
  version: 1;
  /** ISO time the document was made. */
  generatedAt: string;
  /** Every target has finished its first sync; always true on a standby. */
  ready: boolean;
  /** Under `run --leader-elect` only: whether this daemon leads (reconciles) or stands by. */
  role?: 'leader' | 'standby';
  /** Under `run --leader-elect`: who holds the state lease, when known (this daemon, when it leads). */
  leader?: LeaderIdentity;
  targets: Record<string, TargetStatus>;
}

/** The holder of the state lease, as `/status` names it. */
export interface LeaderIdentity {
  host: string;
  pid: number;
  command: string;
  /** ISO time it took the lease. */
  since: string;
}

/** What the daemon tells the tracker when a sync of a target ends. */
export interface SyncReport {
  /** True when the sync completed without any error. */
  ok: boolean;
  /** The sync's error, for a failed sync; never holds a secret. */
  error?: string;
  revision?: string;
  /** The files held uncommitted edits on top of `revision`. */
  uncommitted?: boolean;
  /** How long the sync took, and how much of it its requests waited for the rate budget, in seconds. */
  seconds?: number;
  rateLimitWaitSeconds?: number;
  /** What the sync found; omit when it could not tell (e.g. the API was unreachable) to keep the last known. */
  resources?: ResourceObservation[];
  /** `sync.drift: propose` and drift was found: what became of it. */
  proposal?: ProposalStatus;
}

export interface StatusTracker {
  syncStarted(target: string): void;
  syncFinished(target: string, report: SyncReport): void;
  /** One target's status; undefined for an unknown target. */
  target(target: string): TargetStatus | undefined;
  /** Every target has finished at least one sync (success or not): what `/readyz` reports. */
  ready(): boolean;
  document(): StatusDocument;
}

export type Counts = Record<Kind, Record<ResourceStatus, number>>;

/** A tracker for a fixed set of targets; `now` returns epoch milliseconds. */
export function createStatusTracker(targets: readonly string[], now: () => number): StatusTracker {
  const state = new Map<string, TargetStatus>(targets.map((name) => [name, { syncing: false, resources: [] }]));
  const known = (target: string): TargetStatus => {
    const status = state.get(target);
    if (status === undefined) throw new Error(`unknown target ${target}`);
    return status;
  };
  return {
    syncStarted(target) {
      known(target).syncing = true;
    },
    syncFinished(target, report) {
      state.set(target, applyReport(known(target), report, new Date(now()).toISOString()));
    },
    target: (target) => structuredClone(state.get(target)),
    ready: () => allSynced(state),
    document: () => ({
      version: 1,
      generatedAt: new Date(now()).toISOString(),
      ready: allSynced(state),
      targets: structuredClone(Object.fromEntries(state)),
    }),
  };
}

function allSynced(state: ReadonlyMap<string, TargetStatus>): boolean {
  return [...state.values()].every((status) => status.lastSyncAt !== undefined);
}

/** The document with each target's rate-limit wait, in seconds to the millisecond (0 for a target that never waited). */
export function withRateLimitWaits(document: StatusDocument, waits: Readonly<Record<string, number>>): StatusDocument {
  const targets = Object.fromEntries(
    Object.entries(document.targets).map(([name, status]) => [
      name,
      { ...status, rateLimitWaitSeconds: Math.round((waits[name] ?? 0) * 1000) / 1000 },
    ]),
  );
  return { ...document, targets };
}

/** The document with `suspended: true` on each suspended target, and the suspension made over HTTP where there is one. */
export function withSuspended(
  document: StatusDocument,
  suspended: ReadonlySet<string>,
  suspensionOf: (target: string) => Suspension | undefined = () => undefined,
): StatusDocument {
  const targets = Object.fromEntries(
    Object.entries(document.targets).map(([name, status]) => [
      name,
      suspended.has(name) ? suspendedStatus(status, suspensionOf(name)) : status,
    ]),
  );
  return { ...document, targets };
}

function suspendedStatus(status: TargetStatus, suspension: Suspension | undefined): TargetStatus {
  return { ...status, suspended: true, ...(suspension ? { suspension: { ...suspension } } : {}) };
}

/** The status of a target after a sync ends. */
export function applyReport(previous: TargetStatus, report: SyncReport, at: string): TargetStatus {
  const next: TargetStatus = {
    ...previous,
    syncing: false,
    lastSyncAt: at,
    lastResult: report.ok ? 'success' : 'failure',
  };
  if (report.ok) next.lastSuccessAt = at;
  if (report.error !== undefined) {
    next.lastError = report.error;
    next.lastErrorAt = at;
  }
  if (report.revision !== undefined) {
    next.revision = report.revision;
    if (report.uncommitted === true) next.uncommitted = true;
    else delete next.uncommitted;
  }
  if (report.seconds !== undefined) next.lastSyncSeconds = report.seconds;
  if (report.rateLimitWaitSeconds !== undefined) next.lastSyncWaitSeconds = report.rateLimitWaitSeconds;
  if (report.resources !== undefined) {
    next.resources = mergeResources(previous.resources, report.resources, at);
    // A proposal is shown while the drift it holds is: a sync that found none clears it.
    if (report.proposal === undefined) delete next.proposal;
  }
  if (report.proposal !== undefined) next.proposal = { ...report.proposal };
  return next;
}

/** The observed resources, sorted, each drifted one keeping the `driftSince` it already had. */
export function mergeResources(
  previous: readonly ResourceStatusEntry[],
  observed: readonly ResourceObservation[],
  at: string,
): ResourceStatusEntry[] {
  const since = new Map(
    previous.filter((entry) => entry.driftSince !== undefined).map((entry) => [keyOf(entry), entry.driftSince]),
  );
  return observed
    .map((resource): ResourceStatusEntry => {
      if (resource.status !== 'drifted') return { ...resource };
      return { ...resource, driftSince: since.get(keyOf(resource)) ?? at };
    })
    .sort(byKindThenName);
}

/** Resource counts by kind and status, every combination present (what `setResourceCounts` takes). */
export function countByStatus(resources: readonly ResourceObservation[]): Counts {
  const counts = Object.fromEntries(
    KINDS.map((kind) => [kind, Object.fromEntries(RESOURCE_STATUSES.map((status) => [status, 0]))]),
  ) as Counts;
  for (const resource of resources) counts[resource.kind][resource.status] += 1;
  return counts;
}

/** Age in seconds of the oldest unhealed drift per kind; 0 for a kind with none. */
export function driftAges(resources: readonly ResourceStatusEntry[], nowMs: number): Record<Kind, number> {
  const ages = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>;
  for (const resource of resources) {
    if (resource.status !== 'drifted' || resource.driftSince === undefined) continue;
    const age = Math.max(0, (nowMs - Date.parse(resource.driftSince)) / 1000);
    ages[resource.kind] = Math.max(ages[resource.kind], age);
  }
  return ages;
}

/** Sets the resource, drift and pipe-state gauges of one target from its status. */
export function recordStatusMetrics(metrics: Metrics, target: string, status: TargetStatus, nowMs: number): void {
  setResourceCounts(metrics, target, countByStatus(status.resources));
  const ages = driftAges(status.resources, nowMs);
  for (const kind of KINDS) metrics.driftSeconds.set({ target, kind }, ages[kind]);
  setPipeStates(metrics, target, pipeStates(status.resources));
}

/** Name → live state, for the resources of a kind with a health rule (pipes) whose state is known: the pipe-state gauge. */
export function pipeStates(resources: readonly ResourceObservation[]): Map<string, string> {
  return new Map(
    resources
      .filter((r) => r.state !== undefined && descriptorOf(r.kind).health !== undefined)
      .map((r) => [r.name, r.state as string]),
  );
}

function keyOf(resource: Pick<ResourceObservation, 'kind' | 'name'>): string {
  return `${resource.kind}/${resource.name}`;
}

function byKindThenName(a: ResourceObservation, b: ResourceObservation): number {
  return KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
