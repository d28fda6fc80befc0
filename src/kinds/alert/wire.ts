/**
 * An alert's wire shapes: the seed's (seed 2.6) and the `current` profile's, as the real services
 * speak them today (docs/reference/api-behaviour.md, "The real services today"): alerts with
 * `saved_search`, eight threshold types, webhook channels, and the managed service's channels.
 */
import { type Static, Type } from 'typebox';
import { nullable } from '../../schema/api-current.js';
import { boolean, nonEmptyString, string, timestamp } from '../../schema/api.js';
import { object, oneOf, optional } from '../../schema/build.js';

// ---------------------------------------------------------------- enumerations and limits

export const CURRENT_ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const;
/** Minutes of each interval; a schedule offset must stay below it. */
export const CURRENT_ALERT_INTERVAL_MINUTES: Record<(typeof CURRENT_ALERT_INTERVALS)[number], number> = {
  '1m': 1,
  '5m': 5,
  '15m': 15,
  '30m': 30,
  '1h': 60,
  '6h': 360,
  '12h': 720,
  '1d': 1440,
};
export const CURRENT_THRESHOLD_TYPES = [
  'above',
  'below',
  'above_exclusive',
  'below_or_equal',
  'equal',
  'not_equal',
  'between',
  'not_between',
] as const;
/** Threshold types that compare against a range and so need `thresholdMax`. */
export const CURRENT_RANGE_THRESHOLD_TYPES = ['between', 'not_between'] as const;
export const CURRENT_ALERT_SOURCES = ['saved_search', 'tile'] as const;
export const CURRENT_ALERT_STATES = ['OK', 'ALERT', 'INSUFFICIENT_DATA', 'DISABLED', 'PENDING'] as const;
/** The state of a new alert. */
export const CURRENT_ALERT_INITIAL_STATE = 'OK';
export const CURRENT_MAX_ALERT_CHANNELS = 10;

export const ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const;
export const ALERT_THRESHOLD_TYPES = ['above', 'below'] as const;
export const ALERT_SOURCES = ['tile', 'search'] as const;
export const ALERT_CHANNEL_TYPES = ['webhook'] as const;
/** Self-hosted alert list paging. */
export const ALERT_PAGE_LIMIT_MAX = 1000;

// ---------------------------------------------------------------- the seed profile

export const alertChannelSchema = object(
  { type: oneOf(ALERT_CHANNEL_TYPES), webhookId: Type.Optional(nonEmptyString) },
  {
    if: { properties: { type: { const: 'webhook' } } },
    then: { required: ['webhookId'] },
  },
);

/** An alert's configuration, shared by the write body, the resource and the manifest's spec. */
export const alertConfigMembers = {
  name: Type.Optional(string),
  message: Type.Optional(string),
  threshold: Type.Number(),
  interval: oneOf(ALERT_INTERVALS),
  thresholdType: oneOf(ALERT_THRESHOLD_TYPES),
  source: oneOf(ALERT_SOURCES),
  channel: alertChannelSchema,
  groupBy: Type.Optional(string),
};

/** Body of create alert and of PUT (which replaces the whole configuration). */
export const alertWriteBodySchema = object(
  {
    ...alertConfigMembers,
    ...optional({ dashboardId: nonEmptyString, tileId: nonEmptyString, savedSearchId: nonEmptyString }),
  },
  {
    allOf: [
      {
        if: { properties: { source: { const: 'tile' } }, required: ['source'] },
        then: { required: ['dashboardId', 'tileId'] },
      },
      {
        if: { properties: { source: { const: 'search' } }, required: ['source'] },
        then: { required: ['savedSearchId'] },
      },
    ],
  },
);

