/**
 * The client against the emulator on loopback, both variants: full reads in the fewest calls,
 * writes of every kind, errors of a real server, and a run under injected faults in which every
 * call that should succeed does, with the retries visible in the hooks.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api, type ApiOptions } from '../../src/api/index.js';
import type { AlertWrite, LiveAlert } from '../../src/kinds/alert/model.js';
import type { DashboardWrite, LiveDashboard, Tile } from '../../src/kinds/dashboard/model.js';
import type { TargetConnection } from '../../src/model/config.js';
import {
  DEFAULT_SEED_IDS,
  defaultSeed,
  startEmulator,
  type RunningEmulator,
  type Seed,
} from '../../src/emulator/index.js';
import { isStacksyncError, type StacksyncError } from '../../src/errors.js';
import { capturedLogger, failure, hookLog, type HookLog } from './helpers.js';
import { seededRandom } from '../helpers/random.js';

const IDS = DEFAULT_SEED_IDS;
const IDLE_SERVICE = '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5eff';
const KAFKA_PASSWORD = 'kafka-pa55word-from-a-manifest';
const KNOWN_SECRETS = [
  IDS.keySecret,
  IDS.token,
  Buffer.from(`${IDS.keyId}:${IDS.keySecret}`).toString('base64'),
  KAFKA_PASSWORD,
];
/** The client's own budget, raised: the emulator has no rate limit unless asked. */
const FAST = { requests: 100_000, perSeconds: 1, concurrency: 16 };

function managed(url: string, overrides: Partial<TargetConnection> = {}): TargetConnection {
  return {
    name: 'managed',
    variant: 'managed',
    baseUrl: url,
    organizationId: IDS.organizationId,
    serviceId: IDS.serviceId,
    credentials: { variant: 'managed', keyId: IDS.keyId, keySecret: IDS.keySecret },
    rateLimit: FAST,
    ...overrides,
  };
}

function selfHosted(url: string, overrides: Partial<TargetConnection> = {}): TargetConnection {
  return {
    name: 'selfhosted',
    variant: 'self-hosted',
    baseUrl: url,
    credentials: { variant: 'self-hosted', token: IDS.token },
    rateLimit: FAST,
    ...overrides,
  };
}

function seedWithIdleService(): Seed {
  const seed = defaultSeed();
  seed.organizations?.[0]?.services?.push({ id: IDLE_SERVICE, state: 'idle' });
  return seed;
}

const TILE: Tile = {
  name: 'p99',
  x: 0,
  y: 0,
  w: 6,
  h: 4,
  series: [{ type: 'time', dataSource: 'events', aggFn: 'quantile', where: 'svc:api' }],
};
const DASHBOARD: DashboardWrite = {
  name: 'api-latency',
  tags: ['api'],
  tiles: [TILE, { ...TILE, name: 'errors', x: 6 }],
};

function alertOn(dashboard: LiveDashboard, name: string, threshold = 500): AlertWrite {
  return {
    name,
    message: `${name} fired`,
    threshold,
    thresholdType: 'above',
    interval: '5m',
    source: 'tile',
    channel: { type: 'webhook', webhookId: 'hook-1' },
    dashboardId: dashboard.id,
    tileId: dashboard.tiles[0]?.id ?? '',
  };
}

async function stats(url: string): Promise<{
  total: number;
  writes: number;
  throttled: number;
  routes: { method: string; route: string; count: number; statuses: Record<string, number> }[];
}> {
  return (await fetch(`${url}/_emulator/stats`)).json() as never;
}

async function resetStats(url: string): Promise<void> {
  await fetch(`${url}/_emulator/reset`, { method: 'POST' });
}

interface Dump {
  organizations: {
    services: {
      id: string;
      pipes: { id: string; name: string }[];
      dashboards: { id: string; name: string; tags: string[]; tiles: { id: string; name: string }[] }[];
      alerts: { id: string; name?: string; threshold: number }[];
    }[];
  }[];
  teams: {
    id: string;
    dashboards: { id: string; name: string; tags: string[] }[];
    alerts: { id: string; name?: string; threshold: number }[];
  }[];
}

async function dump(url: string): Promise<Dump> {
  return (await fetch(`${url}/_emulator/dump`)).json() as never;
}

function stackOf(data: Dump, variant: 'managed' | 'self-hosted') {
  const stack = variant === 'managed' ? data.organizations[0]?.services[0] : data.teams[0];
  if (!stack) throw new Error('no stack in dump');
  return stack;
}

