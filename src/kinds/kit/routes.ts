/**
 * How the descriptors spell their routes: the variants' prefixes, and a kind's collection and item
 * templates under them, exactly as hooks, metrics, logs and errors name them (the emulator's
 * `/_emulator/stats` uses the same strings).
 */
import type { KindRoutes } from '../descriptor.js';

/** Every managed route sits under one service. */
export const MANAGED_SERVICE = '/v1/organizations/{organizationId}/services/{serviceId}';
/** The self-hosted API's version prefix. */
export const SELF_HOSTED_API = '/api/v2';

/** A managed kind at `segment` under the service (`stack/dashboards`), its id placeholder named `idParam`. */
export function managedRoutes(segment: string, idParam: string, update: KindRoutes['update']): KindRoutes {
  const collection = `${MANAGED_SERVICE}/${segment}`;
  return { collection, item: `${collection}/{${idParam}}`, update };
}

/** A self-hosted kind at `segment` under the API (`dashboards`); its id placeholder is `id`. */
export function selfHostedRoutes(segment: string, update: KindRoutes['update'], paged = false): KindRoutes {
  const collection = `${SELF_HOSTED_API}/${segment}`;
  return { collection, item: `${collection}/{id}`, update, ...(paged ? { paged: true as const } : {}) };
}
