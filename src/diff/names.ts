/**
 * Names a manifest may use instead of ids: a tile's data source by `source: <name>` (in its
 * `config` or in each series) and an alert's webhook by `channel.webhook: <name>`. They resolve
 * against the target's sources and webhooks lists, which are read only when some manifest of the
 * target uses a name (`namesUsed`). Pure: the lists come in, resolved copies come out.
 */
import type { DesiredAlert, DesiredDashboard, DesiredResource, DesiredTile } from '../model/desired.js';
import type { DataSource, Webhook } from '../model/resources.js';
import { changeKey, type ChangeKey } from '../model/plan.js';
import { isPlainObject } from './values.js';

/** Which lists the manifests of one target need. */
export interface NamesUsed {
  sources: boolean;
  webhooks: boolean;
}

/** The target's lists; a list is absent when no manifest needs it. */
export interface NameLists {
  sources?: readonly DataSource[];
  webhooks?: readonly Webhook[];
}

export interface ResolvedNames {
  /** Every resource, names replaced by ids where they resolved (unchanged otherwise). */
  resources: DesiredResource[];
  /** `Kind/key` → why it cannot be planned (a name that names nothing). */
  unresolved: Map<ChangeKey, string>;
}

export function namesUsed(resources: readonly DesiredResource[]): NamesUsed {
  const used: NamesUsed = { sources: false, webhooks: false };
  for (const resource of resources) {
    if (resource.kind === 'Dashboard' && resource.tiles.some((tile) => sourceNamesOf(tile).length > 0)) used.sources = true;
    if (resource.kind === 'Alert' && resource.channel?.webhook !== undefined) used.webhooks = true;
  }
  return used;
}

export function resolveNames(target: string, resources: readonly DesiredResource[], lists: NameLists): ResolvedNames {
  const unresolved = new Map<ChangeKey, string>();
  const resolved = resources.map((resource): DesiredResource => {
    const outcome =
      resource.kind === 'Dashboard' ? resolveDashboard(target, resource, lists.sources ?? []) : resource.kind === 'Alert' ? resolveAlert(target, resource, lists.webhooks ?? []) : resource;
    if (typeof outcome === 'string') {
      unresolved.set(changeKey(resource.kind, resource.key), outcome);
      return resource;
    }
    return outcome;
  });
  return { resources: resolved, unresolved };
}

function resolveDashboard(target: string, dashboard: DesiredDashboard, sources: readonly DataSource[]): DesiredDashboard | string {
  if (!dashboard.tiles.some((tile) => sourceNamesOf(tile).length > 0)) return dashboard;
  const ids = new Map(sources.map((source) => [source.name, source.id]));
  const unknown = [...new Set(dashboard.tiles.flatMap(sourceNamesOf))].filter((name) => !ids.has(name));
  if (unknown.length > 0) return unknownNames('data source', unknown, target, sources);
  const withId = (holder: Record<string, unknown>): Record<string, unknown> => {
    const { source, ...rest } = holder;
    return typeof source === 'string' ? { ...rest, sourceId: ids.get(source) } : holder;
  };
  const tiles = dashboard.tiles.map((tile): DesiredTile => {
    const copy = { ...tile } as DesiredTile;
    if (tile.config !== undefined) copy.config = withId(tile.config);
    if (tile.series !== undefined) copy.series = tile.series.map((series) => withId(series) as typeof series);
    return copy;
  });
  return { ...dashboard, tiles };
}

function resolveAlert(target: string, alert: DesiredAlert, webhooks: readonly Webhook[]): DesiredAlert | string {
  const name = alert.channel?.webhook;
  if (alert.channel === undefined || name === undefined) return alert;
  const found = webhooks.filter((webhook) => webhook.name === name);
  if (found.length === 0) return unknownNames('webhook', [name], target, webhooks);
  if (found.length > 1) return `${found.length} webhooks of target ${target} are named "${name}"; name it by webhookId instead`;
  const { webhook: _name, ...channel } = alert.channel;
  return { ...alert, channel: { ...channel, webhookId: found[0]?.id ?? '' } };
}

/** The `source` names a tile uses: its config's, and each series'. */
function sourceNamesOf(tile: DesiredTile): string[] {
  const holders: unknown[] = [tile.config, ...(tile.series ?? [])];
  return holders.flatMap((holder) => (isPlainObject(holder) && typeof holder['source'] === 'string' ? [holder['source']] : []));
}

function unknownNames(what: string, names: readonly string[], target: string, known: readonly { name: string }[]): string {
  const listed = known.length === 0 ? 'it lists none' : `it has ${known.map((item) => `"${item.name}"`).join(', ')}`;
  const quoted = names.map((name) => `"${name}"`).join(', ');
  return `${what} ${quoted} is not a ${what} of target ${target} (${listed})`;
}
