/**
 * Saved searches of the current profile (hyperdx `routers/external-api/v2/savedSearches.ts`,
 * `controllers/savedSearch.ts`, `models/savedSearch.ts`), pure over one workspace. The paged list
 * is sorted by id. `sourceId` must be a source of the workspace. PUT is a full replace: every
 * optional member left out falls back to its default. A pinned filter a write adds must render as
 * a sidebar facet (one `IN`, `NOT IN` or numeric `BETWEEN` predicate); one a PUT sends back
 * unchanged from the stored search is kept whatever its shape. Deleting a saved search deletes the
 * alerts on it first.
 */
import {
  CurrentSavedSearchAstFilter,
  CurrentSavedSearchConditionFilter,
  CURRENT_SAVED_SEARCH_LIMITS,
  CurrentSavedSearchEntry,
  CurrentSavedSearchWrite,
  type CurrentSavedSearchFilter as Filter,
  type CurrentSavedSearchEntry as Entry,
  type CurrentSavedSearchWrite as SavedSearchWrite,
  CurrentSavedSearch,
} from '../../kinds/saved-search/wire.js';
import type { SchemaIssue } from '../../schema/validate.js';
import { isoTimestamp, newObjectId } from '../ids.js';
import type { CurrentWorkspace } from '../model.js';
import { clean, inSchemaOrder, issueAt, jsonNotFound, refused, throwIfAny } from './validate.js';
import { BOTH, type StackKind } from './stack-kind.js';

declare module '../model.js' {
  interface CurrentCollections {
    /** As created (the answer's members but `teamId`) or as seeded (any subset). */
    savedSearches: CurrentSavedSearch[];
  }
  interface CurrentCollectionsData {
    savedSearches: CurrentSavedSearch[];
  }
}

const L = CURRENT_SAVED_SEARCH_LIMITS;
/** A stored saved search: the answer's members but `teamId`, which is the workspace's. */
type Stored = Omit<Entry, 'teamId'>;

// ---------------------------------------------------------------- reading a request

interface CheckedWrite {
  write: SavedSearchWrite;
  filters: Filter[];
}

/** The body with its filters checked one by one (each by its `type`), the name trimmed. */
function readWrite(body: unknown): CheckedWrite {
  const { value: write, issues } = clean<SavedSearchWrite>(CurrentSavedSearchWrite, body);
  if (issues.length === 0) {
    write.name = write.name.trim();
    if (write.name.length < 1 || write.name.length > L.nameMaxLength)
      issues.push(issueAt(['name'], `must be 1 to ${L.nameMaxLength} characters`));
  }
  const filters = (Array.isArray(write.filters) ? write.filters : []).map((item, index) =>
    readFilter(item, index, issues),
  );
  throwIfAny(issues);
  return { write, filters };
}

function readFilter(item: unknown, index: number, issues: SchemaIssue[]): Filter {
  const ast = typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'sql_ast';
  const checked = clean<Filter>(ast ? CurrentSavedSearchAstFilter : CurrentSavedSearchConditionFilter, item, [
    'filters',
    index,
  ]);
  issues.push(...checked.issues);
  return ast ? checked.value : inSchemaOrder(CurrentSavedSearchConditionFilter, { type: 'sql', ...checked.value });
}

const VALUE = String.raw`(?:'(?:[^']|'')*'|-?\d+(?:\.\d+)?)`;
const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
const IN_LIST = new RegExp(String.raw`^\s*(\S+)\s+(?:NOT\s+)?IN\s*\(\s*${VALUE}(?:\s*,\s*${VALUE})*\s*\)\s*$`, 'i');
const NUMERIC_RANGE = new RegExp(String.raw`^\s*(\S+)\s+BETWEEN\s+${NUMBER}\s+AND\s+${NUMBER}\s*$`, 'i');

/** `isRenderablePinnedFilter`: a single SQL predicate the sidebar can show as one facet. */
function isRenderable(filter: Filter): boolean {
  if (filter.type !== 'sql') return false;
  const column = (IN_LIST.exec(filter.condition) ?? NUMERIC_RANGE.exec(filter.condition))?.[1];
  return column !== undefined && !/\b(?:NOT|AND|OR)\b/i.test(column);
}

const filterKey = (filter: Filter): string =>
  filter.type === 'sql_ast'
    ? JSON.stringify(['sql_ast', filter.operator, filter.left, filter.right])
    : JSON.stringify([filter.type ?? 'sql', filter.condition]);

/** The first filter that neither renders nor is sent back unchanged from the stored search refuses the write. */
function checkRenderable(filters: readonly Filter[], stored: readonly unknown[] = []): void {
  const grandfathered = new Set((stored as Filter[]).map(filterKey));
  const index = filters.findIndex((filter) => !isRenderable(filter) && !grandfathered.has(filterKey(filter)));
  if (index < 0) return;
  throw refused(
    `filters[${index}] must be a sidebar-renderable SQL predicate (e.g. "<column> IN ('<value>', ...)", "NOT IN (...)", or "BETWEEN <n> AND <n>"). ` +
      'Other shapes are only accepted on update when preserved unchanged from the stored saved search.',
  );
}

