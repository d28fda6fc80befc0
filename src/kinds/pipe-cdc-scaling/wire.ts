/**
 * The CDC scaling's wire shape: the body of `PATCH …/pipesCdcScaling` (docs/reference/api-behaviour.md,
 * "The real services today: the whole lifecycle"), both members in their steps.
 */
import { Type } from 'typebox';
import { object } from '../../schema/build.js';
import { CDC_SCALING_BOUNDS } from '../../schema/pipe-sources.js';

/** `PATCH …/pipesCdcScaling`: both members, in their steps. */
export const cdcScalingBodySchema = object({
  replicaCpuMillicores: Type.Integer(CDC_SCALING_BOUNDS.replicaCpuMillicores),
  replicaMemoryGb: Type.Number(CDC_SCALING_BOUNDS.replicaMemoryGb),
});
