/**
 * Alert differ. A tile alert names its dashboard and tile by manifest name; they resolve to live
 * ids when known now, or to `refs` the executor fills from the dashboard write of the same run.
 *
 * The server deletes an alert when the tile it watches disappears (dashboard PUT or DELETE). An
 * alert that moves off such a tile is therefore written *before* that dashboard write when its new
 * ids are known now, and re-created after it (a create with refs) when they are not.
 *
 * Server-side apply: only the members a manifest sets are compared, and an update body is the
 * live alert as read (its `channels`, `note`, `thresholdMax`, members of newer servers) with the
 * manifest's members laid over it, since PUT replaces the whole configuration.
 */
import { withUnreadable, type UnreadableResource } from '../../model/resources.js';
import {
  changeKey,
  KNOWN_AFTER_APPLY,
  operationType,
  type Change,
  type FieldDiff,
  type Operation,
} from '../../model/plan.js';
import type { ErrorCode } from '../../errors.js';
import type { Kind } from '../../model/kinds.js';
import type { ApiProfile } from '../../schema/enums.js';
import type { Reference } from '../descriptor.js';
import { NameRefs, pointerTo } from '../shared/refs.js';
import { SAVED_SEARCH } from '../saved-search/model.js';
import { WEBHOOK } from '../webhook/model.js';
import type { TargetState } from '../../model/state.js';
import {
  addDependsOn,
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
import { covers, diffValues, fieldDiff } from '../shared/values.js';
import type { DashboardOutcome } from '../dashboard/diff.js';
import { DASHBOARD, type LiveDashboard } from '../dashboard/model.js';
import {
  ALERT,
  alertSourceWord,
  CURRENT_ALERT_MEMBERS,
  SAVED_SEARCH_SOURCE,
  type AlertRefs,
  type AlertWrite,
  type DesiredAlert,
  type KeptAlert,
  type LiveAlert,
  type LiveAlertChannel,
} from './model.js';

export interface AlertContext {
  target: string;
  liveAlerts: readonly LiveAlert[];
  /** Live alerts that could not be read; a manifest matching one gets an error row. */
  unreadable?: readonly UnreadableResource[];
  /** Whose spelling the target speaks. */
  profile: ApiProfile;
  /** What names of other kinds' resources (saved searches, webhooks) stand for. */
  refer: (kind: Kind, name: string) => Reference;
  liveDashboards: readonly LiveDashboard[];
  state: TargetState;
  /** The plan's time and the settle window, against which create intents are judged. */
  timing: IntentTiming;
  adopt: boolean;
  /** By manifest key. */
  dashboards: ReadonlyMap<string, DashboardOutcome>;
  /** Live tile id → key of the Dashboard change whose write deletes it (update dropping it, or delete). */
  tilesRemovedBy: ReadonlyMap<string, string>;
  /** Live dashboard id → key of its Dashboard delete. */
  dashboardsDeletedBy: ReadonlyMap<string, string>;
  /** Ids of saved searches and webhooks this plan deletes → the key of that delete. */
  deleted: ReadonlyMap<string, string>;
}

export interface AlertOutcome {
  change: Change;
  live?: LiveAlert;
  /** Key of a Dashboard change that must wait for this alert to move off the tile it drops. */
  movesOffBefore?: string;
  /** True when this change rescues the live alert from a cascade delete (move or re-create). */
  rescued: boolean;
}

/** The ids of what the manifest names by name: channels' webhooks, the saved search. */
interface Named {
  channel?: LiveAlertChannel;
  channels?: LiveAlertChannel[];
  savedSearchId?: string;
}

/** Everything the manifest points at, resolved against this plan. */
interface Resolved extends Named {
  /** The places of names whose resources this run creates. */
  names: NameRefs;
  /** Where a tile alert points. */
  ref?: ResolvedRef;
}

/** Where a tile alert points, resolved against this plan. */
interface ResolvedRef {
  dashboardKey: string;
  /** Undefined: the dashboard is created in this plan. */
  dashboardId?: string;
  /** Undefined: the tile is new in this plan. */
  tileId?: string;
  /** The dashboard is written in this plan, so the executor takes the ids from that write. */
  viaRefs: boolean;
}

export function planAlerts(ctx: AlertContext, desired: readonly DesiredAlert[]): AlertOutcome[] {
  const matches = matchAll(
    ALERT,
    desired,
    withUnreadable(ALERT, ctx.liveAlerts, ctx.unreadable),
    ctx.state,
    ctx.timing,
  );
  return desired.map((alert) => planAlert(ctx, alert, matches.get(alert.key) ?? { how: 'none' }));
}

function planAlert(
  ctx: AlertContext,
  manifest: DesiredAlert,
  match: Match<LiveAlert | UnreadableResource>,
): AlertOutcome {
  const matched = match.how === 'owned' || match.how === 'adopt' ? match.live : undefined;
  if (matched && isUnreadable(matched))
    return { change: unreadableChange(ctx.target, manifest, matched), rescued: false };
  const live = matched;
  const desired = live ? keptLive(manifest, live) : manifest;
  const failed = (code: ErrorCode, message: string): AlertOutcome => ({
    change: errorChange(ctx.target, desired, code, message, live?.id),
    rescued: false,
    ...(live ? { live } : {}),
  });
  if (match.how === 'ambiguous') return failed('E_CONFLICT', ambiguousMessage(ALERT, desired.name, match.count));
  const seedProblem = ctx.profile === 'seed' ? currentOnlyMembers(desired) : undefined;
  if (seedProblem !== undefined) return failed('E_MANIFEST_INVALID', seedProblem);
  const names = new NameRefs(ctx.refer);
  const named = namedIds(desired, names);
  if (names.errors.length > 0) return failed('E_REF_UNRESOLVED', names.errors.join('; '));
  const gone = deletedIds(ctx, named);
  if (gone.length > 0)
    return failed(
      'E_REF_UNRESOLVED',
      `it names by id ${gone.join(', ')}, which this plan deletes (prune): restore the manifest of what it names, or name another`,
    );
  const ref = desired.source === 'tile' ? resolveRef(ctx, desired) : undefined;
  if (typeof ref === 'string') return failed('E_REF_UNRESOLVED', ref);
  const resolved = { ...named, names, ...(ref ? { ref } : {}) };
  const diff = diffAlert(ctx, desired, live, resolved);
  if (!live) return planCreate(ctx, desired, diff, resolved);
  const change = matchedChange(ctx.target, desired, live, diff, match, ctx.adopt);
  const writes = diff.length > 0 && (match.how === 'owned' || ctx.adopt);
  if (!writes) return { change, live, rescued: false };
  return planWrite(ctx, desired, change, live, resolved);
}

/** The manifest with the live values at its ignored paths (docs/operations.md#ignore-rules-and-stacksyncioprune-disabled). */
function keptLive(manifest: DesiredAlert, live: LiveAlert): KeptAlert {
  const paths = manifest.policy?.ignore;
  if (paths === undefined || paths.length === 0) return manifest;
  // Live laid over the manifest, so both are of one type; where live has no member the walk keeps the manifest's.
  return keepLive<KeptAlert>(manifest, { ...manifest, ...live }, paths);
}

function planCreate(ctx: AlertContext, desired: KeptAlert, diff: FieldDiff[], resolved: Resolved): AlertOutcome {
  const change = changeFor(ctx.target, desired, 'create');
  if (desired.name !== undefined) change.liveName = desired.name;
  change.diff = diff;
  change.operations = [
    withRefs(
      { type: operationType('create', ALERT), body: alertBody(desired, undefined, resolved) },
      desired,
      resolved,
    ),
  ];
  if (resolved.ref?.viaRefs) addDependsOn(change, changeKey(DASHBOARD, resolved.ref.dashboardKey));
  return { change, rescued: false };
}

function planWrite(
  ctx: AlertContext,
  desired: KeptAlert,
  change: Change,
  live: LiveAlert,
  resolved: Resolved,
): AlertOutcome {
  const { ref } = resolved;
  const cascading = cascadingChangeOf(ctx, live);
  const body = alertBody(desired, live, resolved);
  if (cascading === undefined) {
    change.operations = [withRefs({ type: operationType('update', ALERT), id: live.id, body }, desired, resolved)];
    if (ref?.viaRefs) addDependsOn(change, changeKey(DASHBOARD, ref.dashboardKey));
    return { change, live, rescued: false };
  }
  if (ref === undefined || (ref.dashboardId !== undefined && ref.tileId !== undefined)) {
    // New ids known now: move the alert first (no dashboard refs, or the dashboard would wait for itself).
    change.operations = [{ type: operationType('update', ALERT), id: live.id, body, ...resolved.names.operationRefs }];
    return { change, live, movesOffBefore: cascading, rescued: true };
  }
  change.operations = [withRefs({ type: operationType('create', ALERT), body }, desired, resolved)];
  addDependsOn(change, changeKey(DASHBOARD, ref.dashboardKey), changeKey(DASHBOARD, cascading));
  change.warnings.push(
    `the server deletes this alert when Dashboard/${cascading} drops the tile it watches; it is re-created on tile "${desired.tile ?? ''}" and gets a new id`,
  );
  return { change, live, rescued: true };
}

/** Key of the Dashboard change whose write will make the server delete this live alert, if any. */
export function cascadingChangeOf(
  removals: Pick<AlertContext, 'tilesRemovedBy' | 'dashboardsDeletedBy'>,
  live: LiveAlert,
): string | undefined {
  if (live.source !== 'tile') return undefined;
  return removals.tilesRemovedBy.get(live.tileId ?? '') ?? removals.dashboardsDeletedBy.get(live.dashboardId ?? '');
}

/** Resolves `dashboard`/`tile`; a string is why it cannot be. */
function resolveRef(ctx: AlertContext, desired: KeptAlert): ResolvedRef | string {
  if (desired.dashboard === undefined || desired.tile === undefined)
    return 'a tile alert needs both dashboard and tile';
  const outcome = ctx.dashboards.get(desired.dashboard);
  if (!outcome) return `Dashboard/${desired.dashboard} is not a manifest of target ${ctx.target}`;
  if (outcome.change.action === 'error')
    return `Dashboard/${desired.dashboard} cannot be planned, so its tile ids are unknown`;
  if (!outcome.tileIds.has(desired.tile)) return `Dashboard/${desired.dashboard} has no tile named "${desired.tile}"`;
  const tileId = outcome.tileIds.get(desired.tile);
  if (!outcome.writes && tileId === undefined) {
    return `tile "${desired.tile}" is not on the live dashboard and Dashboard/${desired.dashboard} is not written in this plan (adopt it first)`;
  }
  const ref: ResolvedRef = { dashboardKey: outcome.key, viaRefs: outcome.writes };
  if (outcome.live) ref.dashboardId = outcome.live.id;
  if (tileId !== undefined) ref.tileId = tileId;
  return ref;
}

/** The operation with the ids it takes from changes of this run: the dashboard's (and its tile's), and the names' places. */
function withRefs(
  operation: Extract<Operation, { body: unknown }>,
  desired: KeptAlert,
  { ref, names }: Resolved,
): Operation {
  const tile: AlertRefs | undefined = ref?.viaRefs
    ? { dashboard: changeKey(DASHBOARD, ref.dashboardKey), tile: desired.tile ?? '' }
    : undefined;
  const refs = { ...names.refs, ...tile };
  return Object.keys(refs).length > 0 ? { ...operation, refs } : operation;
}

/**
 * The full configuration (PUT replaces it). Optional members the manifest leaves out keep their
 * live value, since PUT would otherwise clear them. Ids still unknown are left for the executor.
 */
function alertBody(desired: KeptAlert, live: LiveAlert | undefined, resolved: Resolved): AlertWrite {
  const { ref, names } = resolved;
  const source = sourceOf(desired);
  const body: AlertWrite = {
    ...live?.extra,
    threshold: desired.threshold,
    thresholdType: desired.thresholdType,
    interval: desired.interval,
    // The body is the seed's write body (the adapter spells it per profile), whose word is `search`.
    source: source === SAVED_SEARCH_SOURCE ? 'search' : source,
  };
  const kept = {
    name: desired.name ?? live?.name,
    message: desired.message ?? live?.message,
    groupBy: desired.groupBy ?? live?.groupBy,
    thresholdMax: desired.thresholdMax ?? live?.thresholdMax,
    channel: resolved.channel ?? live?.channel,
    ...currentMembers(desired),
  };
  for (const [member, value] of Object.entries(kept)) if (value !== undefined) body[member] = value;
  if (resolved.channels !== undefined) {
    body.channels = resolved.channels;
    body.channel = resolved.channels[0];
    names.alias(pointerTo('channel', 'webhookId'), pointerTo('channels', 0, 'webhookId'));
  } else if (resolved.channel !== undefined && keepChannelsInStep(body, resolved.channel, live)) {
    names.alias(pointerTo('channels', 0, 'webhookId'), pointerTo('channel', 'webhookId'));
  }
  if (ref?.dashboardId !== undefined) body.dashboardId = ref.dashboardId;
  if (ref?.tileId !== undefined) body.tileId = ref.tileId;
  if (source === SAVED_SEARCH_SOURCE && resolved.savedSearchId !== undefined)
    body.savedSearchId = resolved.savedSearchId;
  return body;
}

/** The members of newer servers the manifest sets (a start time as the service writes it back). */
function currentMembers(desired: KeptAlert): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  for (const member of CURRENT_ALERT_MEMBERS) if (desired[member] !== undefined) members[member] = desired[member];
  const start = desired.scheduleStartAt;
  if (typeof start === 'string' && !Number.isNaN(Date.parse(start)))
    members['scheduleStartAt'] = new Date(start).toISOString();
  return members;
}

