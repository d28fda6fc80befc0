/**
 * The internal model of live resources: one shape per kind, whatever variant they were read from.
 * Adapters normalise into these; the differ, planner and executor see nothing else.
 * Optional members are absent (never `undefined`-valued) when the service did not send them.
 */
import type { PipeSourceKind } from '../schema/enums.js';

export interface Column { name: string; type: string }
export interface FieldMapping { sourceField: string; destinationField: string }
export interface TableMapping {
  sourceSchemaName: string;
  sourceTable: string;
  targetTable: string;
  excludedColumns?: string[];
  useCustomSortingKey?: boolean;
  sortingKeys?: string[];
}
export type TableMappingKey = Pick<TableMapping, 'sourceSchemaName' | 'sourceTable' | 'targetTable'>;

export type PipeSettings = Record<string, number | boolean>;

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
  settings?: PipeSettings;
}

export interface Series {
  type: string;
  dataSource?: string;
  aggFn?: string;
  field?: string;
  where?: string;
  groupBy?: string[];
  content?: string;
}

export interface Tile {
  /** Assigned by the service; absent on tiles not yet created. */
  id?: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  asRatio?: boolean;
  series: Series[];
}

export interface LiveDashboard {
  id: string;
  name: string;
  tags: string[];
  tiles: (Tile & { id: string })[];
}

export interface AlertChannel { type: string; webhookId?: string }

/** Alert configuration as written (request shape, `dashboardId`). */
export interface AlertConfig {
  name?: string;
  message?: string;
  threshold: number;
  thresholdType: 'above' | 'below';
  interval: string;
  source: 'tile' | 'search';
  channel: AlertChannel;
  groupBy?: string;
  dashboardId?: string;
  tileId?: string;
  savedSearchId?: string;
}

export interface LiveAlert extends AlertConfig {
  id: string;
  state?: string;
  silenced?: boolean;
}

export interface DataSource { id: string; name: string; kind: string }

/** Everything a plan needs from one target, read in one list call per collection. */
export interface LiveState {
  /** Empty on self-hosted targets, which have no pipes. */
  pipes: LivePipe[];
  dashboards: LiveDashboard[];
  alerts: LiveAlert[];
}

/** Body of Update pipe, as the planner builds it (seed 4.1). */
export interface PipePatch {
  name?: string;
  source?: Record<string, unknown>;
  destination?: { columns: Column[] };
  fieldMappings?: FieldMapping[];
  settings?: PipeSettings;
}

/** Body of a dashboard create or update; tile ids are sent on update to keep them. */
export interface DashboardWrite {
  name: string;
  tags?: string[];
  tiles: Tile[];
}

export type AlertWrite = AlertConfig;

/** The key a UUID is compared by: its hex digits are case-insensitive (RFC 9562), so `7A0E…` and `7a0e…` name one pipe. */
export function uuidKey(id: string): string {
  return id.toLowerCase();
}
