/**
 * The Dashboard kind's shapes: the desired dashboard, the live one as read (tiles in either
 * format), and the create/update body.
 */
import type { Static } from 'typebox';
import type { DesiredBase } from '../../model/desired.js';
import type { Extra, LiveBase } from '../../model/resources.js';
import { isRecord } from '../../support/json.js';
import type { KeptMembers } from '../shared/ignore.js';
import type { dashboardSpecSchema } from './schema.js';
import type { dashboardUpdateBodySchema, seriesSchema, tileWriteSchema } from './wire.js';
import type { Variant } from '../../model/kinds.js';

/** The kind's name, as manifests, plans and the state file write it. */
import { DASHBOARD } from './schema.js';

export { DASHBOARD };

export type Series = Static<typeof seriesSchema>;
/**
 * A series as read: every member the service sent (a current server's `sourceId`, `alias`, …),
 * with `type` as plain text. Kept whole so an update sends it back as it was.
 */
export type LiveSeries = Record<string, unknown> & { type: string };

/** A tile as written by the seed's API (series format); `id` is absent on tiles not yet created. */
export type Tile = Static<typeof tileWriteSchema>;

/**
 * A tile in a write body: the seed's `series` or a current server's `config` (one of them), and
 * whatever else the live tile carried, sent back as it was.
 */
export type TileWrite = Omit<Tile, 'series'> & { series?: LiveSeries[]; config?: Record<string, unknown> } & Extra;

/** A tile as read: the service always gives its id; `series` (old format) or `config` (new format) as sent. */
export interface LiveTile {
  id: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  asRatio?: boolean;
  series?: LiveSeries[];
  /** Kept whole and opaque: stacksync reads nothing inside it but compares what a manifest sets. */
  config?: Record<string, unknown>;
  extra?: Extra;
}

/** Whether a live object (one a change of this run wrote) is a dashboard: its tiles read back, each with its id and name. */
export function isLiveDashboard(live: LiveBase): live is LiveDashboard {
  return (
    'tiles' in live &&
    Array.isArray(live.tiles) &&
    live.tiles.every((tile) => isRecord(tile) && typeof tile['id'] === 'string' && typeof tile['name'] === 'string')
  );
}

export interface LiveDashboard {
  id: string;
  name: string;
  tags: string[];
  tiles: LiveTile[];
  /** When the service made it (ISO 8601), where the service says so: what tells whether a create of ours made it. */
  createdAt?: string;
  /** Filters, saved query, containers, … of newer servers. */
  extra?: Extra;
}

/** Body of a dashboard create or update; tile ids are sent on update to keep them. */
export type DashboardWrite = Omit<Static<typeof dashboardUpdateBodySchema>, 'id' | 'tiles'> & {
  tiles: TileWrite[];
} & Extra;

/**
 * A tile as a manifest states it: the API's tile without the service-assigned id. No location of
 * its own: finding a tile's line costs a second parse, and nothing reports per tile.
 */
export type DesiredTile = ManifestTile;

/** The members of current servers a manifest may manage beside the tiles; each left out keeps its live value. */
export const DASHBOARD_CURRENT_MEMBERS = [
  'filters',
  'containers',
  'savedQuery',
  'savedQueryLanguage',
  'savedFilterValues',
] as const;

/**
 * Filter members a variant's API does not offer: the managed document's dashboard filter has no
 * variables or broadcast (HyperDX's has them), so the managed service drops or refuses them.
 */
export const FILTER_MEMBERS_LACKED: Record<
  Variant,
  readonly ('isBroadcastEnabled' | 'isVariableEnabled' | 'variableName')[]
> = {
  managed: ['isBroadcastEnabled', 'isVariableEnabled', 'variableName'],
  'self-hosted': [],
};

/** Tile config members a variant's API does not offer: the managed document's charts have no formulas or series limits (HyperDX's have them). */
export const CONFIG_MEMBERS_LACKED: Record<Variant, readonly string[]> = {
  managed: ['formulas', 'seriesLimit', 'showOperandSeries'],
  'self-hosted': [],
};

export interface DesiredDashboard
  extends DesiredBase,
    Pick<
      DashboardSpec,
      | 'name'
      | 'tags'
      | 'ownsAllTiles'
      | 'filters'
      | 'containers'
      | 'savedQuery'
      | 'savedQueryLanguage'
      | 'savedFilterValues'
    > {
  kind: typeof DASHBOARD;
  tiles: DesiredTile[];
}

/**
 * A dashboard manifest once the live values at its ignored paths are kept: a tile there may hold
 * what the service has, of a type the manifest's schema refuses (a series' `type` as the server
 * spells it, a `config` of any members), and it is read and written back as it is.
 */
export type KeptDashboard = KeptMembers<DesiredDashboard, LiveDashboard>;

/** A tile of a {@link KeptDashboard}: the manifest's, the live one, or one made of both. */
export type KeptTile = KeptDashboard['tiles'][number];

/** A filter as a manifest writes it (its key is its name). */
export type ManifestFilter = NonNullable<DashboardSpec['filters']>[number];

export type DashboardSpec = Static<typeof dashboardSpecSchema>;

/** A tile as manifests write it: the API's tile without the id the service assigns. */
export type ManifestTile = NonNullable<DashboardSpec['tiles']>[number];
