/**
 * A live alert as a manifest: a tile alert names its dashboard by the key export gave it and its
 * tile by name, so `plan` on the result resolves them again; a saved-search alert names its saved
 * search, and a channel its webhook, by name where export names them (by id otherwise).
 */
import type { ExportContext, KindExport } from '../descriptor.js';
import { pickBySchema } from '../shared/pick.js';
import { namedReference } from '../shared/flat-export.js';
import { isRecord } from '../shared/values.js';
import { isDashboardNames } from '../dashboard/export.js';
import { recordOr } from '../../support/json.js';
import { DASHBOARD } from '../dashboard/model.js';
import { SAVED_SEARCH } from '../saved-search/model.js';
import { WEBHOOK } from '../webhook/model.js';
import { alertSourceWord, CURRENT_ALERT_MEMBERS, type LiveAlert, type LiveAlertChannel } from './model.js';
import { alertSpecSchema } from './schema.js';

export const alertExport: KindExport<LiveAlert> = {
  keyPrefix: 'alert',
  namedIds: (alert) => [
    ...(alert.dashboardId === undefined ? [] : [alert.dashboardId]),
    ...(alert.savedSearchId === undefined ? [] : [alert.savedSearchId]),
    ...channelsOf(alert).flatMap((channel) => (typeof channel.webhookId === 'string' ? [channel.webhookId] : [])),
  ],
  write: (alert, _key, ctx) => {
    if (alert.name === undefined || alert.name === '')
      return { skip: 'it has no name; alerts are matched by name, so name it in the console first' };
    const refs =
      alert.source === 'tile'
        ? tileRefs(alert, ctx)
        : namedReference(ctx, { savedSearchId: alert.savedSearchId }, SAVED_SEARCH, 'savedSearchId', {
            name: 'savedSearch',
            id: 'savedSearchId',
          });
    if (typeof refs === 'string') return { skip: refs };
    // A channel of a type no manifest can write leaves them all out: the live ones are kept.
    const live = channelsOf(alert);
    const channels = live.every(isWritable)
      ? live.map((channel) => namedReference(ctx, channel, WEBHOOK, 'webhookId', { name: 'webhook', id: 'webhookId' }))
      : [];
    const candidate = {
      name: alert.name,
      message: alert.message,
      source: alertSourceWord(alert.source),
      ...refs,
      threshold: alert.threshold,
      thresholdType: alert.thresholdType,
      thresholdMax: alert.thresholdMax,
      interval: alert.interval,
      groupBy: alert.groupBy,
      // One channel as `channel`, several as `channels`: what a server of today answers either way.
      ...(channels.length === 1 ? { channel: channels[0] } : channels.length > 1 ? { channels } : {}),
      ...Object.fromEntries(CURRENT_ALERT_MEMBERS.map((member) => [member, alert.extra?.[member]])),
    };
    return { spec: recordOr(pickBySchema(candidate, alertSpecSchema)) ?? {} };
  },
};

/** Its channels: the list of newer servers, else the one channel. */
function channelsOf(alert: LiveAlert): LiveAlertChannel[] {
  const channels = alert.extra?.['channels'];
  if (Array.isArray(channels) && channels.length > 0)
    return channels.filter(
      (channel): channel is LiveAlertChannel => isRecord(channel) && typeof channel['type'] === 'string',
    );
  return alert.channel ? [alert.channel] : [];
}

function isWritable(channel: LiveAlertChannel): boolean {
  return (
    (channel.type === 'webhook' && typeof channel.webhookId === 'string') ||
    (channel.type === 'email' && Array.isArray(channel['emailRecipients']))
  );
}

function tileRefs(alert: LiveAlert, ctx: ExportContext): { dashboard: string; tile: string } | string {
  const names = ctx.namesOf(DASHBOARD, alert.dashboardId ?? '');
  if (names === undefined) return `it watches dashboard ${alert.dashboardId ?? '(none)'}, which does not exist`;
  if (typeof names === 'string') return `its dashboard ${alert.dashboardId ?? ''} is not exported: ${names}`;
  if (!isDashboardNames(names)) return `its dashboard ${alert.dashboardId ?? ''} is not exported`;
  const tile = names.tiles.get(alert.tileId ?? '');
  if (tile === undefined)
    return `it watches tile ${alert.tileId ?? '(none)'}, which is not on dashboard ${alert.dashboardId ?? ''}`;
  return { dashboard: names.key, tile };
}
