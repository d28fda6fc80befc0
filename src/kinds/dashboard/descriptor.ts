/**
 * Dashboard: an observability dashboard with its tiles, on both variants. Matched by API name;
 * an update sends the whole tile list (PUT) with the live ids of same-named tiles, so the alerts
 * watching them keep working. Tiles and filters name their sources by name (`source: <name>`),
 * resolved to ids, also of sources created in the same run. Tiles are sent in the form the target
 * speaks (`profile-form.ts`). Where the target offers `dashboards/validate`, `plan` asks it about every
 * dashboard it would write. Pruned on the inventory's proof.
 */
import type { WriteBody } from '../../model/plan.js';
import { defineKind, type KindPlanInput } from '../descriptor.js';
import { CONNECTION } from '../connection/model.js';
import { planDashboards, type DashboardOutcome } from './diff.js';
import { dashboardExport, sourceIdsOf } from './export.js';
import type { HiddenTileEvidence } from './hidden.js';
import { dashboardManifests, type DashboardManifest } from './manifests.js';
import { DASHBOARD, type DesiredDashboard, type LiveDashboard } from './model.js';
import { toLiveDashboard } from './read.js';
import { ALERT } from '../alert/model.js';
import { POINTER_REFS } from '../shared/refs.js';
import { isRecord } from '../shared/values.js';
import { managedRoutes, selfHostedRoutes } from '../shared/routes.js';
import { warnSourceDeletes } from '../shared/source-deletes.js';
import { SOURCE } from '../source/model.js';
import { dashboardDocumentSchema } from './schema.js';

export const dashboardKind = defineKind<
  DesiredDashboard,
  LiveDashboard,
  DashboardManifest,
  typeof DASHBOARD,
  'dashboards',
  DashboardOutcome[]
>({
  kind: DASHBOARD,
  collection: 'dashboards',
  schema: dashboardDocumentSchema,
  routes: {
    managed: managedRoutes('stack/dashboards', 'dashboardId', 'PUT', {
      validate: { suffix: 'validate', profiles: ['current'] },
    }),
    'self-hosted': selfHostedRoutes('dashboards', 'PUT', { validate: { suffix: 'validate', profiles: ['current'] } }),
  },
  identity: 'name',
  references: [SOURCE],
  createOnly: [],
  manifests: dashboardManifests,
  reader: { read: toLiveDashboard, statusMembers: [] },
  // The service assigns the ids of tiles and filters on create; a filter sent with one is refused.
  writes: { createBody },
  refs: POINTER_REFS,
  plan: (input) => {
    const outcomes = planDashboards(
      {
        target: input.target,
        profile: input.profile,
        live: input.live,
        unreadable: input.unreadable,
        state: input.state,
        timing: input.timing,
        adopt: input.adopt,
        refer: input.refer,
        hidden: once(() => evidence(input)),
      },
      input.desired,
    );
    const changes = outcomes.map((outcome) => outcome.change);
    warnSourceDeletes(DASHBOARD, input.deletes.get(SOURCE) ?? [], input.live, sourceIdsOf, [
      ...changes,
      ...(input.deletes.get(DASHBOARD) ?? []),
    ]);
    return { changes, outcome: outcomes };
  },
  prune: { allowed: () => true, forgetWhenGone: true },
  export: dashboardExport,
  // Both services' dashboards have `tags` (a PUT without them keeps the live ones).
  tags: { member: 'tags', of: (live) => live.tags, withTags: (live, tags) => ({ ...live, tags: [...tags] }) },
});

// What the kinds that read this one get of it (`KindTypes`, in `../descriptor.ts`).
declare module '../../model/kinds.js' {
  interface KindTypes {
    [DASHBOARD]: typeof dashboardKind;
  }
}

function createBody(body: WriteBody): WriteBody {
  const listed = body['tiles'];
  const tiles = (Array.isArray(listed) ? listed.filter(isRecord) : []).map(({ id: _ignored, ...tile }) => tile);
  const filters = body['filters'];
  return {
    ...body,
    tiles,
    ...(Array.isArray(filters) ? { filters: filters.map(({ id: _id, ...filter }: WriteBody) => filter) } : {}),
  };
}

function once<T>(compute: () => T): () => T {
  let value: { of: T } | undefined;
  return () => (value ??= { of: compute() }).of;
}

/** What the target's live state tells of tiles a GET leaves out: the alerts, and what serves PromQL. */
function evidence(input: KindPlanInput<DesiredDashboard, LiveDashboard>): HiddenTileEvidence {
  const sources = input.liveOf(SOURCE).filter((source) => source.members['kind'] === 'promql');
  const connections = input
    .liveOf(CONNECTION)
    .filter((connection) => connection.members['isPrometheusEndpoint'] === true);
  return {
    alerts: input.liveOf(ALERT),
    promql: [
      ...sources.map((source) => `source "${source.name}"`),
      ...connections.map((connection) => `connection "${connection.name}"`),
    ],
  };
}
