/**
 * Alert: an alert on a dashboard tile or a saved search, on both variants. A tile alert names its
 * dashboard and tile by manifest name, so it is written after the dashboards it names and deleted
 * before them; the server deletes an alert with the tile it watches, which the plan orders around.
 */
import { changeKey, type Change, type ChangeKey } from '../../model/plan.js';
import type { Kind } from '../../model/kinds.js';
import { StacksyncError } from '../../errors.js';
import type { ApiProfile } from '../../schema/enums.js';
import { defineKind } from '../descriptor.js';
import { tileRemovalsOf, orderCascades } from './cascade.js';
import { planAlerts } from './diff.js';
import { alertExport } from './export.js';
import { alertManifests, type AlertManifest } from './manifests.js';
import { ALERT, type DesiredAlert, type LiveAlert } from './model.js';
import { orderSavedSearchDeletes, orderWebhookDeletes } from './deletes.js';
import { toLiveAlert } from './read.js';
import { DASHBOARD, isLiveDashboard } from '../dashboard/model.js';
import { changeKeyAt, fillPointers, pointerChanges } from '../shared/refs.js';
import { managedRoutes, selfHostedRoutes } from '../shared/routes.js';
import { SAVED_SEARCH } from '../saved-search/model.js';
import { WEBHOOK } from '../webhook/model.js';
import { alertDocumentSchema } from './schema.js';

/** How each profile's servers spell a saved-search alert's `source` (the model says `saved_search`). */
const SAVED_SEARCH_SOURCE_OF: Record<ApiProfile, string> = { seed: 'search', current: 'saved_search' };

/** Live id → `Kind/name` of this plan's deletes of `kinds`. */
function deletedById(deletes: ReadonlyMap<Kind, readonly Change[]>, kinds: readonly Kind[]): Map<string, ChangeKey> {
  return new Map(
    kinds.flatMap((kind) =>
      (deletes.get(kind) ?? []).flatMap((change) =>
        change.id === undefined ? [] : [[change.id, changeKey(kind, change.name)] as const],
      ),
    ),
  );
}

export const alertKind = defineKind<DesiredAlert, LiveAlert, AlertManifest, typeof ALERT, 'alerts'>({
  kind: ALERT,
  collection: 'alerts',
  schema: alertDocumentSchema,
  // Self-hosted alert lists are paged: a client that does not page misses alerts past the first 1,000.
  routes: {
    managed: managedRoutes('stack/alerts', 'alertId', 'PUT'),
    'self-hosted': selfHostedRoutes('alerts', 'PUT', { paged: true }),
  },
  identity: 'name',
  references: [DASHBOARD, SAVED_SEARCH, WEBHOOK],
  createOnly: [],
  manifests: alertManifests,
  reader: { read: toLiveAlert, statusMembers: ['state', 'silenced'] },
  // Only the saved-search source is spelled differently between profiles.
  writes: {
    spell: (body, profile) => {
      const isSearch = body['source'] === 'search' || body['source'] === 'saved_search';
      return isSearch ? { ...body, source: SAVED_SEARCH_SOURCE_OF[profile] } : body;
    },
  },
  refs: {
    changes: (refs) => [...changeKeyAt(refs, 'dashboard', DASHBOARD), ...pointerChanges(refs)],
    // The dashboard written earlier in this run gives the ids of the tile named; saved searches and webhooks their own.
    fill: (body, refs, written) => {
      const filled = fillPointers(body, refs, written);
      const [key] = changeKeyAt(refs, 'dashboard', DASHBOARD);
      const made = key === undefined ? undefined : written(key);
      const dashboard = made !== undefined && isLiveDashboard(made) ? made : undefined;
      if (!key || !dashboard) return filled;
      const tile = dashboard.tiles.find((candidate) => candidate.name === refs['tile']);
      if (!tile)
        throw new StacksyncError(
          'E_REF_UNRESOLVED',
          `${key} has no tile named "${refs['tile'] ?? ''}" after it was written`,
          { subject: key },
        );
      return { ...filled, dashboardId: dashboard.id, tileId: tile.id };
    },
  },
  plan: (input) => {
    const dashboards = input.planned.get(DASHBOARD)?.outcome ?? [];
    const dashboardDeletes = input.deletes.get(DASHBOARD) ?? [];
    const removals = tileRemovalsOf(dashboards, dashboardDeletes, input.liveOf(DASHBOARD));
    const outcomes = planAlerts(
      {
        target: input.target,
        profile: input.profile,
        refer: input.refer,
        liveAlerts: input.live,
        unreadable: input.unreadable,
        liveDashboards: input.liveOf(DASHBOARD),
        state: input.state,
        timing: input.timing,
        adopt: input.adopt,
        dashboards: new Map(dashboards.map((outcome) => [outcome.key, outcome])),
        deleted: deletedById(input.deletes, [WEBHOOK, SAVED_SEARCH]),
        ...removals,
      },
      input.desired,
    );
    // Guard against the server's cascade deletes of alerts.
    const dashboardChanges = new Map([...dashboards.map((o) => o.change), ...dashboardDeletes].map((c) => [c.name, c]));
    const alertDeletes = input.deletes.get(ALERT) ?? [];
    orderCascades({
      live: input.live,
      alerts: outcomes,
      alertDeletes,
      dashboardDeletes,
      dashboardChanges,
      ...removals,
    });
    // A webhook's delete waits for the alerts that move off it (the server refuses it while one notifies it);
    // a saved search's for those on it (it deletes them).
    const standing = { live: input.live, alerts: outcomes, alertDeletes };
    orderWebhookDeletes(input.deletes.get(WEBHOOK) ?? [], standing);
    orderSavedSearchDeletes(input.deletes.get(SAVED_SEARCH) ?? [], standing);
    return { changes: outcomes.map((outcome) => outcome.change) };
  },
  prune: { allowed: () => true, forgetWhenGone: true },
  export: alertExport,
});

// What the kinds that read this one get of it (`KindTypes`, in `../descriptor.ts`).
declare module '../../model/kinds.js' {
  interface KindTypes {
    [ALERT]: typeof alertKind;
  }
}