/** The alert as the emulator returns it (seed 2.6). The client's reader is more tolerant (docs/reference/api-behaviour.md). */
export const alertSchema = object({
  id: nonEmptyString,
  ...alertConfigMembers,
  channel: Type.Optional(alertChannelSchema),
  ...optional({
    state: string,
    team: string,
    tileId: string,
    dashboard: string,
    savedSearch: string,
    silenced: boolean,
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
});

// ---------------------------------------------------------------- the current profile

/** The one channel type a request may name; stored alerts may hold others (email, …) and are returned as they are. */
export const CurrentWebhookChannel = Type.Object({
  type: Type.Literal('webhook'),
  webhookId: Type.String({ minLength: 1 }),
});
/** A channel as returned: `type` is open text, so a reader survives channel types it does not know. */
export const CurrentAlertChannel = Type.Object(
  { type: Type.String(), webhookId: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

const nullableText = (maxLength: number) => Type.Optional(nullable(Type.String({ minLength: 1, maxLength })));

/**
 * Body of create alert and of PUT (which replaces the configuration). Cross-member rules are
 * checked beside the schema: `savedSearchId` for `saved_search` (the default source), `dashboardId`
 * and `tileId` for `tile`, `thresholdMax` for the range types, `channel` or `channels`.
 */
export const CurrentAlertWrite = Type.Object({
  channel: Type.Optional(CurrentWebhookChannel),
  channels: Type.Optional(Type.Array(CurrentWebhookChannel, { minItems: 1, maxItems: CURRENT_MAX_ALERT_CHANNELS })),
  interval: Type.Enum(CURRENT_ALERT_INTERVALS),
  scheduleOffsetMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1439 })),
  scheduleStartAt: Type.Optional(nullable(Type.String({ format: 'date-time' }))),
  threshold: Type.Number(),
  thresholdType: Type.Enum(CURRENT_THRESHOLD_TYPES),
  thresholdMax: Type.Optional(Type.Number()),
  source: Type.Optional(Type.Enum(CURRENT_ALERT_SOURCES)),
  name: nullableText(512),
  message: nullableText(4096),
  note: nullableText(4096),
  numConsecutiveWindows: Type.Optional(nullable(Type.Integer({ minimum: 1 }))),
  groupBy: Type.Optional(nullable(Type.String())),
  savedSearchId: Type.Optional(Type.String({ minLength: 1 })),
  dashboardId: Type.Optional(Type.String({ minLength: 1 })),
  tileId: Type.Optional(Type.String({ minLength: 1 })),
});

export const CurrentAlertSilenced = Type.Object({
  by: Type.Optional(Type.String()),
  at: Type.String(),
  until: Type.String(),
});

/**
 * An alert as the service returns it: `dashboardId` and `teamId` (not `dashboard`, `team`),
 * `state` one of the five, `channel` and `channels` only when a channel resolves, `silenced` an
 * object or absent, and the nullable members present as null.
 */
export const CurrentAlert = Type.Object({
  id: Type.String(),
  name: Type.Optional(nullable(Type.String())),
  message: Type.Optional(nullable(Type.String())),
  note: Type.Optional(nullable(Type.String())),
  threshold: Type.Number(),
  thresholdMax: Type.Optional(Type.Number()),
  interval: Type.String(),
  scheduleOffsetMinutes: Type.Optional(Type.Number()),
  scheduleStartAt: Type.Optional(nullable(Type.String())),
  numConsecutiveWindows: Type.Optional(nullable(Type.Number())),
  thresholdType: Type.String(),
  source: Type.Optional(Type.String()),
  state: Type.String(),
  channel: Type.Optional(CurrentAlertChannel),
  channels: Type.Optional(Type.Array(CurrentAlertChannel)),
  teamId: Type.String(),
  tileId: Type.Optional(Type.String()),
  dashboardId: Type.Optional(Type.String()),
  savedSearchId: Type.Optional(Type.String()),
  groupBy: Type.Optional(Type.String()),
  silenced: Type.Optional(CurrentAlertSilenced),
  executionErrors: Type.Optional(
    Type.Array(Type.Object({ timestamp: Type.String(), type: Type.String(), message: Type.String() })),
  ),
  createdAt: Type.Optional(Type.String()),
  updatedAt: Type.Optional(Type.String()),
});

export type CurrentWebhookChannel = Static<typeof CurrentWebhookChannel>;
export type CurrentAlertChannel = Static<typeof CurrentAlertChannel>;
export type CurrentAlertWrite = Static<typeof CurrentAlertWrite>;
export type CurrentAlert = Static<typeof CurrentAlert>;
export type CurrentAlertSilenced = Static<typeof CurrentAlertSilenced>;
/** Severities of the managed service's PagerDuty webhook channels. */
export const CURRENT_CHANNEL_SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
/** Alert members the OpenAPI marks nullable that the write schema does not take null for; null there means not set. */
export const CURRENT_ALERT_NULLABLE_MEMBERS = [
  'dashboardId',
  'tileId',
  'savedSearchId',
  'thresholdMax',
  'scheduleOffsetMinutes',
] as const;

// ---------------------------------------------------------------- managed alert channels

/** The managed service's email channel. */
export const CurrentEmailChannel = Type.Object({
  type: Type.Literal('email'),
  emailRecipients: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
});
/** The managed service's webhook channel: a webhook, with what its integrations add (Slack API channel, PagerDuty severity). */
export const CurrentManagedWebhookChannel = Type.Object({
  type: Type.Literal('webhook'),
  webhookId: Type.String({ minLength: 1 }),
  webhookService: Type.Optional(nullable(Type.String())),
  slackChannelId: Type.Optional(nullable(Type.String())),
  severity: Type.Optional(nullable(Type.Enum(CURRENT_CHANNEL_SEVERITIES))),
});
/** Managed channels by `type`. */
export const CURRENT_MANAGED_CHANNELS = { email: CurrentEmailChannel, webhook: CurrentManagedWebhookChannel } as const;

export type CurrentManagedChannel = Static<typeof CurrentEmailChannel> | Static<typeof CurrentManagedWebhookChannel>;
