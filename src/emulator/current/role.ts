/**
 * ClickStack roles of the current profile, managed only (the managed OpenAPI's
 * `…/clickstack/roles`: list, create, get, update, delete; docs/manifests/role.md), pure over one
 * workspace. A service starts with its predefined roles, which are listed and read like the
 * others but never changed or deleted (400); a custom role's name is unique within the service
 * and never a predefined role's (400). PUT replaces the permissions; a name or description left
 * out is kept. A self-hosted server has no roles path.
 */
import {
  CurrentRole,
  CurrentRoleCreate,
  CurrentRoleUpdate,
  type CurrentRole as Role,
  type CurrentRoleCreate as RoleCreate,
  type CurrentRoleUpdate as RoleUpdate,
} from '../../kinds/role/wire.js';
import { isoTimestamp, newObjectId } from '../ids.js';
import type { CurrentWorkspace } from '../model.js';
import { cleaned, inSchemaOrder, jsonNotFound, refused } from './validate.js';
import type { StackKind } from './stack-kind.js';

declare module '../model.js' {
  interface CurrentCollections {
    /** On a managed service, its ClickStack roles, the predefined ones first; a self-hosted server has none. */
    roles: Role[];
  }
  interface CurrentCollectionsData {
    /** Absent in files from before roles (and when there are none): a managed service then has its predefined roles. */
    roles?: Role[];
  }
}

/** The service's own roles, as a new service has them. */
const PREDEFINED: readonly { name: string; description: string; permissions: Role['permissions'] }[] = [
  { name: 'Admin', description: 'Full access to every resource', permissions: [{ action: 'manage', subject: 'all' }] },
  {
    name: 'Member',
    description: 'Reads and changes dashboards, searches and alerts',
    permissions: [
      { action: 'manage', subject: 'dashboard' },
      { action: 'manage', subject: 'savedSearch' },
      { action: 'manage', subject: 'alert' },
      { action: 'read', subject: 'all' },
    ],
  },
  {
    name: 'Read Only',
    description: 'Read-only access to all resources',
    permissions: [{ action: 'read', subject: 'all' }],
  },
];

/** The predefined roles of a new managed service (none on a self-hosted server, which has no roles path). */
export function predefinedRoles(managed: boolean, nowMs: number): Role[] {
  if (!managed) return [];
  const now = isoTimestamp(nowMs);
  return PREDEFINED.map((role) =>
    inSchemaOrder(CurrentRole, { id: newObjectId(nowMs), ...role, isPredefined: true, createdAt: now, updatedAt: now }),
  );
}

export function listRoles(ws: CurrentWorkspace): Role[] {
  return ws.roles;
}

export function getRole(ws: CurrentWorkspace, id: string): Role {
  const role = ws.roles.find((candidate) => candidate.id === id);
  if (!role) throw jsonNotFound('Role not found');
  return role;
}

/** A name no other role holds, and no predefined role. */
function checkName(ws: CurrentWorkspace, name: string, except?: string): void {
  if (name.trim() === '') throw refused('name must not be empty');
  const taken = ws.roles.find((role) => role.id !== except && role.name === name);
  if (taken?.isPredefined) throw refused(`A role named "${name}" is predefined`);
  if (taken) throw refused(`A role named "${name}" already exists`);
}

export function createRole(ws: CurrentWorkspace, body: unknown, nowMs: number): Role {
  const write = cleaned<RoleCreate>(CurrentRoleCreate, body);
  checkName(ws, write.name);
  const now = isoTimestamp(nowMs);
  const role = inSchemaOrder(CurrentRole, {
    id: newObjectId(nowMs),
    name: write.name,
    description: write.description,
    permissions: write.permissions,
    isPredefined: false,
    createdAt: now,
    updatedAt: now,
  });
  ws.roles.push(role);
  return role;
}

/** The order of the real checks: the body (400), the role (404), predefined (400), the name (400). */
export function updateRole(ws: CurrentWorkspace, id: string, body: unknown, nowMs: number): Role {
  const write = cleaned<RoleUpdate>(CurrentRoleUpdate, body);
  const current = getRole(ws, id);
  if (current.isPredefined) throw refused('Predefined roles cannot be modified');
  if (write.name !== undefined) checkName(ws, write.name, id);
  const next = inSchemaOrder(CurrentRole, {
    ...current,
    ...(write.name !== undefined && { name: write.name }),
    ...(write.description !== undefined && { description: write.description }),
    permissions: write.permissions,
    updatedAt: isoTimestamp(nowMs),
  });
  ws.roles[ws.roles.indexOf(current)] = next;
  return next;
}

export function deleteRole(ws: CurrentWorkspace, id: string): void {
  const role = getRole(ws, id);
  if (role.isPredefined) throw refused('Predefined roles cannot be deleted');
  ws.roles.splice(ws.roles.indexOf(role), 1);
}

/** Managed only: a self-hosted server has no roles path. */
export const stackKind: StackKind = {
  collection: {
    member: 'roles',
    data: { items: CurrentRole, optional: true },
    seed: (ws, _seeded, { nowMs }) => {
      ws.roles = predefinedRoles(ws.variant === 'managed', nowMs);
    },
    restore: (ws, saved, { nowMs }) => {
      ws.roles = saved.roles ?? predefinedRoles(ws.variant === 'managed', nowMs);
    },
    save: (ws) => (ws.roles.length > 0 ? ws.roles : undefined),
  },
  segment: 'roles',
  idName: 'roleId',
  gateway: () => CurrentRoleCreate,
  servedOn: ['managed'],
  pagedOn: [],
  writableOn: ['managed'],
  list: listRoles,
  get: ({ ws, id }) => getRole(ws, id),
  create: ({ ws, body, nowMs }) => createRole(ws, body, nowMs),
  update: ({ ws, id, body, nowMs }) => updateRole(ws, id, body, nowMs),
  remove: ({ ws, id }) => deleteRole(ws, id),
};
