/**
 * A PipeCdcScaling manifest's rules beyond its schema (memory in step with the CPU, as the service
 * wants it), and the desired sizing it becomes. A service has one CDC scaling: two manifests of
 * one target would fight over it, so a second is a duplicate whatever its name.
 */
import type { Static } from 'typebox';
import { cdcMemoryProblem } from '../../schema/pipe-sources.js';
import type { DocumentProblem, KindManifests } from '../descriptor.js';
import { CDC_SCALING_ID, PIPE_CDC_SCALING, type CdcScalingSpec, type DesiredCdcScaling } from './model.js';
import type { pipeCdcScalingDocumentSchema } from './schema.js';

export type CdcScalingManifest = Static<typeof pipeCdcScalingDocumentSchema>;

export const cdcScalingManifests: KindManifests<DesiredCdcScaling, CdcScalingManifest> = {
  // One per service: every manifest of the kind in a target names the same one.
  uniqueName: () => ({
    value: CDC_SCALING_ID,
    pointer: ['kind'],
    what: () => `the CDC scaling (one per service, so at most one ${PIPE_CDC_SCALING} manifest per target)`,
  }),
  check: (manifest) => memoryProblems(manifest.spec),
  build: (manifest, base) => ({
    kind: PIPE_CDC_SCALING,
    ...base,
    spec: { replicaCpuMillicores: manifest.spec.replicaCpuMillicores, replicaMemoryGb: manifest.spec.replicaMemoryGb },
  }),
};

/** The service takes memory in step with the CPU only: 4 GB per core (provider `clickhouse_clickpipe_cdc_infrastructure`). */
export function memoryProblems(spec: CdcScalingSpec): DocumentProblem[] {
  const message = cdcMemoryProblem(spec.replicaCpuMillicores, spec.replicaMemoryGb);
  return message === undefined ? [] : [{ code: 'E_MANIFEST_INVALID', pointer: ['spec', 'replicaMemoryGb'], message }];
}
