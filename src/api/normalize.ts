/**
 * Reads what the service returned into the internal model (`model/resources.ts`), so the differ
 * never sees a difference between variants or between service versions. Responses are not
 * validated against the API schemas: this reader is the check, and it is tolerant by design.
 *
 * Loose where real services vary (api-notes): `dashboard` or `dashboardId`, `savedSearch` or
 * `savedSearchId`, `saved_search` for `search`, any threshold type and state, tiles as `series`
 * or `config`, no channel, `_id` for `id`, `null` for absent, sparse pipes. Members the model
 * does not name are kept in each resource's `extra`, so updates send them back. Strict where a
 * wrong shape would make a plan wrong: ids, names, numbers, tile geometry, the one source block of
 * a pipe. Garbage throws {@link ShapeError}; in a list it sets that one item aside as unreadable
 * ({@link readEach}), in a single answer the adapters turn it into `E_API_PROTOCOL`.
 */
import { PIPE_SOURCE_KINDS, type PipeSourceKind } from '../schema/enums.js';
import type { Kind } from '../model/kinds.js';
import type {
  Column,
  DataSource,
  Extra,
  FieldMapping,
  LiveAlert,
  LiveAlertChannel,
  LiveDashboard,
  LivePipe,
  LivePipeSettings,
  LiveSeries,
  LiveTile,
  PipeSource,
  UnreadableResource,
  Webhook,
} from '../model/resources.js';

