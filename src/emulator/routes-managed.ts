/**
 * Routes of the managed variant (seed 4.1, 4.2; api-notes "Managed variant"): pipes and the
 * service's stack (dashboards, alerts, sources), all under one organization and service.
 * Every route: Basic key → path ids are UUIDs → organization (404/403) → service (404/424).
 */
import { authenticateKey } from './auth.js';
import { managedSuccess } from './envelope.js';
import { ApiError, notFound } from './errors.js';
import { isUuid } from './ids.js';
import type { ServiceRecord } from './model.js';
import { createPipe, deletePipe, patchPipe, requirePipe } from './pipes.js';
import type { RequestContext, Route } from './router.js';
import * as stack from './stack.js';

const SERVICE = '/v1/organizations/{organizationId}/services/{serviceId}';

type Handler = (context: RequestContext, service: ServiceRecord) => unknown;

function route(method: string, suffix: string, handler: Handler): Route {
  return {
    method,
    template: `${SERVICE}${suffix}`,
    variant: 'managed',
    handle(context) {
      return managedSuccess(handler(context, resolveService(context)), context.requestId);
    },
  };
}

function resolveService(context: RequestContext): ServiceRecord {
  const { store, params } = context;
  const keyOrganization = authenticateKey(store, context.presented);
  for (const [name, value] of Object.entries(params)) {
    if (!isUuid(value)) throw new ApiError('bad_request', `${name} must be a UUID`, { source: 'params', issues: [{ path: name, pointer: [name], message: 'must be a UUID' }] });
  }
  const organizationId = params['organizationId'] ?? '';
  const organization = store.organization(organizationId);
  if (!organization) throw notFound(`organization ${organizationId} not found`);
  if (organization.id !== keyOrganization) throw new ApiError('forbidden', `the key does not belong to organization ${organizationId}`);
  const serviceId = params['serviceId'] ?? '';
  const service = organization.services.get(serviceId);
  if (!service) throw notFound(`service ${serviceId} not found`);
  if (service.state !== 'running') throw new ApiError('failed_dependency', `service ${serviceId} is ${service.state}, not running`);
  return service;
}

const param = (context: RequestContext, name: string): string => context.params[name] ?? '';
const mutate = <T>(context: RequestContext, change: (nowMs: number) => T): T => context.store.mutate(() => change(context.store.now()));

export const managedRoutes: readonly Route[] = [
  route('GET', '/pipes', (_, service) => [...service.pipes.values()]),
  route('POST', '/pipes', (context, service) => mutate(context, (now) => createPipe(service, context.body, now))),
  route('GET', '/pipes/{pipeId}', (context, service) => requirePipe(service, param(context, 'pipeId'))),
  route('PATCH', '/pipes/{pipeId}', (context, service) => mutate(context, (now) => patchPipe(service, param(context, 'pipeId'), context.body, now))),
  route('DELETE', '/pipes/{pipeId}', (context, service) => mutate(context, () => (deletePipe(service, param(context, 'pipeId')), {}))),

  route('GET', '/stack/dashboards', (_, service) => stack.listDashboards(service.stack)),
  route('POST', '/stack/dashboards', (context, service) => mutate(context, (now) => stack.createDashboard(service.stack, context.body, now))),
  route('GET', '/stack/dashboards/{dashboardId}', (context, service) => stack.getDashboard(service.stack, param(context, 'dashboardId'))),
  route('PUT', '/stack/dashboards/{dashboardId}', (context, service) =>
    mutate(context, (now) => stack.updateDashboard(service.stack, param(context, 'dashboardId'), context.body, now)),
  ),
  route('DELETE', '/stack/dashboards/{dashboardId}', (context, service) =>
    mutate(context, () => (stack.deleteDashboard(service.stack, param(context, 'dashboardId')), {})),
  ),

  route('GET', '/stack/alerts', (_, service) => stack.listAlerts(service.stack)),
  route('POST', '/stack/alerts', (context, service) => mutate(context, (now) => stack.createAlert(service.stack, context.body, now))),
  route('GET', '/stack/alerts/{alertId}', (context, service) => stack.getAlert(service.stack, param(context, 'alertId'))),
  route('PUT', '/stack/alerts/{alertId}', (context, service) =>
    mutate(context, (now) => stack.updateAlert(service.stack, param(context, 'alertId'), context.body, now)),
  ),
  route('DELETE', '/stack/alerts/{alertId}', (context, service) => mutate(context, () => (stack.deleteAlert(service.stack, param(context, 'alertId')), {}))),

  route('GET', '/stack/sources', (_, service) => service.sources),
];
