/**
 * A dashboard manifest in the form its target speaks. One set of manifests serves both server
 * generations: a seed-profile target takes tiles as `series` (their data named by `dataSource`;
 * what only a current server spells — a series' `source`, a quantile's `level` — is left out);
 * a current one takes every tile as `config`, so a `series` tile is sent as the `config` it maps
 * onto exactly, with its source by id. Names of sources become ids here (a source created in
 * the same run: once it is written). What a target cannot take is a problem that says what to
 * write instead.
 */
import type { ApiProfile } from '../../schema/enums.js';
import type { WriteBody } from '../../model/plan.js';
import { pointerTo, type NameRefs } from '../shared/refs.js';
import type { Pointer } from '../../yaml/positions.js';
import { SOURCE } from '../source/model.js';
import { seriesToConfig } from './convert.js';
import { currentConfigProblem } from './current-config.js';
import {
  DASHBOARD_CURRENT_MEMBERS,
  type KeptDashboard,
  type KeptTile,
  type LiveSeries,
  type ManifestFilter,
  type TileWrite,
} from './model.js';

/** A dashboard as its target's body takes it, without ids: its tiles in the manifest's order, and the other members it sets. */
export interface ProfileForm {
  tiles: TileWrite[];
  /** The current servers' members the manifest sets (filters, containers, saved query). */
  members: WriteBody;
}

export function inProfileForm(
  desired: KeptDashboard,
  profile: ApiProfile,
  refs: NameRefs,
): ProfileForm | { problem: string } {
  const refused = profileRefusal(desired, profile);
  if (refused !== undefined) return { problem: refused.problem };
  const written = { ...desired, tiles: desired.tiles.map(asWritten) };
  return profile === 'seed' ? seedForm(written) : currentForm(written, refs);
}

/**
 * A tile as the body writes it. A live tile kept whole by an ignore rule (`tiles[name]`,
 * docs/operations.md#ignore-rules-and-stacksyncioprune-disabled) comes with the live id, which an
 * update takes from the live tile anyway, and with the members it was read with under `extra`:
 * they go back as members of the tile, as the live body has them, so the kept tile equals the live
 * one and shows no difference. Any other tile is as it is.
 */
function asWritten(tile: KeptTile): KeptTile {
  if (!('id' in tile)) return tile;
  const { id: _id, extra, ...members } = tile;
  return { ...extra, ...members };
}

/** What a target of a profile cannot take of a dashboard, at the member of its spec it is about. */
export interface ProfileRefusal {
  problem: string;
  pointer: Pointer;
}

/**
 * The first thing of a dashboard that a target of `profile` cannot take, with where it is (so the
 * loader reports it at that line once it knows the target's profile), or nothing.
 */
export function profileRefusal(
  dashboard: Pick<KeptDashboard, 'tiles' | (typeof DASHBOARD_CURRENT_MEMBERS)[number]>,
  profile: ApiProfile,
): ProfileRefusal | undefined {
  if (profile === 'seed') {
    const current = DASHBOARD_CURRENT_MEMBERS.filter((member) => dashboard[member] !== undefined);
    if (current.length > 0)
      return {
        problem: `${current.join(', ')}: members of current servers, and the target speaks api profile seed; leave them out for it`,
        pointer: [current[0] ?? ''],
      };
  }
  for (const [index, tile] of dashboard.tiles.entries()) {
    const refused = profile === 'seed' ? seedRefusal(tile) : currentRefusal(tile);
    if (refused !== undefined)
      return { problem: `tile ${tile.name}: ${refused.problem}`, pointer: ['tiles', index, ...refused.pointer] };
  }
  return undefined;
}

function seedRefusal(tile: KeptTile): ProfileRefusal | undefined {
  if (tile.config !== undefined)
    return {
      problem:
        "the target speaks api profile seed, which takes tiles as series, not config; write the tile's chart as series",
      pointer: ['config'],
    };
  // A live tile kept whole (an ignored `tiles[name]`) holds these among its other members (`extra`): it has none here.
  const containerId = 'containerId' in tile ? tile.containerId : undefined;
  const tabId = 'tabId' in tile ? tile.tabId : undefined;
  if (containerId !== undefined || tabId !== undefined) {
    return {
      problem: 'containerId and tabId are members of current servers, and the target speaks api profile seed',
      pointer: [containerId !== undefined ? 'containerId' : 'tabId'],
    };
  }
  return undefined;
}

