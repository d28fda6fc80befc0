/**
 * Dashboard differ. Tiles are matched by name; an update sends the whole tile list (PUT replaces
 * it) with the live ids of same-named tiles, so alerts watching them keep working. Filters are
 * matched by name too, and keep their live ids (an update must give every filter its id; a new
 * one gets an id made from the dashboard's and its name).
 *
 * Server-side apply: only the members a manifest sets are compared, and an update body is the
 * live dashboard as read with those members laid over it. A tile the manifest gives only a name
 * and a position keeps its live `config` (or `series`) and every member stacksync does not model;
 * filters, containers and the saved query the manifest leaves out are sent back byte for byte.
 * A dashboard that may hold tiles its GET does not return is never updated from that GET (see
 * `hidden.ts`), unless its manifest says its tiles are the whole dashboard.
 */
import { withUnreadable, type UnreadableResource } from '../../model/resources.js';
import { changeKey, operationType, type Change, type FieldDiff, type WriteBody } from '../../model/plan.js';
import type { Kind } from '../../model/kinds.js';
import type { TargetState } from '../../model/state.js';
import type { ApiProfile } from '../../schema/enums.js';
import { digestOf } from '../../support/digest.js';
import type { Reference } from '../descriptor.js';
import {
  ambiguousMessage,
  changeFor,
  errorChange,
  isUnreadable,
  matchedChange,
  unreadableChange,
} from '../shared/change.js';
import { keepLive } from '../shared/ignore.js';
import type { IntentTiming } from '../shared/intents.js';
import { matchAll } from '../shared/match.js';
import type { Match } from '../shared/match.js';
import { NameRefs } from '../shared/refs.js';
import { diffValues, fieldDiff, isRecord, omit, overlayMembers, sameSet } from '../shared/values.js';
import { hiddenTilesError, hiddenTilesOf, type HiddenTileEvidence } from './hidden.js';
import {
  DASHBOARD as KIND,
  type DashboardWrite,
  type DesiredDashboard,
  type KeptDashboard,
  type LiveDashboard,
  type LiveTile,
  type TileWrite,
} from './model.js';
import { inProfileForm, type ProfileForm } from './profile-form.js';

