/**
 * A saved search's wire shapes on the `current` profile (docs/reference/api-behaviour.md, "The
 * real services today: the whole lifecycle").
 */
import { type Static, Type } from 'typebox';
import { objectId } from '../../schema/api-current.js';

/** A saved search, as far as alerts need one: it exists in the team. */
export const CurrentSavedSearch = Type.Object(
  { id: Type.String(), name: Type.String() },
  { additionalProperties: true },
);

export type CurrentSavedSearch = Static<typeof CurrentSavedSearch>;

/** Caps of the saved-search write body (hyperdx `v2/savedSearches.ts`). */
export const CURRENT_SAVED_SEARCH_LIMITS = {
  nameMaxLength: 1024,
  selectMaxLength: 4 * 1024,
  whereMaxLength: 8 * 1024,
  orderByMaxLength: 1024,
  maxFilters: 100,
  filterMaxLength: 8 * 1024,
  maxTags: 50,
  tagMaxLength: 32,
} as const;

export const CURRENT_SAVED_SEARCH_LANGUAGES = ['lucene', 'sql'] as const;
export const CURRENT_SQL_AST_OPERATORS = ['=', '<', '>', '!=', '<=', '>='] as const;

// ---------------------------------------------------------------- saved searches

const S = CURRENT_SAVED_SEARCH_LIMITS;

/** A pinned filter: a condition (`type` defaults to `sql`) or a parsed comparison. */
export const CurrentSavedSearchConditionFilter = Type.Object({
  type: Type.Optional(Type.Enum(CURRENT_SAVED_SEARCH_LANGUAGES)),
  condition: Type.String({ maxLength: S.filterMaxLength }),
});
export const CurrentSavedSearchAstFilter = Type.Object({
  type: Type.Literal('sql_ast'),
  operator: Type.Enum(CURRENT_SQL_AST_OPERATORS),
  left: Type.String({ maxLength: S.filterMaxLength }),
  right: Type.String({ maxLength: S.filterMaxLength }),
});

/** Create and update body: PUT is a full replace, every optional member falls back to its default. Filters are checked one by one beside it. */
export const CurrentSavedSearchWrite = Type.Object({
  name: Type.String(),
  sourceId: objectId,
  select: Type.Optional(Type.String({ maxLength: S.selectMaxLength })),
  where: Type.Optional(Type.String({ maxLength: S.whereMaxLength })),
  whereLanguage: Type.Optional(Type.Enum(CURRENT_SAVED_SEARCH_LANGUAGES)),
  orderBy: Type.Optional(Type.String({ maxLength: S.orderByMaxLength })),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: S.tagMaxLength }), { maxItems: S.maxTags })),
  filters: Type.Optional(Type.Array(Type.Unknown(), { maxItems: S.maxFilters })),
});

const savedSearchFilter = Type.Union([CurrentSavedSearchConditionFilter, CurrentSavedSearchAstFilter]);

/** A saved search as answered (`toExternalJSON`): `sourceId`, never the internal `source`. */
export const CurrentSavedSearchEntry = Type.Object({
  id: Type.String(),
  name: Type.String(),
  select: Type.Optional(Type.String()),
  where: Type.Optional(Type.String()),
  whereLanguage: Type.Optional(Type.String()),
  orderBy: Type.Optional(Type.String()),
  sourceId: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(Type.String())),
  filters: Type.Optional(Type.Array(savedSearchFilter)),
  teamId: Type.String(),
  createdAt: Type.Optional(Type.String()),
  updatedAt: Type.Optional(Type.String()),
});

export type CurrentSavedSearchWrite = Static<typeof CurrentSavedSearchWrite>;
export type CurrentSavedSearchFilter = Static<typeof savedSearchFilter>;
export type CurrentSavedSearchEntry = Static<typeof CurrentSavedSearchEntry>;
