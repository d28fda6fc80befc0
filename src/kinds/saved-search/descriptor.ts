/**
 * SavedSearch: a search of one source that alerts may watch (hyperdx `v2/savedSearches.ts`),
 * naming its source by name (`source: <name>`). PUT is a full replace where every member left out
 * falls back to its default, so the body is the live search with the manifest's members laid over
 * it. Deleting a saved search deletes the alerts on it: the alerts' descriptor orders their own
 * deletes first and says on the delete which alerts go with it.
 */
import { idsAt, namedReference, flatExport } from '../shared/flat-export.js';
import { flatKind } from '../shared/flat-kind.js';
import { withIdOf } from '../shared/refs.js';
import { managedRoutes, selfHostedRoutes } from '../shared/routes.js';
import { warnSourceDeletes } from '../shared/source-deletes.js';
import { SAVED_SEARCH } from './model.js';
import { SOURCE } from '../source/model.js';
import { savedSearchDocumentSchema, savedSearchSpecSchema } from './schema.js';

const sourceOf = idsAt('sourceId');

export const savedSearchKind = flatKind<typeof SAVED_SEARCH, 'savedSearches'>({
  kind: SAVED_SEARCH,
  schema: savedSearchDocumentSchema,
  collection: 'savedSearches',
  routes: {
    managed: managedRoutes('stack/saved-searches', 'savedSearchId', 'PUT', { paged: true, access: { seed: 'none' } }),
    'self-hosted': selfHostedRoutes('saved-searches', 'PUT', { paged: true, access: { seed: 'none' } }),
  },
  references: [SOURCE],
  // The saved search as the API takes it: its source by id.
  rules: {
    members: (desired, refs) =>
      withIdOf(desired.spec, refs, SOURCE, { name: 'source', id: 'sourceId', as: 'sourceId' }),
  },
  // The current service's saved searches have `tags` (the seed has no saved searches).
  tags: 'tags',
  afterPlan: (plan, input) =>
    warnSourceDeletes(SAVED_SEARCH, input.deletes.get(SOURCE) ?? [], input.live, sourceOf, [
      ...plan.changes,
      ...(input.deletes.get(SAVED_SEARCH) ?? []),
    ]),
  export: flatExport(
    'saved-search',
    savedSearchSpecSchema,
    (live, ctx) => namedReference(ctx, live.members, SOURCE, 'sourceId', { name: 'source', id: 'sourceId' }),
    {
      namedIds: sourceOf,
    },
  ),
});

// What the kinds that read this one get of it (`KindTypes`, in `../descriptor.ts`).
declare module '../../model/kinds.js' {
  interface KindTypes {
    [SAVED_SEARCH]: typeof savedSearchKind;
  }
}
