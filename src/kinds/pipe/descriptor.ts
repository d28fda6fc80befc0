/**
 * Pipe: an ingestion pipe of a managed service, in two forms. Born in Git (no `pipeId`): created,
 * owned, updated with minimal PATCH bodies, started and stopped, scaled, resynced on request,
 * replaced on request when a create-only member changes, and pruned once its manifest is gone
 * (only what stacksync created). Existing (`pipeId`): updated only, never deleted by prune.
 */
import {
  PIPE_CREATE_ONLY_DESTINATION_MEMBERS,
  PIPE_CREATE_ONLY_MEMBERS,
  PIPE_CREATE_ONLY_SOURCE_MEMBERS,
} from '../../schema/pipe-create-only.js';
import { CDC_SCALING_PIPE_FAMILIES, PIPE_FAMILIES } from '../../schema/pipe-sources.js';
import { changeKey, type Change } from '../../model/plan.js';
import { defineKind, type KindRoutes } from '../descriptor.js';
import { managedRoutes } from '../shared/routes.js';
import { isRecord } from '../shared/values.js';
import { planPipes } from './diff.js';
import { pipeExport } from './export.js';
import { checkPipe, isDegraded, isRedundant } from './lifecycle.js';
import { pipeManifests, type PipeManifest } from './manifests.js';
import { PIPE, type DesiredPipe, type LivePipe, type PipePlanOutcome } from './model.js';
import { toLivePipe } from './read.js';
import { pipeDocumentSchema } from './schema.js';

export const pipeKind = defineKind<DesiredPipe, LivePipe, PipeManifest, typeof PIPE, 'pipes', PipePlanOutcome>({
  kind: PIPE,
  collection: 'pipes',
  schema: pipeDocumentSchema,
  routes: { managed: pipeRoutes() },
  // Born in Git: by inventory id, then API name. A manifest with a pipeId is matched by it (the planner's own).
  identity: 'name',
  references: [],
  createOnly: createOnlyMembers(),
  manifests: pipeManifests,
  reader: { read: toLivePipe, statusMembers: ['state'], liveState: (pipe) => pipe.state },
  // Adding or removing table mappings twice fails (docs/reference/api-behaviour.md), so such a PATCH is not blindly repeatable.
  writes: { notRepeatable: changesMappings, respell: respellSettings },
  plan: (input) => {
    const changes = planPipes(
      {
        target: input.target,
        variant: input.variant,
        profile: input.profile,
        livePipes: input.live,
        unreadable: input.unreadable,
        secretHashes: input.state.secretHashes,
        state: input.state,
        timing: input.timing,
        adopt: input.adopt,
      },
      input.desired,
    );
    return { changes, outcome: pipeOutcome(input.desired, changes) };
  },
  // Only what stacksync created: never an existing pipe named by id, nor one it adopted.
  prune: {
    allowed: (entry) => entry.created === true,
    forgetWhenGone: true,
    createdOnly: true,
    countApart: 'its ingestion stops',
  },
  export: pipeExport,
  health: { degraded: isDegraded },
  settle: { check: checkPipe, redundant: isRedundant },
});

// What the kinds that read this one get of it (`KindTypes`, in `../descriptor.ts`).
declare module '../../model/kinds.js' {
  interface KindTypes {
    [PIPE]: typeof pipeKind;
  }
}

/** The pipe routes: list, create, get, PATCH, delete, and the state and scaling actions on one pipe. */
function pipeRoutes(): KindRoutes {
  const routes = managedRoutes('pipes', 'pipeId', 'PATCH');
  const state = { route: `${routes.item}/state`, method: 'PATCH' as const };
  return {
    ...routes,
    actions: { start: state, stop: state, resync: state, scale: { route: `${routes.item}/scaling`, method: 'PATCH' } },
  };
}

/** The `settings` of a pipe (or of a body) with keys starting `from` renamed to start `to`. */
function respellSettings(value: unknown, from: string, to: string): unknown {
  if (!isRecord(value) || !isRecord(value['settings'])) return value;
  const settings = Object.fromEntries(
    Object.entries(value['settings']).map(([key, member]) => [
      key.startsWith(from) ? `${to}${key.slice(from.length)}` : key,
      member,
    ]),
  );
  return { ...value, settings };
}

function changesMappings(patch: Record<string, unknown>): boolean {
  const source = patch['source'];
  if (!isRecord(source)) return false;
  return Object.values(source).some(
    (block) => isRecord(block) && ('tableMappingsToAdd' in block || 'tableMappingsToRemove' in block),
  );
}

/**
 * Spec paths that cannot change once a pipe exists, from the one table the emulator reads too
 * (`schema/pipe-create-only.ts`): `source.<family>` where every member is, else its members, and
 * the destination's, and the pipe's own (description).
 */
function createOnlyMembers(): string[] {
  const source = PIPE_FAMILIES.flatMap((family) => {
    const members = PIPE_CREATE_ONLY_SOURCE_MEMBERS[family];
    return members === '*' ? [`source.${family}`] : members.map((member) => `source.${family}.${member}`);
  });
  return [
    ...PIPE_CREATE_ONLY_MEMBERS,
    ...source,
    ...PIPE_CREATE_ONLY_DESTINATION_MEMBERS.map((member) => `destination.${member}`),
  ];
}

/** What the kinds that name pipes learn from their plan: which changes create a database pipe (the service's CDC scaling comes with one). */
function pipeOutcome(desired: readonly DesiredPipe[], changes: readonly Change[]): PipePlanOutcome {
  const database = new Set(
    desired
      .filter(
        (pipe) =>
          pipe.born !== undefined && pipe.source !== undefined && CDC_SCALING_PIPE_FAMILIES.includes(pipe.source.kind),
      )
      .map((pipe) => pipe.key),
  );
  const creates = changes.filter(
    (change) => (change.action === 'create' || change.action === 'replace') && database.has(change.name),
  );
  return { databaseCreates: creates.map((change) => changeKey(change.kind, change.name)) };
}
