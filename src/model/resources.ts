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
import type { Kind } from './kinds.js';
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
/**
 * A series as read: every member the service sent (a current server's `sourceId`, `alias`, …),
 * with `type` as plain text. Kept whole so an update sends it back as it was.
 */
export type LiveSeries = Record<string, unknown> & { type: string };

/**
 * Members of a live resource that the model does not name, exactly as read (server-set members
 * such as timestamps and owners left out). An update sends them back unchanged, so a member added
 * by a newer server, or one stacksync does not manage, is never dropped or reset.
 */
export type Extra = Record<string, unknown>;

/** A tile as written by the seed's API (series format); `id` is absent on tiles not yet created. */
export type Tile = Static<typeof tileWriteSchema>;

/**
 * A tile in a write body: the seed's `series` or a current server's `config` (one of them), and
 * whatever else the live tile carried, sent back as it was.
 */
export type TileWrite = Omit<Tile, 'series'> & { series?: LiveSeries[]; config?: Record<string, unknown> } & Extra;

/** A tile as read: the service always gives its id; `series` (old format) or `config` (new format) as sent. */
export interface LiveTile {
  id: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  asRatio?: boolean;
  series?: LiveSeries[];
  /** Kept whole and opaque: stacksync reads nothing inside it but compares what a manifest sets. */
  config?: Record<string, unknown>;
  extra?: Extra;
}

export interface LiveDashboard {
  id: string;
  name: string;
  tags: string[];
  tiles: LiveTile[];
  /** When the service made it (ISO 8601), where the service says so: what tells whether a create of ours made it. */
  createdAt?: string;
  /** Filters, saved query, containers, … of newer servers. */
  extra?: Extra;
}

/** Body of a dashboard create or update; tile ids are sent on update to keep them. */
export type DashboardWrite = Omit<Static<typeof dashboardUpdateBodySchema>, 'id' | 'tiles'> & { tiles: TileWrite[] } & Extra;

// ---------------------------------------------------------------- alerts

export type AlertChannel = Static<typeof alertChannelSchema>;
/** A channel as read: any channel type the service has (email, …), with every member it sent. */
export type LiveAlertChannel = Record<string, unknown> & { type: string; webhookId?: string };

/**
 * Body of an alert create or update (PUT replaces the whole configuration; request shape,
 * `dashboardId`). Built on the seed's write body; `source` is written in the target's spelling
 * by the adapter, and members of the live alert the model does not name ride along.
 */
export type AlertWrite = Omit<Static<typeof alertWriteBodySchema>, 'thresholdType' | 'channel' | 'source'> & {
  thresholdType: string;
  source: string;
  channel?: LiveAlertChannel;
  thresholdMax?: number;
} & Extra;

/**
 * An alert as read, tolerant of every shape the services send: `thresholdType` and `state` as
 * plain (lower-case) text, `source` normalised to `tile` / `search` (a current server's
 * `saved_search`) or kept as sent, no channel when the service resolves none.
 */
export interface LiveAlert {
  id: string;
  name?: string;
  message?: string;
  threshold: number;
  thresholdType: string;
  thresholdMax?: number;
  interval: string;
  source?: string;
  channel?: LiveAlertChannel;
  groupBy?: string;
  dashboardId?: string;
  tileId?: string;
  savedSearchId?: string;
  state?: string;
  silenced?: boolean;
  /** When the service made it (ISO 8601), where the service says so: what tells whether a create of ours made it. */
  createdAt?: string;
  /** `channels`, `note`, `numConsecutiveWindows`, schedules, … */
  extra?: Extra;
}

// ---------------------------------------------------------------- sources

/** A data source as read; `kind` as the service names it. */
export type DataSource = Omit<Static<typeof dataSourceSchema>, 'kind'> & { kind: string };

/** A webhook as listed by a current server; alerts name it by id. */
export interface Webhook {
  id: string;
  name: string;
  service?: string;
}

/**
 * A live resource of a list that could not be read (a shape stacksync cannot understand). It is
 * an error on that resource only: a manifest that manages it gets an `error` row, and nothing
 * else notices it.
 */
export interface UnreadableResource {
  kind: Kind;
  id: string;
  /** Its API name, when that much could be read. */
  name?: string;
  /** What is wrong, like `data[3].threshold: is not a number`. */
  problem: string;
}

/** Everything a plan needs from one target, read in one list call per collection. */
export interface LiveState {
  /** Empty on self-hosted targets, which have no pipes. */
  pipes: LivePipe[];
  dashboards: LiveDashboard[];
  alerts: LiveAlert[];
  /** Resources of the lists above that could not be read; absent means none. */
  unreadable?: UnreadableResource[];
}

/**
 * Live pipe states that mean the pipe is not ingesting as it should: reported as `degraded`.
 * Any other state (the services add new ones) is shown as it is, never an error.
 */
export const DEGRADED_PIPE_STATES: readonly string[] = ['Failed', 'InternalError', 'Paused'];

export function isDegradedPipeState(state: string | undefined): boolean {
  return state !== undefined && DEGRADED_PIPE_STATES.includes(state);
}

/**
 * The live resources of one kind a plan or the inventory must account for: those that were read,
 * then those that could not be (still live, with an id; a prune deletes them by it).
 */
export function withUnreadable<T, U extends { kind: Kind }>(kind: Kind, read: readonly T[], unreadable: readonly U[] = []): (T | U)[] {
  return [...read, ...unreadable.filter((item) => item.kind === kind)];
}

/** The key a UUID is compared by: its hex digits are case-insensitive (RFC 9562), so `7A0E…` and `7a0e…` name one pipe. */
export function uuidKey(id: string): string {
  return id.toLowerCase();
}
