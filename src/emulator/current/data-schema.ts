/**
 * JSON Schema of the saved state of the current profile (the `--data` file's `state` and the
 * body of `GET /_emulator/dump`): the seed profile's organizations, keys, services and teams,
 * with the current shapes of dashboards, alerts, sources, webhooks and saved searches, and pipe
 * states as open text.
 */
import { Type } from 'typebox';
import { pipeSchema, type JsonSchema } from '../../schema/api.js';
import { CurrentAlert, CurrentDashboard, CurrentSavedSearch, CurrentSource, CurrentWebhook } from '../../schema/api-current.js';
import { SERVICE_STATES } from '../../schema/enums.js';

const anyChannel = Type.Object({ type: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: true });

/** An alert as stored: the response's members, with `channel` and `channels` as written or seeded. */
const StoredAlert = Type.Object({
  ...CurrentAlert.properties,
  channel: Type.Optional(Type.Union([anyChannel, Type.Null()])),
  channels: Type.Optional(Type.Array(anyChannel)),
});

const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const array = (items: unknown): JsonSchema => ({ type: 'array', items });
const object = (properties: Record<string, unknown>, required: string[]): JsonSchema => ({ type: 'object', properties, required, additionalProperties: false });

const pipe: JsonSchema = {
  ...pipeSchema,
  properties: { ...(pipeSchema['properties'] as Record<string, unknown>), state: { type: 'string', minLength: 1 } },
  required: [...new Set([...(pipeSchema['required'] as string[]), 'serviceId', 'state', 'destination', 'createdAt', 'updatedAt'])],
};

const stack = {
  sources: array(CurrentSource),
  webhooks: array(CurrentWebhook),
  savedSearches: array(CurrentSavedSearch),
  dashboards: array(CurrentDashboard),
  alerts: array(StoredAlert),
};
const stackMembers = Object.keys(stack);

export const currentDataSchema: JsonSchema = object(
  {
    version: { const: 1 },
    profile: { const: 'current' },
    organizations: array(
      object(
        {
          id: { type: 'string' },
          keys: array(object({ id: { type: 'string' }, secretSha256: sha256 }, ['id', 'secretSha256'])),
          services: array(
            object(
              {
                id: { type: 'string' },
                state: { enum: [...SERVICE_STATES] },
                pipes: array(pipe),
                pipeSecrets: { type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'string' } } },
                ...stack,
              },
              ['id', 'state', 'pipes', 'pipeSecrets', ...stackMembers],
            ),
          ),
        },
        ['id', 'keys', 'services'],
      ),
    ),
    teams: array(object({ id: { type: 'string' }, tokenSha256: array(sha256), ...stack }, ['id', 'tokenSha256', ...stackMembers])),
  },
  ['version', 'profile', 'organizations', 'teams'],
);
