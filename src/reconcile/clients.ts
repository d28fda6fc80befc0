/**
 * One API client per target, built on first use and kept for the process, so the keep-alive pool
 * and the token bucket span every sync. Credentials are resolved here, once per client.
 */
import type { Logger } from 'pino';
import { createApi, type ApiOptions } from '../api/index.js';
import type { Api, ApiHooks } from '../api/port.js';
import type { Target } from '../model/config.js';
import { toConnection, type SecretIo } from '../config/secrets.js';

export interface ClientPool {
  apiFor(target: Target): Api;
  close(): Promise<void>;
}

export interface ClientPoolOptions {
  secretIo?: Partial<SecretIo>;
  hooksFor?: (target: string) => ApiHooks;
  logger?: Logger;
  /** Extra client options (tests: faster retries, an injected dispatcher). */
  api?: Omit<ApiOptions, 'hooks' | 'logger'>;
}

export function createClientPool(options: ClientPoolOptions = {}): ClientPool {
  const clients = new Map<string, Api>();
  return {
    apiFor(target) {
      let api = clients.get(target.name);
      if (!api) {
        api = createApi(toConnection(target, options.secretIo), {
          ...options.api,
          ...(options.hooksFor ? { hooks: options.hooksFor(target.name) } : {}),
          ...(options.logger ? { logger: options.logger } : {}),
        });
        clients.set(target.name, api);
      }
      return api;
    },
    async close() {
      await Promise.all([...clients.values()].map((api) => api.close()));
      clients.clear();
    },
  };
}
