/**
 * The manifest spec of a ClickStack role (docs/manifests/role.md): the members of the managed
 * create body (`wire.ts` beside it), each permission as the API takes it.
 */
import { Type } from 'typebox';
import { described, object, optional } from '../../schema/build.js';
import { ignoreDifferencesSchema } from '../../schema/manifest-parts.js';
import { documentSchema } from '../../schema/manifest.js';

/** The Role kind's name. */
export const ROLE = 'Role';

const permissionSchema = object(
  {
    action: described(Type.String({ minLength: 1 }), 'The action granted (or denied): read, manage, …'),
    subject: described(Type.String({ minLength: 1 }), 'The resource the action applies to: dashboard, alert, …'),
    ...optional({
      inverted: described(Type.Boolean(), 'true: the rule denies the action instead of granting it.'),
      integration: described(Type.String({ minLength: 1 }), 'The integration the permission is scoped to.'),
      conditions: described(
        Type.Object({}, { additionalProperties: true }),
        'CASL conditions on the subject, passed as written.',
      ),
    }),
  },
  { description: 'One CASL permission.' },
);

export const roleSpecSchema = object({
  name: described(
    Type.String({ minLength: 1 }),
    'Role name in the API; what live roles are matched by. Never a predefined role’s name.',
  ),
  permissions: described(
    Type.Array(permissionSchema),
    'Every permission of the role: an update replaces the whole list.',
  ),
  ...optional({
    description: described(Type.String(), 'What the role is for.'),
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

/** What the kind is, as its published schema says. */
export const ROLE_DESCRIPTION =
  "A ClickStack role of a managed service (api profile current): a named set of permissions. Predefined roles are the service's own and are never changed.";

/** The whole manifest document: the envelope with this spec. */
export const roleDocumentSchema = documentSchema(ROLE, roleSpecSchema, ROLE_DESCRIPTION);