describe('against the emulator', () => {
  let emulator: RunningEmulator;
  const clients: Api[] = [];
  const capturedLines: string[][] = [];
  const errors: unknown[] = [];

  function client(connection: TargetConnection, options: ApiOptions = {}): { api: Api; log: HookLog } {
    const log = hookLog();
    const { logger, lines } = capturedLogger();
    const api = createApi(connection, { hooks: log.hooks, logger, ...options });
    clients.push(api);
    capturedLines.push(lines);
    return { api, log };
  }

  beforeAll(async () => {
    emulator = await startEmulator({ seed: seedWithIdleService() });
  });

  afterAll(async () => {
    await Promise.all(clients.map((api) => api.close()));
    await emulator.close();
    // The secret check covers every log line and every error any test in this file captured.
    for (const text of [
      ...capturedLines.flat(),
      ...errors.flatMap((error) => [String(error), inspect(error, { depth: 10 }), JSON.stringify(error)]),
    ]) {
      for (const secret of KNOWN_SECRETS) expect(text).not.toContain(secret);
    }
  });

  async function expectFailure(call: Promise<unknown>): Promise<StacksyncError> {
    const error = await failure(call);
    errors.push(error);
    return error;
  }

  describe.each(['managed', 'self-hosted'] as const)('%s: full read of 3,000 alerts', (variant) => {
    it('reads everything in the fewest calls', async () => {
      const connection = variant === 'managed' ? managed(emulator.url) : selfHosted(emulator.url);
      const { api: writer } = client(connection);
      const dashboard = await writer.create('Dashboard', { ...DASHBOARD, name: `bulk-${variant}` });
      await Promise.all(
        Array.from({ length: 3000 }, (_, index) => writer.create('Alert', alertOn(dashboard, `bulk-${index}`))),
      );

      await resetStats(emulator.url);
      const { api, log } = client(connection);
      const live = await api.readLiveState();

      expect(live.alerts?.filter((alert) => alert.name?.startsWith('bulk-'))).toHaveLength(3000);
      expect(new Set(live.alerts?.map((alert) => alert.id)).size).toBe(live.alerts?.length);
      expect(live.dashboards?.map((item) => item.name)).toContain(`bulk-${variant}`);
      // Managed: pipes, dashboards, alerts (not its sources, which the seed lists but a target cannot write: read
      // only when a plan asks). Self-hosted: dashboards, and three pages of alerts.
      const expectedCalls = variant === 'managed' ? 3 : 4;
      expect(log.requests).toHaveLength(expectedCalls);
      expect((await stats(emulator.url)).total).toBe(expectedCalls);
      if (variant === 'managed') {
        expect(live.pipes?.map((pipe) => pipe.id).sort()).toEqual(Object.values(IDS.pipes).sort());
      } else {
        expect(log.requests.filter((request) => request.route === '/api/v2/alerts')).toHaveLength(3);
      }
      await writer.remove('Dashboard', dashboard.id);
      const after = await api.list('Alert');
      expect(after.filter((alert) => alert.name?.startsWith('bulk-'))).toHaveLength(0);
    });
  });

  describe.each(['managed', 'self-hosted'] as const)('%s: writes of every kind', (variant) => {
    it('creates, updates and deletes dashboards and alerts', async () => {
      const { api, log } = client(variant === 'managed' ? managed(emulator.url) : selfHosted(emulator.url));
      await resetStats(emulator.url);

      const created = await api.create('Dashboard', { ...DASHBOARD, name: `crud-${variant}` });
      expect(created.tiles.map((tile) => tile.name)).toEqual(['p99', 'errors']);
      const alert = await api.create('Alert', alertOn(created, `crud-alert-${variant}`));
      expect(alert).toMatchObject({
        state: 'inactive',
        silenced: false,
        dashboardId: created.id,
        tileId: created.tiles[0]?.id,
      });

      // An update that sends back the live tile ids keeps them, so the alert keeps watching.
      const updated = await api.update('Dashboard', created.id, {
        name: `crud-${variant}`,
        tags: ['api', 'v2'],
        tiles: created.tiles.map((tile) => ({ ...tile, h: 5 })) as Tile[],
      });
      expect(updated.tiles.map((tile) => tile.id)).toEqual(created.tiles.map((tile) => tile.id));
      expect(updated.tags).toEqual(['api', 'v2']);

      const changed = await api.update('Alert', alert.id, {
        ...alertOn(created, `crud-alert-${variant}`, 900),
        groupBy: 'service',
      });
      expect(changed).toMatchObject({ id: alert.id, threshold: 900, groupBy: 'service' });
      expect((await api.list('Alert')).find((item) => item.id === alert.id)?.threshold).toBe(900);

      await api.remove('Alert', alert.id);
      expect((await expectFailure(api.remove('Alert', alert.id))).code).toBe('E_API_NOT_FOUND');
      await api.remove('Dashboard', created.id);
      expect((await api.list('Dashboard')).some((item) => item.id === created.id)).toBe(false);

      const counts = Object.fromEntries(
        (await stats(emulator.url)).routes.map((route) => [`${route.method} ${route.route}`, route.count]),
      );
      const hooked: Record<string, number> = {};
      for (const request of log.requests)
        hooked[`${request.method} ${request.route}`] = (hooked[`${request.method} ${request.route}`] ?? 0) + 1;
      expect(hooked).toEqual(counts);
    });
  });

  describe('managed only', () => {
    it('updates a pipe (PATCH merge), changes table mappings in two steps, and lists sources', async () => {
      const { api } = client(managed(emulator.url));
      const renamed = await api.update('Pipe', IDS.pipes.kinesis, {
        name: 'clicks-renamed',
        settings: { streaming_max_insert_wait_ms: 1000 },
      });
      expect(renamed).toMatchObject({
        id: IDS.pipes.kinesis,
        name: 'clicks-renamed',
        source: { kind: 'kinesis' },
        settings: { streaming_max_insert_wait_ms: 1000 },
      });

      const withCredentials = await api.update('Pipe', IDS.pipes.kafka, {
        source: { kafka: { credentials: { username: 'orders', password: KAFKA_PASSWORD } } },
      });
      expect(JSON.stringify(withCredentials)).not.toContain(KAFKA_PASSWORD);
      expect(withCredentials.source.block).not.toHaveProperty('credentials');

      const mapping = { sourceSchemaName: 'public', sourceTable: 'customers', targetTable: 'customers' };
      await api.update('Pipe', IDS.pipes.postgres, { source: { postgres: { tableMappingsToRemove: [mapping] } } });
      const readded = await api.update('Pipe', IDS.pipes.postgres, {
        source: { postgres: { tableMappingsToAdd: [{ ...mapping, targetTable: 'clients' }] } },
      });
      expect(readded.source.block['tableMappings']).toContainEqual(
        expect.objectContaining({ sourceTable: 'customers', targetTable: 'clients' }),
      );

      expect((await api.list('Source')).map((source) => source.members['kind']).sort()).toEqual([
        'log',
        'metric',
        'session',
        'trace',
      ]);
    });

    it('classifies a real server’s refusals', async () => {
      const { api } = client(managed(emulator.url));
      const invalid = await expectFailure(
        api.update('Pipe', IDS.pipes.kafka, { fieldMappings: [{ sourceField: 'a', destinationField: 'b' }] }),
      );
      expect(invalid).toMatchObject({ code: 'E_API_VALIDATION', status: 400, details: { serverCode: 'BAD_REQUEST' } });
      expect(invalid.message).toContain('Columns are required if field mappings are provided');

      const missing = await expectFailure(api.update('Pipe', '7a0e1f2c-0009-4b3a-9c4d-5e6f7a8b9c09', { name: 'x' }));
      expect(missing).toMatchObject({
        code: 'E_API_NOT_FOUND',
        status: 404,
        subject: 'PATCH /v1/organizations/{organizationId}/services/{serviceId}/pipes/{pipeId}',
      });

      const { api: wrongKey } = client(
        managed(emulator.url, {
          credentials: { variant: 'managed', keyId: IDS.keyId, keySecret: `${IDS.keySecret}-wrong` },
        }),
      );
      expect(await expectFailure(wrongKey.list('Pipe'))).toMatchObject({ code: 'E_API_AUTH', status: 401 });

      const { api: idle } = client(managed(emulator.url, { serviceId: IDLE_SERVICE }));
      expect(await expectFailure(idle.readLiveState())).toMatchObject({ code: 'E_API_DEPENDENCY', status: 424 });
    });
  });

  describe('self-hosted only', () => {
    it('classifies a real server’s refusals', async () => {
      const { api } = client(selfHosted(emulator.url));
      const invalid = await expectFailure(
        api.create('Alert', {
          ...alertOn({ id: 'nope', name: 'x', tags: [], tiles: [{ ...TILE, id: 't' }] }, 'bad'),
          threshold: Number.NaN,
        }),
      );
      expect(invalid).toMatchObject({ code: 'E_API_VALIDATION', status: 400 });
      expect(invalid.details?.['serverMessage']).toMatch(/^Body validation failed/);

      const { api: wrongToken } = client(
        selfHosted(emulator.url, { credentials: { variant: 'self-hosted', token: `${IDS.token}-wrong` } }),
      );
      const auth = await expectFailure(wrongToken.list('Dashboard'));
      expect(auth).toMatchObject({ code: 'E_API_AUTH', status: 401, details: { serverMessage: 'Unauthorized' } });
    });
  });
});

