/**
 * What the current profile keeps about pipes across restarts and seeds: the lifecycle still to
 * come and the CDC scaling round-trip through `--data` (older files without them still load), a
 * seed may hold a pipe of any family and name pipes whose provisioning fails, and embedded mode
 * still seeds its pipes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmbedded } from '../../src/daemon/embedded.js';
import { parseSeed, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { dataSchema } from '../../src/emulator/persistence.js';
import { compileSchema } from '../../src/schema/validate.js';
import { basic, bearer, call, IDS, SERVICE_PATH } from './helpers.js';
import { createPipe, manualClock, mysqlBlock, pipeBody, stateOf, type Managed } from './pipe-fixtures.js';

let dir: string;
const running: RunningEmulator[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stacksync-current-pipes-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function boot(options: EmulatorOptions) {
  const emulator = await startEmulator({ logger: false, profile: 'current', ...options });
  running.push(emulator);
  const managed: Managed = (method, suffix, callOptions = {}) =>
    call(emulator.url, method, `${SERVICE_PATH}${suffix}`, { auth: basic(), ...callOptions });
  return { emulator, managed };
}

describe('--data under the current profile', () => {
  it('round-trips pending states and a pending CDC scaling; the restored emulator carries on from them', async () => {
    const dataFile = join(dir, 'state.json');
    const clock = manualClock();
    const first = await boot({ dataFile, clock: clock.now, pipeTransitionMs: 1000 });
    const pipe = await createPipe(first.managed, pipeBody('postgres', 'pg'));
    expect(
      (await first.managed('PATCH', '/pipesCdcScaling', { body: { replicaCpuMillicores: 4000, replicaMemoryGb: 16 } }))
        .status,
    ).toBe(200);
    const dump = (await call(first.emulator.url, 'GET', '/_emulator/dump')).json;
    const validate = compileSchema('test:current-pipe-data', dataSchema);
    expect(validate(dump), JSON.stringify(validate.errors)).toBe(true);
    expect(dump.organizations[0].services[0].pipeRuntime).toMatchObject({
      lifecycles: { [pipe.id]: { steps: [{ state: 'Snapshot' }, { state: 'Running' }] } },
      cdcScaling: {
        replicaCpuMillicores: 2000,
        replicaMemoryGb: 8,
        pending: { replicaCpuMillicores: 4000, replicaMemoryGb: 16 },
      },
    });
    await first.emulator.close();

    const second = await boot({ dataFile, clock: clock.now, pipeTransitionMs: 1000 });
    expect(second.emulator.restored).toBe(true);
    expect(second.emulator.state()).toEqual(dump);
    clock.advance(1000);
    expect(await stateOf(second.managed, pipe.id)).toBe('Snapshot');
    clock.advance(1000);
    expect(await stateOf(second.managed, pipe.id)).toBe('Running');
    expect((await second.managed('GET', '/pipesCdcScaling')).json.result).toEqual({
      replicaCpuMillicores: 4000,
      replicaMemoryGb: 16,
    });
  });

  it('reads a data file written before the lifecycle existed (no pipeRuntime, seed-shaped pipes)', async () => {
    const dataFile = join(dir, 'old.json');
    const first = await boot({ dataFile });
    await first.emulator.close();
    const file = JSON.parse(readFileSync(dataFile, 'utf8'));
    for (const service of file.state.organizations[0].services) delete service.pipeRuntime;
    writeFileSync(dataFile, JSON.stringify(file));

    const second = await boot({ dataFile, pipeTransitionMs: 0 });
    expect((await second.managed('GET', '/pipes')).json.result.map((p: { name: string }) => p.name)).toEqual([
      'orders-kafka',
      'events-s3',
      'clicks-kinesis',
      'billing-postgres',
    ]);
    expect((await second.managed('GET', '/pipesCdcScaling')).json.result).toEqual({
      replicaCpuMillicores: 2000,
      replicaMemoryGb: 8,
    });
    const pipe = await createPipe(second.managed, pipeBody('kafka'));
    expect(await stateOf(second.managed, pipe.id)).toBe('Running');
  });
});

describe('seeds under the current profile', () => {
  const ORG = '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a07';
  const SVC = '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e07';
  const PIPE = '7a0e1f2c-0007-4b3a-9c4d-5e6f7a8b9c07';
  const seed = (service: Record<string, unknown>) => ({
    organizations: [{ id: ORG, keys: [{ id: 'k', secret: 's' }], services: [{ id: SVC, ...service }] }],
  });

  it('hold a pipe of any family in any state; its write-only members become fingerprints; a database pipe brings the CDC scaling', async () => {
    const { emulator } = await boot({
      seed: seed({
        pipes: [
          {
            id: PIPE,
            name: 'shop',
            state: 'Paused',
            source: { mysql: { ...mysqlBlock('mariadb') } },
            destination: { database: 'shop' },
          },
        ],
      }),
    });
    const path = `/v1/organizations/${ORG}/services/${SVC}`;
    const pipe = await call(emulator.url, 'GET', `${path}/pipes/${PIPE}`, { auth: basic('k', 's') });
    expect(pipe.json.result).toMatchObject({
      state: 'Paused',
      source: { mysql: { type: 'mariadb', host: 'mysql.internal' } },
    });
    expect(pipe.text).not.toContain('mysql-secret');
    expect(emulator.state().organizations[0]!.services[0]!.pipeSecrets[PIPE]).toEqual({
      'mysql.credentials': expect.stringMatching(/^sha256:/),
    });
    expect((await call(emulator.url, 'GET', `${path}/pipesCdcScaling`, { auth: basic('k', 's') })).status).toBe(200);
  });

  it('failPipes: a current-profile service member (names or globs); the seed profile refuses it; a family the service does not have is refused', () => {
    expect(() => parseSeed(seed({ failPipes: ['broken-*'] }), 'seed.yaml', 'current')).not.toThrow();
    expect(() => parseSeed(seed({ failPipes: ['broken-*'] }), 'seed.yaml', 'seed')).toThrow(
      /failPipes: is not a known member here/,
    );
    expect(() => parseSeed(seed({ pipes: [{ name: 'x', source: { oracle: {} } }] }), 'seed.yaml', 'current')).toThrow(
      /invalid emulator seed \(seed.yaml\): organizations\[0\]\.services\[0\]\.pipes\[0\]\.source/,
    );
  });

  it('failPipes: a seeded pipe of that name fails when it is started', async () => {
    const { emulator } = await boot({
      pipeTransitionMs: 0,
      seed: seed({
        failPipes: ['flaky'],
        pipes: [
          {
            id: PIPE,
            name: 'flaky',
            state: 'Stopped',
            source: { kafka: { type: 'kafka', brokers: 'b:9092', topics: 't' } },
            destination: { database: 'd', table: 't' },
          },
        ],
      }),
    });
    const path = `/v1/organizations/${ORG}/services/${SVC}/pipes/${PIPE}`;
    await call(emulator.url, 'PATCH', `${path}/state`, { auth: basic('k', 's'), body: { command: 'start' } });
    expect((await call(emulator.url, 'GET', path, { auth: basic('k', 's') })).json.result.state).toBe('Failed');
  });
});

describe('embedded mode under the current profile', () => {
  it('still seeds its pipes, which now have the whole lifecycle', async () => {
    const embedded = await startEmbedded({ dir: join(dir, 'embedded'), profile: 'current' });
    running.push(embedded.emulator);
    const pipes = await call(embedded.emulator.url, 'GET', `${SERVICE_PATH}/pipes`, { auth: basic() });
    expect(pipes.json.result.map((pipe: { id: string }) => pipe.id)).toEqual(Object.values(IDS.pipes));
    const stopped = await call(embedded.emulator.url, 'PATCH', `${SERVICE_PATH}/pipes/${IDS.pipes.kafka}/state`, {
      auth: basic(),
      body: { command: 'stop' },
    });
    expect(stopped.json.result.state).toBe('Stopping');
    expect((await call(embedded.emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer() })).status).toBe(200);
  });
});
