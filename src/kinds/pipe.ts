/**
 * Pipe: an ingestion pipe of a managed service. The manifest names an existing pipe by its id and
 * holds the members Update pipe can change; the plan is the smallest PATCH body that brings it in
 * line. Never created and never deleted by stacksync, so prune never touches one.
 */
import { DOCUMENT_SCHEMAS } from '../schema/manifest.js';
import { PIPE_CREATE_ONLY_DESTINATION_MEMBERS, PIPE_CREATE_ONLY_SOURCE_MEMBERS } from '../schema/pipe-create-only.js';
import { PIPE_FAMILIES } from '../schema/pipe-sources.js';
import { defineKind } from './descriptor.js';
import { managedRoutes } from './kit/routes.js';
import { planPipes } from './pipe/diff.js';
import { pipeExport } from './pipe/export.js';
import { pipeManifests, type PipeManifest } from './pipe/manifests.js';
import { isDegradedPipeState, PIPE, type DesiredPipe, type LivePipe } from './pipe/model.js';
import { toLivePipe } from './pipe/read.js';

export const pipeKind = defineKind<DesiredPipe, LivePipe, PipeManifest, typeof PIPE, 'pipes'>({
  kind: PIPE,
  collection: 'pipes',
  schema: DOCUMENT_SCHEMAS[PIPE],
  routes: { managed: managedRoutes('pipes', 'pipeId', 'PATCH') },
  identity: 'id',
  references: [],
  createOnly: createOnlyMembers(),
  manifests: pipeManifests,
  reader: { read: toLivePipe, statusMembers: ['state'], liveState: (pipe) => pipe.state },
  // Adding or removing table mappings twice fails (api-notes), so such a PATCH is not blindly repeatable.
  writes: { notRepeatable: changesMappings },
  plan: (input) => ({
    changes: planPipes({ target: input.target, variant: input.variant, livePipes: input.live, unreadable: input.unreadable, secretHashes: input.state.secretHashes }, input.desired),
  }),
  export: pipeExport,
  health: { degraded: isDegradedPipeState },
});

function changesMappings(patch: Record<string, unknown>): boolean {
  const source = patch['source'];
  const postgres = source !== null && typeof source === 'object' ? (source as Record<string, unknown>)['postgres'] : undefined;
  if (postgres === null || typeof postgres !== 'object') return false;
  return 'tableMappingsToAdd' in postgres || 'tableMappingsToRemove' in postgres;
}

/**
 * Spec paths that cannot change once a pipe exists, from the one table the emulator reads too
 * (`schema/pipe-create-only.ts`): `source.<family>` where every member is, else its members, and
 * the destination's.
 */
function createOnlyMembers(): string[] {
  const source = PIPE_FAMILIES.flatMap((family) => {
    const members = PIPE_CREATE_ONLY_SOURCE_MEMBERS[family];
    return members === '*' ? [`source.${family}`] : members.map((member) => `source.${family}.${member}`);
  });
  return [...source, ...PIPE_CREATE_ONLY_DESTINATION_MEMBERS.map((member) => `destination.${member}`)];
}