function checkSource(ws: CurrentWorkspace, sourceId: string): void {
  if (!ws.sources.some((source) => source.id === sourceId)) throw refused('sourceId must be an existing source id');
}

// ---------------------------------------------------------------- stored and answered

/** Every optional member at its default when left out: PUT resets, it never keeps. */
function storedOf(id: string, { write, filters }: CheckedWrite, createdAt: string, updatedAt: string): Stored {
  return {
    id,
    name: write.name,
    select: write.select ?? '',
    where: write.where ?? '',
    whereLanguage: write.whereLanguage ?? 'lucene',
    orderBy: write.orderBy ?? '',
    sourceId: write.sourceId,
    tags: write.tags ?? [],
    filters,
    createdAt,
    updatedAt,
  };
}

/** `toExternalJSON`: the stored members in the answer's order, with the workspace as `teamId`. */
export function externalSavedSearch(ws: CurrentWorkspace, search: CurrentSavedSearch): Entry {
  return inSchemaOrder(CurrentSavedSearchEntry, { ...search, teamId: ws.owner } as Entry);
}

// ---------------------------------------------------------------- operations

/** Sorted by id, so offset paging is stable. */
export function listSavedSearches(ws: CurrentWorkspace): Entry[] {
  return [...ws.savedSearches]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((search) => externalSavedSearch(ws, search));
}

function searchIndex(ws: CurrentWorkspace, id: string): number {
  const index = ws.savedSearches.findIndex((search) => search.id === id);
  if (index < 0) throw jsonNotFound('Saved search not found');
  return index;
}

export function getSavedSearch(ws: CurrentWorkspace, id: string): Entry {
  return externalSavedSearch(ws, ws.savedSearches[searchIndex(ws, id)] as CurrentSavedSearch);
}

/** The order of the real checks: the body (400), its source (400), then its filters (400). */
export function createSavedSearch(ws: CurrentWorkspace, body: unknown, nowMs: number): Entry {
  const checked = readWrite(body);
  checkSource(ws, checked.write.sourceId);
  checkRenderable(checked.filters);
  const now = isoTimestamp(nowMs);
  const search = storedOf(newObjectId(nowMs), checked, now, now);
  ws.savedSearches.push(search as CurrentSavedSearch);
  return externalSavedSearch(ws, search as CurrentSavedSearch);
}

/** The body (400), its source (400), the saved search (404), then filters not sent back unchanged (400). */
export function updateSavedSearch(ws: CurrentWorkspace, id: string, body: unknown, nowMs: number): Entry {
  const checked = readWrite(body);
  checkSource(ws, checked.write.sourceId);
  const index = searchIndex(ws, id);
  // Seeded searches may lack any member but `id` and `name`.
  const current = ws.savedSearches[index] as Partial<Stored>;
  checkRenderable(checked.filters, Array.isArray(current.filters) ? current.filters : []);
  const createdAt = current.createdAt ?? isoTimestamp(nowMs);
  const search = storedOf(id, checked, createdAt, isoTimestamp(nowMs)) as CurrentSavedSearch;
  ws.savedSearches[index] = search;
  return externalSavedSearch(ws, search);
}

/** The alerts on it go first, then the saved search. */
export function deleteSavedSearch(ws: CurrentWorkspace, id: string): void {
  const index = searchIndex(ws, id);
  for (const [alertId, alert] of ws.alerts)
    if (alert.source === 'saved_search' && alert.savedSearchId === id) ws.alerts.delete(alertId);
  ws.savedSearches.splice(index, 1);
}

// ---------------------------------------------------------------- seeds

/** A seeded saved search: its id kept or assigned, the rest as seeded. */
function savedSearchOf(seed: Record<string, unknown>, nowMs: number): CurrentSavedSearch {
  const { id, name, ...rest } = seed;
  return { id: typeof id === 'string' ? id : newObjectId(nowMs), name: String(name), ...rest };
}

/** The kind's routes on both variants; the self-hosted list pages. */
export const stackKind: StackKind = {
  collection: {
    member: 'savedSearches',
    data: { items: CurrentSavedSearch },
    seed: (ws, seeded, { nowMs }) => {
      ws.savedSearches = (seeded.savedSearches ?? []).map((search) => savedSearchOf(search, nowMs));
    },
    restore: (ws, saved) => {
      ws.savedSearches = saved.savedSearches;
    },
    save: (ws) => ws.savedSearches,
  },
  segment: 'saved-searches',
  idName: 'savedSearchId',
  gateway: () => CurrentSavedSearchWrite,
  servedOn: BOTH,
  pagedOn: ['self-hosted'],
  writableOn: BOTH,
  list: listSavedSearches,
  get: ({ ws, id }) => getSavedSearch(ws, id),
  create: ({ ws, body, nowMs }) => createSavedSearch(ws, body, nowMs),
  update: ({ ws, id, body, nowMs }) => updateSavedSearch(ws, id, body, nowMs),
  remove: ({ ws, id }) => deleteSavedSearch(ws, id),
};
