import { describe, expect, it } from 'vitest';
import {
  apiHooksFor,
  createMetrics,
  initTargetMetrics,
  rateLimitWaitSeconds,
  setPipeStates,
} from '../../src/daemon/metrics.js';

/** The metric names docs/reference/metrics.md fixes (prefix stacksync_). */
const DESIGN_METRICS = [
  'stacksync_reconcile_total',
  'stacksync_reconcile_duration_seconds',
  'stacksync_resources',
  'stacksync_apply_operations_total',
  'stacksync_api_requests_total',
  'stacksync_api_request_duration_seconds',
  'stacksync_api_retries_total',
  'stacksync_queue_depth',
  'stacksync_last_successful_sync_timestamp_seconds',
  'stacksync_manifest_errors',
  'stacksync_drift_seconds',
  'stacksync_rate_limit_wait_seconds_total',
];

describe('metrics', () => {
  it('exposes every metric docs/reference/metrics.md names, and the Node process metrics', async () => {
    const metrics = createMetrics();
    initTargetMetrics(metrics, 'prod', 'managed');
    const text = await metrics.registry.metrics();
    for (const name of DESIGN_METRICS) expect(text).toContain(`# TYPE ${name} `);
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('initialises closed label sets to zero so series exist before anything happens', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    initTargetMetrics(metrics, 'prod', 'self-hosted');
    const text = await metrics.registry.metrics();
    expect(text).toContain('stacksync_resources{target="prod",kind="Alert",status="drifted"} 0');
    expect(text).toContain(
      'stacksync_apply_operations_total{target="prod",kind="Dashboard",action="create",result="failed"} 0',
    );
    expect(text).toContain('stacksync_api_retries_total{target="prod",reason="throttled"} 0');
    expect(text).toContain('stacksync_reconcile_total{target="prod",result="failure"} 0');
    expect(text).toContain(
      'stacksync_api_requests_total{target="prod",method="PUT",route="/api/v2/alerts/{id}",code="200"} 0',
    );
  });

  it('counts requests by route template, retries by reason and rate-limit waits through the client hooks', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const hooks = apiHooksFor(metrics, 'prod');
    hooks.onRequest?.({ method: 'GET', route: '/api/v2/alerts', status: 429, durationSeconds: 0.02 });
    hooks.onRequest?.({ method: 'GET', route: '/api/v2/alerts', status: 200, durationSeconds: 0.01 });
    hooks.onRetry?.({
      method: 'GET',
      route: '/api/v2/alerts',
      reason: 'throttled',
      attempt: 1,
      maxAttempts: 6,
      why: 'HTTP 429',
      delayMs: 1000,
    });
    hooks.onRateLimitWait?.({ waitedSeconds: 1.5 });
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'stacksync_api_requests_total{target="prod",method="GET",route="/api/v2/alerts",code="429"} 1',
    );
    expect(text).toContain(
      'stacksync_api_request_duration_seconds_count{target="prod",method="GET",route="/api/v2/alerts"} 2',
    );
    expect(text).toContain('stacksync_api_retries_total{target="prod",reason="throttled"} 1');
    expect(text).toContain('stacksync_rate_limit_wait_seconds_total{target="prod"} 1.5');
  });

  it('reads back the rate-limit wait of every target, as /status shows it', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    initTargetMetrics(metrics, 'idle', 'managed');
    apiHooksFor(metrics, 'busy').onRateLimitWait?.({ waitedSeconds: 2.25 });
    apiHooksFor(metrics, 'busy').onRateLimitWait?.({ waitedSeconds: 0.5 });
    expect(await rateLimitWaitSeconds(metrics)).toEqual({ idle: 0, busy: 2.75 });
  });
});

describe('setPipeStates', () => {
  const series = async (metrics: ReturnType<typeof createMetrics>): Promise<string[]> =>
    (await metrics.pipeState.get()).values
      .filter((v) => v.value === 1 || v.labels.state === 'Weird')
      .map((v) => `${v.labels.name}:${v.labels.state}=${v.value}`);

  it('flips to the new state, drops an unknown state once it is gone, and a pipe no longer reported', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    setPipeStates(
      metrics,
      'prod',
      new Map([
        ['a', 'Weird'],
        ['b', 'Running'],
      ]),
    );
    expect(await series(metrics)).toEqual(['a:Weird=1', 'b:Running=1']);
    setPipeStates(metrics, 'prod', new Map([['a', 'Failed']]));
    expect(await series(metrics)).toEqual(['a:Failed=1']);
    expect((await metrics.pipeState.get()).values.filter((v) => v.labels.name === 'b')).toEqual([]);
  });
});
