/**
 * Routes of the managed variant (seed 4.1, 4.2; docs/reference/api-behaviour.md "Managed variant"): pipes and the
 * service's stack (dashboards, alerts, sources), all under one organization and service.
 * Every route: Basic key (checked before routing) → path ids well formed → organization
 * (404/403) → service (404/424). Under the current profile the stack's ids are 24-hex object ids,
 * its kinds follow the current rules (`current/stack-kinds.ts`), the gateway refuses write bodies
 * with members their schema does not name, and a DELETE answers without a `result`.
 */
import { checkGatewayBody } from './current/gateway.js';
import { CURRENT_STACK_ID_NAMES, CURRENT_STACK_KINDS, type StackCall, type StackKind } from './current/stack-kinds.js';
import type { GatewaySchema } from './current/stack-kind.js';
import { managedDone, managedSuccess, type Reply } from './envelope.js';
import { ApiError, notFound } from './errors.js';
import { isIdOfFormat, type IdFormat } from './ids.js';
import { stackOf, type CurrentWorkspace, type Profile, type SeedWorkspace, type ServiceRecord } from './model.js';
import { ALERT_PAGE_LIMIT_MAX } from '../kinds/alert/wire.js';
import { fingerprintWith } from './pipes.js';
import type { RequestContext, Route } from './router.js';
import { pipeRoutes, type PipeRouteOptions } from './routes-pipes.js';
import * as stack from './stack.js';

const SERVICE = '/v1/organizations/{organizationId}/services/{serviceId}';

type Handler = (context: RequestContext, service: ServiceRecord) => unknown;
/** A handler whose answer is not `{status, requestId, result}`. */
type RawHandler = (context: RequestContext, service: ServiceRecord) => Reply;

const ID_NAMES: Record<IdFormat, string> = { uuid: 'a UUID', objectId: 'a 24-hex object id' };

function route(profile: Profile, method: string, suffix: string, handler: Handler): Route {
  return rawRoute(profile, method, suffix, (context, service) =>
    managedSuccess(handler(context, service), context.requestId),
  );
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
  return profile === 'current' && CURRENT_STACK_ID_NAMES.includes(name) ? 'objectId' : 'uuid';
}

function resolveService(context: RequestContext, profile: Profile): ServiceRecord {
  const { store, params, principal } = context;
  if (principal.variant !== 'managed') throw new ApiError('unauthorized', 'missing or malformed Basic credentials');
  for (const [name, value] of Object.entries(params)) {
    const format = idFormatOf(name, profile);
    if (!isIdOfFormat(value, format)) {
      throw new ApiError('bad_request', `${name} must be ${ID_NAMES[format]}`, {
        source: 'params',
        issues: [{ path: name, pointer: [name], message: `must be ${ID_NAMES[format]}` }],
      });
    }
  }
  const organizationId = params['organizationId'] ?? '';
  const organization = store.organization(organizationId);
  if (!organization) throw notFound(`organization ${organizationId} not found`);
  if (organization.id !== principal.organizationId)
    throw new ApiError('forbidden', `the key does not belong to organization ${organizationId}`);
  const serviceId = params['serviceId'] ?? '';
  const service = organization.services.get(serviceId);
  if (!service) throw notFound(`service ${serviceId} not found`);
  if (service.state !== 'running')
    throw new ApiError('failed_dependency', `service ${serviceId} is ${service.state}, not running`);
  return service;
}

const param = (context: RequestContext, name: string): string => context.params[name] ?? '';
const mutate = <T>(context: RequestContext, change: (nowMs: number) => T): T =>
  context.store.mutate(() => change(context.store.now()));

function seedStack(service: ServiceRecord): SeedWorkspace {
  return stackOf(service, 'seed');
}
function currentStack(service: ServiceRecord): CurrentWorkspace {
  return stackOf(service, 'current');
}

