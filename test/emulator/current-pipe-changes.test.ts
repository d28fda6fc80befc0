/**
 * Changing pipes of the current profile (issue 21; docs/reference/api-behaviour.md, "The real services today: the whole
 * lifecycle"): PATCH with its create-only members (read from the one table the client's differ
 * reads too), table-mapping edits that need a paused pipe, settings, scaling and the service's CDC
 * scaling. Each rule's source is in its test's name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  PIPE_CREATE_ONLY_DESTINATION_MEMBERS,
  PIPE_CREATE_ONLY_SOURCE_MEMBERS,
  PIPE_WRITE_ONLY_SOURCE_MEMBERS,
} from '../../src/schema/pipe-create-only.js';
import { PIPE_FAMILIES, type PipeFamily } from '../../src/schema/pipe-sources.js';
import {
  command,
  createPipe,
  dumpOf,
  EMPTY_SERVICE,
  manualClock,
  pipeBody,
  pubsubBlock,
  startCurrent,
  stateOf,
  type Body,
} from './pipe-fixtures.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function boot(options: Parameters<typeof startCurrent>[0] = {}, service?: string) {
  const started = await startCurrent(options, service);
  emulator = started.emulator;
  return started.managed;
}

/** `{a: {b: value}}` for `a.b`. */
function nested(path: string, value: unknown): Body {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Body;
}

describe('PATCH: create-only members (src/schema/pipe-create-only.ts) are refused, naming them', () => {
  const message = 'is create-only: it cannot change once the pipe exists (delete the pipe and create it again)';
  const members = (family: PipeFamily): string[] => {
    const listed = PIPE_CREATE_ONLY_SOURCE_MEMBERS[family];
    if (listed !== '*') return [...listed];
    return Object.keys(pubsubBlock()).filter((member) => !PIPE_WRITE_ONLY_SOURCE_MEMBERS[family].includes(member));
  };
  const rows = PIPE_FAMILIES.filter((family) => family !== 'bigquery').flatMap((family) =>
    members(family).map((member) => ({ family, member })),
  );

  it.each(rows)('api-behaviour: $family $member', async ({ family, member }) => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody(family));
    const before = await managed('GET', `/pipes/${pipe.id}`);
    const response = await managed('PATCH', `/pipes/${pipe.id}`, {
      body: { name: 'renamed', source: { [family]: nested(member, 'changed') } },
    });
    expect([response.status, response.json.error]).toEqual([
      400,
      `BAD_REQUEST: source.${family}.${member}: ${message}`,
    ]);
    expect((await managed('GET', `/pipes/${pipe.id}`)).json.result).toEqual(before.json.result);
  });

  it.each(PIPE_CREATE_ONLY_DESTINATION_MEMBERS.map((member) => ({ member })))(
    'api-behaviour: destination $member',
    async ({ member }) => {
      const managed = await boot();
      const pipe = await createPipe(managed, pipeBody('kafka'));
      const response = await managed('PATCH', `/pipes/${pipe.id}`, {
        body: { destination: { [member]: 'x', columns: [{ name: 'id', type: 'String' }] } },
      });
      expect([response.status, response.json.error]).toEqual([400, `BAD_REQUEST: destination.${member}: ${message}`]);
    },
  );

  it('every create-only member in one body is named', async () => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody('kafka'));
    const response = await managed('PATCH', `/pipes/${pipe.id}`, {
      body: { source: { kafka: { brokers: 'x', topics: 'y', iamRole: 'fine' } } },
    });
    expect(response.json.error).toBe(`BAD_REQUEST: source.kafka.brokers: ${message}; source.kafka.topics: ${message}`);
  });

  it('the source family itself is create-only', async () => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody('kafka'));
    const response = await managed('PATCH', `/pipes/${pipe.id}`, { body: { source: { kinesis: { iamRole: 'r' } } } });
    expect(response.json.error).toBe(
      "BAD_REQUEST: source.kinesis: this pipe's source is kafka, not kinesis (the source family is create-only)",
    );
  });

  it('api-behaviour: bigquery is snapshot only: every change after create is refused, even before it completes', async () => {
    const managed = await boot({ pipeTransitionMs: 60_000 });
    const pipe = await createPipe(managed, pipeBody('bigquery'));
    const response = await managed('PATCH', `/pipes/${pipe.id}`, { body: { name: 'renamed' } });
    expect([response.status, response.json.error]).toEqual([
      400,
      `BAD_REQUEST: BigQuery pipes are snapshot only: pipe ${pipe.id} takes no change after it is created`,
    ]);
  });
});