describe.each(['managed', 'self-hosted'] as const)('%s under faults error=0.2,throttle=0.1,reset=0.05', (variant) => {
  let emulator: RunningEmulator;
  let api: Api;
  let log: HookLog;
  let lines: string[] = [];
  const seen: unknown[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({
      faults: 'error=0.2,throttle=0.1,reset=0.05',
      // Seeds whose first three draws are a reset, an error and a throttle (in some order), so every
      // retry reason shows whichever concurrent request takes them.
      random: seededRandom(variant === 'managed' ? 337 : 316),
    });
    log = hookLog();
    const captured = capturedLogger();
    api = createApi(variant === 'managed' ? managed(emulator.url) : selfHosted(emulator.url), {
      hooks: log.hooks,
      logger: captured.logger,
      retry: { maxAttempts: 20, baseDelayMs: 5, maxDelayMs: 50, maxElapsedMs: 120_000 },
    });
    lines = captured.lines;
  });

  afterAll(async () => {
    await api.close();
    await emulator.close();
    for (const text of [
      ...lines,
      ...seen.flatMap((error) => [String(error), inspect(error, { depth: 10 }), JSON.stringify(error)]),
    ]) {
      for (const secret of KNOWN_SECRETS) expect(text).not.toContain(secret);
    }
  });

  /** What the executor does with an ambiguous create: look it up by name, create again only if absent. */
  async function createOnce<T extends { id: string }>(
    create: () => Promise<T>,
    find: () => Promise<T | undefined>,
  ): Promise<T> {
    for (let round = 0; round < 20; round++) {
      try {
        return await create();
      } catch (error) {
        if (!isStacksyncError(error, 'E_API_AMBIGUOUS')) throw error;
        seen.push(error);
        const found = await find();
        if (found) return found;
      }
    }
    throw new Error('create kept being ambiguous');
  }

  it('every call that should succeed does, retries show in the hooks, nothing is duplicated', async () => {
    const live = await api.readLiveState();
    expect(live.pipes).toHaveLength(variant === 'managed' ? 4 : 0);

    const dashboard = await createOnce(
      () => api.create('Dashboard', { ...DASHBOARD, name: 'faulty' }),
      async () => (await api.list('Dashboard')).find((item) => item.name === 'faulty'),
    );
    const names = Array.from({ length: 12 }, (_, index) => `faulty-${index}`);
    const findAlert = (name: string) => async (): Promise<LiveAlert | undefined> =>
      (await api.list('Alert')).find((item) => item.name === name);
    const alerts = await Promise.all(
      names.map((name) => createOnce(() => api.create('Alert', alertOn(dashboard, name)), findAlert(name))),
    );
    await api.update('Dashboard', dashboard.id, { name: 'faulty', tags: ['chaos'], tiles: dashboard.tiles as Tile[] });
    await Promise.all(
      alerts.slice(0, 6).map((alert) => api.update('Alert', alert.id, alertOn(dashboard, alert.name ?? '', 900))),
    );
    await Promise.all(alerts.slice(9).map((alert) => api.remove('Alert', alert.id)));
    if (variant === 'managed') {
      await api.update('Pipe', IDS.pipes.kinesis, {
        name: 'clicks-under-fire',
        source: { kinesis: { accessKey: { accessKeyId: 'AKIA-test', secretKey: KAFKA_PASSWORD } } },
      });
      expect(await api.list('Source')).toHaveLength(4);
    }

    const stack = stackOf(await dump(emulator.url), variant);
    const dashboards = stack.dashboards.filter((item) => item.name === 'faulty');
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]?.tags).toEqual(['chaos']);
    const stored = stack.alerts.filter((item) => item.name?.startsWith('faulty-'));
    expect(stored.map((item) => item.name).sort()).toEqual(names.slice(0, 9).sort());
    expect(stored.filter((item) => item.threshold === 900)).toHaveLength(6);
    if (variant === 'managed')
      expect(stackOfPipes(await dump(emulator.url)).find((pipe) => pipe.id === IDS.pipes.kinesis)?.name).toBe(
        'clicks-under-fire',
      );

    const reasons = new Set(log.retries.map((retry) => retry.reason));
    expect(reasons).toEqual(new Set(['server_error', 'throttled', 'connection']));
    expect(log.requests.filter((request) => request.status === 'error').length).toBeGreaterThan(0);
    const server = await stats(emulator.url);
    expect(server.throttled).toBe(log.retries.filter((retry) => retry.reason === 'throttled').length);
  });
});

function stackOfPipes(data: Dump): { id: string; name: string }[] {
  return data.organizations[0]?.services[0]?.pipes ?? [];
}
