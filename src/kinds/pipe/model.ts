/**
 * The Pipe kind's shapes: the desired pipe a manifest asks for (in either form: born in Git, or an
 * existing pipe named by id), the live pipe as read, and the Update pipe body. Write shapes derive
 * from the API schemas of `schema/`, so they are exactly what the emulator accepts; live shapes
 * are what the tolerant reader produces.
 */
import type { Static } from 'typebox';
import type { PipeFamily } from '../../schema/pipe-sources.js';
import type { DesiredBase, SecretValue } from '../../model/desired.js';
import type { bornPipeSpecSchema, existingPipeSpecSchema, PIPE_DESIRED_STATES } from './schema.js';
import type {
  columnSchema,
  fieldMappingSchema,
  pipePatchBodySchema,
  pipeSettingsSchema,
  tableMappingRemovalSchema,
  tableMappingSchema,
} from './wire.js';
import type { ChangeKey } from '../../model/plan.js';

/** The kind's name, as manifests, plans and the state file write it. */
import { PIPE } from './schema.js';

export { PIPE };

export type Column = Static<typeof columnSchema>;
export type FieldMapping = Static<typeof fieldMappingSchema>;
export type TableMapping = Static<typeof tableMappingSchema>;
/** What identifies a table mapping (the members `tableMappingsToRemove` takes). */
export type TableMappingKey = Static<typeof tableMappingRemovalSchema>;

/** Pipe settings as written (manifest, Update pipe), with the names the service knows. */
export type PipeSettings = Static<typeof pipeSettingsSchema>;
/** Pipe settings as read: every number or boolean the service returns, also settings newer than ours. */
export type LivePipeSettings = Record<string, number | boolean>;

/** A pipe source: exactly one family block, as read (write-only members are never returned). */
export interface PipeSource {
  kind: PipeFamily;
  /** The block's members as the service returned them, minus write-only ones. */
  block: Record<string, unknown>;
}

export interface LivePipe {
  id: string;
  name: string;
  state?: string;
  source: PipeSource;
  destination: { columns?: Column[] } & Record<string, unknown>;
  fieldMappings?: FieldMapping[];
  settings?: LivePipeSettings;
  scaling?: Record<string, number>;
  description?: string;
  /** When the service made it (ISO 8601), where it says so: what a create intent is judged against. */
  createdAt?: string;
}

/**
 * Body of Update pipe, as the planner builds it (seed 4.1). The source is assembled member by
 * member for the pipe's one family from the manifest's block (already validated against the same
 * block schemas), so it is typed as a plain record.
 */
export type PipePatch = Omit<Static<typeof pipePatchBodySchema>, 'source' | 'destination' | 'settings'> & {
  source?: Record<string, unknown>;
  destination?: { columns: Column[] };
  settings?: Record<string, number | boolean>;
};

/**
 * One write-only member of a source block, resolved: an object whose every field is a secret
 * (`credentials`: username, password), or a member that is one secret itself (`serviceAccountKey`).
 */
export interface SecretMember {
  /** Dotted, inside the family's block: `credentials`, `schemaRegistry.credentials`, `serviceAccountKey`. */
  member: string;
  fields?: Record<string, SecretValue>;
  value?: SecretValue;
}

export interface DesiredPipeSource {
  kind: PipeFamily;
  /** Block members other than write-only ones and table mappings. */
  block: Record<string, unknown>;
  /** The write-only members, resolved. */
  secrets?: SecretMember[];
  /** Database families: the full desired list. */
  tableMappings?: Record<string, unknown>[];
  validateSamples?: boolean;
}

export type PipeDesiredState = (typeof PIPE_DESIRED_STATES)[number];

/** What only a pipe born in Git has: the rest of its create body and the state it should be in. */
export interface BornPipe {
  destination: { columns?: Column[] } & Record<string, unknown>;
  scaling?: Record<string, number>;
  description?: string;
  state: PipeDesiredState;
}

/** A Pipe manifest, its source split into the block, the resolved secrets and the mappings. */
export interface DesiredPipe extends DesiredBase {
  kind: typeof PIPE;
  /** An existing pipe's id; absent for a pipe born in Git, which is matched by `name`. */
  pipeId?: string;
  name?: string;
  source?: DesiredPipeSource;
  /** `destination.columns` of an existing pipe's manifest. */
  columns?: Column[];
  fieldMappings?: FieldMapping[];
  settings?: Record<string, number | boolean>;
  /** Present for a pipe born in Git. */
  born?: BornPipe;
}

/** What the pipes' plan tells the kinds that name pipes (`KindPlan.outcome`). */
export interface PipePlanOutcome {
  /** The changes of this plan that create a pipe sharing the service's CDC scaling (a database pipe). */
  databaseCreates: ChangeKey[];
}

/** A desired pipe born in Git (no `pipeId`, a `name` and the rest of its create body). */
export type DesiredBornPipe = DesiredPipe & { name: string; source: DesiredPipeSource; born: BornPipe };

export function isBorn(pipe: DesiredPipe): pipe is DesiredBornPipe {
  return pipe.born !== undefined;
}

/**
 * Live pipe states that mean the pipe is not ingesting as it should: reported as `degraded`.
 * Any other state (the services add new ones) is shown as it is, never an error.
 */
export const DEGRADED_PIPE_STATES: readonly string[] = ['Failed', 'InternalError', 'Paused'];

export function isDegradedPipeState(state: string | undefined): boolean {
  return state !== undefined && DEGRADED_PIPE_STATES.includes(state);
}

/** The key a UUID is compared by: its hex digits are case-insensitive (RFC 9562), so `7A0E…` and `7a0e…` name one pipe. */
export function uuidKey(id: string): string {
  return id.toLowerCase();
}

/** A Pipe manifest's spec, in either form. */
export type PipeSpec = ExistingPipeSpec | BornPipeSpec;
export type ExistingPipeSpec = Static<typeof existingPipeSpecSchema>;
export type BornPipeSpec = Static<typeof bornPipeSpecSchema>;

export function isExistingSpec(spec: PipeSpec): spec is ExistingPipeSpec {
  return 'pipeId' in spec && typeof spec.pipeId === 'string';
}
