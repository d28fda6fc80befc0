/**
 * How pipes of the current profile change state on their own (docs/reference/api-behaviour.md, "The real services
 * today: the whole lifecycle"): a create, start, stop or resync answers at once with a transitional
 * state, and the pipe settles later. Each pending state carries the time it is due; the clock
 * passing it is what applies it, when the service is next looked at (`advancePipes`). No timer
 * runs: with a transition delay of 0 a pipe has settled by the next request, and a test that
 * wants to see the states in between moves an injected clock.
 */
import {
  CDC_SCALING_PIPE_FAMILIES,
  DEFAULT_CDC_SCALING,
  PIPE_FAMILY_CLASSES,
  SNAPSHOT_ONLY_PIPE_FAMILIES,
  isPipeFamily,
  type PipeFamily,
} from '../../schema/pipe-sources.js';
import type { PipeLifecycle, PipeResource, PipeRuntime, PipeRuntimeData, ServiceRecord } from '../model.js';

/** How the lifecycle behaves, from the emulator's options. */
export interface PipeBehaviour {
  /** Time each asynchronous step takes (Provisioning → Running is one step; → Snapshot → Running two). */
  transitionMs: number;
  /** Share of provisionings (create, start, resync) that end `Failed` (`--faults pipefail=P`). */
  failShare: number;
  /** Draws for `failShare`; the fault injector's source. */
  random: () => number;
}

export const DEFAULT_PIPE_TRANSITION_MS = 1000;

export function pipeFamily(pipe: PipeResource): PipeFamily {
  const family = Object.keys(pipe.source)[0] ?? '';
  if (!isPipeFamily(family)) throw new Error(`pipe ${pipe.id} has no known source family (${family})`);
  return family;
}

export function isDatabasePipe(pipe: PipeResource): boolean {
  return PIPE_FAMILY_CLASSES[pipeFamily(pipe)] === 'database';
}

function replicationMode(pipe: PipeResource): unknown {
  const settings = pipe.source[pipeFamily(pipe)]?.['settings'] as Record<string, unknown> | undefined;
  return settings?.['replicationMode'];
}

/** Snapshot-only pipes (BigQuery, or a database pipe in `snapshot` mode) end `Completed`, not `Running`. */
export function isSnapshotOnly(pipe: PipeResource): boolean {
  return (
    SNAPSHOT_ONLY_PIPE_FAMILIES.includes(pipeFamily(pipe)) ||
    (isDatabasePipe(pipe) && replicationMode(pipe) === 'snapshot')
  );
}

function settledState(pipe: PipeResource): string {
  return isSnapshotOnly(pipe) ? 'Completed' : 'Running';
}

export function emptyRuntime(failPipes: string[] = []): PipeRuntime {
  return { lifecycles: new Map(), failPipes };
}

/** The service's runtime; every service of the current profile has one (created on first use for old data). */
export function runtimeOf(service: ServiceRecord): PipeRuntime {
  return (service.pipeRuntime ??= emptyRuntime());
}