describe('PATCH: what may change, changes', () => {
  const rows: { family: PipeFamily; patch: Body; want: (pipe: Body) => unknown; expected: unknown }[] = [
    {
      family: 'kafka',
      patch: { source: { kafka: { iamRole: 'arn:aws:iam::1:role/r', caCertificate: 'PEM' } } },
      want: (p) => [p['source'].kafka.iamRole, p['source'].kafka.caCertificate],
      expected: ['arn:aws:iam::1:role/r', 'PEM'],
    },
    {
      family: 'objectStorage',
      patch: { source: { objectStorage: { skipInitialLoad: false, startAfter: 'events/2026' } } },
      want: (p) => p['source'].objectStorage.startAfter,
      expected: 'events/2026',
    },
    {
      family: 'kinesis',
      patch: { source: { kinesis: { authentication: 'IAM_ROLE', iamRole: 'arn:r' } } },
      want: (p) => p['source'].kinesis.authentication,
      expected: 'IAM_ROLE',
    },
    {
      family: 'postgres',
      patch: { source: { postgres: { host: 'db2.internal', settings: { syncIntervalSeconds: 30 } } } },
      want: (p) => [p['source'].postgres.host, p['source'].postgres.settings],
      expected: ['db2.internal', { replicationMode: 'cdc', pullBatchSize: 1000, syncIntervalSeconds: 30 }],
    },
    {
      family: 'mysql',
      patch: { source: { mysql: { settings: { useCompression: true } } } },
      want: (p) => p['source'].mysql.settings.useCompression,
      expected: true,
    },
    {
      family: 'mongodb',
      patch: { source: { mongodb: { readPreference: 'primary' } } },
      want: (p) => p['source'].mongodb.readPreference,
      expected: 'primary',
    },
    {
      family: 'kafka',
      patch: { settings: { streaming_max_insert_wait_ms: 1000 } },
      want: (p) => p['settings'],
      expected: { streaming_max_insert_wait_ms: 1000 },
    },
    { family: 'kafka', patch: { name: 'renamed' }, want: (p) => p['name'], expected: 'renamed' },
  ];

  it.each(rows)('$family: $patch', async ({ family, patch, want, expected }) => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody(family));
    const response = await managed('PATCH', `/pipes/${pipe.id}`, { body: patch });
    expect(response.status).toBe(200);
    expect(want(response.json.result)).toEqual(expected);
    expect(want((await managed('GET', `/pipes/${pipe.id}`)).json.result)).toEqual(expected);
  });

  it('api-behaviour: credentials are accepted on PATCH, stored as a new fingerprint, never returned', async () => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody('postgres'));
    const secrets = async () =>
      (await dumpOf(emulator!)).organizations[0].services[0].pipeSecrets[pipe.id]['postgres.credentials'];
    const first = await secrets();
    const response = await managed('PATCH', `/pipes/${pipe.id}`, {
      body: { source: { postgres: { credentials: { username: 'u', password: 'rotated-secret' } } } },
    });
    expect(response.text).not.toContain('rotated-secret');
    expect(await secrets()).not.toBe(first);
  });

  it('OpenAPI: sending the redacted mongodb uri back leaves it unchanged', async () => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody('mongodb'));
    const fingerprint = async () =>
      (await dumpOf(emulator!)).organizations[0].services[0].pipeSecrets[pipe.id]['mongodb.uri'];
    const before = await fingerprint();
    const response = await managed('PATCH', `/pipes/${pipe.id}`, {
      body: { source: { mongodb: { uri: pipe.source.mongodb.uri } } },
    });
    expect(response.json.result.source.mongodb.uri).toBe(pipe.source.mongodb.uri);
    expect(await fingerprint()).toBe(before);
  });
});

