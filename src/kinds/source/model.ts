/** The Source kind's name. */
import type { Kind, Variant } from '../../model/kinds.js';

export const SOURCE = 'Source' satisfies Kind;

const LOG_LACKS = ['orderByExpression', 'tableFilterExpression'];
const TRACE_LACKS = ['displayedTimestampValueExpression', 'orderByExpression', 'sampleRateExpression', 'spanLinksValueExpression'];
const METRIC_LACKS = ['seriesTable', 'serviceNameExpression'];

/**
 * Members of a source, by its kind, that a variant's newest API description does not have (its
 * create schema of that kind), though HyperDX's own source schema names them
 * (docs/manifests/source.md#what-a-target-of-todays-api-does-not-take).
 */
export const SOURCE_LACKED_ON_CURRENT: Record<Variant, Record<string, readonly string[]>> = {
  managed: { log: [...LOG_LACKS, 'serviceVersionExpression'], trace: [...TRACE_LACKS, 'serviceVersionExpression'], metric: METRIC_LACKS, session: ['resourceAttributesExpression'] },
  'self-hosted': { log: LOG_LACKS, trace: TRACE_LACKS, metric: METRIC_LACKS, session: ['resourceAttributesExpression'] },
};