/** A response member that is not the documented shape; `path` like `data[3].tiles[0].w`. */
export class ShapeError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path || '(root)'}: ${problem}`);
    this.name = 'ShapeError';
  }
}

type Obj = Record<string, unknown>;

/** Members the service must never return; dropped if a service does. */
const WRITE_ONLY_MEMBERS = new Set(['credentials', 'accessKey']);

// ---------------------------------------------------------------- envelopes

/** Managed success envelope `{status, requestId, result}` → `result`. */
export function unwrapManaged(body: unknown): unknown {
  const envelope = object(body, '');
  const status = envelope['status'];
  if (status !== undefined && (typeof status !== 'number' || status < 200 || status >= 300)) {
    throw new ShapeError('status', 'is not a success status');
  }
  if (!('result' in envelope)) throw new ShapeError('result', 'is missing');
  return envelope['result'];
}

/** Self-hosted success envelope `{data}` → `data`. */
export function unwrapData(body: unknown): unknown {
  const envelope = object(body, '');
  if (!('data' in envelope)) throw new ShapeError('data', 'is missing');
  return envelope['data'];
}

/** Every item of a list, read by `read` with its index in the path. */
export function listOf<T>(value: unknown, path: string, read: (item: unknown, path: string) => T): T[] {
  if (!Array.isArray(value)) throw new ShapeError(path, 'is not a list');
  return value.map((item, index) => read(item, `${path}[${index}]`));
}

// ---------------------------------------------------------------- pipes

export function toLivePipe(value: unknown, path: string): LivePipe {
  const raw = object(value, path);
  const pipe: LivePipe = {
    id: idOf(raw, path),
    name: requiredString(raw, 'name', path),
    source: toPipeSource(raw['source'], join(path, 'source')),
    destination: toDestination(raw['destination'], join(path, 'destination')),
  };
  const state = optionalString(raw, 'state', path);
  if (state !== undefined) pipe.state = state;
  const fieldMappings = optionalList(raw, 'fieldMappings', path, toFieldMapping);
  if (fieldMappings !== undefined) pipe.fieldMappings = fieldMappings;
  const settings = toSettings(raw['settings'], join(path, 'settings'));
  if (settings !== undefined) pipe.settings = settings;
  return pipe;
}

function toPipeSource(value: unknown, path: string): PipeSource {
  const raw = object(value, path);
  const kinds = PIPE_SOURCE_KINDS.filter((kind) => isObject(raw[kind]));
  const kind: PipeSourceKind | undefined = kinds[0];
  if (kind === undefined) throw new ShapeError(path, `holds none of ${PIPE_SOURCE_KINDS.join(', ')}`);
  if (kinds.length > 1) throw new ShapeError(path, `holds more than one source kind (${kinds.join(', ')})`);
  const block: Obj = {};
  for (const [key, member] of Object.entries(raw[kind] as Obj)) {
    if (member !== null && member !== undefined && !WRITE_ONLY_MEMBERS.has(key)) block[key] = member;
  }
  if (block['tableMappings'] !== undefined) listOf(block['tableMappings'], join(join(path, kind), 'tableMappings'), checkTableMapping);
  return { kind, block };
}

function checkTableMapping(value: unknown, path: string): void {
  const raw = object(value, path);
  for (const key of ['sourceSchemaName', 'sourceTable', 'targetTable']) requiredString(raw, key, path);
}

function toDestination(value: unknown, path: string): LivePipe['destination'] {
  if (value === undefined || value === null) return {};
  const destination: LivePipe['destination'] = {};
  for (const [key, member] of Object.entries(object(value, path))) {
    if (member === null || member === undefined) continue;
    destination[key] = key === 'columns' ? listOf(member, join(path, 'columns'), toColumn) : member;
  }
  return destination;
}

function toColumn(value: unknown, path: string): Column {
  const raw = object(value, path);
  return { name: requiredString(raw, 'name', path), type: requiredString(raw, 'type', path) };
}

function toFieldMapping(value: unknown, path: string): FieldMapping {
  const raw = object(value, path);
  return { sourceField: requiredString(raw, 'sourceField', path), destinationField: requiredString(raw, 'destinationField', path) };
}

function toSettings(value: unknown, path: string): LivePipeSettings | undefined {
  if (value === undefined || value === null) return undefined;
  const settings: LivePipeSettings = {};
  for (const [key, member] of Object.entries(object(value, path))) {
    if (member === null) continue;
    if (typeof member !== 'number' && typeof member !== 'boolean') throw new ShapeError(join(path, key), 'is not a number or boolean');
    settings[key] = member;
  }
  return settings;
}

// ---------------------------------------------------------------- dashboards

/** Dashboard members the service sets itself: never sent back. */
const DASHBOARD_SERVER_MEMBERS = ['id', '_id', '__v', 'team', 'teamId', 'createdAt', 'updatedAt'];
const DASHBOARD_MODELLED = ['name', 'tags', 'tiles'];
const TILE_MODELLED = ['id', '_id', 'name', 'x', 'y', 'w', 'h', 'asRatio', 'series', 'config'];

export function toLiveDashboard(value: unknown, path: string): LiveDashboard {
  const raw = object(value, path);
  return {
    id: idOf(raw, path),
    name: requiredString(raw, 'name', path),
    tags: optionalList(raw, 'tags', path, (tag, at) => asString(tag, at)) ?? [],
    tiles: optionalList(raw, 'tiles', path, toLiveTile) ?? [],
    ...createdAtOf(raw),
    ...extraOf(raw, [...DASHBOARD_SERVER_MEMBERS, ...DASHBOARD_MODELLED]),
  };
}

/**
 * `{createdAt}` when the service sent a creation time that reads as one; nothing otherwise. Only
 * ownership looks at it, and an unknown creation time proves nothing, so a strange one is not an
 * unreadable resource: it is as good as none.
 */
function createdAtOf(raw: Obj): { createdAt?: string } {
  const createdAt = raw['createdAt'];
  return typeof createdAt === 'string' && !Number.isNaN(Date.parse(createdAt)) ? { createdAt } : {};
}

/**
 * A tile in either format: the seed's `series` (each kept whole) or a current server's `config`
 * (kept whole and opaque). Geometry must be numbers: a plan that moves tiles needs them.
 */
function toLiveTile(value: unknown, path: string): LiveTile {
  const raw = object(value, path);
  const tile: LiveTile = {
    id: idOf(raw, path),
    name: optionalString(raw, 'name', path) ?? '',
    x: requiredNumber(raw, 'x', path),
    y: requiredNumber(raw, 'y', path),
    w: requiredNumber(raw, 'w', path),
    h: requiredNumber(raw, 'h', path),
    ...extraOf(raw, TILE_MODELLED),
  };
  const asRatio = optionalBoolean(raw, 'asRatio', path);
  if (asRatio !== undefined) tile.asRatio = asRatio;
  const series = optionalList(raw, 'series', path, toSeries);
  if (series !== undefined) tile.series = series;
  const config = raw['config'];
  if (config !== undefined && config !== null) tile.config = object(config, join(path, 'config'));
  return tile;
}

function toSeries(value: unknown, path: string): LiveSeries {
  const raw = object(value, path);
  const series: LiveSeries = { ...withoutNulls(raw), type: requiredString(raw, 'type', path) };
  const groupBy = raw['groupBy'];
  // Some service versions send a single group-by expression as a string.
  if (typeof groupBy === 'string') series['groupBy'] = [groupBy];
  else if (groupBy !== undefined && groupBy !== null) series['groupBy'] = listOf(groupBy, join(path, 'groupBy'), asString);
  return series;
}

// ---------------------------------------------------------------- alerts

/** Alert members the service sets itself (or names differently in responses): never sent back. */
const ALERT_SERVER_MEMBERS = ['id', '_id', '__v', 'state', 'team', 'teamId', 'createdAt', 'updatedAt', 'silenced', 'executionErrors', 'dashboard', 'savedSearch'];
const ALERT_MODELLED = ['name', 'message', 'threshold', 'thresholdType', 'thresholdMax', 'interval', 'source', 'channel', 'groupBy', 'dashboardId', 'tileId', 'savedSearchId'];

/**
 * An alert in any shape the services send (api-notes, "The real services today"): any threshold
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
  if (thresholdMax !== undefined && thresholdMax !== null) alert.thresholdMax = requiredNumber(raw, 'thresholdMax', path);
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
  else if (isObject(silenced)) alert.silenced = true;
  return alert;
}

/** `saved_search` (current servers) and `search` (the seed) are one source; anything newer is kept as sent. */
function toAlertSource(text: string): string {
  const lower = text.toLowerCase();
  if (lower === 'search' || lower === 'saved_search' || lower === 'savedsearch') return 'search';
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
    if (isObject(member)) return idOf(member, join(path, key));
    throw new ShapeError(join(path, key), 'is not an id');
  }
  return undefined;
}

// ---------------------------------------------------------------- lists, one resource at a time

/** A list read item by item: what could be read, and what could not (with its id when it has one). */
export interface ReadList<T> {
  items: T[];
  unreadable: UnreadableResource[];
}

/**
 * Every item of a list, read by `read`; an item that does not read is set aside as unreadable
 * (an error on that resource only) instead of failing the list. An item without even an id
 * cannot be managed or named, so it is left out.
 */
export function readEach<T>(kind: Kind, value: unknown, path: string, read: (item: unknown, path: string) => T): ReadList<T> {
  if (!Array.isArray(value)) throw new ShapeError(path, 'is not a list');
  const list: ReadList<T> = { items: [], unreadable: [] };
  value.forEach((item, index) => {
    const at = `${path}[${index}]`;
    try {
      list.items.push(read(item, at));
    } catch (error) {
      if (!(error instanceof ShapeError)) throw error;
      const unreadable = unreadableOf(kind, item, error);
      if (unreadable) list.unreadable.push(unreadable);
    }
  });
  return list;
}

function unreadableOf(kind: Kind, item: unknown, error: ShapeError): UnreadableResource | undefined {
  if (!isObject(item)) return undefined;
  const id = item['id'] ?? item['_id'];
  if (typeof id !== 'string' || id === '') return undefined;
  const name = item['name'];
  return { kind, id, ...(typeof name === 'string' ? { name } : {}), problem: error.message };
}

/** `{extra}` with the members of `raw` not in `known`, as read (nulls included); nothing when there are none. */
function extraOf(raw: Obj, known: readonly string[]): { extra?: Extra } {
  const extra: Extra = {};
  for (const [key, member] of Object.entries(raw)) if (!known.includes(key) && member !== undefined) extra[key] = member;
  return Object.keys(extra).length > 0 ? { extra } : {};
}

function withoutNulls(raw: Obj): Obj {
  return Object.fromEntries(Object.entries(raw).filter(([, member]) => member !== null && member !== undefined));
}

// ---------------------------------------------------------------- sources

export function toDataSource(value: unknown, path: string): DataSource {
  const raw = object(value, path);
  return { id: idOf(raw, path), name: requiredString(raw, 'name', path), kind: requiredString(raw, 'kind', path) };
}

export function toWebhook(value: unknown, path: string): Webhook {
  const raw = object(value, path);
  const webhook: Webhook = { id: idOf(raw, path), name: requiredString(raw, 'name', path) };
  const service = optionalString(raw, 'service', path);
  if (service !== undefined) webhook.service = service;
  return webhook;
}

// ---------------------------------------------------------------- leaves

function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function object(value: unknown, path: string): Obj {
  if (!isObject(value)) throw new ShapeError(path, 'is not an object');
  return value;
}

/** `id`, or `_id` as document stores name it; a non-empty string. */
function idOf(raw: Obj, path: string): string {
  const id = raw['id'] ?? raw['_id'];
  if (typeof id !== 'string' || id === '') throw new ShapeError(join(path, 'id'), 'is not a non-empty string');
  return id;
}

function asString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new ShapeError(path, 'is not a string');
  return value;
}

function requiredString(raw: Obj, key: string, path: string): string {
  return asString(raw[key], join(path, key));
}

function optionalString(raw: Obj, key: string, path: string): string | undefined {
  const value = raw[key];
  return value === undefined || value === null ? undefined : asString(value, join(path, key));
}

function optionalBoolean(raw: Obj, key: string, path: string): boolean | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new ShapeError(join(path, key), 'is not a boolean');
  return value;
}

function requiredNumber(raw: Obj, key: string, path: string): number {
  const value = raw[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ShapeError(join(path, key), 'is not a number');
  return value;
}

function optionalList<T>(raw: Obj, key: string, path: string, read: (item: unknown, path: string) => T): T[] | undefined {
  const value = raw[key];
  return value === undefined || value === null ? undefined : listOf(value, join(path, key), read);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
