/** The Alert kind's shapes: the desired alert, the live one as read, and the write body. */
import type { Static } from 'typebox';
import type { DesiredBase } from '../../model/desired.js';
import type { Extra } from '../../model/resources.js';
import type { KeptMembers } from '../shared/ignore.js';
import type { alertSpecSchema } from './schema.js';
import type { ChangeKey } from '../../model/plan.js';
import type { alertChannelSchema, alertWriteBodySchema } from './wire.js';
import type { Variant } from '../../model/kinds.js';

/** The kind's name, as manifests, plans and the state file write it. */
import { ALERT } from './schema.js';

export { ALERT };

export type AlertChannel = Static<typeof alertChannelSchema>;
/** A channel as read: any channel type the service has (email, …), with every member it sent. */
/**
 * The one spelling of a saved-search alert's `source` in manifests, plans and export: the one the
 * manifests document (docs/manifests/alert.md) and today's services take. The seed's `search` is
 * read as the same source, and written only to a target that speaks the seed profile.
 */
export const SAVED_SEARCH_SOURCE = 'saved_search';

/** A source as manifests, plans and export spell it: `search` and `saved_search` are one; anything else as given. */
export function alertSourceWord(source: string): string;
export function alertSourceWord(source: string | undefined): string | undefined;
export function alertSourceWord(source: string | undefined): string | undefined {
  return source === 'search' ? SAVED_SEARCH_SOURCE : source;
}

export type LiveAlertChannel = Record<string, unknown> & { type: string; webhookId?: string };

/**
 * Body of an alert create or update (PUT replaces the whole configuration; request shape,
 * `dashboardId`). Built on the seed's write body; `source` is written in the target's spelling
 * by the adapter, and members of the live alert the model does not name ride along.
 */
export type AlertWrite = Omit<
  Static<typeof alertWriteBodySchema>,
  'thresholdType' | 'interval' | 'channel' | 'source'
> & {
  thresholdType: string;
  /** As the manifest writes it, or as live has it where an ignore rule keeps it. */
  interval: string;
  source: string;
  channel?: LiveAlertChannel;
  thresholdMax?: number;
} & Extra;

/**
 * An alert as read, tolerant of every shape the services send: `thresholdType` and `state` as
 * plain (lower-case) text, `source` normalised to `tile` / `saved_search` (the seed's `search`
 * too) or kept as sent, no channel when the service resolves none.
 */
export interface LiveAlert {
  id: string;
  name?: string;
  message?: string;
  threshold: number;
  thresholdType: string;
  thresholdMax?: number;
  interval: string;
  source?: string;
  channel?: LiveAlertChannel;
  groupBy?: string;
  dashboardId?: string;
  tileId?: string;
  savedSearchId?: string;
  state?: string;
  silenced?: boolean;
  /** When the service made it (ISO 8601), where the service says so: what tells whether a create of ours made it. */
  createdAt?: string;
  /** `channels`, `note`, `numConsecutiveWindows`, schedules, … */
  extra?: Extra;
}

/**
 * An Alert's spec as is: the API's configuration, with the dashboard and tile named by manifest
 * name and tile name (resolved to ids at apply time) instead of by id.
 */
export interface DesiredAlert extends DesiredBase, AlertSpec {
  kind: typeof ALERT;
}

/**
 * An alert manifest once the live values at its ignored paths are kept: a member there may hold
 * what the service has, of a type the manifest's schema refuses (a channel's `type` of any name,
 * a `thresholdType` as the service spells it), and it is read and written back as it is.
 */
export type KeptAlert = KeptMembers<DesiredAlert, LiveAlert>;

/**
 * Ids an alert operation needs from a dashboard changed in the same run. The executor takes them
 * from the dashboard operation's result; without such an operation the body already holds them.
 */
export interface AlertRefs {
  /** The Dashboard change (same target) whose result holds the ids. */
  dashboard: ChangeKey;
  /** Tile name in that dashboard. */
  tile: string;
}

/**
 * An Alert's spec: the API's configuration with `name` required (stacksync finds live alerts by
 * name) and the dashboard and tile named by manifest name and tile name instead of by id.
 */
export type AlertSpec = Static<typeof alertSpecSchema>;

/** A channel as a manifest writes it: its webhook by id or by name, or an email channel. */
export type ManifestChannel = NonNullable<AlertSpec['channel']>;

/** Members of newer servers a manifest may set beside the seed's (compared, and kept live when left out). */
export const CURRENT_ALERT_MEMBERS = [
  'note',
  'numConsecutiveWindows',
  'scheduleOffsetMinutes',
  'scheduleStartAt',
] as const;

/**
 * What a variant's API does not offer of an alert, by its document (docs/manifests/alert.md#channels):
 * the managed service's alert has one `channel` and no `channels` list; HyperDX's channel is a
 * webhook by id and nothing more (no email, no integration members).
 */
export const ALERT_MEMBERS_LACKED: Record<
  Variant,
  {
    alert: readonly 'channels'[];
    channel: readonly ('webhookService' | 'slackChannelId' | 'severity' | 'emailRecipients')[];
    channelTypes: readonly string[];
  }
> = {
  managed: { alert: ['channels'], channel: [], channelTypes: [] },
  'self-hosted': { alert: [], channel: ['webhookService', 'slackChannelId', 'severity'], channelTypes: ['email'] },
};
