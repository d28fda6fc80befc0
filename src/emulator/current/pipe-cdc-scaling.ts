/**
 * The service-wide CDC scaling of the current profile (`…/pipesCdcScaling`; docs/manifests/pipe-cdc-scaling.md),
 * pure over one service: absent until a database pipe has been provisioned, then read and
 * patched; a patch takes one pipe transition to show.
 */
import { cdcScalingBodySchema } from '../../kinds/pipe-cdc-scaling/wire.js';
import { cdcMemoryProblem } from '../../schema/pipe-sources.js';
import { notFound } from '../errors.js';
import type { CdcScaling, ServiceRecord } from '../model.js';
import { runtimeOf } from './pipe-lifecycle.js';
import { check, invalid, issue, requireBody, tolerated, type CurrentPipeRules } from './pipe.js';

/** `GET …/pipesCdcScaling`: 404 until the service's first database pipe has been provisioned. */
export function currentCdcScaling(service: ServiceRecord): CdcScaling {
  const scaling = runtimeOf(service).cdcScaling;
  if (!scaling)
    throw notFound(
      `CDC scaling of service ${service.id} not found: it exists once a database pipe has been provisioned`,
    );
  return { replicaCpuMillicores: scaling.replicaCpuMillicores, replicaMemoryGb: scaling.replicaMemoryGb };
}

/**
 * `PATCH …/pipesCdcScaling` (provider `clickhouse_clickpipe_cdc_infrastructure`): CPU 1000–24000
 * in steps of 1000, memory in steps of 4 and "4× the CPU core count". It "takes minutes to apply":
 * a GET shows the new sizing one transition later; the answer shows what was asked.
 */
export function patchCdcScaling(
  service: ServiceRecord,
  body: unknown,
  nowMs: number,
  rules: CurrentPipeRules,
): CdcScaling {
  currentCdcScaling(service);
  const input = tolerated(cdcScalingBodySchema, requireBody(body));
  const issues = check('cdc-scaling', cdcScalingBodySchema, input);
  const cpu = input['replicaCpuMillicores'] as number;
  const memory = input['replicaMemoryGb'] as number;
  const memoryProblem = issues.length ? undefined : cdcMemoryProblem(cpu, memory);
  if (memoryProblem !== undefined) issues.push(issue('replicaMemoryGb', memoryProblem));
  if (issues.length) throw invalid(issues, 'invalid CDC scaling');
  const runtime = runtimeOf(service);
  const scaling = { replicaCpuMillicores: cpu, replicaMemoryGb: memory };
  if (runtime.cdcScaling) runtime.cdcScaling.pending = { ...scaling, at: nowMs + rules.behaviour.transitionMs };
  return scaling;
}
