import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { isStacksyncError } from '../../src/errors.js';
import { defaultSeed, DEFAULT_SEED_IDS, loadSeedFile, parseSeed, type Seed } from '../../src/emulator/index.js';
import { call, start, basic } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'stacksync-seed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ORG = '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a09';
const SVC = '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e09';
const PIPE = '7a0e1f2c-0009-4b3a-9c4d-5e6f7a8b9c09';

const fileSeed = {
  organizations: [
    {
      id: ORG,
      keys: [{ id: 'key-1', secret: 's3cret' }],
      services: [
        {
          id: SVC,
          state: 'running',
          pipes: [
            {
              id: PIPE,
              name: 'orders',
              state: 'Paused',
              source: { kafka: { brokers: 'b:9092', topics: 'orders', credentials: { username: 'u', password: 'p' } } },
              destination: { table: 'orders' },
            },
          ],
          sources: [{ id: '5d0c3b2a-0009-4e5f-8a9b-0c1d2e3f4a09', name: 'app logs', kind: 'log' }],
        },
      ],
    },
  ],
  teams: [{ id: 'team-1', tokens: ['tok-1'] }],
};

function errorOf(action: () => unknown): Error & { code?: string } {
  try {
    action();
  } catch (error) {
    expect(isStacksyncError(error, 'E_EMULATOR_DATA')).toBe(true);
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('seed files', () => {
  it.each(['yaml', 'json'])('loads a %s seed and serves what it declares', async (format) => {
    const file = join(dir, `seed.${format}`);
    writeFileSync(file, format === 'yaml' ? stringify(fileSeed) : JSON.stringify(fileSeed));
    const seed = loadSeedFile(file);
    expect(seed).toEqual(fileSeed);
    const { emulator } = await start({ seed });
    try {
      const base = `/v1/organizations/${ORG}/services/${SVC}`;
      const pipes = (await call(emulator.url, 'GET', `${base}/pipes`, { auth: basic('key-1', 's3cret') })).json.result;
      expect(pipes).toEqual([
        expect.objectContaining({
          id: PIPE,
          name: 'orders',
          state: 'Paused',
          serviceId: SVC,
          destination: { table: 'orders' },
        }),
      ]);
      expect(JSON.stringify(pipes)).not.toContain('credentials');
      const sources = (await call(emulator.url, 'GET', `${base}/stack/sources`, { auth: basic('key-1', 's3cret') }))
        .json.result;
      expect(sources).toEqual([{ id: '5d0c3b2a-0009-4e5f-8a9b-0c1d2e3f4a09', name: 'app logs', kind: 'log' }]);
    } finally {
      await emulator.close();
    }
  });

  it('gives a service without sources one of each kind', async () => {
    const { emulator } = await start({
      seed: { organizations: [{ id: ORG, keys: [{ id: 'k', secret: 's' }], services: [{ id: SVC }] }] },
    });
    try {
      const sources = (
        await call(emulator.url, 'GET', `/v1/organizations/${ORG}/services/${SVC}/stack/sources`, {
          auth: basic('k', 's'),
        })
      ).json.result;
      expect(sources.map((s: any) => s.kind)).toEqual(['log', 'trace', 'metric', 'session']);
      for (const source of sources) expect(source.id).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await emulator.close();
    }
  });

  const bad: { name: string; seed: unknown; message: string }[] = [
    {
      name: 'organization without keys',
      seed: { organizations: [{ id: ORG }] },
      message: 'organizations[0].keys: is required',
    },
    {
      name: 'organization id not a UUID',
      seed: { organizations: [{ id: 'org-1', keys: [{ id: 'k', secret: 's' }] }] },
      message: 'organizations[0].id: must match format "uuid"',
    },
    {
      name: 'unknown service state',
      seed: {
        organizations: [{ id: ORG, keys: [{ id: 'k', secret: 's' }], services: [{ id: SVC, state: 'sleeping' }] }],
      },
      message: 'organizations[0].services[0].state: must be one of running, idle, stopped',
    },
    {
      name: 'pipe setting out of bounds',
      seed: {
        organizations: [
          {
            id: ORG,
            keys: [{ id: 'k', secret: 's' }],
            services: [
              { id: SVC, pipes: [{ name: 'p', source: { kinesis: {} }, settings: { engine_max_threads: 99 } }] },
            ],
          },
        ],
      },
      message: 'organizations[0].services[0].pipes[0].settings.engine_max_threads: must be <= 64',
    },
    {
      name: 'pipe with fieldMappings but no columns',
      seed: {
        organizations: [
          {
            id: ORG,
            keys: [{ id: 'k', secret: 's' }],
            services: [
              {
                id: SVC,
                pipes: [
                  { name: 'p', source: { kinesis: {} }, fieldMappings: [{ sourceField: 'a', destinationField: 'b' }] },
                ],
              },
            ],
          },
        ],
      },
      message: 'Columns are required if field mappings are provided',
    },
    { name: 'team without tokens', seed: { teams: [{ id: 't' }] }, message: 'teams[0].tokens: is required' },
    { name: 'unknown top-level member', seed: { orgs: [] }, message: 'orgs: is not a known member here' },
    {
      name: 'duplicate key id',
      seed: {
        organizations: [
          {
            id: ORG,
            keys: [
              { id: 'k', secret: 'a' },
              { id: 'k', secret: 'b' },
            ],
          },
        ],
      },
      message: 'key id k is used twice',
    },
    {
      name: 'duplicate token (not echoed)',
      seed: {
        teams: [
          { id: 'a', tokens: ['same-token'] },
          { id: 'b', tokens: ['same-token'] },
        ],
      },
      message: 'a team token is used twice',
    },
    {
      name: 'pipe under the wrong service',
      seed: {
        organizations: [
          {
            id: ORG,
            keys: [{ id: 'k', secret: 's' }],
            services: [{ id: SVC, pipes: [{ name: 'p', serviceId: ORG, source: { kinesis: {} } }] }],
          },
        ],
      },
      message: `pipe p names serviceId ${ORG} but is seeded under service ${SVC}`,
    },
  ];
  it.each(bad)('rejects a seed with $name, naming the path', async ({ seed, message }) => {
    const error = errorOf(() => parseSeed(seed, 'my-seed.yaml'));
    expect(error.message).toContain('invalid emulator seed (my-seed.yaml)');
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('same-token');
  });

  it('rejects a bad seed passed to startEmulator', async () => {
    await expect(start({ seed: { teams: [{ id: 't', tokens: [] }] } as Seed })).rejects.toMatchObject({
      code: 'E_EMULATOR_DATA',
    });
  });

  it('reports YAML syntax errors and missing files with the file name', () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'organizations: [\n  - id: x\n');
    expect(errorOf(() => loadSeedFile(file)).message).toMatch(/broken\.yaml.*not valid YAML or JSON/);
    expect(errorOf(() => loadSeedFile(join(dir, 'nope.yaml'))).message).toMatch(/cannot read seed file .*nope\.yaml/);
  });

  it('treats an empty file as an empty seed', () => {
    const file = join(dir, 'empty.yaml');
    writeFileSync(file, '');
    expect(loadSeedFile(file)).toEqual({});
  });
});

describe('the built-in seed', () => {
  it('is valid and uses the fixed ids', () => {
    const seed = parseSeed(defaultSeed());
    const org = seed.organizations![0]!;
    expect(org.id).toBe(DEFAULT_SEED_IDS.organizationId);
    expect(org.keys).toEqual([{ id: 'emulator-key', secret: 'emulator-secret' }]);
    expect(org.services![0]!.id).toBe(DEFAULT_SEED_IDS.serviceId);
    expect(org.services![0]!.pipes!.map((p) => [p.id, p.name])).toEqual([
      [DEFAULT_SEED_IDS.pipes.kafka, 'orders-kafka'],
      [DEFAULT_SEED_IDS.pipes.objectStorage, 'events-s3'],
      [DEFAULT_SEED_IDS.pipes.kinesis, 'clicks-kinesis'],
      [DEFAULT_SEED_IDS.pipes.postgres, 'billing-postgres'],
    ]);
    expect(seed.teams).toEqual([{ id: 'team-1', tokens: ['emulator-token'] }]);
  });

  it('is a fresh copy each time', () => {
    const first = defaultSeed();
    first.teams![0]!.tokens.push('mutated');
    expect(defaultSeed().teams![0]!.tokens).toEqual(['emulator-token']);
  });
});
