/**
 * Dashboard rules of the current profile (docs/reference/api-behaviour.md, "The real services today"; hyperdx
 * `routers/external-api/v2/dashboards.ts` and `v2/utils/dashboards.ts`), pure over one workspace:
 * `tiles` required, tiles in either format and answered as `config`, every source a tile or filter
 * names must be a source of the team (and a raw SQL tile's connection one of theirs), tiles placed
 * in containers and tabs that exist, filters strict (no `id` on create, their `id` on update),
 * tile ids kept on PUT only when they are the dashboard's, alerts of tiles that are gone or can no
 * longer be alerted on deleted with them. Tiles a GET does not return (PromQL tiles) are kept
 * beside the answer, and a PUT (which replaces the tile list) deletes them. `validate` runs the
 * same checks and stores nothing.
 */
import {
  CurrentDashboardFilter,
  CurrentDashboardWrite,
  CurrentDashboard,
  type CurrentDashboardContainer,
  type CurrentDashboardWrite as DashboardWrite,
  type CurrentSavedFilterValue,
  type CurrentTile,
  type CurrentTileConfig,
  type CurrentTileWrite,
  CurrentHiddenTile,
  type CurrentDashboardValidation,
  type CurrentHiddenTile as HiddenTile,
} from '../../kinds/dashboard/wire.js';
import { Type } from 'typebox';
import type { SchemaIssue } from '../../schema/validate.js';
import { findLacked, type Lacked } from '../../schema/lacked.js';
import type { Variant } from '../../model/kinds.js';
import { FILTER_MEMBERS_LACKED } from '../../kinds/dashboard/model.js';
import { ApiError, notFound } from '../errors.js';
import { isObjectId, newObjectId } from '../ids.js';
import type { CurrentWorkspace } from '../model.js';
import { atIndex } from '../stack.js';
import { readTileConfig, supportsAlerts, tileSourceIds } from './tiles.js';
import { clean, cleaned, issueAt, refused, throwIfAny } from './validate.js';
import { BOTH, type StackKind } from './stack-kind.js';
import { isRecord } from '../../support/json.js';

/** A dashboard of the current profile as stored: what GET answers, and the tiles it does not (PromQL tiles). */
export type CurrentDashboardRecord = CurrentDashboard & { hiddenTiles?: HiddenTile[] };

/** A dashboard as the data file holds it: the answer, and the tiles it leaves out. */
const StoredDashboard = Type.Object({
  ...CurrentDashboard.properties,
  hiddenTiles: Type.Optional(Type.Array(CurrentHiddenTile)),
});

declare module '../model.js' {
  interface CurrentCollections {
    dashboards: Map<string, CurrentDashboardRecord>;
  }
  interface CurrentCollectionsData {
    dashboards: CurrentDashboardRecord[];
  }
}

/** Whether a body creates a dashboard (filters without ids) or replaces one (filters with theirs). */
type Mode = 'create' | 'update';
const FILTER_MEMBERS = Object.keys(CurrentDashboardFilter.properties);

/** A dashboard body, checked: the write and the response form of each of its tiles' configs. */
interface CheckedWrite {
  write: DashboardWrite;
  configs: CurrentTileConfig[];
}

/**
 * Filter members a variant's document lacks, which it does not take (issue 32: the documents win;
 * docs/manifests/dashboard.md#filters): the managed filter has no variables or broadcast. The table
 * `stacksync validate` refuses them by.
 */
const lackedOn = (variant: Variant): Lacked[] =>
  FILTER_MEMBERS_LACKED[variant].map((member) => ({ path: `filters[].${member}` }));

/** The body checked as the service's body schema checks it: the write and its tiles' configs, or every issue found. */
function checkWrite(body: unknown, mode: Mode, variant: Variant): { checked: CheckedWrite; issues: SchemaIssue[] } {
  const lacked = findLacked(body, lackedOn(variant), "the service's API").map((each) =>
    issueAt(each.pointer, each.message),
  );
  if (lacked.length) return { checked: { write: body as DashboardWrite, configs: [] }, issues: lacked };
  const { value: write, issues } = clean<DashboardWrite>(CurrentDashboardWrite, body);
  issues.push(...strictFilterIssues(body, mode));
  if (issues.length) return { checked: { write, configs: [] }, issues };
  const configs = write.tiles.map((tile, index) => readTileConfig(tile, ['tiles', index], issues));
  issues.push(
    ...duplicateTileIds(write.tiles),
    ...containerIssues(write.containers ?? []),
    ...filterIssues(write.filters ?? []),
  );
  if (write.savedQuery != null && write.savedQueryLanguage === null) {
    issues.push(issueAt(['savedQueryLanguage'], 'savedQueryLanguage cannot be null when savedQuery is provided'));
  }
  return { checked: { write, configs: configs as CurrentTileConfig[] }, issues };
}

