/**
 * stacksync's Prometheus metrics (docs/daemon.md): one registry per process, created once
 * and passed in. Every closed label set is initialised to 0 so dashboards show zeros, not gaps.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Kind, Variant } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import type { ApiHooks, RetryReason } from '../api/port.js';
import type { ApplyEvent } from '../apply/events.js';
import { WRITE_ACTIONS } from '../model/plan.js';
import { PIPE_STATES } from '../kinds/pipe/wire.js';

/**
 * `orphan`: in the inventory, named by no manifest, and not pruned (`sync.prune` off, or a
 * manifest error holds the prune back): a later prune deletes it. `suspended`: its target or
 * manifest is suspended, so it is read and reported but never written.
 */
export const RESOURCE_STATUSES = ['in_sync', 'drifted', 'error', 'orphan', 'suspended'] as const;
export type ResourceStatus = (typeof RESOURCE_STATUSES)[number];
export const RECONCILE_RESULTS = ['success', 'failure'] as const;
export const OPERATION_RESULTS = ['ok', 'failed', 'skipped'] as const;
const RETRY_REASONS: readonly RetryReason[] = ['throttled', 'server_error', 'connection', 'timeout'];

/** The route templates each variant uses, so request counters start at zero per route. */
export const ROUTES: Record<Variant, readonly [string, string][]> = {
  managed: [
    ['GET', '/v1/organizations/{organizationId}/services/{serviceId}/pipes'],
    ['PATCH', '/v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}'],
    ['GET', '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards'],
    ['POST', '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards'],
    ['PUT', '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards/{dashboardId}'],
    ['DELETE', '/v1/organizations/{organizationId}/services/{serviceId}/stack/dashboards/{dashboardId}'],
    ['GET', '/v1/organizations/{organizationId}/services/{serviceId}/stack/alerts'],
    ['POST', '/v1/organizations/{organizationId}/services/{serviceId}/stack/alerts'],
    ['PUT', '/v1/organizations/{organizationId}/services/{serviceId}/stack/alerts/{alertId}'],
    ['DELETE', '/v1/organizations/{organizationId}/services/{serviceId}/stack/alerts/{alertId}'],
  ],
  'self-hosted': [
    ['GET', '/api/v2/dashboards'],
    ['POST', '/api/v2/dashboards'],
    ['PUT', '/api/v2/dashboards/{id}'],
    ['DELETE', '/api/v2/dashboards/{id}'],
    ['GET', '/api/v2/alerts'],
    ['POST', '/api/v2/alerts'],
    ['PUT', '/api/v2/alerts/{id}'],
    ['DELETE', '/api/v2/alerts/{id}'],
  ],
};

export interface Metrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'target' | 'result'>;
  readonly reconcileDuration: Histogram<'target'>;
  readonly resources: Gauge<'target' | 'kind' | 'status'>;
  readonly applyOperations: Counter<'target' | 'kind' | 'action' | 'result'>;
  readonly apiRequests: Counter<'target' | 'method' | 'route' | 'code'>;
  readonly apiRequestDuration: Histogram<'target' | 'method' | 'route'>;
  readonly apiRetries: Counter<'target' | 'reason'>;
  readonly queueDepth: Gauge<'target'>;
  readonly lastSuccessfulSync: Gauge<'target'>;
  readonly manifestErrors: Gauge<'target'>;
  readonly driftSeconds: Gauge<'target' | 'kind'>;
  readonly rateLimitWait: Counter<'target'>;
  readonly pipeState: Gauge<'target' | 'name' | 'state'>;
  readonly notifications: Counter<'provider' | 'event' | 'result'>;
  readonly leader: Gauge;
}

