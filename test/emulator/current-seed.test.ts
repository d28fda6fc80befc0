/**
 * The current profile beyond dashboards and alerts: choosing it (option, CLI, embedded mode), its
 * built-in and file seeds (sources, webhooks, saved searches, dashboards, alerts), pipes with
 * open-text states and unknown members dropped, and a data file that remembers its profile.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { emulatorCommand, runEmulator, type EmulatorFlags } from '../../src/cli/emulator.js';
import { startEmbedded } from '../../src/daemon/embedded.js';
import { isStacksyncError } from '../../src/errors.js';
import {
  defaultSeed,
  loadSeedFile,
  parseSeed,
  startEmulator,
  type CurrentEmulatorData,
  type RunningEmulator,
  type Seed,
} from '../../src/emulator/index.js';
import { dataSchema } from '../../src/emulator/persistence.js';
import { compileSchema } from '../../src/schema/validate.js';
import { basic, bearer, call, IDS, SERVICE_PATH } from './helpers.js';
import { CURRENT, PLACEMENT } from './current-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'stacksync-current-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function boot(options: Parameters<typeof startEmulator>[0] = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({ logger: false, profile: 'current', ...options });
  running.push(emulator);
  return emulator;
}

const ORG = '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a09';
const SVC = '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e09';
const TEAM_SOURCE = '66f000000000000000001001';
const OTHER_CONNECTION_SOURCE = '66f000000000000000001002';
const CONNECTION = '66f000000000000000002001';
const WEBHOOK = '66f000000000000000003001';
const SEARCH = '66f000000000000000004001';
const DASHBOARD = '66f000000000000000005001';
const ALERT = '66f000000000000000006001';

/** A team seeded the way a real account looks: sources on two connections, a webhook, a saved search, a dashboard and an alert. */
const teamSeed = {
  id: 'ops',
  tokens: ['ops-token'],
  sources: [
    {
      id: TEAM_SOURCE,
      name: 'app logs',
      kind: 'log',
      connection: CONNECTION,
      from: { databaseName: 'otel', tableName: 'logs' },
      timestampValueExpression: 'Timestamp',
      bodyExpression: 'Body',
    },
    { id: OTHER_CONNECTION_SOURCE, name: 'spans', kind: 'trace' },
  ],
  webhooks: [{ id: WEBHOOK, name: 'pager', service: 'slack', url: 'https://hooks.slack.com/x' }],
  savedSearches: [{ id: SEARCH, name: 'errors', where: 'level:error' }],
  dashboards: [
    {
      id: DASHBOARD,
      name: 'service health',
      tags: ['ops'],
      tiles: [
        {
          id: 'errors',
          name: 'errors',
          ...PLACEMENT,
          series: [{ type: 'time', sourceId: TEAM_SOURCE, aggFn: 'count', where: 'level:error', groupBy: [] }],
        },
        {
          id: 'volume',
          name: 'volume',
          ...PLACEMENT,
          config: { displayType: 'number', sourceId: TEAM_SOURCE, select: [{ aggFn: 'count' }] },
        },
      ],
    },
  ],
  alerts: [
    {
      id: ALERT,
      name: 'errors',
      threshold: 10,
      interval: '5m',
      thresholdType: 'above',
      source: 'tile',
      dashboardId: DASHBOARD,
      tileId: 'errors',
      channel: { type: 'webhook', webhookId: WEBHOOK },
    },
  ],
};