function readWrite(body: unknown, mode: Mode, variant: Variant): CheckedWrite {
  const { checked, issues } = checkWrite(body, mode, variant);
  throwIfAny(issues);
  return checked;
}

/** Filters are strict objects (`externalDashboardFilterSchema`): no member they do not name, and `id` only on update, where it is required. */
function strictFilterIssues(body: unknown, mode: Mode): SchemaIssue[] {
  const filters = isRecord(body) && Array.isArray(body['filters']) ? body['filters'] : [];
  const allowed = mode === 'create' ? FILTER_MEMBERS.filter((member) => member !== 'id') : FILTER_MEMBERS;
  return filters.flatMap((filter: unknown, index) => {
    if (!isRecord(filter)) return [];
    const unknown = Object.keys(filter).filter((key) => !allowed.includes(key));
    const issues = unknown.length
      ? [issueAt(['filters', index], `Unrecognized key(s) in object: ${unknown.map((key) => `'${key}'`).join(', ')}`)]
      : [];
    if (mode === 'update' && filter['id'] === undefined) issues.push(issueAt(['filters', index, 'id'], 'is required'));
    return issues;
  });
}

/** `validateDashboardContainersStructure`: container ids unique, tab ids unique within their container. */
function containerIssues(containers: readonly CurrentDashboardContainer[]): SchemaIssue[] {
  const seen = new Set<string>();
  return containers.flatMap((container, index) => {
    const issues = seen.has(container.id)
      ? [issueAt(['containers', index, 'id'], `Container IDs must be unique: "${container.id}"`)]
      : [];
    seen.add(container.id);
    const tabs = new Set<string>();
    (container.tabs ?? []).forEach((tab, at) => {
      if (tabs.has(tab.id))
        issues.push(
          issueAt(
            ['containers', index, 'tabs', at, 'id'],
            `Duplicate tab id "${tab.id}" in container "${container.id}"`,
          ),
        );
      tabs.add(tab.id);
    });
    return issues;
  });
}

/** `deriveVariableName`: the display name made token-safe. */
function derivedVariableName(name: string): string {
  const sanitized = name
    .trim()
    .replace(/\s+/g, '_')
    .replace(/[^A-Za-z0-9_]+/g, '');
  return /^[0-9_]/.test(sanitized) ? `v${sanitized}` : sanitized;
}

/** The filter rules of the body schema: each filter does something, members only with their mode, variable names present and unique. */
function filterIssues(filters: readonly CurrentDashboardFilter[]): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const names = new Set<string>();
  filters.forEach((filter, index) => {
    const broadcast = filter.isBroadcastEnabled !== false;
    const variable = filter.isVariableEnabled === true;
    if (variable) {
      const name = filter.variableName?.trim() || derivedVariableName(filter.name);
      if (!name)
        issues.push(
          issueAt(['filters', index, 'variableName'], `Variable name is required for filter "${filter.name}"`),
        );
      else if (names.has(name))
        issues.push(issueAt(['filters', index, 'variableName'], `Variable names must be unique: "${name}"`));
      names.add(name);
    }
    if (!broadcast && !variable)
      issues.push(
        issueAt(
          ['filters', index, 'isBroadcastEnabled'],
          `Filter "${filter.name}" must broadcast its value, be available as a variable, or both`,
        ),
      );
    if (filter.variableName !== undefined && !variable) {
      issues.push(
        issueAt(
          ['filters', index, 'variableName'],
          `Filter "${filter.name}" sets variableName but is not available as a variable; set isVariableEnabled to true or drop variableName`,
        ),
      );
    }
    if (filter.appliesToSourceIds?.length && !broadcast) {
      issues.push(
        issueAt(
          ['filters', index, 'appliesToSourceIds'],
          `Filter "${filter.name}" sets appliesToSourceIds but does not broadcast its value; set isBroadcastEnabled to true or drop appliesToSourceIds`,
        ),
      );
    }
  });
  return issues;
}

function duplicateTileIds(tiles: readonly CurrentTileWrite[]): SchemaIssue[] {
  const seen = new Set<string>();
  return tiles.flatMap((tile, index) => {
    if (!tile.id) return [];
    const repeated = seen.has(tile.id);
    seen.add(tile.id);
    return repeated
      ? [issueAt(['tiles', index, 'id'], `Duplicate tile ID: ${tile.id}. Omit the ID to generate a unique one.`)]
      : [];
  });
}

