/**
 * Small factories for differ inputs: fixtures and tests give only what a case is about, the
 * rest gets the same defaults on the desired and the live side (so it never shows as drift).
 */
import type { LiveAlert } from '../../src/kinds/alert/model.js';
import type { LiveDashboard, Tile } from '../../src/kinds/dashboard/model.js';
import type { LivePipe } from '../../src/kinds/pipe/model.js';
import { liveStateOf, type LiveState } from '../../src/kinds/index.js';
import type { Variant } from '../../src/model/kinds.js';
import type { PlanOptions, PlanTargetInput } from '../../src/diff/index.js';
import type { DesiredAlert } from '../../src/kinds/alert/model.js';
import type { DesiredDashboard, DesiredTile } from '../../src/kinds/dashboard/model.js';
import type { DesiredPipe } from '../../src/kinds/pipe/model.js';
import type { DesiredResource } from '../../src/kinds/index.js';
import type { TargetState } from '../../src/model/state.js';
import { emptyTargetState } from '../../src/state/empty.js';
import type { ApiProfile } from '../../src/schema/enums.js';

type Loose = Record<string, unknown>;

export const TARGET = 'prod';

const TILE_DEFAULTS = { x: 0, y: 0, w: 6, h: 2, series: [{ type: 'time', aggFn: 'avg' }] };
const ALERT_DEFAULTS = {
  threshold: 100,
  thresholdType: 'above',
  interval: '5m',
  channel: { type: 'webhook', webhookId: 'wh-1' },
};

function location(key: string, line = 1): { file: string; line: number } {
  return { file: `manifests/${key}.yaml`, line };
}

export function desiredTile(tile: Loose): DesiredTile {
  return { ...TILE_DEFAULTS, ...tile } as DesiredTile;
}

export function desiredDashboard(fields: Loose & { key: string }): DesiredDashboard {
  const tiles = ((fields['tiles'] as Loose[] | undefined) ?? []).map(desiredTile);
  return {
    kind: 'Dashboard',
    target: TARGET,
    location: location(fields.key),
    name: fields.key,
    ...fields,
    tiles,
  } as DesiredDashboard;
}

export function desiredAlert(fields: Loose & { key: string }): DesiredAlert {
  const source = fields['source'] ?? (fields['savedSearchId'] === undefined ? 'tile' : 'search');
  return {
    kind: 'Alert',
    target: TARGET,
    location: location(fields.key),
    ...ALERT_DEFAULTS,
    source,
    ...fields,
  } as DesiredAlert;
}

export function desiredPipe(fields: Loose & { key: string; pipeId?: string }): DesiredPipe {
  return { kind: 'Pipe', target: TARGET, location: location(fields.key), ...fields } as DesiredPipe;
}

export function desired(resource: Loose): DesiredResource {
  const withKey = resource as Loose & { key: string; pipeId: string };
  switch (resource['kind']) {
    case 'Dashboard':
      return desiredDashboard(withKey);
    case 'Alert':
      return desiredAlert(withKey);
    case 'Pipe':
      return desiredPipe(withKey);
    case 'PipeCdcScaling':
      return {
        kind: 'PipeCdcScaling',
        target: TARGET,
        location: location(withKey.key),
        ...resource,
      } as DesiredResource;
    default:
      throw new Error(`unknown kind ${String(resource['kind'])}`);
  }
}

export function liveTile(tile: Loose & { id: string }): Tile & { id: string } {
  return { ...TILE_DEFAULTS, ...tile } as Tile & { id: string };
}

export function liveDashboard(fields: Loose & { id: string; name: string }): LiveDashboard {
  const tiles = ((fields['tiles'] as (Loose & { id: string })[] | undefined) ?? []).map(liveTile);
  return { tags: [], ...fields, tiles } as LiveDashboard;
}

export function liveAlert(fields: Loose & { id: string }): LiveAlert {
  const source = fields['source'] ?? (fields['savedSearchId'] === undefined ? 'tile' : 'search');
  return { ...ALERT_DEFAULTS, source, state: 'inactive', silenced: false, ...fields } as LiveAlert;
}

/** A live state: every kind's collection empty (from the registry), those given, dashboards and alerts filled in. */
export function liveState(fields: Loose = {}): LiveState {
  return {
    ...liveStateOf({}),
    ...(fields as Partial<LiveState>),
    dashboards: ((fields['dashboards'] as (Loose & { id: string; name: string })[] | undefined) ?? []).map(
      liveDashboard,
    ),
    alerts: ((fields['alerts'] as (Loose & { id: string })[] | undefined) ?? []).map(liveAlert),
    ...(fields['unreadable'] ? { unreadable: fields['unreadable'] as LiveState['unreadable'] } : {}),
  };
}

export function targetState(fields: Loose = {}): TargetState {
  const empty = emptyTargetState();
  const inventory = (fields['inventory'] ?? {}) as Partial<TargetState['inventory']>;
  return {
    inventory: { ...empty.inventory, ...inventory },
    secretHashes: (fields['secretHashes'] as Record<string, string> | undefined) ?? {},
    intents: (fields['intents'] as TargetState['intents'] | undefined) ?? [],
  };
}

/** When a plan of the factories is made, unless a case says otherwise: well after the fixtures' intents (10:20). */
export const PLAN_NOW = '2026-03-15T12:00:00.000Z';
/** The default `sync.settleWindow`. */
export const LATE_CREATE_WINDOW_MS = 120_000;

export function planInput(fields: {
  target?: { name?: string; variant?: Variant; profile?: ApiProfile };
  desired?: Loose[];
  live?: Loose;
  state?: Loose;
  options?: Partial<PlanOptions>;
  /** ISO time the plan is made; default {@link PLAN_NOW}. */
  now?: string;
  /** `Kind/key` of manifests that failed to load but whose identity is known. */
  broken?: string[];
}): PlanTargetInput {
  return {
    target: { name: TARGET, variant: 'managed', ...fields.target },
    desired: (fields.desired ?? []).map(desired),
    live: liveState(fields.live),
    state: targetState(fields.state),
    options: {
      prune: false,
      adopt: false,
      blocked: false,
      lateCreateWindowMs: LATE_CREATE_WINDOW_MS,
      ...fields.options,
    },
    nowMs: Date.parse(fields.now ?? PLAN_NOW),
    ...(fields.broken ? { broken: new Set(fields.broken) } : {}),
  };
}

/** The seeded postgres pipe of the emulator (DEFAULT_SEED_IDS), as the client reads it. */
export function livePostgresPipe(
  mappings: Loose[] = [
    { sourceSchemaName: 'public', sourceTable: 'invoices', targetTable: 'invoices' },
    { sourceSchemaName: 'public', sourceTable: 'customers', targetTable: 'customers' },
  ],
): LivePipe {
  return {
    id: '7a0e1f2c-0004-4b3a-9c4d-5e6f7a8b9c04',
    name: 'billing-postgres',
    state: 'Running',
    source: {
      kind: 'postgres',
      block: {
        host: 'db.internal',
        port: 5432,
        database: 'billing',
        settings: { syncIntervalSeconds: 10, pullBatchSize: 1000 },
        tableMappings: mappings,
      },
    },
    destination: { database: 'default', columns: [{ name: 'id', type: 'UInt64' }] },
  } as LivePipe;
}