describe('the built-in seed under the current profile', () => {
  it('gives the service and the team sources with connection, table and timestamp, a webhook and a saved search', async () => {
    const emulator = await boot();
    const managed = (await call(emulator.url, 'GET', `${SERVICE_PATH}/stack/sources`, { auth: basic() })).json.result;
    const selfHosted = (await call(emulator.url, 'GET', '/api/v2/sources', { auth: bearer() })).json.data;
    expect(managed.map((source: { id: string }) => source.id)).toEqual(Object.values(CURRENT.service.sources));
    expect(selfHosted.map((source: { id: string }) => source.id)).toEqual(Object.values(CURRENT.team.sources));
    expect(selfHosted[0]).toEqual({
      id: CURRENT.team.sources.log,
      name: 'logs',
      kind: 'log',
      connection: CURRENT.team.connection,
      from: { databaseName: 'default', tableName: 'otel_logs' },
      timestampValueExpression: 'TimestampTime',
      defaultTableSelectExpression: 'Timestamp, ServiceName, SeverityText, Body',
    });
    expect(
      (await call(emulator.url, 'GET', `${SERVICE_PATH}/stack/webhooks`, { auth: basic() })).json.result.map(
        (w: { id: string }) => w.id,
      ),
    ).toEqual([CURRENT.service.webhook]);
    const state = emulator.state() as CurrentEmulatorData;
    expect(state.teams[0]!.savedSearches).toEqual([
      { id: CURRENT.team.savedSearch, name: 'errors', sourceId: CURRENT.team.sources.log },
    ]);
  });

  it("is the seed profile's built-in seed plus those, so the fixed ids of the docs still hold", () => {
    const seed = defaultSeed('current');
    expect(seed.organizations![0]!.services![0]!.pipes!.map((pipe) => pipe.id)).toEqual(Object.values(IDS.pipes));
    expect(seed.teams![0]).toMatchObject({ id: IDS.teamId, tokens: [IDS.token] });
    expect(defaultSeed('seed')).toEqual(defaultSeed());
  });
});