/** `validateDashboardTileContainerRefs`: each tile's container exists, and its tab is one of that container's. */
function containerRefProblems(
  containers: readonly CurrentDashboardContainer[],
  tiles: readonly CurrentTileWrite[],
): string[] {
  const byId = new Map(containers.map((container) => [container.id, container]));
  return tiles.flatMap((tile, index) => {
    const problems: string[] = [];
    const container = tile.containerId === undefined ? undefined : byId.get(tile.containerId);
    if (tile.containerId !== undefined && !container)
      problems.push(`tiles.${index}.containerId: Tile references unknown containerId "${tile.containerId}"`);
    if (tile.tabId === undefined) return problems;
    if (tile.containerId === undefined) problems.push(`tiles.${index}.tabId: tabId requires containerId to be set`);
    else if (container && !container.tabs?.some((tab) => tab.id === tile.tabId)) {
      problems.push(
        `tiles.${index}.tabId: Tile references unknown tabId "${tile.tabId}" in container "${tile.containerId}"`,
      );
    }
    return problems;
  });
}

/**
 * What the tiles name must exist (`validateDashboardTiles`): their containers, then the sources
 * the tiles and filters name, then raw SQL tiles' connections and their match with the source.
 * The first kind of problem found is the answer.
 */
function referenceProblem(
  ws: CurrentWorkspace,
  { write, configs }: CheckedWrite,
  containers: readonly CurrentDashboardContainer[],
): string | undefined {
  const refs = containerRefProblems(containers, write.tiles);
  if (refs.length) return refs.join('; ');
  const sources = new Map(ws.sources.map((source) => [source.id, source]));
  const connections = new Set(ws.connections.map((connection) => connection.id));
  const named = new Set([
    ...write.tiles.flatMap((tile, index) => tileSourceIds(tile, configs[index] as CurrentTileConfig)),
    ...(write.filters ?? []).map((filter) => filter.sourceId),
  ]);
  const sql = configs.flatMap((config) => ('configType' in config ? [config] : []));
  const problems: [string, string[]][] = [
    ['Could not find the following source IDs', [...named].filter((id) => !sources.has(id))],
    [
      'Could not find the following connection IDs',
      [...new Set(sql.map((config) => config.connectionId))].filter((id) => !connections.has(id)),
    ],
    [
      'The following source IDs do not match the specified connections',
      sql.flatMap((config) =>
        config.sourceId &&
        sources.get(config.sourceId)?.connection !== config.connectionId &&
        sources.has(config.sourceId)
          ? [config.sourceId]
          : [],
      ),
    ],
  ];
  const found = problems.find(([, ids]) => ids.length);
  return found && `${found[0]}: ${found[1].join(', ')}`;
}

function checkReferences(
  ws: CurrentWorkspace,
  checked: CheckedWrite,
  containers: readonly CurrentDashboardContainer[],
): void {
  const problem = referenceProblem(ws, checked, containers);
  if (problem) throw refused(problem);
}

function tileOf(tile: CurrentTileWrite, config: CurrentTileConfig, id: string): CurrentTile {
  return {
    id,
    x: tile.x,
    y: tile.y,
    w: tile.w,
    h: tile.h,
    name: tile.name,
    config,
    ...(tile.containerId !== undefined && { containerId: tile.containerId }),
    ...(tile.tabId !== undefined && { tabId: tile.tabId }),
  };
}

/** Filters as stored: an id first (kept when it is one of the dashboard's), `sourceId` last, unused mode members dropped. */
function filtersOf(
  filters: readonly CurrentDashboardFilter[],
  existing: ReadonlySet<string>,
  nowMs: number,
): CurrentDashboardFilter[] {
  return filters.map((filter) => {
    const { id, sourceId, variableName, appliesToSourceIds, ...rest } = filter;
    return {
      id: id !== undefined && existing.has(id) ? id : newObjectId(nowMs),
      ...rest,
      ...(appliesToSourceIds !== undefined && filter.isBroadcastEnabled !== false && { appliesToSourceIds }),
      ...(variableName !== undefined && filter.isVariableEnabled === true && { variableName }),
      sourceId,
    };
  });
}

function savedFilterValuesOf(values: readonly CurrentSavedFilterValue[]): CurrentSavedFilterValue[] {
  return values.map((value) => ({ type: 'sql', condition: value.condition }));
}

