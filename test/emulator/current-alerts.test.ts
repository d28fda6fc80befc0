/**
 * Contract of the current profile's alerts, on both variants: `saved_search | tile`, eight
 * threshold types, webhook channels that must exist, the real response shape, unknown members
 * dropped, 404 `Alert not found`, and seeded alerts returned as they were seeded. What a
 * variant's document lacks it refuses: a managed alert's list of channels, a self-hosted email channel.
 */
import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeed, type RunningEmulator, type Seed, type SeedStack } from '../../src/emulator/index.js';
import { CurrentAlert } from '../../src/kinds/alert/wire.js';
import { basic, bearer, IDS, start } from './helpers.js';
import { CURRENT, PLACEMENT, stackClient, type StackClient, type StackIds } from './current-helpers.js';

const UNKNOWN = '0123456789abcdef01234567';
const alertShape = Compile(CurrentAlert);

/** Fixed ids of what this suite seeds into each workspace (service, team). */
const SEEDED = {
  service: {
    dashboard: '66f00000000000000000e001',
    alerts: [
      '66f00000000000000000f001',
      '66f00000000000000000f002',
      '66f00000000000000000f003',
      '66f00000000000000000f004',
    ],
  },
  team: {
    dashboard: '66f00000000000000000e002',
    alerts: [
      '66f00000000000000000f011',
      '66f00000000000000000f012',
      '66f00000000000000000f013',
      '66f00000000000000000f014',
    ],
  },
} as const;
const SILENCED = { by: 'someone', at: '2026-03-01T10:00:00.000Z', until: '2026-03-02T10:00:00.000Z' };
const EMAIL = { type: 'email', emails: ['ops@example.com'] };
const LACKS = (what: string): string =>
  `the service's API does not offer ${what} (its newest API description lacks it); leave it out for a target with api profile current`;

/** A dashboard with an alertable tile and a raw SQL table tile, and four alerts the API could not create. */
function seededStack(ids: StackIds, own: (typeof SEEDED)['service' | 'team']): SeedStack {
  const base = {
    threshold: 5,
    interval: '5m',
    thresholdType: 'above',
    source: 'saved_search',
    savedSearchId: ids.savedSearch,
  };
  return {
    dashboards: [
      {
        id: own.dashboard,
        name: 'seeded',
        tiles: [
          {
            id: 'alertable',
            name: 'errors',
            ...PLACEMENT,
            config: { displayType: 'line', sourceId: ids.sources.log, select: [{ aggFn: 'count' }] },
          },
          {
            id: 'sql-table',
            name: 'raw',
            ...PLACEMENT,
            config: { configType: 'sql', displayType: 'table', connectionId: ids.connection, sqlTemplate: 'SELECT 1' },
          },
        ],
      },
    ],
    alerts: [
      {
        ...base,
        id: own.alerts[0],
        name: 'by email',
        channel: EMAIL,
        note: 'see the runbook',
        numConsecutiveWindows: 3,
        state: 'ALERT',
        silenced: SILENCED,
      },
      {
        ...base,
        id: own.alerts[1],
        name: 'two channels',
        channels: [{ type: 'webhook', webhookId: ids.webhook }, EMAIL],
      },
      { ...base, id: own.alerts[2], name: 'no channel' },
      { ...base, id: own.alerts[3], name: 'unresolvable channel', channel: { type: null } },
    ],
  };
}

function seed(): Seed {
  const seed = defaultSeed('current');
  Object.assign(seed.organizations![0]!.services![0]!, seededStack(CURRENT.service, SEEDED.service));
  Object.assign(seed.teams![0]!, seededStack(CURRENT.team, SEEDED.team));
  return seed;
}

let emulator: RunningEmulator;
beforeAll(async () => {
  ({ emulator } = await start({ profile: 'current', seed: seed() }));
});
afterAll(() => emulator.close());

