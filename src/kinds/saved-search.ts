/**
 * SavedSearch: a search of one source that alerts may watch (hyperdx `v2/savedSearches.ts`),
 * naming its source by name (`source: <name>`). PUT is a full replace where every member left out
 * falls back to its default, so the body is the live search with the manifest's members laid over
 * it. Deleting a saved search deletes the alerts on it: the alerts' descriptor orders their own
 * deletes first and says on the delete which alerts go with it.
 */
import { SPEC_SCHEMAS } from '../schema/manifest.js';
import type { LiveRecord } from './kit/record.js';
import { namedReference, recordExport } from './kit/record-export.js';
import { recordKind } from './kit/record-kind.js';
import type { DesiredRecord } from './kit/record-manifests.js';
import { pointerTo, type NameRefs } from './kit/refs.js';
import { managedRoutes, selfHostedRoutes } from './kit/routes.js';
import { warnSourceDeletes } from './kit/source-deletes.js';
import { SAVED_SEARCH } from './saved-search/model.js';
import { SOURCE } from './source/model.js';

export const savedSearchKind = recordKind<typeof SAVED_SEARCH, 'savedSearches'>({
  kind: SAVED_SEARCH,
  collection: 'savedSearches',
  routes: {
    managed: managedRoutes('stack/saved-searches', 'savedSearchId', 'PUT', { paged: true, access: { seed: 'none' } }),
    'self-hosted': selfHostedRoutes('saved-searches', 'PUT', { paged: true, access: { seed: 'none' } }),
  },
  references: [SOURCE],
  rules: { members: savedSearchMembers },
  afterPlan: (plan, input) => warnSourceDeletes(SAVED_SEARCH, input.deletes.get(SOURCE) ?? [], input.live, sourceOf, [...plan.changes, ...(input.deletes.get(SAVED_SEARCH) ?? [])]),
  export: recordExport('saved-search', SPEC_SCHEMAS[SAVED_SEARCH], (live, ctx) => namedReference(ctx, live.members, SOURCE, 'sourceId', { name: 'source', id: 'sourceId' }), {
    namedIds: sourceOf,
  }),
});

/** The saved search as the API takes it: its source by id. */
function savedSearchMembers(desired: DesiredRecord, refs: NameRefs): Record<string, unknown> {
  const { source, sourceId, ...members } = desired.spec;
  const id = typeof source === 'string' ? refs.id(SOURCE, source, pointerTo('sourceId')) : sourceId;
  return { ...members, ...(id === undefined ? {} : { sourceId: id }) };
}

function sourceOf(live: LiveRecord): string[] {
  const id = live.members['sourceId'];
  return typeof id === 'string' ? [id] : [];
}
