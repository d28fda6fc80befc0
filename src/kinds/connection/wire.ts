/**
 * A connection's wire shapes on the `current` profile (docs/reference/api-behaviour.md, "The real
 * services today: the whole lifecycle").
 */
import { type Static, Type } from 'typebox';
import { nullable, text } from '../../schema/api-current.js';

// ---------------------------------------------------------------- connections

const settingPrefix = Type.String({ pattern: '^[a-zA-Z0-9_]+$' });
const connectionMembers = {
  name: text,
  host: text,
  username: text,
  password: Type.Optional(text),
  isPrometheusEndpoint: Type.Optional(Type.Boolean()),
};

/** Create body; `password` is write-only (absent means empty). */
export const CurrentConnectionCreate = Type.Object({
  ...connectionMembers,
  hyperdxSettingPrefix: Type.Optional(nullable(settingPrefix)),
});
/** Update body: `hyperdxSettingPrefix` null or `""` clears it, absent keeps it; an absent or empty `password` keeps the stored one. */
export const CurrentConnectionUpdate = Type.Object({
  ...connectionMembers,
  hyperdxSettingPrefix: Type.Optional(nullable(Type.Union([settingPrefix, Type.Literal('')]))),
});

/** A connection as answered: never its password. */
export const CurrentConnection = Type.Object({
  id: Type.String(),
  name: Type.String(),
  host: Type.String(),
  username: Type.String(),
  hyperdxSettingPrefix: Type.Optional(nullable(Type.String())),
  isPrometheusEndpoint: Type.Optional(Type.Boolean()),
  createdAt: Type.Optional(Type.String()),
  updatedAt: Type.Optional(Type.String()),
});

export type CurrentConnectionCreate = Static<typeof CurrentConnectionCreate>;
export type CurrentConnectionUpdate = Static<typeof CurrentConnectionUpdate>;
export type CurrentConnection = Static<typeof CurrentConnection>;
