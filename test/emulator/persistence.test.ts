import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStacksyncError } from '../../src/errors.js';
import { startEmulator, type EmulatorData, type RunningEmulator } from '../../src/emulator/index.js';
import { DataWriter, dataSchema, readDataFile } from '../../src/emulator/persistence.js';
import { compileSchema } from '../../src/schema/validate.js';
import { basic, bearer, call, IDS, SERVICE_PATH, TILE } from './helpers.js';

let dir: string;
let dataFile: string;
const running: RunningEmulator[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stacksync-emulator-'));
  dataFile = join(dir, 'state.json');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function boot(options: Parameters<typeof startEmulator>[0] = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({ logger: false, dataFile, ...options });
  running.push(emulator);
  return emulator;
}

describe('--data persistence', () => {
  it('writes the seeded state at start and restores every change after a restart', async () => {
    const first = await boot();
    expect(first.restored).toBe(false);
    expect(readDataFile(dataFile)).toEqual(first.state());

    const dashboard = (
      await call(first.url, 'POST', '/api/v2/dashboards', { auth: bearer(), body: { name: 'kept', tiles: [TILE] } })
    ).json.data;
    await call(first.url, 'POST', '/api/v2/alerts', {
      auth: bearer(),
      body: {
        threshold: 1,
        interval: '1m',
        thresholdType: 'above',
        source: 'tile',
        dashboardId: dashboard.id,
        tileId: dashboard.tiles[0].id,
        channel: { type: 'webhook', webhookId: 'w' },
      },
    });
    await call(first.url, 'PATCH', `${SERVICE_PATH}/pipes/${IDS.pipes.kafka}`, {
      auth: basic(),
      body: { name: 'renamed', source: { kafka: { credentials: { username: 'u', password: 'persisted-password' } } } },
    });
    const before = first.state();
    await first.close();

    const text = readFileSync(dataFile, 'utf8');
    for (const secret of [IDS.keySecret, IDS.token, 'persisted-password', 'emulator-kafka-password'])
      expect(text).not.toContain(secret);
    expect(readdirSync(dir)).toEqual(['state.json']);

    const second = await boot();
    expect(second.restored).toBe(true);
    expect(second.state()).toEqual(before);
    const pipe = (await call(second.url, 'GET', `${SERVICE_PATH}/pipes/${IDS.pipes.kafka}`, { auth: basic() })).json
      .result;
    expect(pipe.name).toBe('renamed');
    const alerts = (await call(second.url, 'GET', '/api/v2/alerts', { auth: bearer() })).json;
    expect(alerts.meta.total).toBe(1);
    expect(
      (await call(second.url, 'GET', `/api/v2/dashboards/${dashboard.id}`, { auth: bearer() })).json.data.name,
    ).toBe('kept');
  });

  it('the data file wins over a seed given later', async () => {
    await (await boot()).close();
    const other = await boot({ seed: { teams: [{ id: 'other', tokens: ['t'] }] } });
    expect(other.restored).toBe(true);
    expect((await call(other.url, 'GET', `${SERVICE_PATH}/pipes`, { auth: basic() })).status).toBe(200);
    expect((await call(other.url, 'GET', '/api/v2/dashboards', { auth: bearer('t') })).status).toBe(401);
  });

  it('saves a change made just before close (flush on close)', async () => {
    const first = await boot({ persistDelayMs: 60_000 });
    await call(first.url, 'POST', `${SERVICE_PATH}/stack/dashboards`, { auth: basic(), body: { name: 'last-second' } });
    await first.close();
    const saved = readDataFile(dataFile)!;
    expect(saved.organizations[0]!.services[0]!.dashboards.map((d) => d.name)).toEqual(['last-second']);
  });

  const corrupt: { name: string; content: string; message: RegExp }[] = [
    { name: 'not JSON', content: '{"format": "stacksync-emulator-data", ', message: /is corrupt: not JSON/ },
    { name: 'empty', content: '', message: /is corrupt: not JSON/ },
    {
      name: 'wrong format tag',
      content: JSON.stringify({ format: 'other', state: {} }),
      message: /is corrupt: format: must be "stacksync-emulator-data"/,
    },
    {
      name: 'state of the wrong shape',
      content: JSON.stringify({
        format: 'stacksync-emulator-data',
        state: {
          version: 1,
          organizations: [{ id: 'x', keys: [{ id: 'k', secretSha256: 'plain' }], services: [] }],
          teams: [],
        },
      }),
      message: /is corrupt: state\.organizations\[0\]\.keys\[0\]\.secretSha256: must match pattern/,
    },
  ];
  it.each(corrupt)(
    'a corrupt data file ($name) is a clear startup error and is left untouched',
    async ({ content, message }) => {
      writeFileSync(dataFile, content);
      let thrown: unknown;
      try {
        await boot();
      } catch (error) {
        thrown = error;
      }
      expect(isStacksyncError(thrown, 'E_EMULATOR_DATA')).toBe(true);
      expect((thrown as Error).message).toMatch(message);
      expect((thrown as Error).message).toContain(dataFile);
      expect(readFileSync(dataFile, 'utf8')).toBe(content);
    },
  );

  it('a data file that cannot be written fails the start', async () => {
    await expect(boot({ dataFile: join(dir, 'missing-dir', 'state.json') })).rejects.toMatchObject({
      code: 'E_EMULATOR_DATA',
    });
  });

  it('the dump and the data file share one schema', async () => {
    const emulator = await boot();
    const dump = (await call(emulator.url, 'GET', '/_emulator/dump')).json;
    const validate = compileSchema('test:emulator-data', dataSchema);
    expect(validate(dump), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('DataWriter', () => {
  const state = (): EmulatorData => ({ version: 1, organizations: [], teams: [] });

  it('coalesces a burst of changes into one write', async () => {
    const writer = new DataWriter(dataFile, state, { delayMs: 20 });
    for (let i = 0; i < 1000; i++) writer.schedule();
    await writer.flush();
    expect(writer.writes).toBe(1);
    expect(readDataFile(dataFile)).toEqual(state());
  });

  it('writes again for changes made while a write was in flight', async () => {
    let version = 0;
    const writer = new DataWriter(
      dataFile,
      () => ({ ...state(), teams: [{ id: `v${++version}`, tokenSha256: [], dashboards: [], alerts: [] }] }),
      { delayMs: 1 },
    );
    writer.schedule();
    await new Promise((resolve) => setTimeout(resolve, 5));
    writer.schedule();
    await writer.close();
    expect(readDataFile(dataFile)!.teams[0]!.id).toBe(`v${version}`);
    expect(writer.writes).toBe(version);
  });

  it('stops writing after close', async () => {
    const writer = new DataWriter(dataFile, state, { delayMs: 1 });
    await writer.close();
    writer.schedule();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(writer.writes).toBe(0);
  });
});
