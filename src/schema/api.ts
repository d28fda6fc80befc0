/**
 * What the seed profile's wire schemas of every kind share: the JSON Schemas of API resources and
 * request bodies (draft 2020-12 subset that ajv 8 speaks) are declared with TypeBox so each is also
 * the TypeScript type of what it accepts, each kind's in its folder (`kinds/<kind>/wire.ts`), all
 * of them by name in `kinds/wire.ts`; these are the scalar parts they are built from.
 *
 * Who validates with them: the emulator (request bodies, its seed and data files) and, through
 * the manifest schemas built from their parts, the manifest loader. Responses are NOT checked
 * with them: the client reads responses with the deliberately tolerant readers
 * (`kinds/<kind>/read.ts`, built from `kinds/shared/read.ts`), since real services differ from
 * these shapes (docs/reference/api-behaviour.md).
 *
 * Schemas are composed from parts, not `$ref`s, so each one is self-contained and can be
 * published as a file on its own.
 */
import { Type } from 'typebox';

export type { JsonSchema } from './build.js';

export const string = Type.String();
export const nonEmptyString = Type.String({ minLength: 1 });
export const integer = Type.Integer();
export const positiveInteger = Type.Integer({ minimum: 1 });
export const boolean = Type.Boolean();
export const stringArray = Type.Array(string);
export const uuid = Type.String({ format: 'uuid' });
export const timestamp = Type.String({ format: 'date-time' });
export const port = Type.Integer({ minimum: 1, maximum: 65535 });
