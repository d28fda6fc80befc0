/**
 * An alert's manifest: its spec, built from the API schema parts so the two cannot disagree (docs/manifests/alert.md).
 */
import { Type } from 'typebox';
import { described, object, oneOf, optional } from '../../schema/build.js';
import { alertConfigMembers, CURRENT_MAX_ALERT_CHANNELS, CURRENT_CHANNEL_SEVERITIES } from './wire.js';
import { ignoreDifferencesSchema, nameSchema } from '../../schema/manifest-parts.js';
import { documentSchema } from '../../schema/manifest.js';

/** Threshold types a manifest may name: the seed's two and the six newer servers add (docs/reference/api-behaviour.md). */
export const MANIFEST_THRESHOLD_TYPES = [
  'above',
  'below',
  'above_exclusive',
  'below_or_equal',
  'equal',
  'not_equal',
  'between',
  'not_between',
] as const;
/** Alert sources a manifest may name: `saved_search`, the one manifests, plans and export write; `search` (the seed's word) is read as it. */
export const MANIFEST_ALERT_SOURCES = ['tile', 'search', 'saved_search'] as const;

/** The Alert kind's name. */
export const ALERT = 'Alert';

/**
 * A channel: a webhook, by id or by name (a Webhook manifest's metadata.name or a live webhook's
 * name), with the members the managed service's integrations add; or, on the managed service, an
 * email channel.
 */
const manifestChannelSchema = object(
  {
    type: oneOf(['webhook', 'email'] as const, {
      description: 'webhook (every server) or email (the managed service).',
    }),
    ...optional({
      webhookId: Type.String({ minLength: 1, description: 'Id of the webhook.' }),
      webhook: Type.String({
        minLength: 1,
        description:
          'Name of a webhook: the metadata.name of a Webhook manifest of the target, or the API name of a live one; resolved to its id at apply time.',
      }),
      webhookService: Type.Union([Type.String(), Type.Null()], {
        description: 'The integration behind the webhook (managed service).',
      }),
      slackChannelId: Type.Union([Type.String(), Type.Null()], {
        description: 'The Slack channel of a Slack API webhook (managed service).',
      }),
      severity: Type.Union([oneOf(CURRENT_CHANNEL_SEVERITIES), Type.Null()], {
        description: 'PagerDuty severity (managed service).',
      }),
      emailRecipients: Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'For type email: who gets it (managed service).',
      }),
    }),
  },
  {
    description:
      'Where notifications go: {type: webhook, webhook: <name>} or {type: ' +
      'webhook, webhookId: …}, or {type: email, emailRecipients: […]} (managed service).',
    if: { properties: { type: { const: 'email' } } },
    then: { required: ['emailRecipients'], properties: { webhookId: false, webhook: false } },
    else: { oneOf: [{ required: ['webhookId'] }, { required: ['webhook'] }], properties: { emailRecipients: false } },
  },
);

const searchSources = MANIFEST_ALERT_SOURCES.filter((source) => source !== 'tile');
const { channel: _seedChannel, ...alertMembers } = alertConfigMembers;

export const alertSpecSchema = object(
  {
    ...alertMembers,
    name: Type.String({ minLength: 1, description: 'Alert name in the API; what live alerts are matched by.' }),
    message: described(alertConfigMembers.message, 'Text sent with the notification.'),
    threshold: described(alertConfigMembers.threshold, 'Value the watched series is compared with.'),
    thresholdType: oneOf(MANIFEST_THRESHOLD_TYPES, {
      description:
        'When to fire: above, below (every server); above_exclusive, below_or_equal, equal, not_equal, between, not_between (newer servers).',
    }),
    interval: described(alertConfigMembers.interval, 'How often the alert is evaluated.'),
    source: oneOf(MANIFEST_ALERT_SOURCES, {
      description:
        'tile: watch a dashboard tile (needs dashboard and tile); saved_search: watch a saved search (needs savedSearch ' +
        "or savedSearchId). The seed's word search is read as saved_search; each target is sent the word its servers take.",
    }),
    groupBy: described(alertConfigMembers.groupBy, 'Field to group the evaluation by.'),
    ...optional({
      channel: described(
        manifestChannelSchema,
        'The channel notifications go to. Left out (and channels too): the live channels are kept.',
      ),
      channels: Type.Array(manifestChannelSchema, {
        minItems: 1,
        maxItems: CURRENT_MAX_ALERT_CHANNELS,
        description: 'Several channels (1 to 10, newer servers): the first is also `channel`. Instead of channel.',
      }),
      thresholdMax: Type.Number({
        description:
          'Upper end of the range, for thresholdType between and not_between. Left out, the live value is kept (a new range alert needs it).',
      }),
      dashboard: described(nameSchema, 'For source tile: metadata.name of a Dashboard manifest of the same target.'),
      tile: Type.String({ minLength: 1, description: 'For source tile: name of a tile in that dashboard.' }),
      savedSearchId: Type.String({ minLength: 1, description: 'For source saved_search: id of the saved search.' }),
      savedSearch: Type.String({
        minLength: 1,
        description:
          "For source saved_search: name of the saved search (a SavedSearch manifest's metadata.name, or a live one's name), resolved to its id at apply time.",
      }),
      note: Type.String({
        minLength: 1,
        maxLength: 4096,
        description: 'A note for whoever is notified, e.g. a runbook link (newer servers).',
      }),
      numConsecutiveWindows: Type.Integer({
        minimum: 1,
        description: 'How many windows in a row must breach before it fires (newer servers).',
      }),
      scheduleOffsetMinutes: Type.Integer({
        minimum: 0,
        maximum: 1439,
        description: 'Minutes the evaluation windows are shifted by, below the interval (newer servers).',
      }),
      scheduleStartAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'When the evaluation windows start (newer servers); with it, scheduleOffsetMinutes must be 0.',
      }),
      ignoreDifferences: ignoreDifferencesSchema,
    }),
  },
  {
    allOf: [
      {
        if: { properties: { source: { const: 'tile' } }, required: ['source'] },
        then: { required: ['dashboard', 'tile'], properties: { savedSearchId: false, savedSearch: false } },
      },
      {
        if: { properties: { source: { enum: searchSources } }, required: ['source'] },
        then: {
          oneOf: [{ required: ['savedSearchId'] }, { required: ['savedSearch'] }],
          properties: { dashboard: false, tile: false },
        },
      },
      { not: { required: ['channel', 'channels'] } },
    ],
  },
);

/** What the kind is, as its published schema says. */
export const ALERT_DESCRIPTION = 'An alert on a dashboard tile or a saved search.';

/** The whole manifest document: the envelope with this spec. */
export const alertDocumentSchema = documentSchema(ALERT, alertSpecSchema, ALERT_DESCRIPTION);