function hasCurrentMembers(desired: KeptAlert): boolean {
  return CURRENT_ALERT_MEMBERS.some((member) => desired[member] !== undefined);
}

/** Why a seed-profile target cannot take this manifest: members only newer servers have. */
function currentOnlyMembers(desired: KeptAlert): string | undefined {
  if (!hasCurrentMembers(desired) && desired.channels === undefined && desired.channel?.type !== 'email')
    return undefined;
  const members = [
    ...CURRENT_ALERT_MEMBERS.filter((member) => desired[member] !== undefined),
    ...(desired.channels !== undefined ? ['channels'] : []),
  ];
  if (desired.channel?.type === 'email') members.push('an email channel');
  return members.length > 0
    ? `${members.join(', ')}: only newer servers take them, and the target speaks api profile seed; leave them out for it`
    : undefined;
}

/** The names the manifest gives for saved searches and webhooks, as ids (placeholders for resources this run creates). */
function namedIds(desired: KeptAlert, names: NameRefs): Named {
  const named: Named = {};
  if (desired.channel !== undefined) named.channel = channelIds(desired.channel, names, ['channel']);
  if (desired.channels !== undefined)
    named.channels = desired.channels.map((channel, index) => channelIds(channel, names, ['channels', index]));
  if (sourceOf(desired) === SAVED_SEARCH_SOURCE) {
    const id =
      desired.savedSearch !== undefined
        ? names.id(SAVED_SEARCH, desired.savedSearch, pointerTo('savedSearchId'))
        : desired.savedSearchId;
    if (id !== undefined) named.savedSearchId = id;
  }
  return named;
}

