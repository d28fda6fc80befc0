/**
 * Routes of the managed variant (seed 4.1, 4.2; api-notes "Managed variant"): pipes and the
 * service's stack (dashboards, alerts, sources), all under one organization and service.
 * Every route: Basic key (checked before routing) → path ids well formed → organization
 * (404/403) → service (404/424). Under the current profile the stack's ids are 24-hex object ids,
 * its dashboards and alerts follow the current rules, webhooks can be listed, and a DELETE
 * answers without a `result`.
 */
import * as currentAlerts from './current/alerts.js';
import * as currentDashboards from './current/dashboards.js';
import { managedDone, managedSuccess, type Reply } from './envelope.js';
import { ApiError, notFound } from './errors.js';
import { isIdOfFormat, type IdFormat } from './ids.js';
import { stackOf, type CurrentWorkspace, type Profile, type SeedWorkspace, type ServiceRecord } from './model.js';
import type { RequestContext, Route } from './router.js';
import { pipeRoutes, type PipeRouteOptions } from './routes-pipes.js';
import * as stack from './stack.js';

const SERVICE = '/v1/organizations/{organizationId}/services/{serviceId}';

type Handler = (context: RequestContext, service: ServiceRecord) => unknown;
/** A handler whose answer is not `{status, requestId, result}`. */
type RawHandler = (context: RequestContext, service: ServiceRecord) => Reply;

const ID_NAMES: Record<IdFormat, string> = { uuid: 'a UUID', objectId: 'a 24-hex object id' };

function route(profile: Profile, method: string, suffix: string, handler: Handler): Route {
  return rawRoute(profile, method, suffix, (context, service) => managedSuccess(handler(context, service), context.requestId));
}

function rawRoute(profile: Profile, method: string, suffix: string, handler: RawHandler): Route {
  return {
    method,
    template: `${SERVICE}${suffix}`,
    variant: 'managed',
    handle(context) {
      return handler(context, resolveService(context, profile));
    },
  };
}

/** The format of each path id: organizations, services and pipes are UUIDs; the stack's resources are object ids under `current`. */
function idFormatOf(name: string, profile: Profile): IdFormat {
  return profile === 'current' && (name === 'dashboardId' || name === 'alertId') ? 'objectId' : 'uuid';
}

function resolveService(context: RequestContext, profile: Profile): ServiceRecord {
  const { store, params, principal } = context;
  if (principal.variant !== 'managed') throw new ApiError('unauthorized', 'missing or malformed Basic credentials');
  for (const [name, value] of Object.entries(params)) {
    const format = idFormatOf(name, profile);
    if (!isIdOfFormat(value, format)) {
      throw new ApiError('bad_request', `${name} must be ${ID_NAMES[format]}`, { source: 'params', issues: [{ path: name, pointer: [name], message: `must be ${ID_NAMES[format]}` }] });
    }
  }
  const organizationId = params['organizationId'] ?? '';
  const organization = store.organization(organizationId);
  if (!organization) throw notFound(`organization ${organizationId} not found`);
  if (organization.id !== principal.organizationId) throw new ApiError('forbidden', `the key does not belong to organization ${organizationId}`);
  const serviceId = params['serviceId'] ?? '';
  const service = organization.services.get(serviceId);
  if (!service) throw notFound(`service ${serviceId} not found`);
  if (service.state !== 'running') throw new ApiError('failed_dependency', `service ${serviceId} is ${service.state}, not running`);
  return service;
}

const param = (context: RequestContext, name: string): string => context.params[name] ?? '';
const mutate = <T>(context: RequestContext, change: (nowMs: number) => T): T => context.store.mutate(() => change(context.store.now()));

function seedStack(service: ServiceRecord): SeedWorkspace {
  return stackOf(service, 'seed');
}
function currentStack(service: ServiceRecord): CurrentWorkspace {
  return stackOf(service, 'current');
}

