/**
 * Routes of the self-hosted variant (seed 4.3, 4.4; api-notes "Self-hosted variant"):
 * dashboards and alerts of the token's team. Another team's ids answer 404 like unknown ones.
 * Under the current profile they follow the current rules, and the team's sources and webhooks
 * can be listed.
 */
import { ALERT_PAGE_LIMIT_MAX } from '../schema/enums.js';
import type { SchemaIssue } from '../schema/validate.js';
import * as currentAlerts from './current/alerts.js';
import * as currentDashboards from './current/dashboards.js';
import { jsonReply, type Reply } from './envelope.js';
import { ApiError } from './errors.js';
import { isObjectId } from './ids.js';
import { stackOf, type CurrentWorkspace, type Profile, type SeedWorkspace, type TeamRecord } from './model.js';
import type { RequestContext, Route } from './router.js';
import * as stack from './stack.js';

type Handler = (context: RequestContext, team: TeamRecord) => Reply;

function route(method: string, template: string, handler: Handler): Route {
  return {
    method,
    template,
    variant: 'self-hosted',
    handle(context) {
      const { principal } = context;
      if (principal.variant !== 'self-hosted') throw new ApiError('unauthorized', 'missing or invalid bearer token');
      const id = context.params['id'];
      if (id !== undefined && !isObjectId(id)) {
        throw new ApiError('bad_request', 'invalid id', { source: 'params', issues: [{ path: 'id', pointer: ['id'], message: 'must be a 24-hex object id' }] });
      }
      return handler(context, principal.team);
    },
  };
}

function seedStack(team: TeamRecord): SeedWorkspace {
  return stackOf(team, 'seed');
}
function currentStack(team: TeamRecord): CurrentWorkspace {
  return stackOf(team, 'current');
}

const data = (value: unknown): Reply => jsonReply(200, { data: value });
const id = (context: RequestContext): string => context.params['id'] ?? '';
const mutate = <T>(context: RequestContext, change: (nowMs: number) => T): T => context.store.mutate(() => change(context.store.now()));
const deleted = (): Reply => jsonReply(200, {});

/** `limit` 1..1000 (default 1000) and `offset` ≥ 0 (default 0); a bad value is a 400 naming it. */
export function parsePaging(query: URLSearchParams): { limit: number; offset: number } {
  const issues: SchemaIssue[] = [];
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const text = query.get(name);
    if (text === null) return fallback;
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    issues.push({ path: name, pointer: [name], message: `must be an integer from ${min} to ${max}` });
    return fallback;
  };
  const paging = { limit: read('limit', ALERT_PAGE_LIMIT_MAX, 1, ALERT_PAGE_LIMIT_MAX), offset: read('offset', 0, 0, Number.MAX_SAFE_INTEGER) };
  if (issues.length) throw new ApiError('bad_request', 'invalid query', { source: 'query', issues });
  return paging;
}

/** One page of a list, with `meta` and `X-Total-Count` as the real lists answer. */
function page(context: RequestContext, all: readonly unknown[]): Reply {
  const { limit, offset } = parsePaging(context.query);
  return jsonReply(200, { data: all.slice(offset, offset + limit), meta: { total: all.length, limit, offset } }, { 'X-Total-Count': String(all.length) });
}

const SEED_ROUTES: readonly Route[] = [
  route('GET', '/api/v2/dashboards', (_, team) => data(stack.listDashboards(seedStack(team)))),
  route('POST', '/api/v2/dashboards', (context, team) => data(mutate(context, (now) => stack.createDashboard(seedStack(team), context.body, now)))),
  route('GET', '/api/v2/dashboards/{id}', (context, team) => data(stack.getDashboard(seedStack(team), id(context)))),
  route('PUT', '/api/v2/dashboards/{id}', (context, team) => data(mutate(context, (now) => stack.updateDashboard(seedStack(team), id(context), context.body, now)))),
  route('DELETE', '/api/v2/dashboards/{id}', (context, team) => (mutate(context, () => stack.deleteDashboard(seedStack(team), id(context))), deleted())),

  route('GET', '/api/v2/alerts', (context, team) => page(context, stack.listAlerts(seedStack(team)))),
  route('POST', '/api/v2/alerts', (context, team) => data(mutate(context, (now) => stack.createAlert(seedStack(team), context.body, now)))),
  route('GET', '/api/v2/alerts/{id}', (context, team) => data(stack.getAlert(seedStack(team), id(context)))),
  route('PUT', '/api/v2/alerts/{id}', (context, team) => data(mutate(context, (now) => stack.updateAlert(seedStack(team), id(context), context.body, now)))),
  route('DELETE', '/api/v2/alerts/{id}', (context, team) => (mutate(context, () => stack.deleteAlert(seedStack(team), id(context))), deleted())),
];

const CURRENT_ROUTES: readonly Route[] = [
  route('GET', '/api/v2/dashboards', (_, team) => data(currentDashboards.listDashboards(currentStack(team)))),
  route('POST', '/api/v2/dashboards', (context, team) => data(mutate(context, (now) => currentDashboards.createDashboard(currentStack(team), context.body, now)))),
  route('GET', '/api/v2/dashboards/{id}', (context, team) => data(currentDashboards.getDashboard(currentStack(team), id(context)))),
  route('PUT', '/api/v2/dashboards/{id}', (context, team) => data(mutate(context, (now) => currentDashboards.updateDashboard(currentStack(team), id(context), context.body, now)))),
  route('DELETE', '/api/v2/dashboards/{id}', (context, team) => (mutate(context, () => currentDashboards.deleteDashboard(currentStack(team), id(context))), deleted())),

  route('GET', '/api/v2/alerts', (context, team) => page(context, currentAlerts.listAlerts(currentStack(team)))),
  route('POST', '/api/v2/alerts', (context, team) => data(mutate(context, (now) => currentAlerts.createAlert(currentStack(team), context.body, now)))),
  route('GET', '/api/v2/alerts/{id}', (context, team) => data(currentAlerts.getAlert(currentStack(team), id(context)))),
  route('PUT', '/api/v2/alerts/{id}', (context, team) => data(mutate(context, (now) => currentAlerts.updateAlert(currentStack(team), id(context), context.body, now)))),
  route('DELETE', '/api/v2/alerts/{id}', (context, team) => (mutate(context, () => currentAlerts.deleteAlert(currentStack(team), id(context))), deleted())),

  route('GET', '/api/v2/sources', (_, team) => data(currentStack(team).sources)),
  route('GET', '/api/v2/webhooks', (context, team) => page(context, currentStack(team).webhooks)),
];

/** The self-hosted routes of a profile. */
export function selfHostedRoutes(profile: Profile): readonly Route[] {
  return profile === 'current' ? CURRENT_ROUTES : SEED_ROUTES;
}
