/**
 * JSON Schema of the saved state of the current profile (the `--data` file's `state` and the
 * body of `GET /_emulator/dump`): the seed profile's organizations, keys, services and teams,
 * with the current shapes of dashboards (and the tiles a GET hides), alerts, sources, webhooks
 * and saved searches, pipes of every source family in any state, and each service's pipe
 * lifecycle and CDC scaling. Connections, the fingerprints of write-only members, the pipe
 * lifecycle and roles came later: files without them are still read.
 */
import { Type } from 'typebox';
import { currentStoredPipeSchema } from '../../kinds/pipe/wire.js';
import { readable, type JsonSchema } from '../../schema/build.js';
import { CurrentAlert } from '../../kinds/alert/wire.js';
import { CurrentDashboard, CurrentHiddenTile } from '../../kinds/dashboard/wire.js';
import { CurrentSavedSearch } from '../../kinds/saved-search/wire.js';
import { CurrentSource } from '../../kinds/source/wire.js';
import { CurrentConnection } from '../../kinds/connection/wire.js';
import { CurrentWebhookEntry } from '../../kinds/webhook/wire.js';
import { CurrentRole } from '../../kinds/role/wire.js';
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

const step = Type.Object({ state: Type.String({ minLength: 1 }), at: Type.Integer() }, { additionalProperties: false });
const cdcScaling = { replicaCpuMillicores: Type.Integer(), replicaMemoryGb: Type.Number() };

/** The pipes' lifecycle and the CDC scaling (`PipeRuntimeData`); absent in files from before the lifecycle. */
export const pipeRuntimeSchema = readable(Type.Object(
  {
    lifecycles: Type.Record(Type.String(), Type.Object({ steps: Type.Array(step), snapshotPending: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
    cdcScaling: Type.Optional(Type.Object({ ...cdcScaling, pending: Type.Optional(Type.Object({ ...cdcScaling, at: Type.Integer() }, { additionalProperties: false })) }, { additionalProperties: false })),
    failPipes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
));

export const currentDataSchema: JsonSchema = savedStateSchema({
  profile: 'current',
  profileRequired: true,
  pipe: currentStoredPipeSchema,
  serviceStates: SERVICE_STATES,
  serviceOptional: { pipeRuntime: pipeRuntimeSchema },
  stack: {
    sources: array(CurrentSource),
    webhooks: array(CurrentWebhookEntry),
    savedSearches: array(CurrentSavedSearch),
    dashboards: array(StoredDashboard),
    alerts: array(StoredAlert),
  },
  optionalStack: { connections: array(CurrentConnection), roles: array(CurrentRole), secrets: fingerprints },
});
