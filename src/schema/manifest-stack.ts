/**
 * What the manifest specs of the flat observability kinds share (docs/manifests/README.md, "Source,
 * Webhook, SavedSearch, Connection"; each spec is in its kind's folder, `kinds/<kind>/schema.ts`):
 * the members of the real create bodies (`kinds/<kind>/wire.ts`), with the ids of other kinds'
 * resources replaced by names (`connection: <name>`, `source: <name>`) and credentials replaced by
 * secret references; and what a source of each kind requires, and what a target cannot take.
 */
import { Type, type TSchema } from 'typebox';
import { type CURRENT_SOURCE_KINDS, OBJECT_ID_PATTERN } from './api-current.js';

/** A kind of source; the same as the keys of the source's create bodies (`kinds/source/wire.ts`), which are above this folder. */
type CurrentSourceKind = (typeof CURRENT_SOURCE_KINDS)[number];

/** A member that must not be empty. */
export const required = Type.String({ minLength: 1 });
/** An id of the current services (a MongoDB ObjectId). */
export const objectId = Type.String({ pattern: OBJECT_ID_PATTERN });

/** A name of another kind's resource: a manifest's `metadata.name`, or a live resource's API name. */
export function nameOf(kind: string, resolvedTo: string): TSchema {
  return Type.String({
    minLength: 1,
    description:
      `Name of a ${kind}: the metadata.name of a ${kind} manifest of the target, or the API name of a live one; ` +
      `resolved to its id (${resolvedTo}) at apply time.`,
  });
}

/** Exactly one of two members, or neither when `optionalPair`. */
export function oneOfPair(a: string, b: string, optionalPair = false): Record<string, unknown> {
  return optionalPair ? { not: { required: [a, b] } } : { oneOf: [{ required: [a] }, { required: [b] }] };
}

/**
 * What each kind of source must name beside `name`, `kind` and its connection: the `required` of
 * the documents' create schemas (`LogSource` … `PromqlSource`, alike on both variants), so that
 * `validate` refuses at its line what the service would refuse at apply (docs/manifests/source.md).
 * A PUT lays the manifest over the live source, but a manifest must also create one. A trace
 * source's `durationPrecision` the documents also list: the service defaults it to 3.
 */
export const SOURCE_REQUIRED_MEMBERS: Record<CurrentSourceKind, readonly string[]> = {
  log: ['from', 'defaultTableSelectExpression', 'timestampValueExpression'],
  trace: [
    'from',
    'defaultTableSelectExpression',
    'timestampValueExpression',
    'durationExpression',
    'traceIdExpression',
    'spanIdExpression',
    'parentSpanIdExpression',
    'spanNameExpression',
    'spanKindExpression',
  ],
  metric: ['from', 'metricTables', 'timestampValueExpression', 'resourceAttributesExpression'],
  session: ['from', 'traceSourceId'],
  promql: ['from', 'timestampValueExpression'],
};

const LOG_LACKS = ['orderByExpression', 'tableFilterExpression'];
const TRACE_LACKS = [
  'displayedTimestampValueExpression',
  'orderByExpression',
  'sampleRateExpression',
  'spanLinksValueExpression',
];
const METRIC_LACKS = ['seriesTable', 'serviceNameExpression'];

/**
 * Members of a source, by its kind, that a variant's newest API description does not have (its
 * create schema of that kind), though HyperDX's own source schema names them
 * (docs/manifests/source.md#what-a-target-of-todays-api-does-not-take).
 */
export const SOURCE_LACKED_ON_CURRENT: Record<'managed' | 'self-hosted', Record<string, readonly string[]>> = {
  managed: {
    log: [...LOG_LACKS, 'serviceVersionExpression'],
    trace: [...TRACE_LACKS, 'serviceVersionExpression'],
    metric: METRIC_LACKS,
    session: ['resourceAttributesExpression'],
  },
  'self-hosted': {
    log: LOG_LACKS,
    trace: TRACE_LACKS,
    metric: METRIC_LACKS,
    session: ['resourceAttributesExpression'],
  },
};