describe('table mappings of a database pipe: only while paused (provider issue 497)', () => {
  const users = { sourceSchemaName: 'public', sourceTable: 'users', targetTable: 'users' };
  const orders = { sourceSchemaName: 'public', sourceTable: 'orders', targetTable: 'orders' };
  const add = (mapping: Body) => ({ source: { postgres: { tableMappingsToAdd: [mapping] } } });
  const remove = (mapping: Body) => ({ source: { postgres: { tableMappingsToRemove: [mapping] } } });

  async function pausedPostgres(clock = manualClock()) {
    const managed = await boot({ clock: clock.now, pipeTransitionMs: 1000 });
    const pipe = await createPipe(managed, pipeBody('postgres'));
    clock.advance(2000);
    await command(managed, pipe.id, 'stop');
    clock.advance(1000);
    expect(await stateOf(managed, pipe.id)).toBe('Paused');
    return { managed, id: pipe.id as string, clock };
  }

  it('provider: "Postgres ClickPipe must be paused to edit": a mapping edit on a running pipe is refused, nothing changes', async () => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody('postgres'));
    const before = (await managed('GET', `/pipes/${pipe.id}`)).json.result;
    const response = await managed('PATCH', `/pipes/${pipe.id}`, { body: add(orders) });
    expect([response.status, response.json.error]).toEqual([
      400,
      `BAD_REQUEST: Postgres pipe must be paused to edit its table mappings (pipe ${pipe.id} is Running; stop it first)`,
    ]);
    expect((await managed('GET', `/pipes/${pipe.id}`)).json.result).toEqual(before);
  });

  it('api-behaviour: after an added table and a start, the pipe passes through Snapshot, then runs', async () => {
    const { managed, id, clock } = await pausedPostgres();
    const edited = await managed('PATCH', `/pipes/${id}`, { body: add(orders) });
    expect(edited.json.result).toMatchObject({
      state: 'Paused',
      source: { postgres: { tableMappings: [users, orders] } },
    });
    expect((await command(managed, id, 'start')).json.result.state).toBe('Provisioning');
    clock.advance(1000);
    expect(await stateOf(managed, id)).toBe('Snapshot');
    clock.advance(1000);
    expect(await stateOf(managed, id)).toBe('Running');
  });

  it('provider: the service resumes a pipe by itself after an edit; a start that comes later is "already running"', async () => {
    const { managed, id, clock } = await pausedPostgres();
    await managed('PATCH', `/pipes/${id}`, { body: add(orders) });
    clock.advance(1000);
    expect(await stateOf(managed, id)).toBe('Snapshot');
    clock.advance(1000);
    expect(await stateOf(managed, id)).toBe('Running');
    expect((await command(managed, id, 'start')).json.error).toBe(`BAD_REQUEST: pipe ${id} is already running`);
  });

  it('a stop after the edit calls the automatic resume off; the added table is still copied at the next start', async () => {
    const { managed, id, clock } = await pausedPostgres();
    await managed('PATCH', `/pipes/${id}`, { body: add(orders) });
    await command(managed, id, 'stop');
    clock.advance(5000);
    expect(await stateOf(managed, id)).toBe('Paused');
    await command(managed, id, 'start');
    clock.advance(1000);
    expect(await stateOf(managed, id)).toBe('Snapshot');
  });

  it('a removal alone resumes without a snapshot', async () => {
    const { managed, id, clock } = await pausedPostgres();
    await managed('PATCH', `/pipes/${id}`, { body: remove(users) });
    clock.advance(1000);
    expect(await stateOf(managed, id)).toBe('Running');
  });

  it('api-behaviour: one call may not remove and add the same source table; removing one not there is refused', async () => {
    const { managed, id } = await pausedPostgres();
    const both = await managed('PATCH', `/pipes/${id}`, {
      body: {
        source: {
          postgres: { tableMappingsToAdd: [{ ...users, targetTable: 'users_v2' }], tableMappingsToRemove: [users] },
        },
      },
    });
    expect(both.json.error).toBe(
      'BAD_REQUEST: source.postgres.tableMappingsToRemove[0]: public.users is also in tableMappingsToAdd; remove and add in two requests',
    );
    const ghost = await managed('PATCH', `/pipes/${id}`, { body: remove(orders) });
    expect(ghost.json.error).toBe(
      'BAD_REQUEST: source.postgres.tableMappingsToRemove[0]: no table mapping public.orders → orders to remove',
    );
  });

  it('mysql and mongodb follow the same rule; mongodb mappings are keyed by database and collection', async () => {
    const managed = await boot();
    const mysql = await createPipe(managed, pipeBody('mysql'));
    const mongodb = await createPipe(managed, pipeBody('mongodb'));
    const mysqlEdit = await managed('PATCH', `/pipes/${mysql.id}`, {
      body: {
        source: {
          mysql: { tableMappingsToAdd: [{ sourceSchemaName: 'shop', sourceTable: 'items', targetTable: 'items' }] },
        },
      },
    });
    expect(mysqlEdit.json.error).toBe(
      `BAD_REQUEST: MySQL pipe must be paused to edit its table mappings (pipe ${mysql.id} is Running; stop it first)`,
    );
    await command(managed, mongodb.id, 'stop');
    const collection = { sourceDatabaseName: 'app', sourceCollection: 'events', targetTable: 'events' };
    const mongoEdit = await managed('PATCH', `/pipes/${mongodb.id}`, {
      body: { source: { mongodb: { tableMappingsToAdd: [collection] } } },
    });
    expect(mongoEdit.json.result.source.mongodb.tableMappings).toEqual([
      { sourceDatabaseName: 'app', sourceCollection: 'users', targetTable: 'users' },
      collection,
    ]);
    await command(managed, mongodb.id, 'stop');
    const twice = await managed('PATCH', `/pipes/${mongodb.id}`, {
      body: { source: { mongodb: { tableMappingsToAdd: [{ ...collection, targetTable: 'e2' }] } } },
    });
    expect(twice.json.error).toBe('BAD_REQUEST: source.mongodb.tableMappingsToAdd[0]: app.events is already mapped');
  });

  it('api-behaviour: a Completed pipe takes no change but a resync', async () => {
    const managed = await boot();
    const block = pipeBody('postgres')['source'].postgres;
    const pipe = await createPipe(
      managed,
      pipeBody('postgres', 'pg', { ...block, settings: { replicationMode: 'snapshot' } }),
    );
    expect(await stateOf(managed, pipe.id)).toBe('Completed');
    for (const [method, suffix, body] of [
      ['PATCH', '', { name: 'x' }],
      ['PUT', '/settings', {}],
    ] as const) {
      const response = await managed(method, `/pipes/${pipe.id}${suffix}`, { body });
      expect([response.status, response.json.error]).toEqual([
        400,
        `BAD_REQUEST: pipe ${pipe.id} is Completed: it takes no change but a resync`,
      ]);
    }
  });
});