/** A fresh registry with every stacksync metric and the default Node process metrics. */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    reconcileTotal: new Counter({
      name: 'stacksync_reconcile_total',
      help: 'Syncs of a target by result.',
      labelNames: ['target', 'result'],
      registers,
    }),
    reconcileDuration: new Histogram({
      name: 'stacksync_reconcile_duration_seconds',
      help: 'Wall time of one sync of a target.',
      labelNames: ['target'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    resources: new Gauge({
      name: 'stacksync_resources',
      help: 'Managed resources by status (in_sync, drifted, error, orphan, suspended).',
      labelNames: ['target', 'kind', 'status'],
      registers,
    }),
    applyOperations: new Counter({
      name: 'stacksync_apply_operations_total',
      help: 'Changes applied, by action and result.',
      labelNames: ['target', 'kind', 'action', 'result'],
      registers,
    }),
    apiRequests: new Counter({
      name: 'stacksync_api_requests_total',
      help: 'HTTP requests to the API by route template and status code.',
      labelNames: ['target', 'method', 'route', 'code'],
      registers,
    }),
    apiRequestDuration: new Histogram({
      name: 'stacksync_api_request_duration_seconds',
      help: 'Duration of HTTP requests to the API by route template.',
      labelNames: ['target', 'method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    apiRetries: new Counter({
      name: 'stacksync_api_retries_total',
      help: 'Retried API requests by reason.',
      labelNames: ['target', 'reason'],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'stacksync_queue_depth',
      help: 'Operations waiting in the apply queue of a target.',
      labelNames: ['target'],
      registers,
    }),
    lastSuccessfulSync: new Gauge({
      name: 'stacksync_last_successful_sync_timestamp_seconds',
      help: 'Unix time of the last sync that completed without errors.',
      labelNames: ['target'],
      registers,
    }),
    manifestErrors: new Gauge({
      name: 'stacksync_manifest_errors',
      help: 'Manifest load and validation errors in the last snapshot.',
      labelNames: ['target'],
      registers,
    }),
    driftSeconds: new Gauge({
      name: 'stacksync_drift_seconds',
      help: 'Age of the oldest unhealed drift by kind (0 when in sync).',
      labelNames: ['target', 'kind'],
      registers,
    }),
    rateLimitWait: new Counter({
      name: 'stacksync_rate_limit_wait_seconds_total',
      help: 'Time spent waiting for the client-side rate limit.',
      labelNames: ['target'],
      registers,
    }),
    notifications: new Counter({
      name: 'stacksync_notifications_total',
      help: 'Notifications by provider, event and result (sent, failed after retries, dropped from a full queue).',
      labelNames: ['provider', 'event', 'result'],
      registers,
    }),
    leader: new Gauge({
      name: 'stacksync_leader',
      help: '1 while this daemon reconciles (always, without run --leader-elect), 0 while it stands by.',
      registers,
    }),
    pipeState: new Gauge({
      name: 'stacksync_pipe_state',
      help: 'Live state of each managed pipe: 1 for its current state, 0 for the known others.',
      labelNames: ['target', 'name', 'state'],
      registers,
    }),
  };
}

/** Sets every closed label combination of one target to 0. */
export function initTargetMetrics(metrics: Metrics, target: string, variant: Variant): void {
  metrics.reconcileDuration.zero({ target });
  for (const result of RECONCILE_RESULTS) metrics.reconcileTotal.inc({ target, result }, 0);
  for (const kind of KINDS) {
    for (const status of RESOURCE_STATUSES) metrics.resources.set({ target, kind, status }, 0);
    for (const action of WRITE_ACTIONS) {
      for (const result of OPERATION_RESULTS) metrics.applyOperations.inc({ target, kind, action, result }, 0);
    }
    metrics.driftSeconds.set({ target, kind }, 0);
  }
  for (const reason of RETRY_REASONS) metrics.apiRetries.inc({ target, reason }, 0);
  for (const [method, route] of ROUTES[variant]) {
    metrics.apiRequests.inc({ target, method, route, code: '200' }, 0);
    metrics.apiRequestDuration.zero({ target, method, route });
  }
  metrics.queueDepth.set({ target }, 0);
  metrics.lastSuccessfulSync.set({ target }, 0);
  metrics.manifestErrors.set({ target }, 0);
  metrics.rateLimitWait.inc({ target }, 0);
}

/** Sets every provider, event and result combination of the configured notification providers to 0. */
export function initNotificationMetrics(
  metrics: Metrics,
  providers: readonly { provider: string; events: readonly string[] }[],
): void {
  for (const { provider, events } of providers) {
    for (const event of provider === 'github' ? ['status'] : events) {
      for (const result of ['sent', 'failed', 'dropped']) metrics.notifications.inc({ provider, event, result }, 0);
    }
  }
}

/** The client's hooks, feeding this registry for one target. */
export function apiHooksFor(metrics: Metrics, target: string): ApiHooks {
  return {
    onRequest({ method, route, status, durationSeconds }) {
      metrics.apiRequests.inc({ target, method, route, code: String(status) });
      metrics.apiRequestDuration.observe({ target, method, route }, durationSeconds);
    },
    onRetry({ reason }) {
      metrics.apiRetries.inc({ target, reason });
    },
    onRateLimitWait({ waitedSeconds }) {
      metrics.rateLimitWait.inc({ target }, waitedSeconds);
    },
  };
}

/** Seconds each target's requests have waited for their rate budget, by target: what the counter holds. */
export async function rateLimitWaitSeconds(metrics: Metrics): Promise<Record<string, number>> {
  const waits: Record<string, number> = {};
  for (const { labels, value } of (await metrics.rateLimitWait.get()).values) {
    if (typeof labels.target === 'string') waits[labels.target] = value;
  }
  return waits;
}

/** States every managed pipe gets a series for (0 unless current), so a change of state shows as a flip, not a gap. */
const KNOWN_PIPE_STATES = [...PIPE_STATES, 'InternalError'];

/** The state each metrics registry last set per target and pipe, so a state the service no longer reports drops out. */
const lastPipeStates = new WeakMap<Metrics, Map<string, Map<string, string>>>();

/**
 * Sets `pipe_state` of one target's pipes: 1 for the current state and 0 for the known others.
 * A state outside the known ones gets its own series while current; a pipe no longer reported
 * loses its series.
 */
export function setPipeStates(metrics: Metrics, target: string, states: ReadonlyMap<string, string>): void {
  const byTarget = lastPipeStates.get(metrics) ?? new Map<string, Map<string, string>>();
  lastPipeStates.set(metrics, byTarget);
  const previous = byTarget.get(target) ?? new Map<string, string>();
  for (const [name, state] of previous) {
    if (states.get(name) === state) continue;
    if (!states.has(name))
      for (const known of KNOWN_PIPE_STATES) metrics.pipeState.remove({ target, name, state: known });
    if (!KNOWN_PIPE_STATES.includes(state)) metrics.pipeState.remove({ target, name, state });
  }
  for (const [name, state] of states) {
    for (const known of KNOWN_PIPE_STATES)
      metrics.pipeState.set({ target, name, state: known }, known === state ? 1 : 0);
    if (!KNOWN_PIPE_STATES.includes(state)) metrics.pipeState.set({ target, name, state }, 1);
  }
  byTarget.set(target, new Map(states));
}

/** Resource counts of one target by kind and status, replacing the previous figures. */
export function setResourceCounts(
  metrics: Metrics,
  target: string,
  counts: Record<Kind, Record<ResourceStatus, number>>,
): void {
  for (const kind of KINDS) {
    for (const status of RESOURCE_STATUSES) metrics.resources.set({ target, kind, status }, counts[kind][status]);
  }
}

/** Apply events → `apply_operations_total` and `queue_depth`. */
export function recordApplyEvent(metrics: Metrics, target: string, event: ApplyEvent): void {
  switch (event.type) {
    case 'apply-started':
      metrics.queueDepth.set({ target }, event.total);
      return;
    case 'change-succeeded':
    case 'change-failed':
    case 'change-skipped':
      metrics.queueDepth.dec({ target });
      metrics.applyOperations.inc({ target, kind: event.kind, action: event.action, result: resultOf(event.type) });
      return;
    case 'apply-finished':
      metrics.queueDepth.set({ target }, 0);
      return;
    default:
      return;
  }
}

function resultOf(type: 'change-succeeded' | 'change-failed' | 'change-skipped'): 'ok' | 'failed' | 'skipped' {
  return type === 'change-succeeded' ? 'ok' : type === 'change-failed' ? 'failed' : 'skipped';
}
