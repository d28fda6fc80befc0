/**
 * The manifest of a SavedSearch: its spec, the members of the real create body
 * (`wire.ts` beside it) with other kinds' ids also taken by name and credentials as
 * secret references, in the envelope.
 */
import { Type } from 'typebox';
import { described, object, oneOf, optional } from '../../schema/build.js';
import {
  CURRENT_SAVED_SEARCH_LANGUAGES,
  CURRENT_SAVED_SEARCH_LIMITS,
  CurrentSavedSearchAstFilter,
  CurrentSavedSearchConditionFilter,
} from './wire.js';
import { ignoreDifferencesSchema } from '../../schema/manifest-parts.js';
import { documentSchema } from '../../schema/manifest.js';
import { nameOf, objectId, oneOfPair } from '../../schema/manifest-stack.js';

/** The SavedSearch kind's name. */
export const SAVED_SEARCH = 'SavedSearch';

const S = CURRENT_SAVED_SEARCH_LIMITS;

export const savedSearchSpecSchema = object(
  {
    name: described(
      Type.String({ minLength: 1, maxLength: S.nameMaxLength }),
      'Saved search name in the API; what live saved searches are matched by.',
    ),
    ...optional({
      source: nameOf('Source', 'sourceId'),
      sourceId: described(objectId, 'Id of the source searched (instead of source).'),
      select: Type.String({ maxLength: S.selectMaxLength }),
      where: Type.String({ maxLength: S.whereMaxLength }),
      whereLanguage: oneOf(CURRENT_SAVED_SEARCH_LANGUAGES),
      orderBy: Type.String({ maxLength: S.orderByMaxLength }),
      tags: Type.Array(Type.String({ maxLength: S.tagMaxLength }), { maxItems: S.maxTags }),
      filters: Type.Array(Type.Union([CurrentSavedSearchConditionFilter, CurrentSavedSearchAstFilter]), {
        maxItems: S.maxFilters,
        description:
          'Pinned filters, in order: {condition, type?: sql | lucene} or {type: sql_ast, operator, left, right}.',
      }),
      ignoreDifferences: ignoreDifferencesSchema,
    }),
  },
  { description: 'A saved search of one source; alerts may watch it.', ...oneOfPair('source', 'sourceId') },
);

/** What the kind is, as its published schema says. */
export const SAVED_SEARCH_DESCRIPTION = 'A saved search on a source, which alerts may watch.';

/** The whole manifest document: the envelope with this spec. */
export const savedSearchDocumentSchema = documentSchema(SAVED_SEARCH, savedSearchSpecSchema, SAVED_SEARCH_DESCRIPTION);