/** What the manifest names by id that this plan deletes (a name never resolves to one), as `Kind/name (id)`. */
function deletedIds(ctx: AlertContext, named: Named): string[] {
  // Most plans delete nothing an alert can name: no list is made for every alert then.
  if (ctx.deleted.size === 0) return [];
  const ids = [
    named.savedSearchId,
    named.channel?.webhookId,
    ...(named.channels ?? []).map((channel) => channel.webhookId),
  ];
  const gone = ids.flatMap((id) => {
    const deletion = id === undefined ? undefined : ctx.deleted.get(id);
    return deletion === undefined ? [] : [`${deletion} (${id})`];
  });
  return [...new Set(gone)];
}

/**
 * A channel with its webhook by id. A live channel kept at an ignored path names no webhook by
 * name; should one carry a `webhook` member of another type, it is looked up by its text.
 */
function channelIds(
  channel: NonNullable<KeptAlert['channel']>,
  names: NameRefs,
  at: (string | number)[],
): LiveAlertChannel {
  const { webhook, ...rest } = channel;
  return webhook === undefined
    ? rest
    : { ...rest, webhookId: names.id(WEBHOOK, String(webhook), pointerTo(...at, 'webhookId')) };
}

/** `search` and `saved_search` are one source; the model, the plan and export say `saved_search`. */
function sourceOf(desired: Pick<KeptAlert, 'source'>): string {
  return alertSourceWord(desired.source);
}

