import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { validateApi } from '../../src/kinds/wire.js';
import { call, IDS, start, type CallOptions, type CallResult } from './helpers.js';

let emulator: RunningEmulator;
let managed: (method: string, suffix: string, options?: CallOptions) => Promise<CallResult>;

beforeEach(async () => {
  ({ emulator, managed } = await start());
});
afterEach(() => emulator.close());

const pipePath = (id: string) => `/pipes/${id}`;
const dump = async () => (await call(emulator.url, 'GET', '/_emulator/dump')).json;
const getPipe = async (id: string) => (await managed('GET', pipePath(id))).json.result;
const secretsOf = async (id: string) => (await dump()).organizations[0].services[0].pipeSecrets[id];

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('reading pipes', () => {
  it('lists the four seeded pipes as full objects in the success envelope', async () => {
    const response = await managed('GET', '/pipes');
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({
      status: 200,
      requestId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    });
    const pipes = response.json.result as Record<string, any>[];
    expect(pipes.map((pipe) => [pipe['name'], Object.keys(pipe['source'])[0]])).toEqual([
      ['orders-kafka', 'kafka'],
      ['events-s3', 'objectStorage'],
      ['clicks-kinesis', 'kinesis'],
      ['billing-postgres', 'postgres'],
    ]);
    for (const pipe of pipes) {
      const checked = validateApi('pipe', pipe);
      expect(checked.ok ? '' : JSON.stringify(checked.issues)).toBe('');
      expect(pipe).toMatchObject({
        serviceId: IDS.serviceId,
        state: 'Running',
        createdAt: expect.stringMatching(ISO_MS),
        destination: { columns: expect.any(Array) },
      });
      expect(pipe['fieldMappings'].length).toBeGreaterThan(0);
      expect(pipe['settings']).toBeTypeOf('object');
    }
    expect(
      pipes[3]!['source'].postgres.tableMappings.map(
        (m: any) => `${m.sourceSchemaName}.${m.sourceTable}→${m.targetTable}`,
      ),
    ).toEqual(['public.invoices→invoices', 'public.customers→customers']);
  });

  it('never returns credentials or access keys', async () => {
    const text = (await managed('GET', '/pipes')).text;
    expect(text).not.toMatch(/credentials|accessKey|password/);
    const secrets = await secretsOf(IDS.pipes.kafka);
    expect(secrets).toEqual({ 'kafka.credentials': expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
  });

  it('gets one pipe, and 404s an unknown one with the managed error shape', async () => {
    expect((await getPipe(IDS.pipes.kinesis)).name).toBe('clicks-kinesis');
    const unknown = '7a0e1f2c-9999-4b3a-9c4d-5e6f7a8b9c99';
    const response = await managed('GET', pipePath(unknown));
    expect(response.status).toBe(404);
    expect(response.json).toEqual({
      status: 404,
      error: `NOT_FOUND: pipe ${unknown} not found`,
      requestId: expect.any(String),
    });
  });
});

describe('PATCH is a merge', () => {
  it('changes only the members sent and keeps the rest', async () => {
    const before = await getPipe(IDS.pipes.kafka);
    const response = await managed('PATCH', pipePath(IDS.pipes.kafka), {
      body: {
        name: 'orders-kafka-v2',
        settings: { engine_max_threads: 16 },
        source: { kafka: { iamRole: 'arn:aws:iam::1:role/new' } },
      },
    });
    expect(response.status).toBe(200);
    const after = response.json.result;
    expect(after).toEqual({
      ...before,
      name: 'orders-kafka-v2',
      settings: { ...before.settings, engine_max_threads: 16 },
      source: { kafka: { ...before.source.kafka, iamRole: 'arn:aws:iam::1:role/new' } },
      updatedAt: expect.stringMatching(ISO_MS),
    });
    expect(after.state).toBe(before.state);
    expect(await getPipe(IDS.pipes.kafka)).toEqual(after);
  });

  it('replaces columns and field mappings together', async () => {
    const body = {
      destination: { columns: [{ name: 'id', type: 'String' }] },
      fieldMappings: [{ sourceField: 'i', destinationField: 'id' }],
    };
    const after = (await managed('PATCH', pipePath(IDS.pipes.kinesis), { body })).json.result;
    expect(after.destination.columns).toEqual(body.destination.columns);
    expect(after.destination.table).toBe('clicks');
    expect(after.fieldMappings).toEqual(body.fieldMappings);
  });

  it('stores credentials as a fingerprint, never returns them, and updates the fingerprint on change', async () => {
    const before = await secretsOf(IDS.pipes.objectStorage);
    expect(before).toEqual({});
    const body = { source: { objectStorage: { accessKey: { accessKeyId: 'AKIA1', secretKey: 'super-secret-key' } } } };
    const response = await managed('PATCH', pipePath(IDS.pipes.objectStorage), { body });
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('super-secret-key');
    expect(response.text).not.toContain('accessKey');
    const first = (await secretsOf(IDS.pipes.objectStorage))['objectStorage.accessKey'];
    expect(first).toMatch(/^sha256:/);
    await managed('PATCH', pipePath(IDS.pipes.objectStorage), {
      body: { source: { objectStorage: { accessKey: { accessKeyId: 'AKIA1', secretKey: 'rotated' } } } },
    });
    expect((await secretsOf(IDS.pipes.objectStorage))['objectStorage.accessKey']).not.toBe(first);
    expect(JSON.stringify(await dump())).not.toContain('super-secret-key');
  });

  it('accepts validateSamples beside the kind block without storing it', async () => {
    const after = (
      await managed('PATCH', pipePath(IDS.pipes.kinesis), {
        body: { source: { validateSamples: true, kinesis: { iamRole: 'r' } } },
      })
    ).json.result;
    expect(after.source).toEqual({ kinesis: expect.objectContaining({ iamRole: 'r' }) });
  });

  it('merges postgres settings and applies table mapping removals then additions', async () => {
    const body = {
      source: {
        postgres: {
          settings: { pullBatchSize: 5000 },
          tableMappingsToRemove: [{ sourceSchemaName: 'public', sourceTable: 'customers', targetTable: 'customers' }],
          tableMappingsToAdd: [{ sourceSchemaName: 'public', sourceTable: 'payments', targetTable: 'payments' }],
        },
      },
    };
    const after = (await managed('PATCH', pipePath(IDS.pipes.postgres), { body })).json.result;
    expect(after.source.postgres.settings).toMatchObject({
      pullBatchSize: 5000,
      syncIntervalSeconds: 60,
      publicationName: 'stacksync_billing',
    });
    expect(after.source.postgres.tableMappings.map((m: any) => m.sourceTable)).toEqual(['invoices', 'payments']);
  });

  it('a changed mapping takes two PATCHes: remove, then add', async () => {
    const mapping = { sourceSchemaName: 'public', sourceTable: 'invoices', targetTable: 'invoices' };
    expect(
      (
        await managed('PATCH', pipePath(IDS.pipes.postgres), {
          body: { source: { postgres: { tableMappingsToRemove: [mapping] } } },
        })
      ).status,
    ).toBe(200);
    const added = await managed('PATCH', pipePath(IDS.pipes.postgres), {
      body: { source: { postgres: { tableMappingsToAdd: [{ ...mapping, targetTable: 'invoices_v2' }] } } },
    });
    expect(added.status).toBe(200);
    expect(added.json.result.source.postgres.tableMappings.map((m: any) => m.targetTable)).toEqual([
      'customers',
      'invoices_v2',
    ]);
  });
});

describe('PATCH rules: 400 naming the member, nothing changes', () => {
  const remove = (table: string, target = table) => ({
    sourceSchemaName: 'public',
    sourceTable: table,
    targetTable: target,
  });
  const rows: { name: string; pipe: keyof typeof IDS.pipes; body?: unknown; raw?: string; error: string }[] = [
    {
      name: 'field mappings without columns',
      pipe: 'kafka',
      body: { fieldMappings: [{ sourceField: 'a', destinationField: 'b' }] },
      error: 'BAD_REQUEST: Columns are required if field mappings are provided',
    },
    {
      name: 'setting above its bound',
      pipe: 'kafka',
      body: { settings: { engine_max_threads: 65 } },
      error: 'BAD_REQUEST: settings.engine_max_threads: must be <= 64',
    },
    {
      name: 'setting below its bound',
      pipe: 'objectStorage',
      body: { settings: { object_storage_max_insert_bytes: 1 } },
      error: 'BAD_REQUEST: settings.object_storage_max_insert_bytes: must be >= 10485760',
    },
    {
      name: 'setting of the wrong type',
      pipe: 'kafka',
      body: { settings: { engine_parallel_view_processing: 'yes' } },
      error: 'BAD_REQUEST: settings.engine_parallel_view_processing: must be boolean',
    },
    {
      name: 'unknown setting',
      pipe: 'kafka',
      body: { settings: { engine_turbo: 1 } },
      error: 'BAD_REQUEST: settings.engine_turbo: is not a known member here',
    },
    {
      name: 'member that cannot be changed',
      pipe: 'kafka',
      body: { source: { kafka: { brokers: 'x:9092' } } },
      error: 'BAD_REQUEST: source.kafka.brokers: is not a known member here',
    },
    { name: 'name of the wrong type', pipe: 'kafka', body: { name: 42 }, error: 'BAD_REQUEST: name: must be string' },
    {
      name: 'column without type',
      pipe: 'kafka',
      body: { destination: { columns: [{ name: 'a' }] } },
      error: 'BAD_REQUEST: destination.columns[0].type: is required',
    },
    {
      name: 'block of another source kind',
      pipe: 'kafka',
      body: { source: { kinesis: { iamRole: 'r' } } },
      error: "BAD_REQUEST: source.kinesis: this pipe's source is kafka, not kinesis",
    },
    {
      name: 'two kind blocks',
      pipe: 'kafka',
      body: { source: { kafka: { iamRole: 'r' }, kinesis: { iamRole: 'r' } } },
      error: 'BAD_REQUEST: source: must hold one source kind, got kafka, kinesis',
    },
    {
      name: 'same table added and removed',
      pipe: 'postgres',
      body: {
        source: {
          postgres: { tableMappingsToAdd: [remove('invoices', 'inv2')], tableMappingsToRemove: [remove('invoices')] },
        },
      },
      error:
        'BAD_REQUEST: source.postgres.tableMappingsToRemove[0]: public.invoices is also in tableMappingsToAdd; remove and add in two requests',
    },
    {
      name: 'removing a mapping that does not exist',
      pipe: 'postgres',
      body: { source: { postgres: { tableMappingsToRemove: [remove('ghosts')] } } },
      error: 'BAD_REQUEST: source.postgres.tableMappingsToRemove[0]: no table mapping public.ghosts → ghosts to remove',
    },
    {
      name: 'removing with the wrong target table',
      pipe: 'postgres',
      body: { source: { postgres: { tableMappingsToRemove: [remove('invoices', 'other')] } } },
      error:
        'BAD_REQUEST: source.postgres.tableMappingsToRemove[0]: no table mapping public.invoices → other to remove',
    },
    {
      name: 'adding a table already mapped',
      pipe: 'postgres',
      body: { source: { postgres: { tableMappingsToAdd: [remove('customers', 'c2')] } } },
      error: 'BAD_REQUEST: source.postgres.tableMappingsToAdd[0]: public.customers is already mapped',
    },
    {
      name: 'valid members beside a rejected mapping change',
      pipe: 'postgres',
      body: {
        name: 'renamed',
        settings: { engine_max_threads: 2 },
        source: {
          postgres: { host: 'new-host', settings: { pullBatchSize: 7 }, tableMappingsToRemove: [remove('ghosts')] },
        },
      },
      error: 'BAD_REQUEST: source.postgres.tableMappingsToRemove[0]: no table mapping public.ghosts → ghosts to remove',
    },
    {
      name: 'mapping without target table',
      pipe: 'postgres',
      body: { source: { postgres: { tableMappingsToAdd: [{ sourceSchemaName: 'public', sourceTable: 't' }] } } },
      error: 'BAD_REQUEST: source.postgres.tableMappingsToAdd[0].targetTable: is required',
    },
    {
      name: 'port out of range',
      pipe: 'postgres',
      body: { source: { postgres: { port: 70000 } } },
      error: 'BAD_REQUEST: source.postgres.port: must be <= 65535',
    },
    { name: 'body not JSON', pipe: 'kafka', raw: '{"name": ', error: 'BAD_REQUEST: request body is not valid JSON' },
    { name: 'empty body', pipe: 'kafka', raw: '', error: 'BAD_REQUEST: a JSON request body is required' },
    { name: 'body is an array', pipe: 'kafka', body: [], error: 'BAD_REQUEST: must be object' },
  ];

  it.each(rows)('$name', async ({ pipe, body, raw, error }) => {
    const before = await dump();
    const options: CallOptions = raw === undefined ? { body } : { raw };
    const response = await managed('PATCH', pipePath(IDS.pipes[pipe]), options);
    expect(response.status).toBe(400);
    expect(response.json.status).toBe(400);
    expect(response.json.error.startsWith(error)).toBe(true);
    expect(await dump()).toEqual(before);
  });

  it('404 for an unknown pipe', async () => {
    const response = await managed('PATCH', pipePath('7a0e1f2c-9999-4b3a-9c4d-5e6f7a8b9c99'), { body: { name: 'x' } });
    expect(response.status).toBe(404);
  });
});

describe('create and delete (served beside PATCH, docs/reference/api-behaviour.md)', () => {
  const newPipe = {
    name: 'new-kinesis',
    source: {
      kinesis: { streamName: 's', region: 'us-east-1', accessKey: { accessKeyId: 'AKIA', secretKey: 'hidden-secret' } },
    },
    destination: { database: 'db', table: 't', columns: [{ name: 'a', type: 'String' }] },
    fieldMappings: [{ sourceField: 'a', destinationField: 'a' }],
  };

  it('creates with a new UUID, answers 200, hides credentials, and deletes', async () => {
    const created = await managed('POST', '/pipes', { body: newPipe });
    expect(created.status).toBe(200);
    const pipe = created.json.result;
    expect(pipe).toMatchObject({
      name: 'new-kinesis',
      serviceId: IDS.serviceId,
      state: 'Provisioning',
      source: { kinesis: { streamName: 's', region: 'us-east-1' } },
    });
    expect(pipe.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    expect(created.text).not.toContain('hidden-secret');
    expect(validateApi('pipe', pipe).ok).toBe(true);
    expect((await managed('GET', '/pipes')).json.result).toHaveLength(5);

    const deleted = await managed('DELETE', pipePath(pipe.id));
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ status: 200, result: {} });
    expect((await managed('GET', pipePath(pipe.id))).status).toBe(404);
    expect((await managed('DELETE', pipePath(pipe.id))).status).toBe(404);
    expect(await secretsOf(pipe.id)).toBeUndefined();
  });

  it('validates the create body', async () => {
    const response = await managed('POST', '/pipes', { body: { name: 'x', source: { kinesis: {} } } });
    expect(response.status).toBe(400);
    expect(response.json.error).toBe('BAD_REQUEST: destination: is required');
    const mappings = await managed('POST', '/pipes', { body: { ...newPipe, destination: { table: 't' } } });
    expect(mappings.json.error).toBe('BAD_REQUEST: Columns are required if field mappings are provided');
  });
});