const SEED_STACK_ROUTES: Route[] = [
  route('seed', 'GET', '/stack/dashboards', (_, service) => stack.listDashboards(seedStack(service))),
  route('seed', 'POST', '/stack/dashboards', (context, service) =>
    mutate(context, (now) => stack.createDashboard(seedStack(service), context.body, now)),
  ),
  route('seed', 'GET', '/stack/dashboards/{dashboardId}', (context, service) =>
    stack.getDashboard(seedStack(service), param(context, 'dashboardId')),
  ),
  route('seed', 'PUT', '/stack/dashboards/{dashboardId}', (context, service) =>
    mutate(context, (now) =>
      stack.updateDashboard(seedStack(service), param(context, 'dashboardId'), context.body, now),
    ),
  ),
  route('seed', 'DELETE', '/stack/dashboards/{dashboardId}', (context, service) =>
    mutate(context, () => (stack.deleteDashboard(seedStack(service), param(context, 'dashboardId')), {})),
  ),

  route('seed', 'GET', '/stack/alerts', (_, service) => stack.listAlerts(seedStack(service))),
  route('seed', 'POST', '/stack/alerts', (context, service) =>
    mutate(context, (now) => stack.createAlert(seedStack(service), context.body, now)),
  ),
  route('seed', 'GET', '/stack/alerts/{alertId}', (context, service) =>
    stack.getAlert(seedStack(service), param(context, 'alertId')),
  ),
  route('seed', 'PUT', '/stack/alerts/{alertId}', (context, service) =>
    mutate(context, (now) => stack.updateAlert(seedStack(service), param(context, 'alertId'), context.body, now)),
  ),
  route('seed', 'DELETE', '/stack/alerts/{alertId}', (context, service) =>
    mutate(context, () => (stack.deleteAlert(seedStack(service), param(context, 'alertId')), {})),
  ),

  route('seed', 'GET', '/stack/sources', (_, service) => seedStack(service).sources),
];

/** A call of a current-stack operation from a request on a service. */
function stackCall(kind: StackKind, context: RequestContext, service: ServiceRecord): StackCall {
  return {
    ws: currentStack(service),
    id: param(context, kind.idName),
    body: context.body,
    nowMs: context.store.now(),
    fingerprint: fingerprintWith(context.store.credentials),
  };
}

/** A write: the gateway checks the body first (when the write has one), then the operation runs as one mutation. */
function gatewayWrite(
  kind: StackKind,
  gateway: GatewaySchema | undefined,
  operation: (call: StackCall) => unknown,
): Handler {
  return (context, service) => {
    if (gateway) checkGatewayBody(gateway, context.body);
    return context.store.mutate(() => operation(stackCall(kind, context, service)));
  };
}

/** The routes of one current-stack kind: its list (paged where it pages), read and check operations, and writes where the platform allows them. */
function currentKindRoutes(kind: StackKind): Route[] {
  const base = `/stack/${kind.segment}`;
  const item = `${base}/{${kind.idName}}`;
  const { check, get } = kind;
  const routes = [
    // The managed document declares no query parameter on any list, so none is honoured; the
    // lists that page elsewhere say in prose they are capped at 1,000 (docs/emulator.md#the-services-documents).
    route('current', 'GET', base, (_, service) => {
      const all = kind.list(currentStack(service));
      return kind.pagedOn.length > 0 ? all.slice(0, ALERT_PAGE_LIMIT_MAX) : all;
    }),
  ];
  if (check) {
    routes.push(
      route('current', 'POST', `${base}/${check.suffix}`, (context, service) => {
        checkGatewayBody(check.gateway, context.body);
        return check.handle(stackCall(kind, context, service));
      }),
    );
  }
  if (get) routes.push(route('current', 'GET', item, (context, service) => get(stackCall(kind, context, service))));
  if (!kind.writableOn.includes('managed')) return routes;
  const remove = gatewayWrite(kind, undefined, (call) => kind.remove(call));
  return [
    ...routes,
    route(
      'current',
      'POST',
      base,
      gatewayWrite(kind, kind.gateway, (call) => kind.create(call)),
    ),
    route(
      'current',
      'PUT',
      item,
      gatewayWrite(kind, kind.gateway, (call) => kind.update(call)),
    ),
    // A DELETE answers `{status, requestId}` without a `result`.
    rawRoute(
      'current',
      'DELETE',
      item,
      (context, service) => (remove(context, service), managedDone(context.requestId)),
    ),
  ];
}

// A kind the managed API has no path for (connections) answers 404, as the real service does.
const CURRENT_STACK_ROUTES: Route[] = CURRENT_STACK_KINDS.filter((kind) => kind.servedOn.includes('managed')).flatMap(
  currentKindRoutes,
);

/** The managed routes of a profile; `pipes` tunes the pipe routes (lifecycle pace, settings prefix). */
export function managedRoutes(profile: Profile, pipes?: PipeRouteOptions): readonly Route[] {
  return [
    ...pipeRoutes(profile, { route, rawRoute }, pipes),
    ...(profile === 'current' ? CURRENT_STACK_ROUTES : SEED_STACK_ROUTES),
  ];
}