/**
 * Newer servers keep a list of channels whose first entry is `channel`, and refuse a body where
 * the two disagree. The manifest's channel takes the first place; the others stay as they were.
 */
function keepChannelsInStep(body: AlertWrite, channel: LiveAlertChannel, live: LiveAlert | undefined): boolean {
  const channels = live?.extra?.['channels'];
  if (!Array.isArray(channels) || channels.length === 0) return false;
  if (live?.channel !== undefined && covers(channel, live.channel)) return false;
  const rest = channels.slice(1).filter((other) => !covers(channel, other));
  body['channels'] = [channel, ...rest];
  return true;
}

// ---------------------------------------------------------------- diff

function diffAlert(
  ctx: AlertContext,
  desired: KeptAlert,
  live: LiveAlert | undefined,
  resolved: Resolved,
): FieldDiff[] {
  // Compared member by member, not from a table of rows: this runs for every alert of every plan.
  const diff: FieldDiff[] = [];
  diffValues('name', desired.name, live?.name, diff);
  diffValues('message', desired.message, live?.message, diff);
  diffValues('threshold', desired.threshold, live?.threshold, diff);
  diffValues('thresholdType', desired.thresholdType, live?.thresholdType, diff);
  diffValues('thresholdMax', desired.thresholdMax, live?.thresholdMax, diff);
  diffValues('interval', desired.interval, live?.interval, diff);
  diffValues('source', sourceOf(desired), alertSourceWord(live?.source), diff);
  diffValues('channel', resolved.channel, live?.channel, diff);
  diffValues('channels', resolved.channels, live?.extra?.['channels'], diff);
  diffValues('groupBy', desired.groupBy, live?.groupBy, diff);
  diffValues('savedSearchId', resolved.savedSearchId, live?.savedSearchId, diff);
  if (hasCurrentMembers(desired))
    for (const [member, value] of Object.entries(currentMembers(desired)))
      diffValues(member, value, live?.extra?.[member], diff);
  if (resolved.ref) diffRef(ctx, desired, live, resolved.ref, diff);
  return diff;
}

