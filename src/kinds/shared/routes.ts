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

/** What a kind's routes say beyond where they are. */
export type RouteOptions = Pick<KindRoutes, 'paged' | 'access'> & {
  /** The collection's check route's last segment (`validate`) and the profiles that serve it. */
  validate?: { suffix: string; profiles: readonly NonNullable<keyof NonNullable<KindRoutes['validate']>>[] };
};

/** A managed kind at `segment` under the service (`stack/dashboards`), its id placeholder named `idParam`. */
export function managedRoutes(
  segment: string,
  idParam: string,
  update: KindRoutes['update'],
  options: RouteOptions = {},
): KindRoutes {
  const collection = `${MANAGED_SERVICE}/${segment}`;
  return withOptions({ collection, item: `${collection}/{${idParam}}`, update }, options);
}

/**
 * A managed service's one object at `segment` (`pipesCdcScaling`): read by a GET and changed by
 * `update` on the same route, no id in it; `id` names it in the plan and the inventory.
 */
export function managedSingletonRoutes(
  segment: string,
  id: string,
  update: KindRoutes['update'],
  options: RouteOptions = {},
): KindRoutes {
  const collection = `${MANAGED_SERVICE}/${segment}`;
  return withOptions({ collection, item: collection, update, singleton: { id } }, options);
}

/** A self-hosted kind at `segment` under the API (`dashboards`); its id placeholder is `id`. */
export function selfHostedRoutes(
  segment: string,
  update: KindRoutes['update'],
  options: RouteOptions = {},
): KindRoutes {
  const collection = `${SELF_HOSTED_API}/${segment}`;
  return withOptions({ collection, item: `${collection}/{id}`, update }, options);
}

function withOptions(routes: KindRoutes, { paged, access, validate }: RouteOptions): KindRoutes {
  if (paged) routes.paged = true;
  if (access) routes.access = access;
  if (validate)
    routes.validate = Object.fromEntries(
      validate.profiles.map((profile) => [profile, `${routes.collection}/${validate.suffix}`]),
    );
  return routes;
}
