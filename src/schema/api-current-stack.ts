/**
 * Building blocks of the wire shapes of the observability kinds the real services added beside
 * dashboards and alerts (sources, connections, webhooks, saved searches; each kind's shapes are in
 * its folder, `kinds/<kind>/wire.ts`). Read from the self-hosted server's v2 routers and zod
 * schemas (hyperdxio/hyperdx `packages/api/src/routers/external-api/v2/`,
 * `packages/api/src/utils/zod.ts`, `packages/common-utils/src/types.ts`) and the managed
 * OpenAPI's ClickStack operations (docs/reference/api-behaviour.md, "The real services today:
 * the whole lifecycle").
 */
import { type TSchema, Type } from 'typebox';
import { OBJECT_ID_PATTERN } from './api-current.js';

// ---------------------------------------------------------------- building blocks

export const objectId = Type.String({ pattern: OBJECT_ID_PATTERN });
export const required = Type.String({ minLength: 1 });
export const text = Type.String();
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const optionalTexts = <K extends string>(names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, Type.Optional(text)])) as { [P in K]: Type.TOptional<Type.TString> };
