/**
 * Dashboard differ. Tiles are matched by name; an update sends the whole tile list (PUT replaces
 * it) with the live ids of same-named tiles, so alerts watching them keep working.
 *
 * Server-side apply: only the members a manifest sets are compared, and an update body is the
 * live dashboard as read with those members laid over it. A tile the manifest gives only a name
 * and a position keeps its live `config` (or `series`) and every member stacksync does not model.
 */
import { withUnreadable, type UnreadableResource } from '../../model/resources.js';
import { changeKey, operationType, type Change, type FieldDiff } from '../../model/plan.js';
import type { TargetState } from '../../model/state.js';
import { adoptWarning, ambiguousMessage, changeFor, errorChange, isUnreadable, unreadableChange } from '../kit/change.js';
import { keepLive } from '../kit/ignore.js';
import type { IntentTiming } from '../kit/intents.js';
import { matchAll } from '../kit/match.js';
import type { Match } from '../kit/match.js';
import { diffValues, fieldDiff, omit, overlay, sameSet } from '../kit/values.js';
import { DASHBOARD as KIND, type DashboardWrite, type DesiredDashboard, type DesiredTile, type LiveDashboard, type LiveTile, type TileWrite } from './model.js';

export interface DashboardContext {
  target: string;
  live: readonly LiveDashboard[];
  /** Live dashboards that could not be read; a manifest matching one gets an error row. */
  unreadable?: readonly UnreadableResource[];
  /** `Kind/key` → why the manifest names something that does not exist: an error row. */
  unresolved?: ReadonlyMap<string, string>;
  state: TargetState;
  /** The plan's time and the settle window, against which create intents are judged. */
  timing: IntentTiming;
  adopt: boolean;
}

/** What the alert differ needs to know about a dashboard's fate in this plan. */
export interface DashboardOutcome {
  key: string;
  change: Change;
  /** The matched live dashboard; absent when it is created (or cannot be planned). */
  live?: LiveDashboard;
  /** True when the plan writes it, so ids are final only after that write. */
  writes: boolean;
  /** Desired tile name → id it keeps (undefined: new tile, id known after apply; or missing live when not written). */
  tileIds: Map<string, string | undefined>;
  /** Live tile id → name, for tiles the planned write drops (the server deletes alerts watching them). */
  removedTiles: Map<string, string>;
}

export function planDashboards(ctx: DashboardContext, desired: readonly DesiredDashboard[]): DashboardOutcome[] {
  const matches = matchAll(KIND, desired, withUnreadable(KIND, ctx.live, ctx.unreadable), ctx.state, ctx.timing);
  return desired.map((dashboard) => planDashboard(ctx, dashboard, matches.get(dashboard.key) ?? { how: 'none' }));
}

function planDashboard(ctx: DashboardContext, desired: DesiredDashboard, match: Match<LiveDashboard | UnreadableResource>): DashboardOutcome {
  const outcome = { key: desired.key, writes: false, tileIds: new Map<string, string | undefined>(), removedTiles: new Map<string, string>() };
  const unresolved = ctx.unresolved?.get(changeKey(KIND, desired.key));
  const liveId = match.how === 'owned' || match.how === 'adopt' ? match.live.id : undefined;
  if (unresolved !== undefined) return { ...outcome, change: errorChange(ctx.target, desired, 'E_REF_UNRESOLVED', unresolved, liveId) };
  if ((match.how === 'owned' || match.how === 'adopt') && isUnreadable(match.live)) {
    return { ...outcome, change: unreadableChange(ctx.target, desired, match.live) };
  }
  switch (match.how) {
    case 'ambiguous':
      return { ...outcome, change: errorChange(ctx.target, desired, 'E_CONFLICT', ambiguousMessage(KIND, desired.name, match.count)) };
    case 'none':
      return planCreate(ctx, desired, outcome);
    case 'owned':
    case 'adopt':
      return planExisting(ctx, desired, match.live as LiveDashboard, match.how === 'adopt', match.how === 'owned' && match.reclaimed);
  }
}

function planCreate(ctx: DashboardContext, desired: DesiredDashboard, outcome: Omit<DashboardOutcome, 'change'>): DashboardOutcome {
  const change = changeFor(ctx.target, desired, 'create');
  const tiles = desired.tiles.map(tileBody);
  const body: DashboardWrite = { name: desired.name, ...(desired.tags ? { tags: desired.tags } : {}), tiles };
  change.liveName = desired.name;
  change.operations = [{ type: operationType('create', KIND), body }];
  change.diff = [fieldDiff('name', undefined, desired.name)];
  if (desired.tags) change.diff.push(fieldDiff('tags', undefined, desired.tags));
  for (const tile of tiles) change.diff.push(fieldDiff(`tiles[${tile.name}]`, undefined, tile));
  for (const tile of desired.tiles) outcome.tileIds.set(tile.name, undefined);
  return { ...outcome, change, writes: true };
}