/** `dashboard` and `tile` shown by name; `…Id` only where names cannot tell the change. */
function diffRef(
  ctx: AlertContext,
  desired: KeptAlert,
  live: LiveAlert | undefined,
  ref: ResolvedRef,
  diff: FieldDiff[],
): void {
  const liveDashboardId = live?.source === 'tile' ? live.dashboardId : undefined;
  const liveTileId = live?.source === 'tile' ? live.tileId : undefined;
  // Labels are looked up only for references that change: most alerts stay where they are.
  if (ref.dashboardId === undefined || ref.dashboardId !== liveDashboardId) {
    refDiff(
      diff,
      'dashboard',
      [dashboardLabel(ctx, liveDashboardId), desired.dashboard],
      [liveDashboardId, ref.dashboardId],
    );
  }
  if (ref.tileId === undefined || ref.tileId !== liveTileId) {
    refDiff(diff, 'tile', [tileLabel(ctx, liveTileId), desired.tile], [liveTileId, ref.tileId]);
  }
}

function refDiff(
  diff: FieldDiff[],
  path: string,
  [beforeName, afterName]: [unknown, unknown],
  [beforeId, afterId]: [string | undefined, string | undefined],
): void {
  if (beforeName !== afterName) diff.push(fieldDiff(path, beforeName, afterName));
  if (afterId === undefined) diff.push(fieldDiff(`${path}Id`, beforeId, KNOWN_AFTER_APPLY));
  else if (beforeName === afterName) diff.push(fieldDiff(`${path}Id`, beforeId, afterId));
}

/** The manifest key of a live dashboard when one matches it, else its API name, else the id. */
function dashboardLabel(ctx: AlertContext, id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  for (const outcome of ctx.dashboards.values()) if (outcome.live?.id === id) return outcome.key;
  return ctx.liveDashboards.find((dashboard) => dashboard.id === id)?.name ?? id;
}

function tileLabel(ctx: AlertContext, id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  for (const dashboard of ctx.liveDashboards) {
    const tile = dashboard.tiles.find((item) => item.id === id);
    if (tile) return tile.name;
  }
  return id;
}
