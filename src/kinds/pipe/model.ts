/**
 * The Pipe kind's shapes: the desired pipe a manifest asks for, the live pipe as read, and the
 * Update pipe body. Write shapes derive from the API schemas of `schema/api.ts`, so they are
 * exactly what the emulator accepts; live shapes are what the tolerant reader produces.
 */
import type { Static } from 'typebox';
import type { PipeSourceKind } from '../../schema/enums.js';
import type { DesiredBase, SecretValue } from '../../model/desired.js';
import type { pipeSpecSchema } from '../../schema/manifest.js';
import type { columnSchema, fieldMappingSchema, pipePatchBodySchema, pipeSettingsSchema, tableMappingRemovalSchema, tableMappingSchema } from '../../schema/api.js';
import type { Kind } from '../../model/kinds.js';

/** The kind's name, as manifests, plans and the state file write it. */
export const PIPE = 'Pipe' satisfies Kind;

export type Column = Static<typeof columnSchema>;
export type FieldMapping = Static<typeof fieldMappingSchema>;
export type TableMapping = Static<typeof tableMappingSchema>;
/** What identifies a table mapping (the members `tableMappingsToRemove` takes). */
export type TableMappingKey = Static<typeof tableMappingRemovalSchema>;

/** Pipe settings as written (manifest, Update pipe), with the names the service knows. */
export type PipeSettings = Static<typeof pipeSettingsSchema>;
/** Pipe settings as read: every number or boolean the service returns, also settings newer than ours. */
export type LivePipeSettings = Record<string, number | boolean>;

/** A pipe source: exactly one kind block, as read (credentials are never returned). */
export interface PipeSource {
  kind: PipeSourceKind;
  /** The block's members as the service returned them, minus credentials. */
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
}

/**
 * Body of Update pipe, as the planner builds it (seed 4.1). The source is assembled member by
 * member for the pipe's one kind from the manifest's block (already validated against the same
 * block schemas), so it is typed as a plain record.
 */
export type PipePatch = Omit<Static<typeof pipePatchBodySchema>, 'source'> & { source?: Record<string, unknown> };

/** A Pipe's spec with the source split into the block, the resolved secrets and the mappings. */
export interface DesiredPipe extends DesiredBase, Pick<PipeSpec, 'pipeId' | 'name' | 'fieldMappings' | 'settings'> {
  kind: typeof PIPE;
  source?: {
    kind: PipeSourceKind;
    /** Block members other than credentials / accessKey / tableMappings. */
    block: Record<string, unknown>;
    /** `credentials` (username/password) or `accessKey` (accessKeyId/secretKey), resolved. */
    secrets?: { member: 'credentials' | 'accessKey'; fields: Record<string, SecretValue> };
    /** postgres only: the full desired list. */
    tableMappings?: TableMapping[];
    validateSamples?: boolean;
  };
  /** `destination.columns` of the spec. */
  columns?: Column[];
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

/** A Pipe's spec: one source kind block (credentials as secret references, postgres `tableMappings`) beside `validateSamples`. */
export type PipeSpec = Static<typeof pipeSpecSchema>;
