/**
 * JSON Schema of the saved state of the current profile (the `--data` file's `state` and the
 * body of `GET /_emulator/dump`): the seed profile's organizations, keys, services and teams,
 * with each stack kind's records as its file declares them (dashboards with the tiles a GET
 * hides, alerts, sources, webhooks, saved searches, …), pipes of every source family in any state, and each service's pipe
 * lifecycle and CDC scaling. Connections, the fingerprints of write-only members, the pipe
 * lifecycle and roles came later: files without them are still read.
 */
import { Type } from 'typebox';
import { currentStoredPipeSchema } from '../../kinds/pipe/wire.js';
import { SERVICE_STATES } from '../../schema/enums.js';
import { readable, type JsonSchema } from '../../schema/build.js';
import { array, savedStateSchema } from '../saved-state-schema.js';
import { CURRENT_COLLECTIONS } from './stack-kinds.js';

const fingerprints = {
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' } },
};

const step = Type.Object({ state: Type.String({ minLength: 1 }), at: Type.Integer() }, { additionalProperties: false });
const cdcScaling = { replicaCpuMillicores: Type.Integer(), replicaMemoryGb: Type.Number() };

/** The pipes' lifecycle and the CDC scaling (`PipeRuntimeData`); absent in files from before the lifecycle. */
export const pipeRuntimeSchema = readable(
  Type.Object(
    {
      lifecycles: Type.Record(
        Type.String(),
        Type.Object(
          { steps: Type.Array(step), snapshotPending: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
      ),
      cdcScaling: Type.Optional(
        Type.Object(
          {
            ...cdcScaling,
            pending: Type.Optional(Type.Object({ ...cdcScaling, at: Type.Integer() }, { additionalProperties: false })),
          },
          { additionalProperties: false },
        ),
      ),
      failPipes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    },
    { additionalProperties: false },
  ),
);

export const currentDataSchema: JsonSchema = savedStateSchema({
  profile: 'current',
  profileRequired: true,
  pipe: currentStoredPipeSchema,
  serviceStates: SERVICE_STATES,
  serviceOptional: { pipeRuntime: pipeRuntimeSchema },
  // Each kind's member as its file declares it (`collection.data`).
  stack: Object.fromEntries(
    CURRENT_COLLECTIONS.filter(({ data }) => !data.optional).map(({ member, data }) => [member, array(data.items)]),
  ),
  optionalStack: {
    ...Object.fromEntries(
      CURRENT_COLLECTIONS.filter(({ data }) => data.optional).map(({ member, data }) => [member, array(data.items)]),
    ),
    secrets: fingerprints,
  },
});
