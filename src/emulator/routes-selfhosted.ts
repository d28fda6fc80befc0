/**
 * Routes of the self-hosted variant (seed 4.3, 4.4; docs/reference/api-behaviour.md "Self-hosted variant"):
 * dashboards and alerts of the token's team. Another team's ids answer 404 like unknown ones.
 * Under the current profile the team's kinds follow the current rules (`current/stack-kinds.ts`):
 * dashboards, alerts, sources, connections, webhooks and saved searches.
 */
import { CURRENT_STACK_KINDS, type StackCall, type StackKind } from './current/stack-kinds.js';
import { jsonReply, type Reply } from './envelope.js';
import { ApiError } from './errors.js';
import { isObjectId } from './ids.js';
import { pageOf, parsePaging } from './paging.js';
import { fingerprintWith } from './pipes.js';
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
        throw new ApiError('bad_request', 'invalid id', {
          source: 'params',
          issues: [{ path: 'id', pointer: ['id'], message: 'must be a 24-hex object id' }],
        });
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
const mutate = <T>(context: RequestContext, change: (nowMs: number) => T): T =>
  context.store.mutate(() => change(context.store.now()));
const deleted = (): Reply => jsonReply(200, {});

/** One page of a list, with `meta` and `X-Total-Count` as the real lists answer. */
function page(context: RequestContext, all: readonly unknown[]): Reply {
  const paging = parsePaging(context.query);
  return jsonReply(
    200,
    { data: pageOf(all, paging), meta: { total: all.length, ...paging } },
    { 'X-Total-Count': String(all.length) },
  );
}

const SEED_ROUTES: readonly Route[] = [
  route('GET', '/api/v2/dashboards', (_, team) => data(stack.listDashboards(seedStack(team)))),
  route('POST', '/api/v2/dashboards', (context, team) =>
    data(mutate(context, (now) => stack.createDashboard(seedStack(team), context.body, now))),
  ),
  route('GET', '/api/v2/dashboards/{id}', (context, team) => data(stack.getDashboard(seedStack(team), id(context)))),
  route('PUT', '/api/v2/dashboards/{id}', (context, team) =>
    data(mutate(context, (now) => stack.updateDashboard(seedStack(team), id(context), context.body, now))),
  ),
  route(
    'DELETE',
    '/api/v2/dashboards/{id}',
    (context, team) => (mutate(context, () => stack.deleteDashboard(seedStack(team), id(context))), deleted()),
  ),

  route('GET', '/api/v2/alerts', (context, team) => page(context, stack.listAlerts(seedStack(team)))),
  route('POST', '/api/v2/alerts', (context, team) =>
    data(mutate(context, (now) => stack.createAlert(seedStack(team), context.body, now))),
  ),
  route('GET', '/api/v2/alerts/{id}', (context, team) => data(stack.getAlert(seedStack(team), id(context)))),
  route('PUT', '/api/v2/alerts/{id}', (context, team) =>
    data(mutate(context, (now) => stack.updateAlert(seedStack(team), id(context), context.body, now))),
  ),
  route(
    'DELETE',
    '/api/v2/alerts/{id}',
    (context, team) => (mutate(context, () => stack.deleteAlert(seedStack(team), id(context))), deleted()),
  ),
];

/** A call of a current-stack operation from a request of a team. */
function stackCall(context: RequestContext, team: TeamRecord): StackCall {
  return {
    ws: currentStack(team),
    id: id(context),
    body: context.body,
    nowMs: context.store.now(),
    fingerprint: fingerprintWith(context.store.credentials),
  };
}

/** The routes of one current-stack kind: its list (paged where it pages), its operations, and a check answered bare. */
function currentKindRoutes(kind: StackKind): Route[] {
  const base = `/api/v2/${kind.segment}`;
  const item = `${base}/{id}`;
  const { check, get } = kind;
  const write = (operation: (call: StackCall) => unknown) => (context: RequestContext, team: TeamRecord) =>
    context.store.mutate(() => operation(stackCall(context, team)));
  return [
    route('GET', base, (context, team) =>
      kind.pagedOn.includes('self-hosted')
        ? page(context, kind.list(currentStack(team)))
        : data(kind.list(currentStack(team))),
    ),
    ...(check
      ? [
          route('POST', `${base}/${check.suffix}`, (context, team) =>
            jsonReply(200, check.handle(stackCall(context, team))),
          ),
        ]
      : []),
    ...(get ? [route('GET', item, (context, team) => data(get(stackCall(context, team))))] : []),
    route('POST', base, (context, team) => data(write((call) => kind.create(call))(context, team))),
    route('PUT', item, (context, team) => data(write((call) => kind.update(call))(context, team))),
    route('DELETE', item, (context, team) => (write((call) => kind.remove(call))(context, team), deleted())),
  ];
}

const CURRENT_ROUTES: readonly Route[] = CURRENT_STACK_KINDS.filter((kind) =>
  kind.servedOn.includes('self-hosted'),
).flatMap(currentKindRoutes);

/** The self-hosted routes of a profile. */
export function selfHostedRoutes(profile: Profile): readonly Route[] {
  return profile === 'current' ? CURRENT_ROUTES : SEED_ROUTES;
}
