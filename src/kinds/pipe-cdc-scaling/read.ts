/**
 * Reads the CDC scaling of a service (`GET …/pipesCdcScaling`): the two numbers, strict (a plan
 * compares them); anything else the service adds is left out, since an update sends both anyway.
 */
import { object, requiredNumber } from '../shared/read.js';
import { CDC_SCALING_ID, type LiveCdcScaling } from './model.js';

export function toLiveCdcScaling(value: unknown, path: string): LiveCdcScaling {
  const raw = object(value, path);
  return {
    id: CDC_SCALING_ID,
    replicaCpuMillicores: requiredNumber(raw, 'replicaCpuMillicores', path),
    replicaMemoryGb: requiredNumber(raw, 'replicaMemoryGb', path),
  };
}