function globPattern(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** Whether this provisioning of the pipe ends `Failed`: its name is in the seed's `failPipes`, or the fault draw says so. */
function provisioningFails(runtime: PipeRuntime, pipe: PipeResource, behaviour: PipeBehaviour): boolean {
  if (runtime.failPipes.some((glob) => globPattern(glob).test(pipe.name))) return true;
  return behaviour.failShare > 0 && behaviour.random() < behaviour.failShare;
}

/** Sets the state the answer shows now, and the states to come, one transition apart. */
function schedule(
  service: ServiceRecord,
  pipe: PipeResource,
  now: number,
  behaviour: PipeBehaviour,
  immediate: string | undefined,
  later: string[],
): void {
  const lifecycle = lifecycleOf(service, pipe.id);
  if (immediate !== undefined) pipe.state = immediate;
  lifecycle.steps = later.map((state, index) => ({ state, at: now + behaviour.transitionMs * (index + 1) }));
  forgetIfIdle(service, pipe.id);
}

function lifecycleOf(service: ServiceRecord, pipeId: string): PipeLifecycle {
  const { lifecycles } = runtimeOf(service);
  let lifecycle = lifecycles.get(pipeId);
  if (!lifecycle) {
    lifecycle = { steps: [] };
    lifecycles.set(pipeId, lifecycle);
  }
  return lifecycle;
}

function forgetIfIdle(service: ServiceRecord, pipeId: string): void {
  const lifecycle = runtimeOf(service).lifecycles.get(pipeId);
  if (lifecycle && lifecycle.steps.length === 0 && !lifecycle.snapshotPending)
    runtimeOf(service).lifecycles.delete(pipeId);
}

/**
 * A new pipe answers `Provisioning`; streaming and object-storage pipes then run, database pipes
 * take their initial snapshot first (not in `cdc_only` mode), snapshot-only ones end `Completed`
 * (docs/reference/api-behaviour.md: "database pipes `Running`, `Snapshot` (initial load) or `Failed`; snapshot-only
 * pipes `Completed`").
 */
export function scheduleCreate(
  service: ServiceRecord,
  pipe: PipeResource,
  now: number,
  behaviour: PipeBehaviour,
): void {
  const runtime = runtimeOf(service);
  let later: string[];
  if (provisioningFails(runtime, pipe, behaviour)) later = ['Failed'];
  else if (!isDatabasePipe(pipe)) later = ['Running'];
  else later = replicationMode(pipe) === 'cdc_only' ? [settledState(pipe)] : ['Snapshot', settledState(pipe)];
  schedule(service, pipe, now, behaviour, 'Provisioning', later);
}

/**
 * OpenAPI: "Starting is allowed for ClickPipes in the Stopped state or with a Failed state" (a
 * stopped database pipe is `Paused`). A database pipe that had tables added while paused, or that
 * failed, copies them first: it passes through `Snapshot`.
 */
export function scheduleStart(service: ServiceRecord, pipe: PipeResource, now: number, behaviour: PipeBehaviour): void {
  const runtime = runtimeOf(service);
  const lifecycle = lifecycleOf(service, pipe.id);
  let later: string[];
  if (provisioningFails(runtime, pipe, behaviour)) later = ['Failed'];
  else if (!isDatabasePipe(pipe)) later = ['Running'];
  else
    later =
      lifecycle.snapshotPending || pipe.state === 'Failed' || isSnapshotOnly(pipe)
        ? ['Snapshot', settledState(pipe)]
        : [settledState(pipe)];
  schedule(service, pipe, now, behaviour, 'Provisioning', later);
}

/**
 * OpenAPI: "Stopping a ClickPipe will stop the ingestion process from any state". Streaming and
 * object-storage pipes end `Stopped`, database pipes `Paused` (provider: "the API reports Stopped
 * for streaming pipes and Paused for CDC pipes"). A pipe already at rest stays so, and whatever
 * was pending (an automatic resume) is called off; a database pipe stopped before its snapshot
 * was done takes it when it runs again.
 */
export function scheduleStop(service: ServiceRecord, pipe: PipeResource, now: number, behaviour: PipeBehaviour): void {
  const [transitional, rest] = isDatabasePipe(pipe) ? ['Pausing', 'Paused'] : ['Stopping', 'Stopped'];
  // A snapshot cut short is taken again when the pipe runs again.
  const lifecycle = lifecycleOf(service, pipe.id);
  if (isDatabasePipe(pipe) && (pipe.state === 'Snapshot' || lifecycle.steps.some((step) => step.state === 'Snapshot')))
    lifecycle.snapshotPending = true;
  if (pipe.state === 'Stopped' || pipe.state === 'Paused') schedule(service, pipe, now, behaviour, undefined, []);
  else schedule(service, pipe, now, behaviour, transitional, [rest]);
}

/** A resync copies every table again: `Snapshot`, then settled (docs: the pipe enters Snapshot "when a resync is triggered"). */
export function scheduleResync(
  service: ServiceRecord,
  pipe: PipeResource,
  now: number,
  behaviour: PipeBehaviour,
): void {
  const runtime = runtimeOf(service);
  const later = provisioningFails(runtime, pipe, behaviour) ? ['Failed'] : [settledState(pipe)];
  schedule(service, pipe, now, behaviour, 'Snapshot', later);
  const lifecycle = runtime.lifecycles.get(pipe.id);
  if (lifecycle) lifecycle.snapshotPending = false;
  forgetIfIdle(service, pipe.id);
}

/**
 * After a table-mapping edit on a paused pipe the service resumes it by itself to validate the
 * edit (provider, tests of its issue 497: "The API auto-resumes the pipe after the edit"; a start
 * sent after that answers "already running"). The answer still shows it paused; added tables are
 * copied (`Snapshot`) before it runs.
 */
export function scheduleResumeAfterEdit(
  service: ServiceRecord,
  pipe: PipeResource,
  now: number,
  behaviour: PipeBehaviour,
  tablesAdded: boolean,
): void {
  const lifecycle = lifecycleOf(service, pipe.id);
  if (tablesAdded) lifecycle.snapshotPending = true;
  const later =
    lifecycle.snapshotPending || isSnapshotOnly(pipe) ? ['Snapshot', settledState(pipe)] : [settledState(pipe)];
  schedule(service, pipe, now, behaviour, undefined, later);
}

export function forgetPipe(service: ServiceRecord, pipeId: string): void {
  service.pipeRuntime?.lifecycles.delete(pipeId);
}

/** Applies every pending state that is due, then the CDC scaling's. Safe to call on every request. */
export function advancePipes(service: ServiceRecord, now: number): void {
  const runtime = runtimeOf(service);
  for (const [pipeId, lifecycle] of runtime.lifecycles) {
    const pipe = service.pipes.get(pipeId);
    if (!pipe) {
      runtime.lifecycles.delete(pipeId);
      continue;
    }
    while (lifecycle.steps.length && (lifecycle.steps[0]?.at ?? Infinity) <= now) {
      const step = lifecycle.steps.shift();
      if (!step) break;
      pipe.state = step.state;
      if (step.state === 'Snapshot') lifecycle.snapshotPending = false;
    }
    forgetIfIdle(service, pipeId);
  }
  provisionCdcScaling(service);
  const pending = runtime.cdcScaling?.pending;
  if (runtime.cdcScaling && pending && pending.at <= now) {
    runtime.cdcScaling = {
      replicaCpuMillicores: pending.replicaCpuMillicores,
      replicaMemoryGb: pending.replicaMemoryGb,
    };
  }
}

/**
 * The CDC scaling exists once a database pipe has been provisioned (docs/reference/api-behaviour.md: "the endpoint
 * exists only once a database pipe has been provisioned"; the provider polls up to 10 minutes for
 * it), and stays.
 */
function provisionCdcScaling(service: ServiceRecord): void {
  const runtime = runtimeOf(service);
  if (runtime.cdcScaling) return;
  const provisioned = [...service.pipes.values()].some(
    (pipe) =>
      CDC_SCALING_PIPE_FAMILIES.includes(pipeFamily(pipe)) && pipe.state !== 'Provisioning' && pipe.state !== 'Failed',
  );
  if (provisioned) runtime.cdcScaling = { ...DEFAULT_CDC_SCALING };
}

/** The runtime as saved (data file, dump); `failPipes` only when there are any. */
export function runtimeToData(runtime: PipeRuntime): PipeRuntimeData {
  return {
    lifecycles: Object.fromEntries(runtime.lifecycles),
    ...(runtime.cdcScaling && { cdcScaling: runtime.cdcScaling }),
    ...(runtime.failPipes.length > 0 && { failPipes: runtime.failPipes }),
  };
}

/** A saved runtime; data files written before the lifecycle existed have none. */
export function runtimeFromData(data: PipeRuntimeData | undefined): PipeRuntime {
  if (!data) return emptyRuntime();
  return {
    lifecycles: new Map(Object.entries(data.lifecycles)),
    ...(data.cdcScaling && { cdcScaling: data.cdcScaling }),
    failPipes: data.failPipes ?? [],
  };
}
