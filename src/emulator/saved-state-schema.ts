/**
 * The frame of the emulator's saved state, shared by both profiles: organizations with their
 * keys and services, teams with their tokens. A profile supplies its pipe shape and the stack
 * members (dashboards, alerts, …) that services and teams both hold.
 */
import type { JsonSchema } from '../schema/api.js';

export const object = (properties: Record<string, unknown>, required: string[]): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
export const array = (items: unknown): JsonSchema => ({ type: 'array', items });
const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

export interface ProfileShapes {
  profile: 'seed' | 'current';
  pipe: JsonSchema;
  serviceStates: readonly string[];
  /** Members of a service and of a team: each a list of the profile's stack resources. */
  stack: Record<string, JsonSchema>;
  /** Stack members that files written by earlier versions lack. */
  optionalStack?: Record<string, JsonSchema>;
  /** Members only a service has besides its pipes (the seed's data sources). */
  serviceOnly?: Record<string, JsonSchema>;
  /** Members a service may have, absent from files written before they existed. */
  serviceOptional?: Record<string, JsonSchema>;
  /** Whether `profile` must be written (files from before profiles have none and are seed). */
  profileRequired: boolean;
}

/** JSON Schema of one profile's saved state (the `--data` file's `state`, and `GET /_emulator/dump`). */
export function savedStateSchema(shapes: ProfileShapes): JsonSchema {
  const stackMembers = Object.keys(shapes.stack);
  const stack = { ...shapes.stack, ...shapes.optionalStack };
  const serviceOnly = shapes.serviceOnly ?? {};
  return object(
    {
      version: { const: 1 },
      profile: { const: shapes.profile },
      organizations: array(
        object(
          {
            id: { type: 'string' },
            keys: array(object({ id: { type: 'string' }, secretSha256: sha256 }, ['id', 'secretSha256'])),
            services: array(
              object(
                {
                  id: { type: 'string' },
                  state: { enum: [...shapes.serviceStates] },
                  pipes: array(shapes.pipe),
                  pipeSecrets: {
                    type: 'object',
                    additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
                  },
                  ...serviceOnly,
                  ...shapes.serviceOptional,
                  ...stack,
                },
                ['id', 'state', 'pipes', 'pipeSecrets', ...Object.keys(serviceOnly), ...stackMembers],
              ),
            ),
          },
          ['id', 'keys', 'services'],
        ),
      ),
      teams: array(
        object({ id: { type: 'string' }, tokenSha256: array(sha256), ...stack }, [
          'id',
          'tokenSha256',
          ...stackMembers,
        ]),
      ),
    },
    ['version', ...(shapes.profileRequired ? ['profile'] : []), 'organizations', 'teams'],
  );
}