export interface DashboardContext {
  target: string;
  /** Whose spelling the target speaks: the form tiles are sent in. */
  profile: ApiProfile;
  live: readonly LiveDashboard[];
  /** Live dashboards that could not be read; a manifest matching one gets an error row. */
  unreadable?: readonly UnreadableResource[];
  state: TargetState;
  /** The plan's time and the settle window, against which create intents are judged. */
  timing: IntentTiming;
  adopt: boolean;
  /** What names of other kinds' resources (sources) stand for. */
  refer: (kind: Kind, name: string) => Reference;
  /** What tells of tiles a GET leaves out; asked only of a dashboard an update would replace, since it reads lists no other plan needs. */
  hidden: () => HiddenTileEvidence;
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

type Base = Omit<DashboardOutcome, 'change'>;

function planDashboard(
  ctx: DashboardContext,
  manifest: DesiredDashboard,
  match: Match<LiveDashboard | UnreadableResource>,
): DashboardOutcome {
  const outcome: Base = {
    key: manifest.key,
    writes: false,
    tileIds: new Map<string, string | undefined>(),
    removedTiles: new Map<string, string>(),
  };
  const matched = match.how === 'owned' || match.how === 'adopt' ? match.live : undefined;
  if (matched && isUnreadable(matched)) return { ...outcome, change: unreadableChange(ctx.target, manifest, matched) };
  if (match.how === 'ambiguous')
    return {
      ...outcome,
      change: errorChange(ctx.target, manifest, 'E_CONFLICT', ambiguousMessage(KIND, manifest.name, match.count)),
    };
  const live: LiveDashboard | undefined = matched;
  const desired = live ? keptLive(manifest, live) : manifest;
  const refs = new NameRefs(ctx.refer);
  const profileForm = inProfileForm(desired, ctx.profile, refs);
  if ('problem' in profileForm)
    return {
      ...outcome,
      change: errorChange(ctx.target, desired, 'E_MANIFEST_INVALID', profileForm.problem, live?.id),
    };
  const chartless = chartlessNewTile(desired, live);
  if (chartless !== undefined)
    return { ...outcome, change: errorChange(ctx.target, desired, 'E_MANIFEST_INVALID', chartless, live?.id) };
  if (refs.errors.length > 0)
    return {
      ...outcome,
      change: errorChange(ctx.target, desired, 'E_REF_UNRESOLVED', refs.errors.join('; '), live?.id),
    };
  if (!live) return planCreate(ctx, desired, profileForm, refs, outcome);
  return planExisting(ctx, { desired, profileForm, refs }, live, match);
}

/** The manifest with the live values at its ignored paths (docs/operations.md#ignore-rules-and-stacksyncioprune-disabled). */
function keptLive(manifest: DesiredDashboard, live: LiveDashboard): KeptDashboard {
  const paths = manifest.policy?.ignore;
  if (paths === undefined || paths.length === 0) return manifest;
  // Live laid over the manifest, so both are of one type; where live has no member the walk keeps the manifest's.
  return keepLive<KeptDashboard>(manifest, { ...manifest, ...live }, paths);
}

/**
 * A tile this plan would create without a chart, which every server refuses (docs/manifests/dashboard.md,
 * "Two tile forms"): a tile that gives only its place keeps the chart of the live tile of its
 * name, so it needs one. Found before any write, not as the server's 400.
 */
function chartlessNewTile(desired: KeptDashboard, live: LiveDashboard | undefined): string | undefined {
  const liveNames = new Set((live?.tiles ?? []).map((tile) => tile.name));
  const tile = desired.tiles.find(
    (each) => each.series === undefined && each.config === undefined && !liveNames.has(each.name),
  );
  if (tile === undefined) return undefined;
  return (
    `tile ${tile.name}: a new tile needs series or config, since the services refuse a tile without ` +
    `a chart; only a tile the live dashboard already has may give just its place (its live chart is ` +
    `kept)`
  );
}

function planCreate(
  ctx: DashboardContext,
  desired: KeptDashboard,
  profileForm: ProfileForm,
  refs: NameRefs,
  outcome: Base,
): DashboardOutcome {
  const change = changeFor(ctx.target, desired, 'create');
  const body: DashboardWrite = {
    name: desired.name,
    ...(desired.tags ? { tags: desired.tags } : {}),
    tiles: profileForm.tiles,
    ...profileForm.members,
  };
  change.liveName = desired.name;
  change.operations = [{ type: operationType('create', KIND), body, ...refs.operationRefs }];
  change.diff = [fieldDiff('name', undefined, desired.name)];
  if (desired.tags) change.diff.push(fieldDiff('tags', undefined, desired.tags));
  for (const tile of profileForm.tiles) change.diff.push(fieldDiff(`tiles[${tile.name}]`, undefined, tile));
  for (const [member, value] of Object.entries(profileForm.members))
    change.diff.push(fieldDiff(member, undefined, value));
  for (const tile of desired.tiles) outcome.tileIds.set(tile.name, undefined);
  return { ...outcome, change, writes: true };
}

interface Planned {
  desired: KeptDashboard;
  profileForm: ProfileForm;
  refs: NameRefs;
}

function planExisting(
  ctx: DashboardContext,
  { desired, profileForm, refs }: Planned,
  live: LiveDashboard,
  match: Match<unknown>,
): DashboardOutcome {
  const adopting = match.how === 'adopt';
  const diff = diffDashboard(desired, profileForm, live);
  const change = matchedChange(ctx.target, desired, live, diff, match, ctx.adopt);
  const liveTiles = new Map(live.tiles.map((tile) => [tile.name, tile.id]));
  const kept = {
    key: desired.key,
    live,
    tileIds: new Map(desired.tiles.map((tile) => [tile.name, liveTiles.get(tile.name)])),
  };
  const writes = diff.length > 0 && (!adopting || ctx.adopt);
  if (!writes) return { ...kept, change, writes: false, removedTiles: new Map() };
  const hidden = desired.ownsAllTiles === true ? undefined : hiddenTilesOf(live, ctx.hidden());
  if (hidden !== undefined) {
    const refused = errorChange(ctx.target, desired, 'E_CONFLICT', hiddenTilesError(hidden), live.id);
    refused.diff = diff;
    return { ...kept, change: refused, writes: false, removedTiles: new Map() };
  }
  change.operations = [
    {
      type: operationType('update', KIND),
      id: live.id,
      body: updateBody(desired, profileForm, live),
      ...refs.operationRefs,
    },
  ];
  const desiredNames = new Set(desired.tiles.map((tile) => tile.name));
  const removed = live.tiles.filter((tile) => !desiredNames.has(tile.name));
  return { ...kept, change, writes: true, removedTiles: new Map(removed.map((tile) => [tile.id, tile.name])) };
}

function diffDashboard(desired: KeptDashboard, profileForm: ProfileForm, live: LiveDashboard): FieldDiff[] {
  const diff: FieldDiff[] = [];
  if (desired.name !== live.name) diff.push(fieldDiff('name', live.name, desired.name));
  if (desired.tags && !sameSet(desired.tags, live.tags)) diff.push(fieldDiff('tags', live.tags, desired.tags));
  const liveByName = new Map(live.tiles.map((tile) => [tile.name, tile]));
  for (const tile of profileForm.tiles) {
    const current = liveByName.get(tile.name);
    const path = `tiles[${tile.name}]`;
    if (current) diffValues(path, tile, omit(liveTileBody(current), 'id'), diff);
    else diff.push(fieldDiff(path, undefined, tile));
  }
  const desiredNames = new Set(profileForm.tiles.map((tile) => tile.name));
  for (const tile of live.tiles.filter((item) => !desiredNames.has(item.name))) {
    diff.push(fieldDiff(`tiles[${tile.name}]`, omit(liveTileBody(tile), 'id'), undefined));
  }
  for (const [member, value] of Object.entries(profileForm.members)) {
    if (member === 'filters') diffFilters(Array.isArray(value) ? value.filter(isRecord) : [], liveFilters(live), diff);
    else diffValues(member, value, live.extra?.[member], diff);
  }
  return diff;
}

/** Filters by name: the manifest's list is the whole list once it sets one. */
function diffFilters(desired: readonly WriteBody[], live: readonly WriteBody[], diff: FieldDiff[]): void {
  const liveByName = new Map(live.map((filter) => [filter['name'], filter]));
  for (const filter of desired) {
    const current = liveByName.get(filter['name']);
    const path = `filters[${String(filter['name'])}]`;
    if (current) diffValues(path, filter, omit(current, 'id'), diff);
    else diff.push(fieldDiff(path, undefined, filter));
  }
  const names = new Set(desired.map((filter) => filter['name']));
  for (const filter of live.filter((item) => !names.has(item['name'])))
    diff.push(fieldDiff(`filters[${String(filter['name'])}]`, omit(filter, 'id'), undefined));
}

function liveFilters(live: LiveDashboard): WriteBody[] {
  const filters = live.extra?.['filters'];
  return Array.isArray(filters) ? filters.filter(isRecord) : [];
}

/**
 * The PUT body: the live dashboard as read (filters, saved query, … of newer servers) with the
 * manifest's members laid over it. Same-named tiles keep their live id, and members the manifest
 * leaves out keep their live value (PUT replaces the tile list, and an unmanaged field must not
 * be reset). Filters the manifest sets keep the live id of their name.
 */
function updateBody(desired: KeptDashboard, profileForm: ProfileForm, live: LiveDashboard): DashboardWrite {
  const liveByName = new Map(live.tiles.map((tile) => [tile.name, tile]));
  const tiles = profileForm.tiles.map((tile) => {
    const current = liveByName.get(tile.name);
    return current ? overlayTile(tile, current) : tile;
  });
  const members: WriteBody = { ...profileForm.members };
  const filters = members['filters'];
  if (Array.isArray(filters)) members['filters'] = filtersWithIds(filters.filter(isRecord), live);
  return { ...live.extra, name: desired.name, ...(desired.tags ? { tags: desired.tags } : {}), tiles, ...members };
}

/** Every filter of an update names its id: the live one of its name, or one made for it (the service then assigns its own). */
function filtersWithIds(filters: readonly WriteBody[], live: LiveDashboard): WriteBody[] {
  const liveByName = new Map(liveFilters(live).map((filter) => [filter['name'], filter]));
  return filters.map((filter) => {
    const current = liveByName.get(filter['name']);
    const id =
      typeof current?.['id'] === 'string'
        ? current['id']
        : digestOf(`${live.id}/${String(filter['name'])}`).slice(0, 24);
    return { id, ...overlayMembers(filter, current ? omit(current, 'id') : {}) };
  });
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
  if (isRecord(desired.config) && isRecord(base.config)) base.config = withoutOtherLinkOut(desired.config, base.config);
  // The overlay holds every member of the live body, the manifest's laid over them.
  return { ...base, ...overlayMembers(desired, base) };
}

/**
 * A table's drill-down (`onClick`) is one of three link-outs told apart by `type`, its `target`
 * one of two told apart by `mode` (docs/manifests/dashboard.md#drill-down-onclick). Laid over a
 * live link-out of another type (or a target of another mode), the live one's members would ride
 * along into a body the service refuses, so that part of the live config is not kept: the
 * manifest's is sent whole. Of the same type, unmanaged members stay, as everywhere else.
 */
function withoutOtherLinkOut(desired: Record<string, unknown>, live: Record<string, unknown>): Record<string, unknown> {
  const wanted = desired['onClick'];
  const current = live['onClick'];
  if (!isRecord(wanted) || !isRecord(current)) return live;
  if (wanted['type'] !== current['type']) return omit(live, 'onClick');
  const wantedTarget = wanted['target'];
  const currentTarget = current['target'];
  if (isRecord(wantedTarget) && isRecord(currentTarget) && wantedTarget['mode'] !== currentTarget['mode']) {
    return { ...live, onClick: omit(current, 'target') };
  }
  return live;
}

/** A live tile as a write body: every member it was read with, its id included. */
function liveTileBody(tile: LiveTile): TileWrite {
  const { extra, ...modelled } = tile;
  return { ...extra, ...modelled };
}

/** The dashboard change a key names. */
export function dashboardChangeKey(key: string): ReturnType<typeof changeKey> {
  return changeKey(KIND, key);
}