/** The saved query's language: as given, else `lucene` for a query, null when the query is cleared. */
function savedQueryLanguageOf(write: DashboardWrite): string | null | undefined {
  if (write.savedQueryLanguage !== undefined) return write.savedQueryLanguage;
  if (write.savedQuery === null) return null;
  return write.savedQuery ? 'lucene' : undefined;
}

const unique = (tags: readonly string[]): string[] => [...new Set(tags)];

// ---------------------------------------------------------------- operations

/** The answer: the stored dashboard without the tiles a GET does not return. */
function externalDashboard(dashboard: CurrentDashboardRecord): CurrentDashboard {
  if (dashboard.hiddenTiles === undefined) return dashboard;
  const { hiddenTiles: _hidden, ...answered } = dashboard;
  return answered;
}

/** Sorted by name descending, as the list answers (stable for equal names). */
export function listDashboards(ws: CurrentWorkspace): CurrentDashboard[] {
  return [...ws.dashboards.values()]
    .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
    .map(externalDashboard);
}

function requireDashboard(ws: CurrentWorkspace, id: string): CurrentDashboardRecord {
  const dashboard = ws.dashboards.get(id);
  if (!dashboard) throw notFound(`dashboard ${id} not found`);
  return dashboard;
}

export function getDashboard(ws: CurrentWorkspace, id: string): CurrentDashboard {
  return externalDashboard(requireDashboard(ws, id));
}

/** Ids sent by the client are ignored: the dashboard and every tile get new ones (a seed keeps the ones it gives). */
export function createDashboard(
  ws: CurrentWorkspace,
  body: unknown,
  nowMs: number,
  seededId?: string,
): CurrentDashboard {
  const checked = readWrite(body, 'create', ws.variant);
  checkReferences(ws, checked, checked.write.containers ?? []);
  const { write, configs } = checked;
  const tileId = (tile: CurrentTileWrite): string => (seededId !== undefined && tile.id ? tile.id : newObjectId(nowMs));
  const dashboard: CurrentDashboard = {
    id: seededId ?? newObjectId(nowMs),
    name: write.name,
    tiles: write.tiles.map((tile, index) => tileOf(tile, configs[index] as CurrentTileConfig, tileId(tile))),
    tags: unique(write.tags ?? []),
    filters: filtersOf(write.filters ?? [], new Set(), nowMs),
    savedQuery: write.savedQuery ?? null,
    savedQueryLanguage: savedQueryLanguageOf(write) ?? null,
    savedFilterValues: savedFilterValuesOf(write.savedFilterValues ?? []),
    ...(write.containers?.length && { containers: write.containers }),
  };
  ws.dashboards.set(dashboard.id, dashboard);
  return dashboard;
}

/**
 * `POST …/dashboards/validate`: the create body checked as a create checks it, nothing stored;
 * always an answer, never a 400. A body the schema refuses lists its issues; one whose references
 * do not resolve lists that one problem at the root.
 */
export function validateDashboard(ws: CurrentWorkspace, body: unknown): CurrentDashboardValidation {
  const { checked, issues } = checkWrite(body, 'create', ws.variant);
  if (issues.length)
    return { valid: false, errors: issues.map(({ path, message }) => ({ path, message })), normalized: null };
  const problem = referenceProblem(ws, checked, checked.write.containers ?? []);
  if (problem) return { valid: false, errors: [{ path: '', message: problem }], normalized: null };
  return { valid: true, errors: [], normalized: checked.write };
}

/**
 * Replaces name and tiles; tags, filters, the saved query and containers only when sent. A tile
 * keeps its id only when the request carries an id already on this dashboard (hidden tiles
 * included); hidden tiles not sent are gone. Alerts watching tiles that are gone, or whose chart
 * can no longer be alerted on, are deleted.
 */
