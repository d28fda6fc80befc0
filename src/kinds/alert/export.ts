/**
 * A live alert as a manifest: a tile alert names its dashboard by the key export gave it and its
 * tile by name, so `plan` on the result resolves them again.
 */
import { SPEC_SCHEMAS } from '../../schema/manifest.js';
import type { ExportContext, KindExport } from '../descriptor.js';
import { pickBySchema } from '../kit/pick.js';
import type { DashboardNames } from '../dashboard/export.js';
import { DASHBOARD } from '../dashboard/model.js';
import { ALERT, type LiveAlert } from './model.js';

export const alertExport: KindExport<LiveAlert> = {
  keyPrefix: 'alert',
  namedIds: (alert) => (alert.dashboardId === undefined ? [] : [alert.dashboardId]),
  write: (alert, _key, ctx) => {
    if (alert.name === undefined || alert.name === '') return { skip: 'it has no name; alerts are matched by name, so name it in the console first' };
    const refs = alert.source === 'tile' ? tileRefs(alert, ctx) : { savedSearchId: alert.savedSearchId };
    if (typeof refs === 'string') return { skip: refs };
    const candidate = {
      name: alert.name,
      message: alert.message,
      source: alert.source,
      ...refs,
      threshold: alert.threshold,
      thresholdType: alert.thresholdType,
      thresholdMax: alert.thresholdMax,
      interval: alert.interval,
      groupBy: alert.groupBy,
      // Only webhook channels can be written; any other (email, …) is left out, so it is kept live.
      channel: alert.channel?.type === 'webhook' ? alert.channel : undefined,
    };
    return { spec: pickBySchema(candidate, SPEC_SCHEMAS[ALERT]) as Record<string, unknown> };
  },
};

function tileRefs(alert: LiveAlert, ctx: ExportContext): { dashboard: string; tile: string } | string {
  const names = ctx.namesOf(DASHBOARD, alert.dashboardId ?? '') as DashboardNames | string | undefined;
  if (names === undefined) return `it watches dashboard ${alert.dashboardId ?? '(none)'}, which does not exist`;
  if (typeof names === 'string') return `its dashboard ${alert.dashboardId ?? ''} is not exported: ${names}`;
  const tile = names.tiles.get(alert.tileId ?? '');
  if (tile === undefined) return `it watches tile ${alert.tileId ?? '(none)'}, which is not on dashboard ${alert.dashboardId ?? ''}`;
  return { dashboard: names.key, tile };
}
