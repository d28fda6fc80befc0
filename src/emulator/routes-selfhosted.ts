/**
 * Routes of the self-hosted variant (seed 4.3, 4.4; api-notes "Self-hosted variant"):
 * dashboards and alerts of the token's team. Another team's ids answer 404 like unknown ones.
 */
import { ALERT_PAGE_LIMIT_MAX } from '../schema/enums.js';
import type { SchemaIssue } from '../schema/validate.js';
import { authenticateToken } from './auth.js';
import { jsonReply, type Reply } from './envelope.js';
import { ApiError } from './errors.js';
import { isObjectId } from './ids.js';
import type { Workspace } from './model.js';
import type { RequestContext, Route } from './router.js';
import * as stack from './stack.js';

type Handler = (context: RequestContext, ws: Workspace) => Reply;

function route(method: string, template: string, handler: Handler): Route {
  return {
    method,
    template,
    variant: 'self-hosted',
    handle(context) {
      const team = authenticateToken(context.store, context.presented);
      const id = context.params['id'];
      if (id !== undefined && !isObjectId(id)) {
        throw new ApiError('bad_request', 'invalid id', { source: 'params', issues: [{ path: 'id', pointer: ['id'], message: 'must be a 24-hex object id' }] });
      }
      return handler(context, team.stack);
    },
  };
}

const data = (value: unknown): Reply => jsonReply(200, { data: value });
const id = (context: RequestContext): string => context.params['id'] ?? '';
const mutate = <T>(context: RequestContext, change: (nowMs: number) => T): T => context.store.mutate(() => change(context.store.now()));

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

function listAlertsPage(context: RequestContext, ws: Workspace): Reply {
  const { limit, offset } = parsePaging(context.query);
  const all = stack.listAlerts(ws);
  const page = all.slice(offset, offset + limit);
  return jsonReply(200, { data: page, meta: { total: all.length, limit, offset } }, { 'X-Total-Count': String(all.length) });
}

export const selfHostedRoutes: readonly Route[] = [
  route('GET', '/api/v2/dashboards', (_, ws) => data(stack.listDashboards(ws))),
  route('POST', '/api/v2/dashboards', (context, ws) => data(mutate(context, (now) => stack.createDashboard(ws, context.body, now)))),
  route('GET', '/api/v2/dashboards/{id}', (context, ws) => data(stack.getDashboard(ws, id(context)))),
  route('PUT', '/api/v2/dashboards/{id}', (context, ws) => data(mutate(context, (now) => stack.updateDashboard(ws, id(context), context.body, now)))),
  route('DELETE', '/api/v2/dashboards/{id}', (context, ws) => (mutate(context, () => stack.deleteDashboard(ws, id(context))), jsonReply(200, {}))),

  route('GET', '/api/v2/alerts', listAlertsPage),
  route('POST', '/api/v2/alerts', (context, ws) => data(mutate(context, (now) => stack.createAlert(ws, context.body, now)))),
  route('GET', '/api/v2/alerts/{id}', (context, ws) => data(stack.getAlert(ws, id(context)))),
  route('PUT', '/api/v2/alerts/{id}', (context, ws) => data(mutate(context, (now) => stack.updateAlert(ws, id(context), context.body, now)))),
  route('DELETE', '/api/v2/alerts/{id}', (context, ws) => (mutate(context, () => stack.deleteAlert(ws, id(context))), jsonReply(200, {}))),
];