function currentRefusal(tile: KeptTile): ProfileRefusal | undefined {
  if (tile.series !== undefined) {
    const converted = seriesToConfig(tile.series, tile.asRatio === true);
    if ('problem' in converted)
      return {
        problem: converted.problem,
        pointer: converted.series === undefined ? ['series'] : ['series', converted.series],
      };
    // What the series say, as sent, held to the same forms as a config (a language, a metric type or a format a current server lacks).
    const refused = currentConfigProblem(converted.config);
    return refused === undefined
      ? undefined
      : { problem: `as the config it is sent as, ${refused.problem}`, pointer: ['series', seriesAt(refused.pointer)] };
  }
  if (tile.asRatio !== undefined && tile.config !== undefined)
    return {
      problem: 'a current server takes asRatio inside config (config.asRatio), not beside it',
      pointer: ['asRatio'],
    };
  const refused = tile.config === undefined ? undefined : currentConfigProblem(tile.config);
  return refused === undefined
    ? undefined
    : { problem: `config.${refused.problem}`, pointer: ['config', ...refused.pointer] };
}

/** The series a member of a converted config comes from: a select item's index, else the first. */
function seriesAt(pointer: Pointer): number {
  return pointer[0] === 'select' && typeof pointer[1] === 'number' ? pointer[1] : 0;
}

// ---------------------------------------------------------------- the seed's form

/** A dashboard `profileRefusal` finds nothing in, in the seed's form. */
function seedForm(desired: KeptDashboard): ProfileForm {
  const tiles: TileWrite[] = [];
  for (const tile of desired.tiles) {
    const copy: TileWrite = { ...tile };
    if (tile.series !== undefined) copy.series = tile.series.map(seedSeries);
    tiles.push(copy);
  }
  return { tiles, members: {} };
}

/**
 * A series as the seed takes it. A series written for both generations names its data twice
 * (`dataSource` for the seed, `source` for a current server) and a quantile's level once (a
 * current server needs one of its levels; the seed's quantile has none and refuses the member):
 * each generation gets its own. A level on any other aggregation is sent, and refused, as written.
 */
function seedSeries(series: LiveSeries): LiveSeries {
  const seed: LiveSeries = { ...series };
  delete seed['source'];
  delete seed['sourceId'];
  if (seed['aggFn'] === 'quantile') delete seed['level'];
  return seed;
}

// ---------------------------------------------------------------- a current server's form

/** A dashboard `profileRefusal` finds nothing in, in a current server's form. */
function currentForm(desired: KeptDashboard, refs: NameRefs): ProfileForm | { problem: string } {
  const tiles: TileWrite[] = [];
  for (const [index, tile] of desired.tiles.entries()) {
    const profileForm = currentTile(tile, index, refs);
    if ('problem' in profileForm) return profileForm;
    tiles.push(profileForm.tile);
  }
  const members: WriteBody = {};
  for (const member of DASHBOARD_CURRENT_MEMBERS) if (desired[member] !== undefined) members[member] = desired[member];
  if (desired.filters !== undefined)
    members['filters'] = desired.filters.map((filter, index) => currentFilter(filter, index, refs));
  return { tiles, members };
}

function currentTile(tile: KeptTile, index: number, refs: NameRefs): { tile: TileWrite } | { problem: string } {
  const { series, config, asRatio, ...placement } = tile;
  if (series !== undefined) {
    const converted = seriesToConfig(series, asRatio === true);
    if ('problem' in converted) return { problem: `tile ${tile.name}: ${converted.problem}` };
    const source = converted.source;
    const sourceId =
      source === undefined
        ? undefined
        : 'id' in source
          ? source.id
          : refs.id(SOURCE, source.name, pointerTo('tiles', index, 'config', 'sourceId'));
    const chart =
      sourceId === undefined
        ? converted.config
        : { displayType: converted.config['displayType'], sourceId, ...converted.config };
    return { tile: { ...placement, config: chart } };
  }
  if (config === undefined) return { tile: { ...placement, ...(asRatio !== undefined ? { asRatio } : {}) } };
  const { source, ...chart } = config;
  if (typeof source !== 'string') return { tile: { ...placement, config } };
  return {
    tile: {
      ...placement,
      config: { ...chart, sourceId: refs.id(SOURCE, source, pointerTo('tiles', index, 'config', 'sourceId')) },
    },
  };
}

/** A filter in the body's form: its type, its source by id; its id is the update's business. */
function currentFilter(filter: ManifestFilter, index: number, refs: NameRefs): WriteBody {
  const { source, sourceId, ...rest } = filter;
  const id = typeof source === 'string' ? refs.id(SOURCE, source, pointerTo('filters', index, 'sourceId')) : sourceId;
  return { type: 'QUERY_EXPRESSION', ...rest, sourceId: id };
}
