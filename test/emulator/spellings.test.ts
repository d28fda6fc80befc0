/**
 * Serving other spellings (docs/reference/config.md: a target may name the path segments and the settings prefix
 * its server uses): the managed product segments renamed (`--paths`), the pipes' engine settings
 * under another prefix (`--settings-prefix`), under both profiles, with `/_emulator/stats`
 * reporting the templates actually served.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorCommand, runEmulator, type EmulatorFlags } from '../../src/cli/emulator.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { basic, call, IDS, SERVICE_PATH } from './helpers.js';
import { createPipe, pipeBody, type Managed } from './pipe-fixtures.js';

const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

const REAL_SPELLING = { paths: { pipes: 'clickpipes', stack: 'clickstack' }, settingsPrefix: 'clickhouse_' } as const;

async function boot(profile: 'seed' | 'current') {
  const emulator = await startEmulator({ logger: false, profile, pipeTransitionMs: 0, ...REAL_SPELLING });
  running.push(emulator);
  const managed: Managed = (method, suffix, options = {}) =>
    call(emulator.url, method, `${SERVICE_PATH}${suffix}`, { auth: basic(), ...options });
  return { emulator, managed };
}

describe('--paths: the managed product segments under other names', () => {
  it.each(['seed', 'current'] as const)(
    '%s profile: …/clickpipes and …/clickstack are served, the seed names are not',
    async (profile) => {
      const { emulator, managed } = await boot(profile);
      expect((await managed('GET', '/clickpipes')).status).toBe(200);
      expect((await managed('GET', `/clickpipes/${IDS.pipes.kafka}`)).json.result.name).toBe('orders-kafka');
      expect((await managed('GET', '/clickstack/dashboards')).status).toBe(200);
      expect((await managed('GET', '/pipes')).status).toBe(404);
      expect((await managed('GET', '/stack/dashboards')).status).toBe(404);
      expect(emulator.paths).toEqual({ pipes: 'clickpipes', stack: 'clickstack' });
    },
  );

  it('current profile: the whole lifecycle under the new names, and stats report the templates served', async () => {
    const { emulator, managed } = await boot('current');
    const pipe = (await managed('POST', '/clickpipes', { body: pipeBody('kafka') })).json.result;
    expect((await managed('PATCH', `/clickpipes/${pipe.id}/state`, { body: { command: 'stop' } })).status).toBe(200);
    expect((await managed('PATCH', `/clickpipes/${pipe.id}/scaling`, { body: { replicas: 2 } })).status).toBe(200);
    expect((await managed('GET', `/clickpipes/${pipe.id}/settings`)).status).toBe(200);
    expect((await managed('GET', '/clickpipesCdcScaling')).json.result).toEqual({
      replicaCpuMillicores: 2000,
      replicaMemoryGb: 8,
    });
    expect((await managed('GET', '/pipesCdcScaling')).status).toBe(404);
    const routes = (await call(emulator.url, 'GET', '/_emulator/stats')).json.routes.map(
      (route: { method: string; route: string }) => `${route.method} ${route.route}`,
    );
    const service = '/v1/organizations/{organizationId}/services/{serviceId}';
    expect(routes).toEqual(
      expect.arrayContaining([
        `POST ${service}/clickpipes`,
        `PATCH ${service}/clickpipes/{pipeId}/state`,
        `PATCH ${service}/clickpipes/{pipeId}/scaling`,
        `GET ${service}/clickpipes/{pipeId}/settings`,
        `GET ${service}/clickpipesCdcScaling`,
      ]),
    );
    expect(routes.filter((route: string) => /\/pipes|\/stack\//.test(route))).toEqual([]);
  });

  it.each([
    { paths: { pipes: 'a/b' }, error: 'pipes must be one path segment' },
    { paths: { pipes: 'same', stack: 'same' }, error: 'pipes and stack must differ' },
  ])('refuses $paths', async ({ paths, error }) => {
    await expect(startEmulator({ logger: false, paths })).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringContaining(error),
    });
  });
});

describe('--settings-prefix: the engine settings under another prefix', () => {
  it.each(['seed', 'current'] as const)(
    '%s profile: answers spell them with the prefix; the prefix is read on writes',
    async (profile) => {
      const { managed } = await boot(profile);
      const seeded = (await managed('GET', `/clickpipes/${IDS.pipes.kafka}`)).json.result;
      expect(seeded.settings).toEqual({
        streaming_max_insert_wait_ms: 5000,
        clickhouse_max_threads: 8,
        clickhouse_max_insert_threads: 1,
        clickhouse_parallel_view_processing: false,
      });
      const patched = await managed('PATCH', `/clickpipes/${IDS.pipes.kafka}`, {
        body: { settings: { clickhouse_max_threads: 16 } },
      });
      expect(patched.json.result.settings.clickhouse_max_threads).toBe(16);
      const tooMany = await managed('PATCH', `/clickpipes/${IDS.pipes.kafka}`, {
        body: { settings: { clickhouse_max_threads: 65 } },
      });
      expect([tooMany.status, tooMany.json.error]).toEqual([
        400,
        'BAD_REQUEST: settings.clickhouse_max_threads: must be <= 64',
      ]);
    },
  );

  it("seed profile: the seed's own spelling is a member this server does not know: 400", async () => {
    const { managed } = await boot('seed');
    const response = await managed('PATCH', `/clickpipes/${IDS.pipes.kafka}`, {
      body: { settings: { engine_max_threads: 16 } },
    });
    expect([response.status, response.json.error]).toEqual([
      400,
      'BAD_REQUEST: settings.engine_max_threads: is not a known member here',
    ]);
  });

  it("current profile: the seed's own spelling is dropped, as unknown members are; settings PUT and GET use the prefix", async () => {
    const { managed } = await boot('current');
    const dropped = await managed('PATCH', `/clickpipes/${IDS.pipes.kafka}`, {
      body: { settings: { engine_max_threads: 16 } },
    });
    expect(dropped.json.result.settings.clickhouse_max_threads).toBe(8);
    const pipe = await createPipe(
      (method, suffix, options) => managed(method, suffix.replace('/pipes', '/clickpipes'), options),
      { ...pipeBody('kafka'), settings: { clickhouse_max_insert_threads: 2 } },
    );
    expect(pipe.settings).toEqual({ clickhouse_max_insert_threads: 2 });
    const put = await managed('PUT', `/clickpipes/${pipe.id}/settings`, {
      body: { clickhouse_max_threads: 4, engine_max_download_threads: 2 },
    });
    expect(put.json.result).toEqual({ clickhouse_max_threads: 4 });
    expect((await managed('GET', `/clickpipes/${pipe.id}/settings`)).json.result).toEqual({
      clickhouse_max_threads: 4,
    });
    const bounded = await managed('PUT', `/clickpipes/${pipe.id}/settings`, {
      body: { clickhouse_max_download_threads: 33 },
    });
    expect(bounded.json.error).toBe('BAD_REQUEST: clickhouse_max_download_threads: must be <= 32');
  });

  it('refuses a prefix that could not start a setting name', async () => {
    await expect(startEmulator({ logger: false, settingsPrefix: 'click-house' })).rejects.toMatchObject({
      code: 'E_USAGE',
    });
  });
});

describe('stacksync emulator: --paths, --settings-prefix, --pipe-delay', () => {
  const flags = (extra: Partial<EmulatorFlags>): EmulatorFlags => ({
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    ...extra,
  });

  it('serves what the flags say, and the banner names the pipes segment', async () => {
    let stop!: (signal: string) => void;
    let output = '';
    let listening!: (emulator: RunningEmulator) => void;
    const ready = new Promise<RunningEmulator>((resolve) => (listening = resolve));
    const done = runEmulator(
      flags({
        profile: 'current',
        paths: 'pipes=clickpipes,stack=clickstack',
        settingsPrefix: 'clickhouse_',
        pipeDelay: 0,
      }),
      {
        stdout: { write: (text: string) => (output += text) },
        stopped: new Promise((resolve) => (stop = resolve)),
        onListening: listening,
      },
    );
    const emulator = await ready;
    const managed: Managed = (method, suffix, options = {}) =>
      call(emulator.url, method, `${SERVICE_PATH}${suffix}`, { auth: basic(), ...options });
    expect(output).toContain(`${SERVICE_PATH}/clickpipes`);
    const pipe = (await managed('POST', '/clickpipes', { body: pipeBody('kafka') })).json.result;
    expect(pipe.state).toBe('Provisioning');
    expect((await managed('GET', `/clickpipes/${pipe.id}`)).json.result.state).toBe('Running');
    expect((await managed('GET', `/clickpipes/${IDS.pipes.kafka}`)).json.result.settings).toHaveProperty(
      'clickhouse_max_threads',
    );
    stop('SIGTERM');
    await done;
  });

  it('--help documents them; a bad --pipe-delay is refused', async () => {
    let help = '';
    const command = () =>
      emulatorCommand(() => {})
        .exitOverride()
        .configureOutput({ writeOut: (text) => (help += text), writeErr: () => {} });
    command().outputHelp();
    const flat = help.replace(/\s+/g, ' ');
    for (const text of [
      '--pipe-delay <d>',
      '--paths <spec>',
      '--settings-prefix <p>',
      'pipefail=P',
      'pipes=clickpipes,stack=clickstack',
    ])
      expect(flat).toContain(text);
    await expect(command().parseAsync(['--pipe-delay', 'soon'], { from: 'user' })).rejects.toMatchObject({
      message: expect.stringContaining('pipe delay must be a duration'),
    });
  });
});