describe('seed files under the current profile', () => {
  it('loads a realistic team and serves it, filling in what sources and webhooks leave out', async () => {
    const file = join(dir, 'team.yaml');
    writeFileSync(file, stringify({ teams: [teamSeed] }));
    const emulator = await boot({ seed: loadSeedFile(file, 'current') });
    const get = (path: string) => call(emulator.url, 'GET', path, { auth: bearer('ops-token') });
    const sources = (await get('/api/v2/sources')).json.data;
    expect(sources[0]).toEqual(teamSeed.sources[0]);
    expect(sources[1]).toEqual({
      id: OTHER_CONNECTION_SOURCE,
      name: 'spans',
      kind: 'trace',
      connection: expect.stringMatching(/^[0-9a-f]{24}$/),
      from: { databaseName: 'default', tableName: 'otel_traces' },
      timestampValueExpression: 'Timestamp',
    });
    expect((await get('/api/v2/webhooks')).json.data).toEqual([
      { ...teamSeed.webhooks[0], createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
    const dashboard = (await get(`/api/v2/dashboards/${DASHBOARD}`)).json.data;
    expect(
      dashboard.tiles.map((tile: { id: string; config: { displayType: string } }) => [
        tile.id,
        tile.config.displayType,
      ]),
    ).toEqual([
      ['errors', 'line'],
      ['volume', 'number'],
    ]);
    const alert = (await get(`/api/v2/alerts/${ALERT}`)).json.data;
    expect(alert).toMatchObject({
      id: ALERT,
      teamId: 'ops',
      state: 'OK',
      dashboardId: DASHBOARD,
      tileId: 'errors',
      channel: { type: 'webhook', webhookId: WEBHOOK },
    });

    // The dump holds exactly what the API answers.
    const state = emulator.state() as CurrentEmulatorData;
    expect(JSON.stringify(state.teams[0]!.dashboards[0])).toBe(JSON.stringify(dashboard));
  });

  it('checks a raw SQL tile against the connection of its source', async () => {
    const emulator = await boot({ seed: { teams: [teamSeed] } });
    const tile = {
      name: 'sql',
      ...PLACEMENT,
      config: {
        configType: 'sql',
        displayType: 'line',
        connectionId: CONNECTION,
        sqlTemplate: 'SELECT 1',
        sourceId: OTHER_CONNECTION_SOURCE,
      },
    };
    const response = await call(emulator.url, 'POST', '/api/v2/dashboards', {
      auth: bearer('ops-token'),
      body: { name: 'sql', tiles: [tile] },
    });
    expect([response.status, response.json]).toEqual([
      400,
      { message: `The following source IDs do not match the specified connections: ${OTHER_CONNECTION_SOURCE}` },
    ]);
  });

  const bad: { name: string; seed: () => unknown; message: string }[] = [
    {
      name: 'a webhook of an unknown service',
      seed: () => ({ teams: [{ ...teamSeed, webhooks: [{ name: 'x', service: 'carrier-pigeon' }] }] }),
      message: 'teams[0].webhooks[0].service: must be one of slack, generic, incidentio',
    },
    {
      name: 'a source id that is not an object id',
      seed: () => ({ teams: [{ ...teamSeed, sources: [{ id: 'abc', name: 'x', kind: 'log' }] }] }),
      message: 'teams[0].sources[0].id: must match pattern',
    },
    {
      name: 'a webhook id used twice',
      seed: () => ({ teams: [{ ...teamSeed, webhooks: [teamSeed.webhooks[0], teamSeed.webhooks[0]] }] }),
      message: `webhook id ${WEBHOOK} is used twice`,
    },
    {
      name: 'a dashboard tile off the grid',
      seed: () => ({
        teams: [
          {
            ...teamSeed,
            alerts: [],
            dashboards: [
              { name: 'd', tiles: [{ name: 't', ...PLACEMENT, x: 30, config: { displayType: 'markdown' } }] },
            ],
          },
        ],
      }),
      message: 'teams[0].dashboards[0].tiles.0.x: must be <= 23',
    },
    {
      name: 'a dashboard on a source the team does not have',
      seed: () => ({
        teams: [
          {
            ...teamSeed,
            alerts: [],
            dashboards: [
              {
                name: 'd',
                tiles: [
                  {
                    name: 't',
                    ...PLACEMENT,
                    config: { displayType: 'line', sourceId: CURRENT.team.sources.log, select: [{ aggFn: 'count' }] },
                  },
                ],
              },
            ],
          },
        ],
      }),
      message: `teams[0].dashboards[0]: Could not find the following source IDs: ${CURRENT.team.sources.log}`,
    },
    {
      name: 'an alert of an unknown threshold type',
      seed: () => ({ teams: [{ ...teamSeed, alerts: [{ threshold: 1, interval: '5m', thresholdType: 'sideways' }] }] }),
      message: 'teams[0].alerts[0].thresholdType: must be one of above',
    },
  ];
  it.each(bad)('rejects $name at start, naming where', async ({ seed, message }) => {
    const error = await boot({ seed: seed() as Seed }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isStacksyncError(error, 'E_EMULATOR_DATA')).toBe(true);
    expect((error as Error).message).toContain(message);
  });

  it('under the seed profile, webhooks and team sources are not part of the seed', () => {
    let thrown: unknown;
    try {
      parseSeed({ teams: [{ id: 't', tokens: ['t'], webhooks: [] }] }, 'seed.yaml', 'seed');
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).message).toContain('teams[0].webhooks: is not a known member here');
  });
});

describe('seeded dashboards and alerts under the seed profile', () => {
  it('are created by the seed rules, in the seed format, with the ids given', async () => {
    const seed: Seed = {
      teams: [
        {
          id: 'team-1',
          tokens: ['tok'],
          dashboards: [
            {
              id: '65f5e4a3b9e77c001a123456',
              name: 'seeded',
              tiles: [
                {
                  id: 'p99',
                  name: 'p99',
                  ...PLACEMENT,
                  series: [{ type: 'time', aggFn: 'avg', dataSource: 'events' }],
                },
              ],
            },
          ],
          alerts: [
            {
              threshold: 1,
              interval: '1m',
              thresholdType: 'above',
              source: 'tile',
              dashboardId: '65f5e4a3b9e77c001a123456',
              tileId: 'p99',
              channel: { type: 'webhook', webhookId: 'w' },
            },
          ],
        },
      ],
    };
    const emulator = await boot({ profile: 'seed', seed });
    const dashboard = (
      await call(emulator.url, 'GET', '/api/v2/dashboards/65f5e4a3b9e77c001a123456', { auth: bearer('tok') })
    ).json.data;
    expect(dashboard.tiles[0]).toMatchObject({
      id: 'p99',
      series: [{ type: 'time', aggFn: 'avg', dataSource: 'events' }],
    });
    const alerts = (await call(emulator.url, 'GET', '/api/v2/alerts', { auth: bearer('tok') })).json.data;
    expect(alerts).toEqual([
      expect.objectContaining({
        dashboard: '65f5e4a3b9e77c001a123456',
        tileId: 'p99',
        state: 'inactive',
        silenced: false,
        team: 'team-1',
      }),
    ]);
  });
});

describe('pipes under the current profile', () => {
  const pipe = {
    id: '7a0e1f2c-0009-4b3a-9c4d-5e6f7a8b9c09',
    name: 'orders',
    state: 'Snapshot',
    source: { kafka: { brokers: 'b:9092', topics: 'orders' } },
    destination: { table: 'orders' },
  };
  const seed = (): Seed => ({
    organizations: [{ id: ORG, keys: [{ id: 'k', secret: 's' }], services: [{ id: SVC, pipes: [pipe] }] }],
  });
  const path = `/v1/organizations/${ORG}/services/${SVC}/pipes/${pipe.id}`;

  it('take any state as text, which the seed profile refuses', async () => {
    const emulator = await boot({ seed: seed() });
    expect((await call(emulator.url, 'GET', path, { auth: basic('k', 's') })).json.result.state).toBe('Snapshot');
    expect(() => parseSeed(seed(), 'seed.yaml', 'seed')).toThrow(/pipes\[0\]\.state: must be one of Provisioning/);
  });

  it('drop unknown PATCH members instead of refusing them, but still refuse a create-only member, naming it', async () => {
    const emulator = await boot({ seed: seed() });
    const patch = (body: unknown) => call(emulator.url, 'PATCH', path, { auth: basic('k', 's'), body });
    const lenient = await patch({
      name: 'renamed',
      whatever: 1,
      source: { kafka: { tlsHost: 'kafka.internal', disableTls: false, iamRole: 'role' } },
    });
    expect(lenient.status).toBe(200);
    expect(lenient.json.result.name).toBe('renamed');
    expect(lenient.json.result.source.kafka).toEqual({ brokers: 'b:9092', topics: 'orders', iamRole: 'role' });
    const immutable = await patch({ source: { kafka: { brokers: 'other:9092' } } });
    expect([immutable.status, immutable.json.error]).toEqual([
      400,
      'BAD_REQUEST: source.kafka.brokers: is create-only: it cannot change once the pipe exists (delete the pipe and create it again)',
    ]);
    const removed = await call(emulator.url, 'DELETE', path, { auth: basic('k', 's') });
    expect(removed.json).toEqual({ status: 200, requestId: expect.any(String) });
  });

  it('under the seed profile, unknown PATCH members are still a 400', async () => {
    const emulator = await boot({ profile: 'seed' });
    const response = await call(emulator.url, 'PATCH', `${SERVICE_PATH}/pipes/${IDS.pipes.kafka}`, {
      auth: basic(),
      body: { source: { kafka: { tlsHost: 'x' } } },
    });
    expect([response.status, response.json.error]).toEqual([
      400,
      'BAD_REQUEST: source.kafka.tlsHost: is not a known member here',
    ]);
  });
});

describe('the data file under the current profile', () => {
  it('restores the current state, validates against the shared schema, and refuses to start under the other profile', async () => {
    const dataFile = join(dir, 'current.json');
    const first = await boot({ dataFile, seed: { teams: [teamSeed] } });
    const created = await call(first.url, 'POST', '/api/v2/dashboards', {
      auth: bearer('ops-token'),
      body: { name: 'added', tiles: [] },
    });
    expect(created.status).toBe(200);
    const dump = (await call(first.url, 'GET', '/_emulator/dump')).json;
    const validate = compileSchema('test:current-data', dataSchema);
    expect(validate(dump), JSON.stringify(validate.errors)).toBe(true);
    await first.close();

    const second = await boot({ dataFile });
    expect(second.restored).toBe(true);
    expect(second.state()).toEqual(dump);
    expect((await call(second.url, 'GET', `/api/v2/alerts/${ALERT}`, { auth: bearer('ops-token') })).status).toBe(200);
    await second.close();

    const error = await boot({ dataFile, profile: 'seed' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({
      code: 'E_EMULATOR_DATA',
      message: expect.stringContaining('holds state of the current profile, not seed; start with --profile current'),
    });
  });
});

describe('choosing the profile', () => {
  const flags = (extra: Partial<EmulatorFlags> = {}): EmulatorFlags => ({
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    ...extra,
  });

  it('stacksync emulator --profile current loads its seed file with the current rules and says so in the banner', async () => {
    const seed = join(dir, 'cli-seed.yaml');
    writeFileSync(seed, stringify({ teams: [teamSeed] }));
    let stop!: (signal: string) => void;
    let output = '';
    let listening!: (emulator: RunningEmulator) => void;
    const ready = new Promise<RunningEmulator>((resolve) => (listening = resolve));
    const done = runEmulator(flags({ profile: 'current', seed }), {
      stdout: { write: (text: string) => (output += text) },
      stopped: new Promise((resolve) => (stop = resolve)),
      onListening: listening,
    });
    const emulator = await ready;
    expect(emulator.profile).toBe('current');
    expect(output).toContain(`listening on ${emulator.url} (profile current)`);
    expect(output).toContain(`webhooks       pager ${WEBHOOK}`);
    expect(output).toContain(`saved searches errors ${SEARCH}`);
    expect(output).toMatch(/connections +Default [0-9a-f]{24}/);
    expect((await call(emulator.url, 'GET', '/api/v2/webhooks', { auth: bearer('ops-token') })).status).toBe(200);
    stop('SIGTERM');
    await done;
  });

  it('--help documents the profiles, and an unknown profile is refused', async () => {
    const command = () =>
      emulatorCommand(() => {})
        .exitOverride()
        .configureOutput({ writeOut: () => {}, writeErr: () => {} });
    let help = '';
    command()
      .configureOutput({ writeOut: (text) => (help += text) })
      .outputHelp();
    const flat = help.replace(/\s+/g, ' ');
    expect(flat).toContain('--profile <profile>');
    expect(flat).toContain('(choices: "seed", "current", default: "seed")');
    expect(flat).toContain('current the real services as they are today');
    await expect(command().parseAsync(['--profile', 'newest'], { from: 'user' })).rejects.toMatchObject({
      message: expect.stringContaining('Allowed choices are seed, current.'),
    });
  });

  it('startEmulator refuses a profile it does not know', async () => {
    await expect(startEmulator({ profile: 'newest' as never })).rejects.toMatchObject({ code: 'E_USAGE' });
  });

  it('embedded mode runs the emulator under the profile it is given, seed by default', async () => {
    const current = await startEmbedded({ dir: join(dir, 'embedded-current'), profile: 'current' });
    const seed = await startEmbedded({ dir: join(dir, 'embedded-seed') });
    try {
      expect([current.emulator.profile, seed.emulator.profile]).toEqual(['current', 'seed']);
      // Its targets write the profile's spelling.
      expect(current.config.targets.map((target) => target.api?.profile)).toEqual(['current', 'current']);
      expect(seed.config.targets.map((target) => target.api?.profile)).toEqual(['seed', 'seed']);
      expect((await call(current.emulator.url, 'GET', '/api/v2/sources', { auth: bearer() })).status).toBe(200);
    } finally {
      await Promise.all([current.emulator.close(), seed.emulator.close()]);
    }
  });
});
