/**
 * Reads a live alert in any shape the services send (docs/reference/api-behaviour.md, "The real services today"):
 * `dashboard` or `dashboardId`, `savedSearch` or `savedSearchId`, `saved_search` for `search`,
 * any threshold type and state, no channel.
 */
import {
  asString,
  createdAtOf,
  extraOf,
  idOf,
  join,
  object,
  optionalString,
  requiredNumber,
  requiredString,
  ShapeError,
  withoutNulls,
  type Obj,
} from '../shared/read.js';
import { SAVED_SEARCH_SOURCE, type LiveAlert, type LiveAlertChannel } from './model.js';
import { isRecord } from '../../support/json.js';

/** Alert members the service sets itself (or names differently in responses): never sent back. */
const ALERT_SERVER_MEMBERS = [
  'id',
  '_id',
  '__v',
  'state',
  'team',
  'teamId',
  'createdAt',
  'updatedAt',
  'silenced',
  'executionErrors',
  'dashboard',
  'savedSearch',
];
const ALERT_MODELLED = [
  'name',
  'message',
  'threshold',
  'thresholdType',
  'thresholdMax',
  'interval',
  'source',
  'channel',
  'groupBy',
  'dashboardId',
  'tileId',
  'savedSearchId',
];

/**
 * An alert in any shape the services send (docs/reference/api-behaviour.md, "The real services today"): any threshold
 * type, `saved_search`, no channel or a channel of any type, `dashboardId`, `silenced` as an
 * object, any state; members not modelled go to `extra`. Only what a plan cannot do without is
 * strict: the id, the threshold and the interval.
 */
export function toLiveAlert(value: unknown, path: string): LiveAlert {
  const raw = object(value, path);
  const alert: LiveAlert = {
    id: idOf(raw, path),
    threshold: requiredNumber(raw, 'threshold', path),
    thresholdType: requiredString(raw, 'thresholdType', path).toLowerCase(),
    interval: requiredString(raw, 'interval', path),
    ...createdAtOf(raw),
    ...extraOf(raw, [...ALERT_SERVER_MEMBERS, ...ALERT_MODELLED]),
  };
  for (const key of ['name', 'message', 'groupBy', 'tileId'] as const) {
    const member = optionalString(raw, key, path);
    if (member !== undefined) alert[key] = member;
  }
  const thresholdMax = raw['thresholdMax'];
  if (thresholdMax !== undefined && thresholdMax !== null)
    alert.thresholdMax = requiredNumber(raw, 'thresholdMax', path);
  const source = optionalString(raw, 'source', path);
  if (source !== undefined) alert.source = toAlertSource(source);
  const channel = toChannel(raw['channel'], join(path, 'channel'));
  if (channel !== undefined) alert.channel = channel;
  const dashboardId = reference(raw, ['dashboard', 'dashboardId'], path);
  if (dashboardId !== undefined) alert.dashboardId = dashboardId;
  const savedSearchId = reference(raw, ['savedSearch', 'savedSearchId'], path);
  if (savedSearchId !== undefined) alert.savedSearchId = savedSearchId;
  const state = raw['state'];
  if (typeof state === 'string') alert.state = state.toLowerCase();
  const silenced = raw['silenced'];
  // Some versions record who silenced it and until when instead of a flag.
  if (typeof silenced === 'boolean') alert.silenced = silenced;
  else if (isRecord(silenced)) alert.silenced = true;
  return alert;
}

/** `saved_search` (current servers) and `search` (the seed) are one source; anything newer is kept as sent. */
function toAlertSource(text: string): string {
  const lower = text.toLowerCase();
  if (lower === 'search' || lower === 'saved_search' || lower === 'savedsearch') return SAVED_SEARCH_SOURCE;
  return lower;
}

/** A channel of any type, whole; none when the service sent none (or one without a type: unresolved). */
function toChannel(value: unknown, path: string): LiveAlertChannel | undefined {
  if (value === undefined || value === null) return undefined;
  const raw = object(value, path);
  const type = raw['type'];
  if (type === undefined || type === null) return undefined;
  const channel: LiveAlertChannel = { ...withoutNulls(raw), type: asString(type, join(path, 'type')) };
  if (channel.webhookId !== undefined) asString(channel.webhookId, join(path, 'webhookId'));
  return channel;
}

/** An id under the first of `keys` present: a string, or a populated object carrying `id`/`_id`. */
function reference(raw: Obj, keys: readonly string[], path: string): string | undefined {
  for (const key of keys) {
    const member = raw[key];
    if (member === undefined || member === null) continue;
    if (typeof member === 'string') return member;
    if (isRecord(member)) return idOf(member, join(path, key));
    throw new ShapeError(join(path, key), 'is not an id');
  }
  return undefined;
}