export function updateDashboard(ws: CurrentWorkspace, id: string, body: unknown, nowMs: number): CurrentDashboard {
  const checked = readWrite(body, 'update', ws.variant);
  const current = requireDashboard(ws, id);
  checkReferences(ws, checked, checked.write.containers ?? current.containers ?? []);
  const { write, configs } = checked;
  const existing = new Set([...current.tiles, ...(current.hiddenTiles ?? [])].map((tile) => tile.id));
  const tiles = write.tiles.map((tile, index) =>
    tileOf(
      tile,
      configs[index] as CurrentTileConfig,
      tile.id !== undefined && existing.has(tile.id) ? tile.id : newObjectId(nowMs),
    ),
  );
  const language = savedQueryLanguageOf(write);
  const { hiddenTiles: _dropped, ...kept } = current;
  const next: CurrentDashboard = {
    ...kept,
    name: write.name,
    tiles,
    tags: write.tags === undefined ? current.tags : unique(write.tags),
    ...(write.filters !== undefined && {
      filters: filtersOf(
        write.filters,
        new Set(current.filters.flatMap((filter) => (filter.id ? [filter.id] : []))),
        nowMs,
      ),
    }),
    ...(write.savedQuery !== undefined && { savedQuery: write.savedQuery }),
    ...(language !== undefined && { savedQueryLanguage: language }),
    ...(write.savedFilterValues !== undefined && { savedFilterValues: savedFilterValuesOf(write.savedFilterValues) }),
  };
  if (write.containers !== undefined) {
    delete next.containers;
    if (write.containers.length) next.containers = write.containers;
  }
  ws.dashboards.set(id, next);
  const alertable = new Set(tiles.filter((tile) => supportsAlerts(tile.config)).map((tile) => tile.id));
  deleteAlertsWhere(
    ws,
    (alert) => alert.source === 'tile' && alert.dashboardId === id && !alertable.has(alert.tileId ?? ''),
  );
  return next;
}

/** Deletes the dashboard and every tile alert watching it; unknown ids are not an error. */
export function deleteDashboard(ws: CurrentWorkspace, id: string): void {
  if (!ws.dashboards.delete(id)) return;
  deleteAlertsWhere(ws, (alert) => alert.source === 'tile' && alert.dashboardId === id);
}

function deleteAlertsWhere(
  ws: CurrentWorkspace,
  doomed: (alert: {
    source?: string | undefined;
    dashboardId?: string | undefined;
    tileId?: string | undefined;
  }) => boolean,
): void {
  for (const [alertId, alert] of ws.alerts) if (doomed(alert)) ws.alerts.delete(alertId);
}

// ---------------------------------------------------------------- seeds

/** A seeded dashboard: created by the dashboard rules, with the tiles a GET hides (`hiddenTiles`) kept beside it. */
function seedDashboard(ws: CurrentWorkspace, entry: Record<string, unknown>, nowMs: number): void {
  const { id, hiddenTiles, ...body } = entry;
  if (id !== undefined && !(typeof id === 'string' && isObjectId(id))) {
    throw new ApiError('bad_request', 'invalid id', {
      issues: [{ path: 'id', pointer: ['id'], message: 'must be a 24-hex object id' }],
    });
  }
  const hidden =
    hiddenTiles === undefined
      ? undefined
      : cleaned<HiddenTile[]>(Type.Array(CurrentHiddenTile), hiddenTiles, ['hiddenTiles']);
  const dashboard = createDashboard(ws, body, nowMs, typeof id === 'string' ? id : newObjectId(nowMs));
  if (hidden?.length) ws.dashboards.set(dashboard.id, { ...dashboard, hiddenTiles: hidden });
}

/** The kind's routes on both variants (`…/stack/dashboards/{dashboardId}`, `/api/v2/dashboards/{id}`), with `POST …/dashboards/validate`. */
export const stackKind: StackKind = {
  // Seeded dashboards are created by the dashboard rules, so they need the sources and connections they name.
  collection: {
    member: 'dashboards',
    data: { items: StoredDashboard },
    after: ['sources', 'connections'],
    seed: (ws, seeded, { nowMs }) => {
      ws.dashboards = new Map();
      for (const [index, entry] of (seeded.dashboards ?? []).entries())
        atIndex('dashboards', index, () => seedDashboard(ws, entry, nowMs));
    },
    restore: (ws, saved) => {
      ws.dashboards = new Map(saved.dashboards.map((dashboard) => [dashboard.id, dashboard]));
    },
    save: (ws) => [...ws.dashboards.values()],
  },
  segment: 'dashboards',
  idName: 'dashboardId',
  gateway: () => CurrentDashboardWrite,
  servedOn: BOTH,
  pagedOn: [],
  writableOn: BOTH,
  list: listDashboards,
  get: ({ ws, id }) => getDashboard(ws, id),
  create: ({ ws, body, nowMs }) => createDashboard(ws, body, nowMs),
  update: ({ ws, id, body, nowMs }) => updateDashboard(ws, id, body, nowMs),
  remove: ({ ws, id }) => deleteDashboard(ws, id),
  check: {
    suffix: 'validate',
    gateway: () => CurrentDashboardWrite,
    handle: ({ ws, body }) => validateDashboard(ws, body),
  },
};