describe('settings: GET and PUT …/pipes/{id}/settings', () => {
  it('PUT replaces the settings; null means the default; GET reads them', async () => {
    const managed = await boot();
    const pipe = await createPipe(managed, {
      ...pipeBody('kafka'),
      settings: { streaming_max_insert_wait_ms: 5000, engine_max_threads: 8 },
    });
    expect((await managed('GET', `/pipes/${pipe.id}/settings`)).json.result).toEqual({
      streaming_max_insert_wait_ms: 5000,
      engine_max_threads: 8,
    });
    const put = await managed('PUT', `/pipes/${pipe.id}/settings`, {
      body: { engine_max_threads: 16, streaming_max_insert_wait_ms: null, kafka_read_committed: true },
    });
    expect(put.json.result).toEqual({ engine_max_threads: 16, kafka_read_committed: true });
    expect((await managed('GET', `/pipes/${pipe.id}`)).json.result.settings).toEqual({
      engine_max_threads: 16,
      kafka_read_committed: true,
    });
  });

  it.each([
    { body: { engine_max_threads: 65 }, error: 'engine_max_threads: must be <= 64' },
    { body: { streaming_max_insert_wait_ms: 499 }, error: 'streaming_max_insert_wait_ms: must be >= 500' },
    {
      body: { object_storage_use_cluster_function: 'yes' },
      error: 'object_storage_use_cluster_function: must be boolean',
    },
  ])('api-behaviour bounds: $error', async ({ body, error }) => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody('kafka'));
    const response = await managed('PUT', `/pipes/${pipe.id}/settings`, { body });
    expect([response.status, response.json.error]).toEqual([400, `BAD_REQUEST: ${error}`]);
  });
});