describe.each(['self-hosted', 'managed'] as const)('%s alerts (current profile)', (variant) => {
  let client: StackClient;
  let ids: StackIds;
  let own: (typeof SEEDED)['service' | 'team'];
  let teamId: string;
  beforeAll(() => {
    client = stackClient(emulator, variant);
    ids = client.ids;
    own = variant === 'managed' ? SEEDED.service : SEEDED.team;
    teamId = variant === 'managed' ? IDS.serviceId : IDS.teamId;
  });

  const rejection = (detail: string, schema: boolean): string =>
    client.variant === 'self-hosted'
      ? schema
        ? `Body validation failed: ${detail}`
        : detail
      : `BAD_REQUEST: ${detail}`;
  const webhook = () => ({ type: 'webhook', webhookId: ids.webhook });
  const tileAlert = (extra: Record<string, unknown> = {}) => ({
    name: 'slow',
    message: 'p99 is slow',
    threshold: 10,
    interval: '5m',
    thresholdType: 'above',
    source: 'tile',
    dashboardId: own.dashboard,
    tileId: 'alertable',
    channel: webhook(),
    ...extra,
  });
  const searchAlert = (extra: Record<string, unknown> = {}) => ({
    threshold: 1,
    interval: '1m',
    thresholdType: 'below',
    savedSearchId: ids.savedSearch,
    channel: webhook(),
    ...extra,
  });
  const create = (body: unknown) => client.request('POST', 'alerts', body);

  it.each(['above', 'below', 'above_exclusive', 'below_or_equal', 'equal', 'not_equal', 'between', 'not_between'])(
    'accepts thresholdType %s',
    async (thresholdType) => {
      const range = thresholdType.endsWith('between') ? { thresholdMax: 20 } : {};
      const response = await create(tileAlert({ thresholdType, ...range }));
      expect(response.status).toBe(200);
      expect(response.data).toMatchObject({ thresholdType, ...range });
    },
  );

  const invalid: {
    name: string;
    body: () => unknown;
    detail: string;
    schema?: boolean;
    only?: 'managed' | 'self-hosted';
  }[] = [
    {
      name: 'an unknown threshold type',
      body: () => tileAlert({ thresholdType: 'sideways' }),
      detail:
        'thresholdType: must be one of above, below, above_exclusive, below_or_equal, equal, not_equal, between, not_between',
      schema: true,
    },
    {
      name: 'a range without thresholdMax',
      body: () => tileAlert({ thresholdType: 'between' }),
      detail: 'thresholdMax: thresholdMax is required for between/not_between threshold types',
      schema: true,
    },
    {
      name: 'a range upside down',
      body: () => tileAlert({ thresholdType: 'not_between', thresholdMax: 1 }),
      detail: 'thresholdMax: thresholdMax must be greater than or equal to threshold',
      schema: true,
    },
    {
      name: "the seed's source spelling",
      body: () => tileAlert({ source: 'search' }),
      detail: 'source: must be one of saved_search, tile',
      schema: true,
    },
    {
      name: 'an unknown interval',
      body: () => tileAlert({ interval: '2m' }),
      detail: 'interval: must be one of 1m, 5m, 15m, 30m, 1h, 6h, 12h, 1d',
      schema: true,
    },
    {
      name: 'a tile alert without its tile',
      body: () => tileAlert({ tileId: undefined }),
      detail: 'tileId: is required',
      schema: true,
    },
    {
      name: 'a saved-search alert (the default source) without its search',
      body: () => searchAlert({ savedSearchId: undefined }),
      detail: 'savedSearchId: is required',
      schema: true,
    },
    {
      name: 'no channel',
      body: () => tileAlert({ channel: undefined }),
      detail: 'channels: Provide either "channel" or "channels"',
      schema: true,
    },
    {
      name: 'channel and channels that disagree',
      body: () => tileAlert({ channels: [{ type: 'webhook', webhookId: UNKNOWN }] }),
      detail:
        'channels: When both "channel" and "channels" are provided, "channel" must match the first entry of "channels"',
      schema: true,
      only: 'self-hosted',
    },
    {
      name: 'a channel twice',
      body: () => tileAlert({ channel: undefined, channels: [webhook(), webhook()] }),
      detail: 'channels: Duplicate notification channels are not allowed',
      schema: true,
      only: 'self-hosted',
    },
    // The managed document's alert has one `channel` and no list (its `ClickStackCreateAlertRequest`).
    {
      name: 'a list of channels',
      body: () => tileAlert({ channels: [webhook()] }),
      detail: `channels: ${LACKS('channels')}`,
      schema: true,
      only: 'managed',
    },
    // The self-hosted document knows webhook channels only (its `AlertChannelType`).
    {
      name: 'an email channel',
      body: () => tileAlert({ channel: EMAIL }),
      detail: `channel.type: ${LACKS('"email"')}`,
      schema: true,
      only: 'self-hosted',
    },
    {
      name: 'an email channel in a list',
      body: () => tileAlert({ channel: undefined, channels: [webhook(), EMAIL] }),
      detail: `channels.1.type: ${LACKS('"email"')}`,
      schema: true,
      only: 'self-hosted',
    },
    // The managed OpenAPI's `ClickStackAlertChannelEmail` names its recipients `emailRecipients`.
    {
      name: 'an email channel without emailRecipients',
      body: () => tileAlert({ channel: EMAIL }),
      detail: 'channel.emailRecipients: is required',
      schema: true,
      only: 'managed',
    },
    {
      name: 'a channel of a type the managed OpenAPI does not list',
      body: () => tileAlert({ channel: { type: 'pigeon' } }),
      detail: 'channel.type: must be one of email, webhook',
      schema: true,
      only: 'managed',
    },
    {
      name: 'an offset as long as the interval',
      body: () => tileAlert({ scheduleOffsetMinutes: 5 }),
      detail: 'scheduleOffsetMinutes: scheduleOffsetMinutes must be less than 5 minutes',
      schema: true,
    },
    {
      name: 'an offset beside a start time',
      body: () => tileAlert({ interval: '1h', scheduleOffsetMinutes: 5, scheduleStartAt: '2026-01-01T00:00:00.000Z' }),
      detail: 'scheduleOffsetMinutes: scheduleOffsetMinutes must be 0 when scheduleStartAt is provided',
      schema: true,
    },
    {
      name: 'a dashboard id that is not one',
      body: () => tileAlert({ dashboardId: 'nope' }),
      detail: 'Invalid dashboard ID',
    },
    { name: 'an unknown dashboard', body: () => tileAlert({ dashboardId: UNKNOWN }), detail: 'Dashboard not found' },
    { name: 'an unknown tile', body: () => tileAlert({ tileId: 'nope' }), detail: 'Tile not found' },
    {
      name: 'a raw SQL table tile',
      body: () => tileAlert({ tileId: 'sql-table' }),
      detail: 'Alerts on Raw SQL tiles are only supported for Line, Stacked Bar, or Number display types',
    },
    {
      name: 'a saved search id that is not one',
      body: () => searchAlert({ savedSearchId: 'nope' }),
      detail: 'Invalid saved search ID',
    },
    {
      name: 'an unknown saved search',
      body: () => searchAlert({ savedSearchId: UNKNOWN }),
      detail: 'Saved search not found',
    },
    {
      name: 'a webhook id that is not one',
      body: () => tileAlert({ channel: { type: 'webhook', webhookId: 'nope' } }),
      detail: 'Invalid webhook ID',
    },
    {
      name: 'an unknown webhook',
      body: () => tileAlert({ channel: { type: 'webhook', webhookId: UNKNOWN } }),
      detail: 'Webhook not found',
    },
  ];

  it.each(invalid)('rejects $name with a 400 naming it', async ({ body, detail, schema = false, only }) => {
    if (only && only !== client.variant) return;
    const before = (await client.request('GET', 'alerts')).data.length;
    const response = await create(body());
    expect(response.status).toBe(400);
    expect(response.error).toBe(rejection(detail, schema));
    expect((await client.request('GET', 'alerts')).data).toHaveLength(before);
  });

  it('answers in the real shape: dashboardId, teamId, state OK, nullable members as null, no silenced', async () => {
    const response = await create(tileAlert());
    expect(response.status).toBe(200);
    const alert = response.data;
    expect(alert).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'slow',
      message: 'p99 is slow',
      note: null,
      threshold: 10,
      interval: '5m',
      numConsecutiveWindows: null,
      thresholdType: 'above',
      source: 'tile',
      state: 'OK',
      channel: webhook(),
      // The managed document's alert has one channel and no list.
      ...(client.variant === 'self-hosted' && { channels: [webhook()] }),
      teamId,
      tileId: 'alertable',
      dashboardId: own.dashboard,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: alert.createdAt,
    });
    const channels = client.variant === 'self-hosted' ? ['channel', 'channels'] : ['channel'];
    expect(Object.keys(alert)).toEqual([
      'id',
      'name',
      'message',
      'note',
      'threshold',
      'interval',
      'numConsecutiveWindows',
      'thresholdType',
      'source',
      'state',
      ...channels,
      'teamId',
      'tileId',
      'dashboardId',
      'createdAt',
      'updatedAt',
    ]);
    expect(alertShape.Check(alert)).toBe(true);
  });

  it('takes saved_search as the default source, with its group-by', async () => {
    const response = await create(searchAlert({ groupBy: 'ServiceName' }));
    expect(response.status).toBe(200);
    expect(response.data).toMatchObject({
      source: 'saved_search',
      savedSearchId: ids.savedSearch,
      groupBy: 'ServiceName',
      name: null,
      message: null,
    });
    expect(response.data).not.toHaveProperty('dashboardId');
  });

  it('self-hosted drops unknown members, including the seed spellings (the managed gateway refuses them); both accept null where the service does', async () => {
    const unknown = { dashboard: 'x', team: 'y', silenced: false, extra: 1 };
    if (client.variant === 'managed') {
      const refused = await create(tileAlert(unknown));
      expect([refused.status, refused.error]).toEqual([
        400,
        `BAD_REQUEST: ${Object.keys(unknown)
          .map((member) => `request body property can't be validated: ${member}`)
          .join('; ')}`,
      ]);
    }
    const nulls = { name: null, message: null, note: null, numConsecutiveWindows: null, groupBy: null };
    const response = await create(tileAlert({ ...nulls, ...(client.variant === 'self-hosted' && unknown) }));
    expect(response.status).toBe(200);
    for (const member of ['dashboard', 'team', 'silenced', 'extra', 'groupBy'])
      expect(response.data).not.toHaveProperty(member);
    expect([
      response.data.name,
      response.data.message,
      response.data.note,
      response.data.numConsecutiveWindows,
    ]).toEqual([null, null, null, null]);
  });

  it('PUT replaces the configuration, keeps state and creation time, and takes back what GET gave', async () => {
    const created = (await create(tileAlert({ thresholdType: 'between', thresholdMax: 50 }))).data;
    const put = await client.request(
      'PUT',
      `alerts/${created.id}`,
      tileAlert({ name: undefined, message: undefined, threshold: 3 }),
    );
    expect(put.status).toBe(200);
    expect(put.data).toMatchObject({
      id: created.id,
      name: null,
      message: null,
      threshold: 3,
      thresholdType: 'above',
      state: 'OK',
      createdAt: created.createdAt,
    });
    // Like the real update, a member the body leaves out and that is not cleared stays.
    expect(put.data.thresholdMax).toBe(50);
    // The managed gateway refuses what only a response carries (terraform-provider-clickhouse `dashboard_tile_ids.go`).
    const { id: _id, teamId: _team, state: _state, createdAt: _created, updatedAt: _updated, ...writable } = put.data;
    const again = await client.request(
      'PUT',
      `alerts/${created.id}`,
      client.variant === 'managed' ? writable : put.data,
    );
    expect(again.status).toBe(200);
    expect({ ...again.data, updatedAt: put.data.updatedAt }).toEqual(put.data);
  });

  it('answers an unknown alert with 404 "Alert not found", after checking the body', async () => {
    const want = client.variant === 'managed' ? 'NOT_FOUND: Alert not found' : 'Alert not found';
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', tileAlert()],
      ['DELETE', undefined],
    ] as const) {
      const response = await client.request(method, `alerts/${UNKNOWN}`, body);
      expect([method, response.status, response.error]).toEqual([method, 404, want]);
      if (client.variant === 'self-hosted') expect(response.raw.json).toEqual({ message: 'Alert not found' });
    }
    expect((await client.request('PUT', `alerts/${UNKNOWN}`, { threshold: 'high' })).status).toBe(400);
  });

  it('returns seeded alerts as seeded: other channel types, several channels, notes, states, silencing, or no channel', async () => {
    const [byEmail, twoChannels, noChannel, unresolvable] = await Promise.all(
      own.alerts.map(async (id) => (await client.request('GET', `alerts/${id}`)).data),
    );
    expect(byEmail).toMatchObject({
      channel: EMAIL,
      note: 'see the runbook',
      numConsecutiveWindows: 3,
      state: 'ALERT',
      silenced: SILENCED,
      teamId,
    });
    expect(twoChannels).toMatchObject({ channel: webhook(), state: 'OK', note: null });
    // A managed service answers its one channel: its document's alert has no list.
    if (client.variant === 'managed')
      for (const alert of [byEmail, twoChannels]) expect(alert).not.toHaveProperty('channels');
    else expect([byEmail.channels, twoChannels.channels]).toEqual([[EMAIL], [webhook(), EMAIL]]);
    for (const alert of [noChannel, unresolvable]) {
      expect(alert).not.toHaveProperty('channel');
      expect(alert).not.toHaveProperty('channels');
    }
    for (const alert of [byEmail, twoChannels, noChannel, unresolvable]) expect(alertShape.Check(alert)).toBe(true);
  });

  it('lists every alert in the response shape', async () => {
    const list = await client.request('GET', 'alerts');
    expect(list.status).toBe(200);
    if (client.variant === 'self-hosted')
      expect(list.raw.json.meta).toEqual({ total: list.data.length, limit: 1000, offset: 0 });
    for (const alert of list.data) expect(alertShape.Check(alert), JSON.stringify(alert)).toBe(true);
    expect(list.data.map((alert: { id: string }) => alert.id)).toEqual(expect.arrayContaining([...own.alerts]));
  });

  it('answers 401 before looking at the body', async () => {
    const response = await client.request(
      'POST',
      'alerts',
      { threshold: 'not a number' },
      client.variant === 'managed' ? basic(IDS.keyId, 'wrong') : bearer('wrong'),
    );
    expect(response.status).toBe(401);
  });

  it('on managed, takes an email channel and the webhook members its integrations add; self-hosted refuses the one and drops the others', async () => {
    const email = { type: 'email', emailRecipients: ['ops@example.com', 'sre@example.com'] };
    const pager = {
      type: 'webhook',
      webhookId: ids.webhook,
      webhookService: 'pagerduty_api',
      severity: 'critical',
      slackChannelId: null,
    };
    for (const channel of [email, pager]) {
      const response = await create(tileAlert({ channel }));
      if (client.variant === 'self-hosted') {
        expect(response.status).toBe(channel === email ? 400 : 200);
        if (channel === pager) expect(response.data.channel).toEqual(webhook());
        continue;
      }
      expect(response.status).toBe(200);
      expect(response.data.channel).toEqual(channel);
      expect(response.data).not.toHaveProperty('channels');
      expect((await client.request('GET', `alerts/${response.data.id}`)).data.channel).toEqual(channel);
    }
  });

  it('lists the webhooks alerts can name', async () => {
    const list = await client.request('GET', 'webhooks');
    expect(list.status).toBe(200);
    expect(list.data).toEqual([
      {
        id: ids.webhook,
        name: 'on-call',
        service: 'generic',
        url: 'https://hooks.example.com/on-call',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
  });
});
