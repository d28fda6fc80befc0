/**
 * Conformance of the current profile's alerts with the self-hosted server's (`alerts.int.test.ts`,
 * `utils/zod.ts` `alertSchema`, common-utils' channel and schedule rules) and the managed OpenAPI's
 * channels: `channels` (1–10) beside `channel`, `note`, `numConsecutiveWindows`, the schedule, the
 * default source, what an alert names must be the team's, and on managed email channels and the
 * members its integrations add, one channel and no list (what the managed document lacks).
 */
import { expect } from 'vitest';
import { bodyIssues, conformance, errorOf, FROM, type Case, type CaseContext } from './conformance.js';

const A = 'hyperdxio/hyperdx packages/api/src/routers/external-api/__tests__/alerts.int.test.ts';
const UNKNOWN = '0123456789abcdef01234567';
const LACKS = (what: string): string =>
  `the service's API does not offer ${what} (its newest API description lacks it); leave it out for a target with api profile current`;

/** Two webhooks and a saved search of the case's workspace, and a saved-search alert body on them. */
async function setUp(t: CaseContext) {
  const hook = async (name: string) =>
    (await t.client.request('POST', 'webhooks', { name, service: 'generic', url: `https://example.com/${name}` })).data
      .id as string;
  const [first, second] = [await hook('first'), await hook('second')];
  const search = (await t.client.request('POST', 'saved-searches', { name: 'errors', sourceId: t.ids.sources.log }))
    .data.id as string;
  const channel = (webhookId: string) => ({ type: 'webhook', webhookId });
  const base = { savedSearchId: search, interval: '5m', threshold: 1, thresholdType: 'above' };
  return { first, second, search, channel, base };
}

async function created(t: CaseContext, body: unknown): Promise<Record<string, any>> {
  const response = await t.client.request('POST', 'alerts', body);
  expect(response.status, JSON.stringify(response.raw.json)).toBe(200);
  return response.data;
}

/** An alert read back as a PUT body: as it is for self-hosted; without what only answers carry for the managed gateway. */
function asWrite(t: CaseContext, alert: Record<string, any>): Record<string, unknown> {
  if (t.variant === 'self-hosted') return alert;
  const {
    id: _id,
    teamId: _team,
    state: _state,
    createdAt: _created,
    updatedAt: _updated,
    silenced: _silenced,
    executionErrors: _errors,
    ...write
  } = alert;
  return write;
}

