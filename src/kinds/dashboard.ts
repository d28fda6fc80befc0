/**
 * Dashboard: an observability dashboard with its tiles, on both variants. Matched by API name;
 * an update sends the whole tile list (PUT) with the live ids of same-named tiles, so the alerts
 * watching them keep working. Pruned on the inventory's proof.
 */
import { DOCUMENT_SCHEMAS } from '../schema/manifest.js';
import { defineKind } from './descriptor.js';
import { planDashboards } from './dashboard/diff.js';
import { dashboardExport } from './dashboard/export.js';
import { dashboardManifests, type DashboardManifest } from './dashboard/manifests.js';
import { DASHBOARD, type DesiredDashboard, type LiveDashboard, type TileWrite } from './dashboard/model.js';
import { namesSources, resolveSourceNames } from './dashboard/names.js';
import { toLiveDashboard } from './dashboard/read.js';
import { managedRoutes, selfHostedRoutes } from './kit/routes.js';

export const dashboardKind = defineKind<DesiredDashboard, LiveDashboard, DashboardManifest, typeof DASHBOARD, 'dashboards'>({
  kind: DASHBOARD,
  collection: 'dashboards',
  schema: DOCUMENT_SCHEMAS[DASHBOARD],
  routes: { managed: managedRoutes('stack/dashboards', 'dashboardId', 'PUT'), 'self-hosted': selfHostedRoutes('dashboards', 'PUT') },
  identity: 'name',
  references: [],
  createOnly: [],
  manifests: dashboardManifests,
  reader: { read: toLiveDashboard, statusMembers: [] },
  // The service assigns tile ids on create; ids sent along would be ignored, so none are sent.
  writes: { createBody: (body) => ({ ...body, tiles: ((body['tiles'] ?? []) as TileWrite[]).map(({ id: _ignored, ...tile }) => tile) }) },
  names: {
    uses: (dashboard) => (namesSources(dashboard) ? ['sources'] : []),
    resolve: (dashboard, lists, target) => resolveSourceNames(dashboard, lists.sources ?? [], target),
  },
  plan: (input) => {
    const outcomes = planDashboards({ target: input.target, live: input.live, unreadable: input.unreadable, unresolved: input.unresolved, state: input.state, timing: input.timing, adopt: input.adopt }, input.desired);
    return { changes: outcomes.map((outcome) => outcome.change), outcome: outcomes };
  },
  prune: { allowed: () => true, forgetWhenGone: true },
  export: dashboardExport,
});
