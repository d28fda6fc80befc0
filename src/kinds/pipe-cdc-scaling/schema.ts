/**
 * The manifest of a service's CDC scaling: its spec, the PATCH body's two members (docs/manifests/pipe-cdc-scaling.md).
 */
import { described, object } from '../../schema/build.js';
import { cdcScalingBodySchema } from './wire.js';
import { CDC_SCALING_BOUNDS } from '../../schema/pipe-sources.js';
import { documentSchema } from '../../schema/manifest.js';

/** The PipeCdcScaling kind's name. */
export const PIPE_CDC_SCALING = 'PipeCdcScaling';

const { replicaCpuMillicores: cdcCpu, replicaMemoryGb: cdcMemory } = cdcScalingBodySchema.properties;

/** The service-wide sizing of its database pipes (`…/pipesCdcScaling`): both members, as the PATCH takes them. */
export const pipeCdcScalingSpecSchema = object({
  replicaCpuMillicores: described(
    cdcCpu,
    'CPU of the CDC replicas, in millicores: 1000 to 24000, in steps of 1000 (1 to 24 cores).',
  ),
  replicaMemoryGb: described(
    cdcMemory,
    `Memory of the CDC replicas, in GB: ${CDC_SCALING_BOUNDS.memoryGbPerCore} GB per CPU core (16 for 4000 millicores), 4 to 96.`,
  ),
});

/** What the kind is, as its published schema says. */
export const PIPE_CDC_SCALING_DESCRIPTION =
  'The CDC scaling of a managed service (api profile current): one sizing shared by all its database pipes. ' +
  'At most one manifest per target; the service has it once a database pipe is provisioned; never deleted ' +
  '(without a manifest it is simply not managed).';

/** The whole manifest document: the envelope with this spec. */
export const pipeCdcScalingDocumentSchema = documentSchema(
  PIPE_CDC_SCALING,
  pipeCdcScalingSpecSchema,
  PIPE_CDC_SCALING_DESCRIPTION,
);
