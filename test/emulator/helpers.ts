/** Shared helpers of the emulator contract suite: start on loopback, call over real HTTP. */
import {
  startEmulator,
  DEFAULT_SEED_IDS,
  type EmulatorOptions,
  type RunningEmulator,
} from '../../src/emulator/index.js';

export const IDS = DEFAULT_SEED_IDS;
export const SERVICE_PATH = `/v1/organizations/${IDS.organizationId}/services/${IDS.serviceId}`;

export function basic(keyId: string = IDS.keyId, secret: string = IDS.keySecret): string {
  return `Basic ${Buffer.from(`${keyId}:${secret}`).toString('base64')}`;
}

export function bearer(token: string = IDS.token): string {
  return `Bearer ${token}`;
}

export interface CallOptions {
  auth?: string | null;
  body?: unknown;
  /** Sent as is, instead of JSON of `body`. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the body is not JSON. */
  json: any;
}

export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers['authorization'] = options.auth;
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Clients bound to one emulator: `managed` sends Basic auth and prefixes the service path; `selfHosted` sends Bearer. */
export function clients(emulator: RunningEmulator) {
  return {
    managed: (method: string, suffix: string, options: CallOptions = {}) =>
      call(emulator.url, method, `${SERVICE_PATH}${suffix}`, { auth: basic(), ...options }),
    selfHosted: (method: string, path: string, options: CallOptions = {}) =>
      call(emulator.url, method, path, { auth: bearer(), ...options }),
    raw: (method: string, path: string, options: CallOptions = {}) => call(emulator.url, method, path, options),
  };
}

export async function start(options: EmulatorOptions = {}) {
  const emulator = await startEmulator({ logger: false, ...options });
  return { emulator, ...clients(emulator) };
}

export const TILE = {
  name: 'p99',
  x: 0,
  y: 0,
  w: 6,
  h: 4,
  series: [{ type: 'time', aggFn: 'avg', dataSource: 'events', field: 'duration' }],
};

export function tileAlert(dashboardId: string, tileId: string, extra: Record<string, unknown> = {}) {
  return {
    name: 'slow',
    message: 'p99 is slow',
    threshold: 500,
    interval: '5m',
    thresholdType: 'above',
    source: 'tile',
    dashboardId,
    tileId,
    channel: { type: 'webhook', webhookId: 'hook-1' },
    ...extra,
  };
}
