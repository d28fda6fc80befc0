/**
 * The internal model of live resources and of the API writes, one shape per kind, whatever
 * variant they were read from or are sent to.
 *
 * Write shapes (request bodies and their parts) are derived from the API schemas of
 * `schema/api.ts`, so they are exactly what the emulator accepts. Live shapes are what the
 * tolerant reader of `api/normalize.ts` produces: built from the same pieces, but with plain
 * strings where a service may send values newer than our enumerations, since responses are not
 * validated against the schemas. Adapters normalise into these; the differ, planner and
 * executor see nothing else. Optional members are absent (never `undefined`-valued) when the
 * service did not send them.
 */
import type { Static } from 'typebox';
import type { PipeSourceKind } from '../schema/enums.js';
import type {
  alertChannelSchema,
  alertWriteBodySchema,
  columnSchema,
  dashboardUpdateBodySchema,
  dataSourceSchema,
  fieldMappingSchema,
  pipePatchBodySchema,
  pipeSettingsSchema,
  seriesSchema,
  tableMappingRemovalSchema,
  tableMappingSchema,
  tileWriteSchema,
} from '../schema/api.js';

// ---------------------------------------------------------------- pipes

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

// ---------------------------------------------------------------- dashboards

export type Series = Static<typeof seriesSchema>;
/** A series as read: its enumerated members as plain strings. */
export type LiveSeries = Omit<Series, 'type' | 'dataSource' | 'aggFn'> & { type: string; dataSource?: string; aggFn?: string };

/** A tile as written; `id` is absent on tiles not yet created. */
export type Tile = Static<typeof tileWriteSchema>;
/** A tile as read: the service always gives its id. */
export type LiveTile = Omit<Tile, 'id' | 'series'> & { id: string; series: LiveSeries[] };

export interface LiveDashboard {
  id: string;
  name: string;
  tags: string[];
  tiles: LiveTile[];
}

/** Body of a dashboard create or update; tile ids are sent on update to keep them. */
export type DashboardWrite = Omit<Static<typeof dashboardUpdateBodySchema>, 'id'>;

// ---------------------------------------------------------------- alerts

export type AlertChannel = Static<typeof alertChannelSchema>;
/** A channel as read: any channel type the service has, not only the ones stacksync writes. */
export type LiveAlertChannel = Omit<AlertChannel, 'type'> & { type: string };

/** Body of an alert create or update (PUT replaces the whole configuration; request shape, `dashboardId`). */
export type AlertWrite = Static<typeof alertWriteBodySchema>;

/** An alert as read; `thresholdType` and `source` are normalised to the written values. */
export interface LiveAlert extends Omit<AlertWrite, 'interval' | 'channel'> {
  id: string;
  interval: string;
  channel: LiveAlertChannel;
  state?: string;
  silenced?: boolean;
}

// ---------------------------------------------------------------- sources

/** A data source as read; `kind` as the service names it. */
export type DataSource = Omit<Static<typeof dataSourceSchema>, 'kind'> & { kind: string };

/** Everything a plan needs from one target, read in one list call per collection. */
export interface LiveState {
  /** Empty on self-hosted targets, which have no pipes. */
  pipes: LivePipe[];
  dashboards: LiveDashboard[];
  alerts: LiveAlert[];
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
