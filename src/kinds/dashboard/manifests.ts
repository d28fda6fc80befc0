/** A Dashboard manifest's rules beyond its schema, and the desired dashboard it becomes. */
import type { Static } from 'typebox';
import type { DesiredBaseOf, DocumentProblem, KindManifests } from '../descriptor.js';
import { duplicatesIn } from '../shared/duplicates.js';
import { recordOr } from '../../support/json.js';
import { profileRefusal } from './profile-form.js';
import type { Variant } from '../../model/kinds.js';
import type { Manifest } from '../../model/manifest.js';
import {
  CONFIG_MEMBERS_LACKED,
  DASHBOARD,
  DASHBOARD_CURRENT_MEMBERS,
  FILTER_MEMBERS_LACKED,
  type DashboardSpec,
  type DesiredDashboard,
  type DesiredTile,
  type ManifestTile,
} from './model.js';
import type { dashboardDocumentSchema } from './schema.js';

export type DashboardManifest = Static<typeof dashboardDocumentSchema>;

/** Whether a manifest that passed its kind's schema is a Dashboard's (its spec then has this kind's shape). */
export function isDashboardManifest(manifest: Manifest): manifest is DashboardManifest {
  return manifest.kind === DASHBOARD;
}

export const dashboardManifests: KindManifests<DesiredDashboard, DashboardManifest> = {
  // Live dashboards are found by their API name: two manifests with one name would fight over one resource.
  uniqueName: (manifest) => ({
    value: manifest.spec.name,
    pointer: ['spec', 'name'],
    what: (name) => `a ${DASHBOARD} named "${name}"`,
  }),
  check: (manifest) => {
    const tiles = manifest.spec.tiles ?? [];
    const filters = manifest.spec.filters ?? [];
    return [
      ...duplicatesIn(tiles, (tile) => tile.name).map(
        ([index, earlier]): DocumentProblem => ({
          code: 'E_MANIFEST_DUPLICATE',
          pointer: ['spec', 'tiles', index, 'name'],
          message: `tile name ${tiles[index]?.name} is already used by tiles[${earlier}]; tile names must be unique in a dashboard`,
        }),
      ),
      ...duplicatesIn(filters, (filter) => filter.name).map(
        ([index, earlier]): DocumentProblem => ({
          code: 'E_MANIFEST_DUPLICATE',
          pointer: ['spec', 'filters', index, 'name'],
          message:
            `filter name ${filters[index]?.name} is already used by filters[${earlier}]; filters are kept by ` +
            `name, so names must be unique in a dashboard`,
        }),
      ),
    ];
  },
  // A tile form the target's servers refuse, at the series or member it is about (the plan would find it too, at the document).
  checkForTarget: (manifest, { variant, profile }) => {
    const refused = profileRefusal({ ...manifest.spec, tiles: manifest.spec.tiles ?? [] }, profile);
    return [
      ...(refused === undefined
        ? []
        : [{ code: 'E_MANIFEST_INVALID' as const, pointer: ['spec', ...refused.pointer], message: refused.problem }]),
      ...lackedFilterMembers(manifest.spec, variant),
      ...lackedConfigMembers(manifest.spec, variant),
    ];
  },
  build: (manifest, base) => toDesiredDashboard(manifest.spec, base),
};

/** Filter members a variant's API does not offer, each at its line (its document lacks them: docs/manifests/dashboard.md#filters). */
function lackedFilterMembers(spec: DashboardSpec, variant: Variant): DocumentProblem[] {
  const lacked = FILTER_MEMBERS_LACKED[variant];
  return (spec.filters ?? []).flatMap((filter, index) =>
    lacked
      .filter((member) => filter[member] !== undefined)
      .map(
        (member): DocumentProblem => ({
          code: 'E_MANIFEST_INVALID',
          pointer: ['spec', 'filters', index, member],
          message: `the ${variant} service's API does not offer ${member} on a dashboard filter; leave it out for this target`,
        }),
      ),
  );
}

/** Tile config members a variant's API does not offer, each at its line. */
function lackedConfigMembers(spec: DashboardSpec, variant: Variant): DocumentProblem[] {
  const lacked = CONFIG_MEMBERS_LACKED[variant];
  return (spec.tiles ?? []).flatMap((tile, index) =>
    lacked
      .filter((member) => recordOr(tile.config)?.[member] !== undefined)
      .map(
        (member): DocumentProblem => ({
          code: 'E_MANIFEST_INVALID',
          pointer: ['spec', 'tiles', index, 'config', member],
          message: `tile ${tile.name}: the ${variant} service's API does not offer ${member} on a chart; leave it out for this target`,
        }),
      ),
  );
}

function toDesiredDashboard(spec: DashboardSpec, base: DesiredBaseOf): DesiredDashboard {
  const dashboard: DesiredDashboard = { kind: DASHBOARD, ...base, name: spec.name, tiles: [] };
  if (spec.tags !== undefined) dashboard.tags = spec.tags;
  if (spec.ownsAllTiles !== undefined) dashboard.ownsAllTiles = spec.ownsAllTiles;
  for (const member of DASHBOARD_CURRENT_MEMBERS)
    if (spec[member] !== undefined) Object.assign(dashboard, { [member]: spec[member] });
  dashboard.tiles = (spec.tiles ?? []).map(toDesiredTile);
  return dashboard;
}

function toDesiredTile(tile: ManifestTile): DesiredTile {
  const desired: DesiredTile = { name: tile.name, x: tile.x, y: tile.y, w: tile.w, h: tile.h };
  // A tile without series or config leaves its live chart alone: neither member is set.
  if (tile.series !== undefined) desired.series = tile.series;
  if (tile.config !== undefined) desired.config = tile.config;
  if (tile.asRatio !== undefined) desired.asRatio = tile.asRatio;
  if (tile.containerId !== undefined) desired.containerId = tile.containerId;
  if (tile.tabId !== undefined) desired.tabId = tile.tabId;
  return desired;
}
