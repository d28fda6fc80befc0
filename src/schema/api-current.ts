/**
 * What the observability kinds' wire shapes of the `current` profile share, as the real services
 * speak them today (docs/reference/api-behaviour.md, "The real services today"): the enumerations
 * and limits several kinds name, and the building blocks of their TypeBox schemas. Each kind's
 * shapes are in its folder (`kinds/<kind>/wire.ts`); the seed profile's building blocks are in `api.ts`.
 *
 * Request schemas are lenient where the real validators are: members they do not know are
 * dropped (the emulator cleans a body with the schema before checking it), and null is accepted
 * where the real service marks a member nullable. The same schemas type the responses, which
 * always fit them: a body read with GET can be sent back with PUT.
 *
 * The shapes of the kinds the real services added beside dashboards and alerts (sources,
 * connections, webhooks, saved searches) are read from the self-hosted server's v2 routers and zod
 * schemas (hyperdxio/hyperdx `packages/api/src/routers/external-api/v2/`,
 * `packages/api/src/utils/zod.ts`, `packages/common-utils/src/types.ts`) and the managed
 * OpenAPI's ClickStack operations (docs/reference/api-behaviour.md, "The real services today:
 * the whole lifecycle").
 */
import { type TSchema, Type } from 'typebox';

// ---------------------------------------------------------------- enumerations

/** Ids of the real service's documents: 24 hex digits. */
export const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$';

/** A chart's aggregations, as both services' documents list them (docs/api-client.md#the-contract-suite: no `increase`). */
export const CURRENT_AGG_FNS = [
  'avg',
  'count',
  'count_distinct',
  'last_value',
  'max',
  'min',
  'quantile',
  'sum',
  'any',
  'none',
] as const;

export const CURRENT_SOURCE_KINDS = ['log', 'trace', 'metric', 'session', 'promql'] as const;

// ---------------------------------------------------------------- building blocks

export const objectId = Type.String({ pattern: OBJECT_ID_PATTERN });
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const required = Type.String({ minLength: 1 });
export const text = Type.String();
export const optionalTexts = <K extends string>(names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, Type.Optional(text)])) as { [P in K]: Type.TOptional<Type.TString> };
