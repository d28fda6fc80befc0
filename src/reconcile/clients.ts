/**
 * One API client per target, built on first use and kept for the process, so the keep-alive pool
 * and the rate budget span every sync. Credentials are resolved here, once per client. Clients of
 * targets that share a base URL origin and a credential share that credential's budget.
 */
import type { Logger } from 'pino';
import { createApi, SharedPacers, type ApiOptions, type BudgetLedger } from '../api/index.js';
import type { Api, ApiHooks } from '../api/port.js';
import type { Target } from '../model/config.js';
import { secretVarValues, toConnection, type SecretIo } from '../config/secrets.js';

export interface ClientPool {
  apiFor(target: Target): Api;
  /** When the requests still counting against the target's budget ended (ms since the epoch), oldest first. */
  spentFor(target: string): number[];
  close(): Promise<void>;
}

export interface ClientPoolOptions {
  secretIo?: Partial<SecretIo>;
  hooksFor?: (target: string) => ApiHooks;
  logger?: Logger;
  /** Carries what each budget spent across processes (the CLI's commands). */
  ledger?: BudgetLedger;
  /** Extra client options (tests: faster retries, an injected dispatcher). */
  api?: Omit<ApiOptions, 'hooks' | 'logger' | 'pacers'>;
}

export function createClientPool(options: ClientPoolOptions = {}): ClientPool {
  const clients = new Map<string, Api>();
  const { now, sleep } = options.api ?? {};
  const pacers = new SharedPacers({
    ...(now ? { now } : {}),
    ...(sleep ? { sleep } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.ledger ? { ledger: options.ledger } : {}),
  });
  return {
    apiFor(target) {
      let api = clients.get(target.name);
      if (!api) {
        api = createApi(toConnection(target, options.secretIo), {
          ...options.api,
          pacers,
          // Read when a failure is redacted: a rotated file is the value being sent now.
          secrets: () => secretVarValues(target, options.secretIo),
          ...(options.hooksFor ? { hooks: options.hooksFor(target.name) } : {}),
          ...(options.logger ? { logger: options.logger } : {}),
        });
        clients.set(target.name, api);
      }
      return api;
    },
    spentFor: (target) => pacers.spentFor(target),
    async close() {
      await Promise.all([...clients.values()].map((api) => api.close()));
      clients.clear();
    },
  };
}