const cases: Case[] = [
  {
    from: `${FROM.zod} (alertSchema: source defaults to saved_search)`,
    name: 'an alert without a source is a saved-search alert',
    run: async (t) => {
      const { base, channel, first, search } = await setUp(t);
      expect(await created(t, { ...base, channel: channel(first) })).toMatchObject({
        source: 'saved_search',
        savedSearchId: search,
      });
    },
  },
  {
    from: A,
    name: 'should reject a non-existent saved search, or one belonging to another team; create with one of the team',
    run: async (t) => {
      const { base, channel, first } = await setUp(t);
      for (const savedSearchId of [UNKNOWN, t.otherIds.savedSearch]) {
        const response = await t.client.request('POST', 'alerts', { ...base, savedSearchId, channel: channel(first) });
        expect([response.status, errorOf(t, response)]).toEqual([400, 'Saved search not found']);
      }
    },
  },
  {
    from: A,
    name: 'should reject a non-existent webhook, or one belonging to another team (create and update)',
    run: async (t) => {
      const { base, channel, first } = await setUp(t);
      for (const webhookId of [UNKNOWN, t.otherIds.webhook]) {
        const response = await t.client.request('POST', 'alerts', { ...base, channel: channel(webhookId) });
        expect([response.status, errorOf(t, response)]).toEqual([400, 'Webhook not found']);
      }
      const alert = await created(t, { ...base, channel: channel(first) });
      expect(
        (await t.client.request('PUT', `alerts/${alert['id']}`, { ...base, channel: channel(t.otherIds.webhook) }))
          .status,
      ).toBe(400);
    },
  },
  {
    from: A,
    name: 'creates an alert with multiple channels and echoes both shapes',
    // The managed document's alert has one `channel` and no list: the managed case below.
    only: 'self-hosted',
    run: async (t) => {
      const { base, channel, first, second } = await setUp(t);
      const alert = await created(t, { ...base, channels: [channel(first), channel(second)] });
      expect([alert['channel'], alert['channels']]).toEqual([channel(first), [channel(first), channel(second)]]);
    },
  },
  {
    from: A,
    name: 'legacy single-channel payloads still work and gain channels in the response',
    // The managed document's alert has one `channel` and no list: the managed case below.
    only: 'self-hosted',
    run: async (t) => {
      const { base, channel, first } = await setUp(t);
      expect((await created(t, { ...base, channel: channel(first) }))['channels']).toEqual([channel(first)]);
    },
  },
  {
    from: A,
    name: 'round-trips a multi-channel alert through PUT unchanged (the body read back, both shapes in it)',
    // The managed document's alert has one `channel` and no list: the managed case below.
    only: 'self-hosted',
    run: async (t) => {
      const { base, channel, first, second } = await setUp(t);
      const alert = await created(t, { ...base, channels: [channel(first), channel(second)] });
      expect(
        (await t.client.request('PUT', `alerts/${alert['id']}`, { ...asWrite(t, alert), threshold: 42 })).status,
      ).toBe(200);
      const after = (await t.client.request('GET', `alerts/${alert['id']}`)).data;
      expect([after.channels.length, after.threshold]).toEqual([2, 42]);
    },
  },
  {
    from: A,
    name: 'collapses to one channel when a legacy client sends only `channel`',
    // The managed document's alert has one `channel` and no list: the managed case below.
    only: 'self-hosted',
    run: async (t) => {
      const { base, channel, first, second } = await setUp(t);
      const alert = await created(t, { ...base, channels: [channel(first), channel(second)] });
      await t.client.request('PUT', `alerts/${alert['id']}`, { ...base, channel: channel(first) });
      expect((await t.client.request('GET', `alerts/${alert['id']}`)).data.channels).toEqual([channel(first)]);
    },
  },
  {
    from: A,
    name: 'rejects invalid channel combinations: channel disagreeing with channels[0], neither, duplicates, over the cap of 10',
    // The managed document's alert has one `channel` and no list: the managed case below.
    only: 'self-hosted',
    run: async (t) => {
      const { base, channel, first, second } = await setUp(t);
      const many = Array.from({ length: 11 }, (_, index) =>
        channel(`0123456789abcdef012345${String(index).padStart(2, '0')}`),
      );
      for (const [body, detail] of [
        [
          { ...base, channel: channel(first), channels: [channel(second)] },
          'channels: When both "channel" and "channels" are provided, "channel" must match the first entry of "channels"',
        ],
        [base, 'channels: Provide either "channel" or "channels"'],
        [
          { ...base, channels: [channel(first), channel(first)] },
          'channels: Duplicate notification channels are not allowed',
        ],
        [{ ...base, channels: many }, 'channels: must not have more than 10 items'],
        [{ ...base, channels: [] }, 'channels: must not have fewer than 1 items'],
      ] as const) {
        const response = await t.client.request('POST', 'alerts', body);
        expect([response.status, errorOf(t, response)]).toEqual([400, bodyIssues(t, detail)]);
      }
    },
  },
  {
    from: `${A} (numConsecutiveWindows)`,
    name: 'creates with numConsecutiveWindows and returns it; null by default; below 1 refused; null clears it on update',
    run: async (t) => {
      const { base, channel, first } = await setUp(t);
      const alert = await created(t, { ...base, channel: channel(first), numConsecutiveWindows: 3 });
      expect(alert['numConsecutiveWindows']).toBe(3);
      expect((await created(t, { ...base, channel: channel(first) }))['numConsecutiveWindows']).toBeNull();
      expect(
        (await t.client.request('POST', 'alerts', { ...base, channel: channel(first), numConsecutiveWindows: 0 }))
          .status,
      ).toBe(400);
      const cleared = await t.client.request('PUT', `alerts/${alert['id']}`, {
        ...base,
        channel: channel(first),
        numConsecutiveWindows: null,
      });
      expect(cleared.data.numConsecutiveWindows).toBeNull();
    },
  },
  {
    from: `${FROM.commonTypes} (alertNoteSchema)`,
    name: 'a note of 1 to 4096 characters is kept; an empty or longer one is refused; PUT without it clears it',
    run: async (t) => {
      const { base, channel, first } = await setUp(t);
      const alert = await created(t, { ...base, channel: channel(first), note: 'see the runbook' });
      expect(alert['note']).toBe('see the runbook');
      for (const note of ['', 'x'.repeat(4097)])
        expect((await t.client.request('POST', 'alerts', { ...base, channel: channel(first), note })).status).toBe(400);
      expect(
        (await t.client.request('PUT', `alerts/${alert['id']}`, { ...base, channel: channel(first) })).data.note,
      ).toBeNull();
    },
  },
  {
    from: A,
    name: 'should reject scheduleOffsetMinutes when scheduleStartAt is provided, an offset as long as the interval, and a start more than 1 year ahead',
    run: async (t) => {
      const { base, channel, first } = await setUp(t);
      const withStart = {
        ...base,
        interval: '1h',
        channel: channel(first),
        scheduleStartAt: new Date(Date.now() + 60_000).toISOString(),
      };
      const both = await t.client.request('POST', 'alerts', { ...withStart, scheduleOffsetMinutes: 5 });
      expect([both.status, errorOf(t, both)]).toEqual([
        400,
        bodyIssues(t, 'scheduleOffsetMinutes: scheduleOffsetMinutes must be 0 when scheduleStartAt is provided'),
      ]);
      const long = await t.client.request('POST', 'alerts', {
        ...base,
        channel: channel(first),
        scheduleOffsetMinutes: 5,
      });
      expect([long.status, errorOf(t, long)]).toEqual([
        400,
        bodyIssues(t, 'scheduleOffsetMinutes: scheduleOffsetMinutes must be less than 5 minutes'),
      ]);
      const far = await t.client.request('POST', 'alerts', {
        ...withStart,
        scheduleStartAt: new Date(Date.now() + 2 * 365 * 24 * 3600_000).toISOString(),
      });
      expect([far.status, errorOf(t, far)]).toEqual([
        400,
        bodyIssues(t, 'scheduleStartAt: scheduleStartAt must be within 1 year from now'),
      ]);
      const ok = await created(t, { ...base, interval: '1h', channel: channel(first), scheduleOffsetMinutes: 15 });
      expect(ok['scheduleOffsetMinutes']).toBe(15);
      expect((await created(t, withStart))['scheduleStartAt']).toBe(withStart.scheduleStartAt);
    },
  },
  {
    from: `${FROM.openapi} (Alert: dashboardId, tileId, savedSearchId, thresholdMax, scheduleOffsetMinutes nullable)`,
    name: 'null is taken where the OpenAPI marks an alert member nullable, and means not set',
    run: async (t) => {
      const { base, channel, first } = await setUp(t);
      const alert = await created(t, {
        ...base,
        channel: channel(first),
        dashboardId: null,
        tileId: null,
        thresholdMax: null,
        scheduleOffsetMinutes: null,
        scheduleStartAt: null,
        name: null,
        message: null,
        note: null,
        groupBy: null,
      });
      expect(alert).not.toHaveProperty('dashboardId');
      expect(alert).not.toHaveProperty('thresholdMax');
    },
  },
  {
    from: `${FROM.managedOpenApi} (ClickStackAlertChannelEmail, ClickStackAlertChannelWebhook)`,
    name: 'managed alerts take email channels and the webhook members integrations add (webhookService, slackChannelId, severity)',
    only: 'managed',
    run: async (t) => {
      const { base, channel, first } = await setUp(t);
      const email = { type: 'email', emailRecipients: ['ops@example.com'] };
      const pager = { ...channel(first), webhookService: 'pagerduty_api', severity: 'critical' };
      for (const each of [email, pager])
        expect([(await created(t, { ...base, channel: each }))['channel']]).toEqual([each]);
      const badSeverity = await t.client.request('POST', 'alerts', {
        ...base,
        channel: { ...pager, severity: 'apocalyptic' },
      });
      expect([badSeverity.status, errorOf(t, badSeverity)]).toEqual([
        400,
        'channel.severity: must be one of critical, error, warning, info',
      ]);
      const noRecipients = await t.client.request('POST', 'alerts', {
        ...base,
        channel: { type: 'email', emailRecipients: [] },
      });
      expect(noRecipients.status).toBe(400);
    },
  },
  {
    from: `${FROM.commonTypes} (zAlertChannelType = literal('webhook'))`,
    name: 'the self-hosted server takes webhook channels only',
    only: 'self-hosted',
    run: async (t) => {
      const { base } = await setUp(t);
      const response = await t.client.request('POST', 'alerts', {
        ...base,
        channel: { type: 'email', emailRecipients: ['ops@example.com'] },
      });
      expect([response.status, errorOf(t, response)]).toEqual([
        400,
        `Body validation failed: channel.type: ${LACKS('"email"')}`,
      ]);
    },
  },
  {
    from: `${FROM.managedOpenApi} (ClickStackCreateAlertRequest, ClickStackAlertResponse: channel, no channels)`,
    name: 'a managed alert has one channel: a list of channels is refused, and none is answered',
    only: 'managed',
    run: async (t) => {
      const { base, channel, first, second } = await setUp(t);
      const list = await t.client.request('POST', 'alerts', { ...base, channels: [channel(first), channel(second)] });
      expect([list.status, errorOf(t, list)]).toEqual([400, `channels: ${LACKS('channels')}`]);
      const alert = await created(t, { ...base, channel: channel(first) });
      expect(alert).not.toHaveProperty('channels');
      const again = await t.client.request('PUT', `alerts/${alert['id']}`, { ...asWrite(t, alert), threshold: 42 });
      expect([again.status, again.data.channel]).toEqual([200, channel(first)]);
    },
  },
];

conformance('alerts', cases);
