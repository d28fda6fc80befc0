/**
 * A dashboard's manifest: its spec, built from the API schema parts so the two cannot disagree (docs/manifests/dashboard.md).
 */
import { Type } from 'typebox';
import { constant, described, object, oneOf, optional } from '../../schema/build.js';
import {
  SERIES_AGG_FNS,
  SERIES_DATA_SOURCES,
  SERIES_TYPES,
  SERIES_TYPES_NEEDING_AGG_FN,
  dashboardNameSchema,
  dashboardTagsSchema,
  tileList,
  tileMembers,
  CURRENT_DASHBOARD_LIMITS,
  CURRENT_WHERE_LANGUAGES,
  CurrentDashboardContainer,
  CurrentDashboardFilter,
  CurrentSavedFilterValue,
} from './wire.js';
import { ignoreDifferencesSchema } from '../../schema/manifest-parts.js';
import { documentSchema } from '../../schema/manifest.js';

/** The Dashboard kind's name. */
export const DASHBOARD = 'Dashboard';

const SOURCE_NAME_DESCRIPTION =
  "Name of a data source of the target, resolved to its id from the target's sources list (instead of sourceId).";

/**
 * A series of the old tile format: the seed's members, and those current servers take (a series
 * names its data source by `sourceId`, or here by `source` name).
 */
const manifestSeriesSchema = object(
  {
    type: oneOf(SERIES_TYPES),
    ...optional({
      dataSource: oneOf(SERIES_DATA_SOURCES),
      aggFn: oneOf(SERIES_AGG_FNS),
      field: Type.String(),
      where: Type.String(),
      groupBy: Type.Array(Type.String()),
      content: Type.String(),
      sourceId: Type.String({ minLength: 1, description: 'Id of a data source of the target (current servers).' }),
      source: Type.String({ minLength: 1, description: SOURCE_NAME_DESCRIPTION }),
      alias: Type.String(),
      level: Type.Number({ minimum: 0, maximum: 1 }),
      whereLanguage: Type.String(),
      fields: Type.Array(Type.String()),
      sortOrder: Type.String(),
      displayType: Type.String(),
      metricName: Type.String(),
      metricDataType: Type.String(),
      numberFormat: Type.Record(Type.String(), Type.Unknown()),
    }),
  },
  {
    if: { properties: { type: { enum: [...SERIES_TYPES_NEEDING_AGG_FN] } } },
    then: { required: ['aggFn'] },
  },
);

/**
 * A tile's chart in the new format: an object passed to the service as written and compared
 * member by member with the live one (members it leaves out are not compared, and are kept).
 */
const manifestTileConfigSchema = Type.Object(
  optional({
    displayType: Type.String({
      description: 'line, stacked_bar, table, number, pie, bar, heatmap, search, markdown, …',
    }),
    sourceId: Type.String({ minLength: 1, description: 'Id of a data source of the target.' }),
    source: Type.String({ minLength: 1, description: SOURCE_NAME_DESCRIPTION }),
  }),
  {
    additionalProperties: true,
    description: "The tile's chart as current servers take it (`config`); passed through as written.",
  },
);

const { series: _seedSeries, ...tilePlacement } = tileMembers;

const manifestTileSchema = object(
  {
    ...tilePlacement,
    ...optional({
      series: Type.Array(manifestSeriesSchema, {
        description:
          "The chart in the seed's format (old format). Sent as series to a seed-profile target (by " +
          'dataSource), and as the equivalent config to a current one (by source), where it maps exactly.',
      }),
      config: manifestTileConfigSchema,
      containerId: Type.String({
        minLength: 1,
        maxLength: CURRENT_DASHBOARD_LIMITS.containerIdMaxLength,
        description: 'The container (group) the tile is in (current servers).',
      }),
      tabId: Type.String({
        minLength: 1,
        maxLength: CURRENT_DASHBOARD_LIMITS.containerIdMaxLength,
        description: 'The tab of that container the tile is on (current servers).',
      }),
    }),
  },
  {
    description:
      'A tile; `name` is its key within the dashboard (ids are assigned by the service and kept ' +
      'across updates). Give series or config, or neither: then the live chart is kept as it is.',
    not: { required: ['series', 'config'] },
  },
);

const {
  id: _filterId,
  sourceId: _filterSourceId,
  name: _filterName,
  type: _filterType,
  ...filterMembers
} = CurrentDashboardFilter.properties;

/** A dashboard filter (a variable) as a manifest writes it: by name, its source by name or id; the service assigns its id. */
const manifestFilterSchema = object(
  {
    name: Type.String({
      minLength: 1,
      description: "The filter's name: its key within the dashboard (the service assigns its id, which updates keep).",
    }),
    ...optional({
      type: constant('QUERY_EXPRESSION', { description: 'Always QUERY_EXPRESSION (the default).' }),
      source: Type.String({ minLength: 1, description: SOURCE_NAME_DESCRIPTION }),
      sourceId: Type.String({ minLength: 1, description: 'Id of the source the filter reads its values from.' }),
    }),
    ...filterMembers,
  },
  {
    description: 'A filter of the dashboard; variableName needs isVariableEnabled: true.',
    oneOf: [{ required: ['source'] }, { required: ['sourceId'] }],
  },
);

export const dashboardSpecSchema = object({
  name: described(dashboardNameSchema, 'Dashboard name in the API; what live dashboards are matched by.'),
  ...optional({
    tags: described(dashboardTagsSchema, 'Tags (at most 50, each at most 32 characters).'),
    tiles: tileList(manifestTileSchema, { description: 'Tiles; each name unique in the dashboard. Default: none.' }),
    ownsAllTiles: Type.Boolean({
      description:
        'true: these tiles are the whole dashboard. An update (which replaces the tile list) then also deletes ' +
        'tiles a GET does not return (PromQL tiles); without it, a dashboard that may hold such tiles is never updated.',
    }),
    filters: Type.Array(manifestFilterSchema, {
      description:
        'The filters (variables), in order; each name unique. Left out, the live ones are kept as they are (current servers).',
    }),
    containers: Type.Array(CurrentDashboardContainer, {
      maxItems: CURRENT_DASHBOARD_LIMITS.maxContainers,
      description:
        'Groups and tabs that tiles name by containerId and tabId. Left out, the live ones are kept (current servers).',
    }),
    savedQuery: Type.Union([Type.String(), Type.Null()], {
      description: 'The query the dashboard opens with (current servers).',
    }),
    savedQueryLanguage: Type.Union([oneOf(CURRENT_WHERE_LANGUAGES), Type.Null()], {
      description: 'lucene or sql (current servers).',
    }),
    savedFilterValues: Type.Array(CurrentSavedFilterValue, {
      description: 'The filter values the dashboard opens with (current servers).',
    }),
    ignoreDifferences: ignoreDifferencesSchema,
  }),
});

/** What the kind is, as its published schema says. */
export const DASHBOARD_DESCRIPTION = 'An observability dashboard with its tiles.';

/** The whole manifest document: the envelope with this spec. */
export const dashboardDocumentSchema = documentSchema(DASHBOARD, dashboardSpecSchema, DASHBOARD_DESCRIPTION);