describe('scaling: PATCH …/pipes/{id}/scaling', () => {
  const rows: { body: Body; error: string }[] = [
    { body: { replicas: 0 }, error: 'replicas: must be >= 1' },
    { body: { replicas: 41 }, error: 'replicas: must be <= 40' },
    { body: { replicas: 1.5 }, error: 'replicas: must be integer' },
    { body: { replicaCpuMillicores: 124 }, error: 'replicaCpuMillicores: must be >= 125' },
    { body: { replicaCpuMillicores: 2001 }, error: 'replicaCpuMillicores: must be <= 2000' },
    { body: { replicaMemoryGb: 0.4 }, error: 'replicaMemoryGb: must be >= 0.5' },
    { body: { replicaMemoryGb: 8.5 }, error: 'replicaMemoryGb: must be <= 8' },
    { body: {}, error: 'give at least one of replicas, replicaCpuMillicores, replicaMemoryGb' },
    { body: { concurrency: 2 }, error: 'concurrency: is only for objectStorage pipes' },
  ];

  it.each(rows)('provider bounds: $body → $error', async ({ body, error }) => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody('kafka'));
    const response = await managed('PATCH', `/pipes/${pipe.id}/scaling`, { body });
    expect([response.status, response.json.error]).toEqual([400, `BAD_REQUEST: ${error}`]);
    expect((await managed('GET', `/pipes/${pipe.id}`)).json.result.scaling).toEqual(pipe.scaling);
  });

  it.each(['kafka', 'kinesis', 'objectStorage'] as const)(
    'api-behaviour: a %s pipe scales within the bounds; a merge',
    async (family) => {
      const managed = await boot();
      const pipe = await createPipe(managed, pipeBody(family));
      const response = await managed('PATCH', `/pipes/${pipe.id}/scaling`, {
        body: { replicas: 10, replicaCpuMillicores: 2000 },
      });
      expect(response.json.result.scaling).toEqual({ replicas: 10, replicaCpuMillicores: 2000, replicaMemoryGb: 1 });
      const memory = await managed('PATCH', `/pipes/${pipe.id}/scaling`, { body: { replicaMemoryGb: 0.5 } });
      expect(memory.json.result.scaling).toEqual({ replicas: 10, replicaCpuMillicores: 2000, replicaMemoryGb: 0.5 });
    },
  );

  it.each(['pubsub', 'postgres', 'mysql', 'mongodb', 'bigquery'] as const)(
    'api-behaviour: a %s pipe does not scale on its own',
    async (family) => {
      const managed = await boot();
      const pipe = await createPipe(managed, pipeBody(family));
      const response = await managed('PATCH', `/pipes/${pipe.id}/scaling`, { body: { replicas: 2 } });
      expect([response.status, response.json.error]).toEqual([
        400,
        `BAD_REQUEST: scaling is only for kafka, kinesis, objectStorage pipes; ${family} pipes share the service's CDC scaling`,
      ]);
    },
  );

  it('OpenAPI: concurrency is for object storage', async () => {
    const managed = await boot();
    const pipe = await createPipe(managed, pipeBody('objectStorage'));
    expect(
      (await managed('PATCH', `/pipes/${pipe.id}/scaling`, { body: { concurrency: 4 } })).json.result.scaling
        .concurrency,
    ).toBe(4);
  });
});