function planExisting(
  ctx: DashboardContext,
  desired: DesiredDashboard,
  live: LiveDashboard,
  adopting: boolean,
  reclaimed: boolean,
): DashboardOutcome {
  desired = keepLive(desired, live, desired.policy?.ignore);
  const diff = diffDashboard(desired, live);
  const change = changeFor(ctx.target, desired, adopting ? 'adopt' : diff.length > 0 ? 'update' : 'unchanged');
  change.id = live.id;
  change.liveName = desired.name;
  change.diff = diff;
  if (reclaimed) change.reclaimed = true;
  if (adopting) change.warnings.push(adoptWarning(KIND, live.name, ctx.adopt));
  const writes = diff.length > 0 && (!adopting || ctx.adopt);
  if (writes) change.operations = [{ type: operationType('update', KIND), id: live.id, body: updateBody(desired, live) }];
  const liveTiles = new Map(live.tiles.map((tile) => [tile.name, tile.id]));
  const desiredNames = new Set(desired.tiles.map((tile) => tile.name));
  const removed = writes ? live.tiles.filter((tile) => !desiredNames.has(tile.name)) : [];
  return {
    key: desired.key,
    change,
    live,
    writes,
    tileIds: new Map(desired.tiles.map((tile) => [tile.name, liveTiles.get(tile.name)])),
    removedTiles: new Map(removed.map((tile) => [tile.id, tile.name])),
  };
}

function diffDashboard(desired: DesiredDashboard, live: LiveDashboard): FieldDiff[] {
  const diff: FieldDiff[] = [];
  if (desired.name !== live.name) diff.push(fieldDiff('name', live.name, desired.name));
  if (desired.tags && !sameSet(desired.tags, live.tags)) diff.push(fieldDiff('tags', live.tags, desired.tags));
  const liveByName = new Map(live.tiles.map((tile) => [tile.name, tile]));
  for (const tile of desired.tiles) {
    const current = liveByName.get(tile.name);
    const path = `tiles[${tile.name}]`;
    if (current) diffValues(path, tileBody(tile), omit(liveTileBody(current), 'id'), diff);
    else diff.push(fieldDiff(path, undefined, tileBody(tile)));
  }
  const desiredNames = new Set(desired.tiles.map((tile) => tile.name));
  for (const tile of live.tiles.filter((item) => !desiredNames.has(item.name))) {
    diff.push(fieldDiff(`tiles[${tile.name}]`, omit(liveTileBody(tile), 'id'), undefined));
  }
  return diff;
}

/**
 * The PUT body: the live dashboard as read (filters, saved query, … of newer servers) with the
 * manifest's members laid over it. Same-named tiles keep their live id, and members the manifest
 * leaves out keep their live value (PUT replaces the tile list, and an unmanaged field must not
 * be reset).
 */
function updateBody(desired: DesiredDashboard, live: LiveDashboard): DashboardWrite {
  const liveByName = new Map(live.tiles.map((tile) => [tile.name, tile]));
  const tiles = desired.tiles.map((tile) => {
    const current = liveByName.get(tile.name);
    return current ? overlayTile(tileBody(tile), current) : tileBody(tile);
  });
  return { ...live.extra, name: desired.name, ...(desired.tags ? { tags: desired.tags } : {}), tiles };
}

/**
 * A manifest tile over its live tile. A tile holds one chart format: when the manifest writes
 * `series`, the live `config` is not sent along (and the other way round), since a service
 * refuses a tile with both.
 */
function overlayTile(desired: TileWrite, live: LiveTile): TileWrite {
  const base = liveTileBody(live);
  if (desired.series !== undefined) delete base.config;
  if (desired.config !== undefined) delete base.series;
  return overlay(desired, base) as TileWrite;
}

/** A live tile as a write body: every member it was read with, its id included. */
function liveTileBody(tile: LiveTile): TileWrite {
  const { extra, ...modelled } = tile;
  return { ...extra, ...modelled };
}

/** A tile as the API takes it (no id), as a copy the overlay may build on. */
function tileBody(tile: DesiredTile): TileWrite {
  return { ...tile } as TileWrite;
}
