/**
 * Shared fixtures of the API client tests: connections with known secrets, a MockAgent that refuses
 * the network, a recording of every hook call, and a fake clock whose sleep only moves time.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { MockAgent } from 'undici';
import type { TargetConnection } from '../../src/model/config.js';
import type { ApiHooks, RetryReason } from '../../src/api/port.js';
import { StacksyncError } from '../../src/errors.js';

export const BASE = 'http://api.test';
export const ORG = '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a01';
export const SVC = '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01';
export const MANAGED_PREFIX = `/v1/organizations/${ORG}/services/${SVC}`;

/** Secrets no output may ever contain. */
export const KEY_ID = 'key-id-visible-nowhere';
export const KEY_SECRET = 'k3y-s3cret-never-printed';
export const TOKEN = 'tok3n-never-printed-either';
export const BASIC = `Basic ${Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64')}`;
export const SECRETS = [KEY_SECRET, TOKEN, Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64')];

export function managedConnection(overrides: Partial<TargetConnection> = {}): TargetConnection {
  return {
    name: 'prod',
    variant: 'managed',
    baseUrl: BASE,
    organizationId: ORG,
    serviceId: SVC,
    credentials: { variant: 'managed', keyId: KEY_ID, keySecret: KEY_SECRET },
    rateLimit: { requests: 1000, perSeconds: 1, concurrency: 8 },
    ...overrides,
  };
}

export function selfHostedConnection(overrides: Partial<TargetConnection> = {}): TargetConnection {
  return {
    name: 'selfhosted',
    variant: 'self-hosted',
    baseUrl: BASE,
    credentials: { variant: 'self-hosted', token: TOKEN },
    rateLimit: { requests: 1000, perSeconds: 1, concurrency: 8 },
    ...overrides,
  };
}

export function mockAgent(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  return agent;
}

export interface HookLog {
  hooks: ApiHooks;
  requests: { method: string; route: string; status: number | 'error' }[];
  retries: { method: string; route: string; reason: RetryReason; attempt: number; delayMs: number }[];
  waits: number[];
}

export function hookLog(): HookLog {
  const log: HookLog = {
    requests: [],
    retries: [],
    waits: [],
    hooks: {
      onRequest: ({ method, route, status }) => log.requests.push({ method, route, status }),
      onRetry: (event) => log.retries.push(event),
      onRateLimitWait: ({ waitedSeconds }) => log.waits.push(waitedSeconds),
    },
  };
  return log;
}

/** Time that moves only when the code under test sleeps: waits are recorded, never spent. */
export function fakeTime(): { now: () => number; sleep: (ms: number) => Promise<void>; sleeps: number[] } {
  let time = 1_700_000_000_000;
  const sleeps: number[] = [];
  return {
    now: () => time,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      time += ms;
    },
    sleeps,
  };
}

/** A pino logger writing JSON lines into an array, at debug level. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

export const JSON_HEADERS = { 'content-type': 'application/json' };

export function managedOk(result: unknown): string {
  return JSON.stringify({ status: 200, requestId: '3f1e0c2a-1111-4222-8333-444455556666', result });
}

export function dataOk(data: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ data, ...extra });
}

export function sampleDashboard(id = '65f5e4a3b9e77c001a000001', name = 'api-latency'): Record<string, unknown> {
  return {
    id,
    name,
    tags: ['api'],
    tiles: [
      {
        id: `${id}-t1`,
        name: 'p99',
        x: 0,
        y: 0,
        w: 6,
        h: 4,
        series: [{ type: 'time', dataSource: 'events', aggFn: 'quantile', where: 'svc:api' }],
      },
    ],
  };
}

export function sampleAlert(
  id = '65f5e4a3b9e77c001a100001',
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id,
    name: 'slow',
    message: 'p99 high',
    threshold: 500,
    interval: '5m',
    thresholdType: 'above',
    source: 'tile',
    dashboard: '65f5e4a3b9e77c001a000001',
    tileId: '65f5e4a3b9e77c001a000001-t1',
    channel: { type: 'webhook', webhookId: 'hook-1' },
    team: 'team-1',
    state: 'inactive',
    silenced: false,
    createdAt: '2026-03-15T10:20:30.000Z',
    updatedAt: '2026-03-15T10:20:30.000Z',
    ...overrides,
  };
}

/** The StacksyncError a call fails with; fails the test if the call succeeds or throws something else. */
export async function failure(call: Promise<unknown>): Promise<StacksyncError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  if (!(outcome.error instanceof StacksyncError))
    throw new Error(`expected a StacksyncError, got ${String(outcome.error)}`);
  return outcome.error;
}
