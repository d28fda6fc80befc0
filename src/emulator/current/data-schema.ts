/**
 * JSON Schema of the saved state of the current profile (the `--data` file's `state` and the
 * body of `GET /_emulator/dump`): the seed profile's organizations, keys, services and teams,
 * with the current shapes of dashboards (and the tiles a GET hides), alerts, sources, webhooks
 * and saved searches, and pipe states as open text. Connections and the fingerprints of
 * write-only members came later: files without them are still read.
 */
import { Type } from 'typebox';
import { pipeSchema, type JsonSchema } from '../../schema/api.js';
import { CurrentAlert, CurrentDashboard, CurrentSavedSearch, CurrentSource } from '../../schema/api-current.js';
import { CurrentConnection, CurrentHiddenTile, CurrentWebhookEntry } from '../../schema/api-current-stack.js';
import { SERVICE_STATES } from '../../schema/enums.js';
import { array, savedStateSchema } from '../saved-state-schema.js';

const anyChannel = Type.Object({ type: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: true });

/** An alert as stored: the response's members, with `channel` and `channels` as written or seeded. */
const StoredAlert = Type.Object({
  ...CurrentAlert.properties,
  channel: Type.Optional(Type.Union([anyChannel, Type.Null()])),
  channels: Type.Optional(Type.Array(anyChannel)),
});

/** A dashboard as stored: the answer, and the tiles it leaves out. */
const StoredDashboard = Type.Object({ ...CurrentDashboard.properties, hiddenTiles: Type.Optional(Type.Array(CurrentHiddenTile)) });

const fingerprints = { type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' } } };

const pipe: JsonSchema = {
  ...pipeSchema,
  properties: { ...(pipeSchema['properties'] as Record<string, unknown>), state: { type: 'string', minLength: 1 } },
  required: [...new Set([...(pipeSchema['required'] as string[]), 'serviceId', 'state', 'destination', 'createdAt', 'updatedAt'])],
};

export const currentDataSchema: JsonSchema = savedStateSchema({
  profile: 'current',
  profileRequired: true,
  pipe,
  serviceStates: SERVICE_STATES,
  stack: {
    sources: array(CurrentSource),
    webhooks: array(CurrentWebhookEntry),
    savedSearches: array(CurrentSavedSearch),
    dashboards: array(StoredDashboard),
    alerts: array(StoredAlert),
  },
  optionalStack: { connections: array(CurrentConnection), secrets: fingerprints },
});
