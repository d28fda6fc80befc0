/**
 * The status document as people read it, on the status page and in `stacksync status`: one row per
 * resource with its status flags, where its manifest is and what is wrong, and a few facts per
 * target. Pure. Nothing here knows a kind: kinds come from the document.
 */
import type { FieldDiff } from '../model/plan.js';
export { formatValue } from '../plan/render-text.js';
import { RESOURCE_STATUSES, type ResourceStatus } from './metrics.js';
import type { ResourceStatusEntry, StatusDocument, TargetStatus } from './status.js';

/** A status, or `degraded`: a resource whose live health is degraded (a pipe Failed, Paused, …). */
export type StatusFlag = ResourceStatus | 'degraded';

/** Every flag, in the order filters and counts list them. */
export const STATUS_FLAGS: readonly StatusFlag[] = [...RESOURCE_STATUSES, 'degraded'];

export const FLAG_LABELS: Readonly<Record<StatusFlag, string>> = {
  in_sync: 'in sync',
  drifted: 'drifted',
  error: 'error',
  orphan: 'orphan',
  suspended: 'suspended',
  degraded: 'degraded',
};

/** Flags that mean something is wrong: `stacksync status` exits 1 on `error`. */
export const ERROR_FLAGS: readonly StatusFlag[] = ['error'];

export interface ResourceRow {
  /** `target/Kind/name`: unique on the page. */
  key: string;
  target: string;
  kind: string;
  name: string;
  flags: StatusFlag[];
  /** `manifests/api.yaml:12`, or undefined without a manifest (an orphan). */
  manifest?: string;
  url?: string;
  /** What to read about it: the error, why it is drifted and since when, the live state. */
  notes: string[];
  diff: FieldDiff[];
  diffOmitted: number;
}

/** The flags of a resource: its status, and `degraded` when its live health is. */
export function flagsOf(resource: Pick<ResourceStatusEntry, 'status' | 'health'>): StatusFlag[] {
  return resource.health === 'degraded' ? [resource.status, 'degraded'] : [resource.status];
}

/** Every resource of every target, in the document's order. */
export function rowsOf(document: StatusDocument): ResourceRow[] {
  return Object.entries(document.targets).flatMap(([target, status]) =>
    status.resources.map((resource) => rowOf(target, resource)),
  );
}

function rowOf(target: string, resource: ResourceStatusEntry): ResourceRow {
  const where = resource.path ?? resource.file;
  const row: ResourceRow = {
    key: `${target}/${resource.kind}/${resource.name}`,
    target,
    kind: resource.kind,
    name: resource.name,
    flags: flagsOf(resource),
    notes: notesOf(resource),
    diff: resource.diff ?? [],
    diffOmitted: resource.diffOmitted ?? 0,
  };
  if (where !== undefined) row.manifest = resource.line === undefined ? where : `${where}:${resource.line}`;
  if (resource.url !== undefined) row.url = resource.url;
  return row;
}

function notesOf(resource: ResourceStatusEntry): string[] {
  const notes: string[] = [];
  if (resource.error !== undefined)
    notes.push(resource.code === undefined ? resource.error : `${resource.error} (${resource.code})`);
  if (resource.status === 'drifted') {
    const since = resource.driftSince === undefined ? '' : ` since ${formatTime(resource.driftSince)}`;
    notes.push(
      resource.cause === 'live'
        ? `edited outside stacksync${since}`
        : resource.id === undefined
          ? `not created yet${since}`
          : `a manifest change not applied yet${since}`,
    );
    if (resource.proposed !== undefined) notes.push(`drift proposed on ${resource.proposed}`);
    if (resource.waitUntil !== undefined)
      notes.push(`waits until ${formatTime(resource.waitUntil)}: an earlier write of it may still land`);
  }
  if (resource.status === 'orphan') notes.push('no manifest names it; a prune deletes it');
  if (resource.state !== undefined && resource.health === 'degraded') notes.push(`live state ${resource.state}`);
  return notes;
}

/** Kinds in the order the document lists them. */
export function kindsOf(document: StatusDocument): string[] {
  return [
    ...new Set(Object.values(document.targets).flatMap((status) => status.resources.map((resource) => resource.kind))),
  ];
}

/** Resources per flag, from each resource's flags (a degraded resource counts under its status too). */
export function countFlags(flagged: readonly (readonly StatusFlag[])[]): Record<StatusFlag, number> {
  const counts = Object.fromEntries(STATUS_FLAGS.map((flag) => [flag, 0])) as Record<StatusFlag, number>;
  for (const flags of flagged) for (const flag of flags) counts[flag] += 1;
  return counts;
}

/**
 * The header's claim about the targets (and, under `run --leader-elect`, the daemon's role),
 * never more than is so: `waiting for the first sync of every target`, `the last sync of 1 of 3
 * targets failed` (never "every target has synced" then: a target that cannot be read keeps the
 * daemon unready, and is counted, not waited for), or `every target has synced, and each last
 * sync succeeded`.
 */
