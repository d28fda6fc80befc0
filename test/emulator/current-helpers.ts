/** Helpers of the current-profile contract suite: one client shape for both variants' stack routes. */
import { DEFAULT_CURRENT_IDS, type RunningEmulator } from '../../src/emulator/index.js';
import { basic, bearer, call, SERVICE_PATH, type CallResult } from './helpers.js';

export const CURRENT = DEFAULT_CURRENT_IDS;

/** The ids of the default seed's workspace a variant's stack routes reach. */
export interface StackIds {
  sources: { log: string; trace: string; metric: string; session: string };
  connection: string;
  webhook: string;
  savedSearch: string;
}

/** A variant's stack routes: `data` is the managed `result` or the self-hosted `data`; `error` the managed `error` or the self-hosted `message` (or plain text). */
export interface StackClient {
  variant: 'managed' | 'self-hosted';
  ids: StackIds;
  request(method: string, resource: string, body?: unknown, auth?: string | null): Promise<StackResult>;
}

export interface StackResult {
  status: number;
  data: any;
  error: string | undefined;
  raw: CallResult;
}

export function stackClient(emulator: RunningEmulator, variant: 'managed' | 'self-hosted'): StackClient {
  const managed = variant === 'managed';
  return {
    variant,
    ids: managed ? CURRENT.service : CURRENT.team,
    async request(method, resource, body, auth) {
      const path = managed ? `${SERVICE_PATH}/stack/${resource}` : `/api/v2/${resource}`;
      const raw = await call(emulator.url, method, path, {
        auth: auth === undefined ? (managed ? basic() : bearer()) : auth,
        ...(body !== undefined && { body }),
      });
      const json = raw.json as Record<string, any> | undefined;
      const data = managed ? json?.['result'] : json?.['data'];
      const error = managed ? json?.['error'] : (json?.['message'] ?? (raw.status >= 400 ? raw.text : undefined));
      return { status: raw.status, data, error, raw };
    },
  };
}

/** The managed error prefix for a status, so one expectation reads for both variants. */
export function errorText(client: StackClient, status: number, message: string): string {
  if (client.variant === 'self-hosted') return message;
  const codes: Record<number, string> = { 400: 'BAD_REQUEST', 404: 'NOT_FOUND' };
  return `${codes[status] ?? ''}: ${message}`;
}

export const PLACEMENT = { x: 0, y: 0, w: 6, h: 4 } as const;

/** A builder line tile on a source. */
export function lineTile(sourceId: string, name = 'latency', extra: Record<string, unknown> = {}) {
  return {
    name,
    ...PLACEMENT,
    config: { displayType: 'line', sourceId, select: [{ aggFn: 'avg', valueExpression: 'Duration' }], ...extra },
  };
}
