/**
 * ClickStack roles of a managed service, as the managed API takes and answers them (its OpenAPI's
 * `ClickStackCreateRoleRequest`, `ClickStackUpdateRoleRequest` and `ClickStackRole`; see
 * docs/manifests/role.md): a named set of CASL permissions. Predefined roles (`isPredefined`) are
 * the service's own: listed, never changed.
 */
import { type Static, Type } from 'typebox';

/** One CASL rule: an action on a subject, granted (or denied with `inverted`), optionally scoped. */
export const CurrentRolePermission = Type.Object({
  action: Type.String(),
  subject: Type.String(),
  inverted: Type.Optional(Type.Boolean()),
  integration: Type.Optional(Type.String()),
  conditions: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

/** Create body: a name unique within the team and not a predefined role's, and the permissions. */
export const CurrentRoleCreate = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  permissions: Type.Array(CurrentRolePermission),
});

/** Update body (PUT): the permissions replace the role's; a name or description left out is kept. */
export const CurrentRoleUpdate = Type.Object({
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  permissions: Type.Array(CurrentRolePermission),
});

/** A role as answered. */
export const CurrentRole = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  permissions: Type.Array(CurrentRolePermission),
  isPredefined: Type.Boolean(),
  createdAt: Type.Optional(Type.String()),
  updatedAt: Type.Optional(Type.String()),
});

export type CurrentRole = Static<typeof CurrentRole>;
export type CurrentRoleCreate = Static<typeof CurrentRoleCreate>;
export type CurrentRoleUpdate = Static<typeof CurrentRoleUpdate>;
