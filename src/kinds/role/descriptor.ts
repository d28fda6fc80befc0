/**
 * Role: a ClickStack role of a managed service (the managed API's `…/clickstack/roles`, full
 * CRUD; docs/manifests/role.md): a named set of CASL permissions. Matched by API name; pruned on
 * the inventory's proof. The service's predefined roles (`isPredefined`) are listed with the
 * others but can be neither changed nor deleted, and a custom role may not take a predefined
 * one's name: a manifest naming one is an error row, export leaves them out, and since stacksync
 * never makes or adopts one, prune never deletes one. PUT replaces the permissions; the body is
 * the live role's name, description and permissions with the manifest's members laid over them.
 * A self-hosted server has no roles in its API, nor does the seed profile. The list is read on
 * demand (a plan of a target with no Role manifest makes no call for it).
 */
import { errorChange } from '../shared/change.js';
import { readFlat, type LiveFlat } from '../shared/flat-live.js';
import { flatExport } from '../shared/flat-export.js';
import { flatKind } from '../shared/flat-kind.js';
import { managedRoutes } from '../shared/routes.js';
import { ROLE, type LiveRole } from './model.js';
import { roleDocumentSchema, roleSpecSchema } from './schema.js';

const exported = flatExport('role', roleSpecSchema, (live) => live.members);

const base = flatKind<typeof ROLE, 'roles'>({
  kind: ROLE,
  schema: roleDocumentSchema,
  collection: 'roles',
  routes: { managed: managedRoutes('stack/roles', 'roleId', 'PUT', { access: { seed: 'none' } }) },
  references: [],
  rules: { members: (desired) => desired.spec },
  // A predefined role matched by name is the service's, not this manifest's to change.
  afterPlan: (plan, input) => {
    (plan.outcome ?? []).forEach((outcome, index) => {
      const live = outcome.live;
      const desired = input.desired.find((each) => each.key === outcome.key);
      if (!live || !isPredefined(live) || !desired) return;
      const message =
        `"${live.name}" is one of the service's predefined roles, which cannot be changed, and a custom ` +
        `role cannot take its name: rename this role`;
      plan.changes[index] = errorChange(input.target, desired, 'E_MANIFEST_INVALID', message, live.id);
    });
  },
  export: {
    ...exported,
    write: (live, key, ctx) =>
      isPredefined(live)
        ? { skip: 'a predefined role: the service makes it, and it cannot be changed' }
        : exported.write(live, key, ctx),
  },
});

/** Whether a live role is one of the service's own (its reader marks it `predefined`). */
function isPredefined(live: LiveFlat): boolean {
  return 'predefined' in live && live.predefined === true;
}

/** A live role: `isPredefined` is kept apart, never in the members a PUT sends back. */
function readRole(item: unknown, path: string): LiveRole {
  const { isPredefined, ...members } = readFlat(item, path).members;
  return { ...readFlat(item, path), members, predefined: isPredefined === true };
}

// Read on demand: only a target with a Role manifest (or one in its inventory) and export pay for the list, never every plan.
export const roleKind: typeof base = { ...base, reader: { ...base.reader, read: readRole, onDemand: true } };

// What the kinds that read this one get of it (`KindTypes`, in `../descriptor.ts`).
declare module '../../model/kinds.js' {
  interface KindTypes {
    [ROLE]: typeof roleKind;
  }
}