export function readinessText(document: Pick<StatusDocument, 'ready' | 'targets' | 'role' | 'leader'>): string {
  // Under run --leader-elect: a standby reconciles nothing, so its targets' facts are not news.
  if (document.role === 'standby')
    return (
      `standby, not reconciling; ` +
      `${
        document.leader
          ? `the leader is pid ${document.leader.pid} on host ${document.leader.host}, ` +
            `since ${formatTime(document.leader.since)}`
          : 'no leader is known'
      }`
    );
  if (document.role === 'leader') return `leader; ${targetReadiness(document)}`;
  return targetReadiness(document);
}

function targetReadiness(document: Pick<StatusDocument, 'ready' | 'targets'>): string {
  const all = Object.values(document.targets);
  const failed = all.filter((status) => status.lastResult === 'failure').length;
  if (failed > 0) {
    const failures = `the last sync of ${failed} of ${all.length} target${all.length === 1 ? '' : 's'} failed`;
    const unsynced = all.filter((status) => status.lastSyncAt === undefined).length;
    return unsynced > 0 ? `waiting for the first sync of ${unsynced} of ${all.length} targets; ${failures}` : failures;
  }
  if (!document.ready) return 'waiting for the first sync of every target';
  return all.every((status) => status.lastResult === 'success')
    ? 'every target has synced, and each last sync succeeded'
    : 'every target has synced';
}

/** `3 in sync, 1 drifted, 1 error`: the flags that have any. */
export function describeCounts(counts: Readonly<Record<StatusFlag, number>>): string {
  const parts = STATUS_FLAGS.filter((flag) => counts[flag] > 0).map((flag) => `${counts[flag]} ${FLAG_LABELS[flag]}`);
  return parts.length > 0 ? parts.join(', ') : 'no resources';
}

/** Label and value pairs about a target's last sync, in the order they are shown. */
export function targetFacts(status: TargetStatus): [string, string][] {
  const facts: [string, string][] = [];
  if (status.lastSyncAt === undefined)
    facts.push(['last sync', status.syncing ? 'the first sync is running' : 'not synced yet']);
  else
    facts.push([
      'last sync',
      `${formatTime(status.lastSyncAt)}, ` +
        `${status.lastResult === 'success' ? 'succeeded' : 'failed'}${status.lastSyncSeconds === undefined ? '' : ` in ${seconds(status.lastSyncSeconds)}`}`,
    ]);
  if (status.revision !== undefined)
    facts.push([
      'revision',
      status.uncommitted === true ? `working tree (uncommitted changes) on ${status.revision}` : status.revision,
    ]);
  facts.push(['resources', describeCounts(countFlags(status.resources.map(flagsOf)))]);
  facts.push(['rate-budget wait', rateWait(status)]);
  if (status.proposal !== undefined) facts.push(['drift proposal', proposalText(status.proposal)]);
  if (status.lastError !== undefined)
    facts.push([
      status.lastResult === 'failure' ? 'error' : 'last error',
      `${status.lastError}${status.lastErrorAt === undefined ? '' : ` (${formatTime(status.lastErrorAt)})`}`,
    ]);
  return facts;
}

/** `drift proposed on stacksync/drift/prod at 1a2b3c4d5e6f, https://…/pull/7`, or why not. */
function proposalText(proposal: NonNullable<TargetStatus['proposal']>): string {
  const made =
    proposal.commit === undefined
      ? undefined
      : `drift proposed on ${proposal.branch} at ${proposal.commit.slice(0, 12)}${proposal.pullRequest === undefined ? '' : `, ${proposal.pullRequest}`}`;
  const why =
    proposal.error === undefined
      ? undefined
      : `${proposal.error}${proposal.code === undefined ? '' : ` (${proposal.code})`}`;
  const left = proposal.notPulled === undefined ? undefined : `not pulled: ${proposal.notPulled.join('; ')}`;
  return [made ?? `nothing proposed on ${proposal.branch}`, why, left].filter((part) => part !== undefined).join('; ');
}

function rateWait(status: TargetStatus): string {
  const last =
    status.lastSyncWaitSeconds === undefined ? undefined : `${seconds(status.lastSyncWaitSeconds)} in the last sync`;
  const total =
    status.rateLimitWaitSeconds === undefined ? undefined : `${seconds(status.rateLimitWaitSeconds)} since start`;
  return [last, total].filter((part) => part !== undefined).join(', ') || 'none';
}

/** `2026-11-26 17:30:05 UTC`. */
export function formatTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

/** `0.4 s`, `12 s`, `3.5 min`. */
export function seconds(value: number): string {
  if (value < 10) return `${value.toFixed(1)} s`;
  if (value < 120) return `${Math.round(value)} s`;
  return `${(value / 60).toFixed(1)} min`;
}
