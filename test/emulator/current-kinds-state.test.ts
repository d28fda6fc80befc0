/**
 * The current profile's new kinds in seeds and data files: a seed file holding connections (with
 * passwords), webhooks (with headers and query parameters), saved searches and dashboards with
 * tiles a GET hides; `--data` keeping all of it across a restart, write-only members as
 * fingerprints only; and data files written before connections and secrets were kept still read.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { isStacksyncError } from '../../src/errors.js';
import {
  loadSeedFile,
  startEmulator,
  type CurrentEmulatorData,
  type RunningEmulator,
  type Seed,
} from '../../src/emulator/index.js';
import { dataSchema } from '../../src/emulator/persistence.js';
import { compileSchema } from '../../src/schema/validate.js';
import { bearer, call } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'stacksync-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function boot(options: Parameters<typeof startEmulator>[0]): Promise<RunningEmulator> {
  const emulator = await startEmulator({ logger: false, profile: 'current', persistDelayMs: 0, ...options });
  running.push(emulator);
  return emulator;
}

const TOKEN = 'ops-token';
const IDS = {
  connection: '66f000000000000000007001',
  source: '66f000000000000000007002',
  webhook: '66f000000000000000007003',
  search: '66f000000000000000007004',
  dashboard: '66f000000000000000007005',
} as const;
const SECRETS = { password: 'ch-password-1', header: 'Bearer hook-secret-1', param: 'param-secret-1' };

const teamSeed = {
  id: 'ops',
  tokens: [TOKEN],
  connections: [
    {
      id: IDS.connection,
      name: 'warehouse',
      host: 'https://ch.internal:8443',
      username: 'reader',
      password: SECRETS.password,
      hyperdxSettingPrefix: 'hdx_',
    },
  ],
  sources: [
    {
      id: IDS.source,
      name: 'logs',
      kind: 'log',
      connection: IDS.connection,
      from: { databaseName: 'otel', tableName: 'logs' },
      timestampValueExpression: 'Timestamp',
      defaultTableSelectExpression: '*',
    },
  ],
  webhooks: [
    {
      id: IDS.webhook,
      name: 'pager',
      service: 'generic',
      url: 'https://hooks.example.com/p',
      body: '{}',
      headers: { Authorization: SECRETS.header },
      queryParams: { token: SECRETS.param },
    },
  ],
  savedSearches: [{ id: IDS.search, name: 'errors', sourceId: IDS.source, where: 'level:error' }],
  dashboards: [
    {
      id: IDS.dashboard,
      name: 'mixed',
      tiles: [
        { id: 'shown', name: 'shown', x: 0, y: 0, w: 6, h: 4, config: { displayType: 'markdown', markdown: 'hi' } },
      ],
      hiddenTiles: [
        {
          id: 'promql',
          x: 6,
          y: 0,
          w: 6,
          h: 4,
          config: { configType: 'promql', promqlExpression: 'up', displayType: 'line' },
        },
      ],
    },
  ],
};

const get = (emulator: RunningEmulator, path: string) => call(emulator.url, 'GET', path, { auth: bearer(TOKEN) });
const dump = async (emulator: RunningEmulator): Promise<CurrentEmulatorData> =>
  (await call(emulator.url, 'GET', '/_emulator/dump')).json;

describe('a seed file of the current profile with the new kinds', () => {
  it('loads connections, webhooks with write-only members, saved searches and hidden tiles, and serves them', async () => {
    const file = join(dir, 'kinds.yaml');
    writeFileSync(file, stringify({ teams: [teamSeed] }));
    const emulator = await boot({ seed: loadSeedFile(file, 'current') });
    expect((await get(emulator, `/api/v2/connections/${IDS.connection}`)).json.data).toEqual({
      id: IDS.connection,
      name: 'warehouse',
      host: 'https://ch.internal:8443',
      username: 'reader',
      hyperdxSettingPrefix: 'hdx_',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await get(emulator, '/api/v2/webhooks')).json.data).toEqual([
      {
        id: IDS.webhook,
        name: 'pager',
        url: 'https://hooks.example.com/p',
        updatedAt: expect.any(String),
        createdAt: expect.any(String),
        service: 'generic',
        body: '{}',
      },
    ]);
    expect((await get(emulator, `/api/v2/saved-searches/${IDS.search}`)).json.data).toEqual({
      id: IDS.search,
      name: 'errors',
      where: 'level:error',
      sourceId: IDS.source,
      teamId: 'ops',
    });
    expect(
      (await get(emulator, `/api/v2/dashboards/${IDS.dashboard}`)).json.data.tiles.map(
        (tile: { id: string }) => tile.id,
      ),
    ).toEqual(['shown']);
    const state = await dump(emulator);
    expect(state.teams[0]!.secrets).toEqual({
      [IDS.connection]: { password: `sha256:${emulator.credentialHash(JSON.stringify(SECRETS.password))}` },
      [IDS.webhook]: {
        'headers.Authorization': expect.stringMatching(/^sha256:/),
        'queryParams.token': expect.stringMatching(/^sha256:/),
      },
    });
    const text = JSON.stringify(state);
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });

  const bad: { name: string; seed: () => unknown; message: string }[] = [
    {
      name: 'a connection without its host',
      seed: () => ({ teams: [{ ...teamSeed, connections: [{ name: 'x', username: 'u' }] }] }),
      message: 'teams[0].connections[0].host: is required',
    },
    {
      name: 'a connection id used twice',
      seed: () => ({ teams: [{ ...teamSeed, connections: [teamSeed.connections[0], teamSeed.connections[0]] }] }),
      message: `connection id ${IDS.connection} is used twice`,
    },
    {
      name: 'a webhook header that is not text',
      seed: () => ({ teams: [{ ...teamSeed, webhooks: [{ ...teamSeed.webhooks[0], headers: { X: 1 } }] }] }),
      message: 'teams[0].webhooks[0].headers.X: must be string',
    },
    {
      name: 'a hidden tile without its config',
      seed: () => ({
        teams: [
          {
            ...teamSeed,
            alerts: [],
            dashboards: [{ ...teamSeed.dashboards[0], hiddenTiles: [{ id: 'p', x: 0, y: 0, w: 1, h: 1 }] }],
          },
        ],
      }),
      message: 'teams[0].dashboards[0].hiddenTiles.0.config: is required',
    },
  ];
  it.each(bad)('refuses $name at start, naming where', async ({ seed, message }) => {
    const error = await boot({ seed: seed() as Seed }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isStacksyncError(error, 'E_EMULATOR_DATA')).toBe(true);
    expect((error as Error).message).toContain(message);
  });
});

describe('--data under the current profile', () => {
  it('round-trips the new kinds: what a restart serves is what was written, write-only members still kept', async () => {
    const dataFile = join(dir, 'kinds.json');
    const first = await boot({ dataFile, seed: { teams: [teamSeed] } });
    const send = (method: string, path: string, body?: unknown) =>
      call(first.url, method, path, { auth: bearer(TOKEN), ...(body !== undefined && { body }) });
    const connection = (
      await send('POST', '/api/v2/connections', {
        name: 'second',
        host: 'http://ch2:8123',
        username: 'u',
        password: 'second-password',
      })
    ).json.data;
    expect(
      (await send('POST', '/api/v2/sources', { ...teamSeed.sources[0], name: 'more logs', connection: connection.id }))
        .status,
    ).toBe(200);
    expect(
      (
        await send('POST', '/api/v2/webhooks', {
          name: 'slack',
          service: 'slack',
          url: 'https://hooks.slack.com/services/A/B/C',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await send('POST', '/api/v2/saved-searches', {
          name: 'warn',
          sourceId: IDS.source,
          filters: [{ condition: "Level IN ('warn')" }],
        })
      ).status,
    ).toBe(200);
    const before = await dump(first);
    expect(compileSchema('test:current-kinds-data', dataSchema)(before)).toBe(true);
    await first.close();

    const second = await boot({ dataFile });
    expect(second.restored).toBe(true);
    expect(await dump(second)).toEqual(before);
    expect((await get(second, `/api/v2/dashboards/${IDS.dashboard}`)).json.data.tiles).toHaveLength(1);
    // A PUT that leaves the headers out after the restart keeps them: the fingerprints survived.
    const put = await call(second.url, 'PUT', `/api/v2/webhooks/${IDS.webhook}`, {
      auth: bearer(TOKEN),
      body: { name: 'pager', service: 'generic', url: 'https://hooks.example.com/p' },
    });
    expect(put.status).toBe(200);
    expect((await dump(second)).teams[0]!.secrets?.[IDS.webhook]).toEqual(before.teams[0]!.secrets?.[IDS.webhook]);
    expect(readFileSync(dataFile, 'utf8')).not.toContain('second-password');
  });

  it('reads a data file written before connections and write-only members were kept: the sources name the connections', async () => {
    const dataFile = join(dir, 'older.json');
    const first = await boot({ dataFile, seed: { teams: [teamSeed] } });
    await first.close();
    const file = JSON.parse(readFileSync(dataFile, 'utf8'));
    for (const stack of [
      ...file.state.teams,
      ...file.state.organizations.flatMap((org: { services: unknown[] }) => org.services),
    ]) {
      delete stack.connections;
      delete stack.secrets;
    }
    writeFileSync(dataFile, JSON.stringify(file));

    const second = await boot({ dataFile });
    const connections = (await get(second, '/api/v2/connections')).json.data;
    expect(connections.map((entry: { id: string }) => entry.id)).toEqual([IDS.connection]);
    expect(
      (
        await call(second.url, 'POST', '/api/v2/sources', {
          auth: bearer(TOKEN),
          body: { ...teamSeed.sources[0], name: 'again' },
        })
      ).status,
    ).toBe(200);
  });
});