const SEED_STACK_ROUTES: Route[] = [
  route('seed', 'GET', '/stack/dashboards', (_, service) => stack.listDashboards(seedStack(service))),
  route('seed', 'POST', '/stack/dashboards', (context, service) => mutate(context, (now) => stack.createDashboard(seedStack(service), context.body, now))),
  route('seed', 'GET', '/stack/dashboards/{dashboardId}', (context, service) => stack.getDashboard(seedStack(service), param(context, 'dashboardId'))),
  route('seed', 'PUT', '/stack/dashboards/{dashboardId}', (context, service) =>
    mutate(context, (now) => stack.updateDashboard(seedStack(service), param(context, 'dashboardId'), context.body, now)),
  ),
  route('seed', 'DELETE', '/stack/dashboards/{dashboardId}', (context, service) =>
    mutate(context, () => (stack.deleteDashboard(seedStack(service), param(context, 'dashboardId')), {})),
  ),

  route('seed', 'GET', '/stack/alerts', (_, service) => stack.listAlerts(seedStack(service))),
  route('seed', 'POST', '/stack/alerts', (context, service) => mutate(context, (now) => stack.createAlert(seedStack(service), context.body, now))),
  route('seed', 'GET', '/stack/alerts/{alertId}', (context, service) => stack.getAlert(seedStack(service), param(context, 'alertId'))),
  route('seed', 'PUT', '/stack/alerts/{alertId}', (context, service) =>
    mutate(context, (now) => stack.updateAlert(seedStack(service), param(context, 'alertId'), context.body, now)),
  ),
  route('seed', 'DELETE', '/stack/alerts/{alertId}', (context, service) => mutate(context, () => (stack.deleteAlert(seedStack(service), param(context, 'alertId')), {}))),

  route('seed', 'GET', '/stack/sources', (_, service) => seedStack(service).sources),
];

const deleted = (context: RequestContext): Reply => managedDone(context.requestId);

const CURRENT_STACK_ROUTES: Route[] = [
  route('current', 'GET', '/stack/dashboards', (_, service) => currentDashboards.listDashboards(currentStack(service))),
  route('current', 'POST', '/stack/dashboards', (context, service) => mutate(context, (now) => currentDashboards.createDashboard(currentStack(service), context.body, now))),
  route('current', 'GET', '/stack/dashboards/{dashboardId}', (context, service) => currentDashboards.getDashboard(currentStack(service), param(context, 'dashboardId'))),
  route('current', 'PUT', '/stack/dashboards/{dashboardId}', (context, service) =>
    mutate(context, (now) => currentDashboards.updateDashboard(currentStack(service), param(context, 'dashboardId'), context.body, now)),
  ),
  rawRoute('current', 'DELETE', '/stack/dashboards/{dashboardId}', (context, service) => {
    mutate(context, () => currentDashboards.deleteDashboard(currentStack(service), param(context, 'dashboardId')));
    return deleted(context);
  }),

  route('current', 'GET', '/stack/alerts', (_, service) => currentAlerts.listAlerts(currentStack(service))),
  route('current', 'POST', '/stack/alerts', (context, service) => mutate(context, (now) => currentAlerts.createAlert(currentStack(service), context.body, now))),
  route('current', 'GET', '/stack/alerts/{alertId}', (context, service) => currentAlerts.getAlert(currentStack(service), param(context, 'alertId'))),
  route('current', 'PUT', '/stack/alerts/{alertId}', (context, service) =>
    mutate(context, (now) => currentAlerts.updateAlert(currentStack(service), param(context, 'alertId'), context.body, now)),
  ),
  rawRoute('current', 'DELETE', '/stack/alerts/{alertId}', (context, service) => {
    mutate(context, () => currentAlerts.deleteAlert(currentStack(service), param(context, 'alertId')));
    return deleted(context);
  }),

  route('current', 'GET', '/stack/sources', (_, service) => currentStack(service).sources),
  route('current', 'GET', '/stack/webhooks', (_, service) => currentStack(service).webhooks),
];

/** The managed routes of a profile; `pipes` tunes the pipe routes (lifecycle pace, settings prefix). */
export function managedRoutes(profile: Profile, pipes?: PipeRouteOptions): readonly Route[] {
  return [...pipeRoutes(profile, { route, rawRoute }, pipes), ...(profile === 'current' ? CURRENT_STACK_ROUTES : SEED_STACK_ROUTES)];
}
