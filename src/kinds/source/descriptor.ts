/**
 * Source: where a kind of observability data lives and how to read it (hyperdx `v2/sources.ts`),
 * on a connection it names (`connection: <name>`). PUT is a full replace: the body is the live
 * source with the manifest's members laid over it, so members it leaves out are kept. Where a
 * target lists its sources but cannot write them (the seed's managed API), manifests only name
 * them. A source delete is never refused by the server, even while dashboards or saved searches
 * name it: deletes run after theirs (the order table), and the plan says who would be left
 * pointing at nothing.
 */
import { CONNECTION } from '../connection/model.js';
import { labelOf, leftNaming } from '../shared/dependents.js';
import { idsAt, namedReference, flatExport } from '../shared/flat-export.js';
import { flatKind } from '../shared/flat-kind.js';
import { lackedProblems } from '../shared/lacked.js';
import { withIdOf } from '../shared/refs.js';
import { managedRoutes, selfHostedRoutes } from '../shared/routes.js';
import { SOURCE, SOURCE_LACKED_ON_CURRENT } from './model.js';
import { sourceDocumentSchema, sourceSpecSchema } from './schema.js';

const connectionOf = idsAt('connection');

export const sourceKind = flatKind<typeof SOURCE, 'sources'>({
  kind: SOURCE,
  schema: sourceDocumentSchema,
  collection: 'sources',
  routes: {
    managed: managedRoutes('stack/sources', 'sourceId', 'PUT', { access: { seed: 'read' } }),
    'self-hosted': selfHostedRoutes('sources', 'PUT', { access: { seed: 'none' } }),
  },
  references: [CONNECTION],
  // A managed service has no connection list (docs/manifests/source.md): its sources name the platform's connection by id.
  namedByName: (manifest) => {
    const name = manifest.spec['connection'];
    return typeof name === 'string'
      ? [{ kind: CONNECTION, name, pointer: ['spec', 'connection'], idMember: 'connectionId' }]
      : [];
  },
  // What the service's newest API description lacks of a source of its kind is not sent to a target of today's API.
  checkForTarget: (manifest, { variant, profile }) => {
    const spec = manifest.spec;
    const lacked = profile === 'current' ? SOURCE_LACKED_ON_CURRENT[variant]?.[String(spec['kind'])] : undefined;
    return lacked
      ? lackedProblems(
          spec,
          lacked.map((path) => ({ path })),
          `the ${variant} service's API, for a ${String(spec['kind'])} source,`,
        )
      : [];
  },
  // The source as the API takes it: its connection by id.
  rules: {
    members: (desired, refs) =>
      withIdOf(desired.spec, refs, CONNECTION, { name: 'connection', id: 'connectionId', as: 'connection' }),
  },
  // The server deletes a connection whatever names it: the sources left on it are said on the delete.
  afterPlan: (plan, input) => {
    const changes = [...plan.changes, ...(input.deletes.get(SOURCE) ?? [])];
    for (const [deletion, sources] of leftNaming({
      deletes: input.deletes.get(CONNECTION) ?? [],
      live: input.live,
      names: connectionOf,
      changes,
    })) {
      deletion.warnings.push(
        `the server deletes it even though ` +
          `${sources.map((source) => labelOf(SOURCE, source)).join(', ')} still query through it; they are ` +
          `left on a connection that no longer exists`,
      );
    }
  },
  export: flatExport(
    'source',
    sourceSpecSchema,
    (live, ctx) =>
      namedReference(ctx, live.members, CONNECTION, 'connection', { name: 'connection', id: 'connectionId' }),
    {
      namedIds: connectionOf,
    },
  ),
});

// What the kinds that read this one get of it (`KindTypes`, in `../descriptor.ts`).
declare module '../../model/kinds.js' {
  interface KindTypes {
    [SOURCE]: typeof sourceKind;
  }
}
