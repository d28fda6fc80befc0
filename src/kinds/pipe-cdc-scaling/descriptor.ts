/**
 * PipeCdcScaling: the CDC scaling of a managed service (`…/pipesCdcScaling`), the one sizing all
 * its database pipes share. A setting of the service, not a resource: the service makes it with
 * its first database pipe, and it is never created or deleted, only changed. At most one manifest
 * per target names it (a second is a duplicate: two would fight over it). Read only for a target
 * with such a manifest, and by export; written after every pipe (it may wait for one being made);
 * never pruned: without a manifest it is simply not managed.
 */
import { defineKind } from '../descriptor.js';
import { pickBySchema } from '../shared/pick.js';
import { recordOr } from '../../support/json.js';
import { managedSingletonRoutes } from '../shared/routes.js';
import { PIPE } from '../pipe/model.js';
import { planCdcScaling } from './diff.js';
import { cdcScalingManifests, type CdcScalingManifest } from './manifests.js';
import {
  CDC_SCALING_ID,
  PIPE_CDC_SCALING,
  SIZING_MEMBERS,
  sizingOfGoal,
  sizingText,
  type DesiredCdcScaling,
  type LiveCdcScaling,
} from './model.js';
import { toLiveCdcScaling } from './read.js';
import { pipeCdcScalingDocumentSchema, pipeCdcScalingSpecSchema } from './schema.js';

export const pipeCdcScalingKind = defineKind<
  DesiredCdcScaling,
  LiveCdcScaling,
  CdcScalingManifest,
  typeof PIPE_CDC_SCALING,
  'pipeCdcScaling'
>({
  kind: PIPE_CDC_SCALING,
  collection: 'pipeCdcScaling',
  schema: pipeCdcScalingDocumentSchema,
  // The current profile's managed API only: the seed's has no such route.
  routes: { managed: managedSingletonRoutes('pipesCdcScaling', CDC_SCALING_ID, 'PATCH', { access: { seed: 'none' } }) },
  identity: 'id',
  // Written after the pipes: a database pipe this run creates brings it into being.
  references: [PIPE],
  createOnly: [],
  manifests: cdcScalingManifests,
  reader: { read: toLiveCdcScaling, statusMembers: [], onDemand: true },
  plan: planCdcScaling,
  export: {
    keyPrefix: 'cdc-scaling',
    write: (live) => {
      const sizing = { replicaCpuMillicores: live.replicaCpuMillicores, replicaMemoryGb: live.replicaMemoryGb };
      return { spec: recordOr(pickBySchema(sizing, pipeCdcScalingSpecSchema)) ?? {} };
    },
  },
  // A new sizing takes minutes to show in a GET: apply follows it there.
  settle: {
    check: (goal, live) => {
      const asked = sizingOfGoal(goal);
      return SIZING_MEMBERS.every((member) => asked[member] === live[member])
        ? { settled: true }
        : { settled: false, state: `at ${sizingText(live)}` };
    },
    redundant: () => false,
  },
});

// What the kinds that read this one get of it (`KindTypes`, in `../descriptor.ts`).
declare module '../../model/kinds.js' {
  interface KindTypes {
    [PIPE_CDC_SCALING]: typeof pipeCdcScalingKind;
  }
}