describe('CDC scaling: GET and PATCH …/pipesCdcScaling, one per service', () => {
  it('api-behaviour: 404 until a database pipe has been provisioned; then 2 CPU + 8 GB; a change shows one transition later', async () => {
    const clock = manualClock();
    const managed = await boot({ clock: clock.now, pipeTransitionMs: 1000 }, EMPTY_SERVICE);
    const missing = await managed('GET', '/pipesCdcScaling');
    expect([missing.status, missing.json.error]).toEqual([
      404,
      `NOT_FOUND: CDC scaling of service ${EMPTY_SERVICE} not found: it exists once a database pipe has been provisioned`,
    ]);
    await createPipe(managed, pipeBody('kafka'));
    await createPipe(managed, pipeBody('postgres'));
    expect((await managed('GET', '/pipesCdcScaling')).status).toBe(404);
    expect(
      (await managed('PATCH', '/pipesCdcScaling', { body: { replicaCpuMillicores: 4000, replicaMemoryGb: 16 } }))
        .status,
    ).toBe(404);
    clock.advance(1000);
    expect((await managed('GET', '/pipesCdcScaling')).json.result).toEqual({
      replicaCpuMillicores: 2000,
      replicaMemoryGb: 8,
    });
    const patched = await managed('PATCH', '/pipesCdcScaling', {
      body: { replicaCpuMillicores: 4000, replicaMemoryGb: 16 },
    });
    expect(patched.json.result).toEqual({ replicaCpuMillicores: 4000, replicaMemoryGb: 16 });
    expect((await managed('GET', '/pipesCdcScaling')).json.result).toEqual({
      replicaCpuMillicores: 2000,
      replicaMemoryGb: 8,
    });
    clock.advance(1000);
    expect((await managed('GET', '/pipesCdcScaling')).json.result).toEqual({
      replicaCpuMillicores: 4000,
      replicaMemoryGb: 16,
    });
  });

  it('a database pipe that failed provisioning does not bring it', async () => {
    const managed = await boot({}, EMPTY_SERVICE);
    await createPipe(managed, pipeBody('postgres', 'broken-pg'));
    expect(await stateOf(managed, (await managed('GET', '/pipes')).json.result[0].id)).toBe('Failed');
    expect((await managed('GET', '/pipesCdcScaling')).status).toBe(404);
  });

  const rows: { body: Body; error: string }[] = [
    {
      body: { replicaCpuMillicores: 500, replicaMemoryGb: 4 },
      error: 'replicaCpuMillicores: must be >= 1000; replicaCpuMillicores: must be multiple of 1000',
    },
    {
      body: { replicaCpuMillicores: 25000, replicaMemoryGb: 100 },
      error: 'replicaCpuMillicores: must be <= 24000; replicaMemoryGb: must be <= 96',
    },
    {
      body: { replicaCpuMillicores: 1500, replicaMemoryGb: 6 },
      error: 'replicaCpuMillicores: must be multiple of 1000; replicaMemoryGb: must be multiple of 4',
    },
    {
      body: { replicaCpuMillicores: 4000, replicaMemoryGb: 8 },
      error: 'replicaMemoryGb: must be 4 GB per CPU core: 16 for 4000 millicores',
    },
    { body: { replicaCpuMillicores: 2000 }, error: 'replicaMemoryGb: is required' },
  ];

  it.each(rows)('provider bounds: $body → $error', async ({ body, error }) => {
    const managed = await boot();
    await createPipe(managed, pipeBody('postgres'));
    const response = await managed('PATCH', '/pipesCdcScaling', { body });
    expect([response.status, response.json.error]).toEqual([400, `BAD_REQUEST: ${error}`]);
    expect((await managed('GET', '/pipesCdcScaling')).json.result).toEqual({
      replicaCpuMillicores: 2000,
      replicaMemoryGb: 8,
    });
  });
});
