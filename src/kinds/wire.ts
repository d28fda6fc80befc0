/**
 * Every kind's wire schemas of the seed profile by a stable name (each is in its kind's folder,
 * `kinds/<kind>/wire.ts`), for the validator cache, for building the validators ahead of time
 * (`scripts/precompile-validators.mjs`) and for the emulator, which checks request bodies, its
 * seed and data files with them.
 */
import type { Static } from 'typebox';
import { guardOf } from '../schema/build.js';
import { compileSchema, type NamedSchema, type SchemaResult, toIssues } from '../schema/validate.js';
import { alertSchema, alertWriteBodySchema } from './alert/wire.js';
import { dashboardCreateBodySchema, dashboardSchema, dashboardUpdateBodySchema } from './dashboard/wire.js';
import { pipeCreateBodySchema, pipePatchBodySchema, pipeSchema } from './pipe/wire.js';
import { keysOf } from '../support/records.js';
import { dataSourceSchema } from './source/wire.js';

/** Every schema by a stable name, for the validator cache and for publishing. */
export const API_SCHEMAS = {
  pipe: pipeSchema,
  pipePatchBody: pipePatchBodySchema,
  pipeCreateBody: pipeCreateBodySchema,
  dashboard: dashboardSchema,
  dashboardCreateBody: dashboardCreateBodySchema,
  dashboardUpdateBody: dashboardUpdateBodySchema,
  alert: alertSchema,
  alertWriteBody: alertWriteBodySchema,
  dataSource: dataSourceSchema,
} as const;

export type ApiSchemaName = keyof typeof API_SCHEMAS;

/** The API schemas by the names `validateApi` compiles them under. */
export function apiSchemas(): NamedSchema[] {
  return keysOf(API_SCHEMAS).map((name) => ({
    name: `api:${name}`,
    schema: API_SCHEMAS[name],
  }));
}

/** The shape of what one of the API schemas accepts. */
export type ApiOf<N extends ApiSchemaName> = Static<(typeof API_SCHEMAS)[N]>;

/** Validates `data` against one of the API schemas; what passes has that schema's shape. */
export function validateApi<N extends ApiSchemaName>(name: N, data: unknown): SchemaResult<ApiOf<N>> {
  const schema = API_SCHEMAS[name];
  const validate = compileSchema(`api:${name}`, schema);
  if (guardOf(schema, validate)(data)) return { ok: true, value: data };
  return { ok: false, issues: toIssues(validate.errors ?? []) };
}
