import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { emulatorCommand, runEmulator, type EmulatorFlags } from '../../src/cli/emulator.js';
import { DEFAULT_SEED_IDS as IDS, type RunningEmulator } from '../../src/emulator/index.js';
import { basic, bearer, call, SERVICE_PATH } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'stacksync-emulator-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const flags = (extra: Partial<EmulatorFlags> = {}): EmulatorFlags => ({
  host: '127.0.0.1',
  port: 0,
  logLevel: 'silent',
  ...extra,
});

/** Runs the command body with a stop switch; resolves once it listens. */
async function run(extra: Partial<EmulatorFlags> = {}) {
  let stop!: (signal: string) => void;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  let output = '';
  let listening!: (emulator: RunningEmulator) => void;
  const ready = new Promise<RunningEmulator>((resolve) => (listening = resolve));
  const done = runEmulator(flags(extra), {
    stdout: { write: (text: string) => (output += text) },
    stopped,
    onListening: listening,
  });
  const emulator = await Promise.race([ready, done.then(() => Promise.reject(new Error('stopped early')))]);
  return { emulator, output: () => output, stop: async () => (stop('SIGTERM'), await done) };
}

describe('runEmulator', () => {
  it('prints the URL, ids, credentials and a curl example per variant, and the examples work', async () => {
    const { emulator, output, stop } = await run();
    const banner = output();
    expect(banner).toContain(`stacksync emulator listening on ${emulator.url}`);
    expect(banner).toContain(`managed organization ${IDS.organizationId}`);
    expect(banner).toContain(`key id ${IDS.keyId}  secret ${IDS.keySecret}`);
    expect(banner).toContain(`service ${IDS.serviceId} (running)`);
    expect(banner).toContain(`pipe ${IDS.pipes.postgres}  billing-postgres (postgres)`);
    expect(banner).toContain(`self-hosted team ${IDS.teamId}  token ${IDS.token}`);
    expect(banner).toContain(`curl -u '${IDS.keyId}:${IDS.keySecret}' ${emulator.url}${SERVICE_PATH}/pipes`);
    expect(banner).toContain(`curl -H 'Authorization: Bearer ${IDS.token}' ${emulator.url}/api/v2/dashboards`);
    expect(banner).not.toContain('emulator-kafka-password');
    expect((await call(emulator.url, 'GET', `${SERVICE_PATH}/pipes`, { auth: basic() })).status).toBe(200);
    expect((await call(emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer() })).status).toBe(200);
    await stop();
    await expect(fetch(`${emulator.url}/_emulator/stats`)).rejects.toThrow();
  });

  it('loads --seed, persists to --data on stop, and hides secrets it cannot know after a restore', async () => {
    const seed = join(dir, 'seed.yaml');
    const data = join(dir, 'state.json');
    writeFileSync(seed, 'teams:\n  - id: ops\n    tokens: [ops-token]\n');
    const first = await run({ seed, data, rateLimit: 100, faults: 'latency=1ms' });
    expect(first.output()).toContain('self-hosted team ops  token ops-token');
    expect(first.output()).not.toContain('managed organization');
    await call(first.emulator.url, 'POST', '/api/v2/dashboards', {
      auth: bearer('ops-token'),
      body: { name: 'persisted' },
    });
    await first.stop();

    const second = await run({ data });
    expect(second.output()).toMatch(/self-hosted team ops {2}token \(not shown: restored from the data file/);
    const listed = await call(second.emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer('ops-token') });
    expect(listed.json.data.map((d: { name: string }) => d.name)).toEqual(['persisted']);
    await second.stop();
  });

  it('fails with E_EMULATOR_DATA for a bad seed file', async () => {
    const seed = join(dir, 'bad.yaml');
    writeFileSync(seed, 'organizations: nope\n');
    await expect(
      runEmulator(flags({ seed }), { stdout: { write: () => true }, stopped: new Promise(() => {}) }),
    ).rejects.toMatchObject({
      code: 'E_EMULATOR_DATA',
      message: expect.stringContaining('organizations: must be array'),
    });
  });
});

describe('emulatorCommand', () => {
  const command = () =>
    emulatorCommand(() => {})
      .exitOverride()
      .configureOutput({ writeOut: () => {}, writeErr: () => {} });

  it('documents every flag and the defaults in --help', () => {
    let help = '';
    command()
      .configureOutput({ writeOut: (text) => (help += text) })
      .outputHelp();
    for (const flag of [
      '--host <host>',
      '--port <port>',
      '--seed <file>',
      '--data <file>',
      '--faults <spec>',
      '--rate-limit <n>',
      '--rate-window <d>',
      '--log-level <level>',
    ]) {
      expect(help).toContain(flag);
    }
    expect(help).toContain('default: 4010');
    expect(help).toContain('default: "127.0.0.1"');
    expect(help).toContain('emulator-key / emulator-secret');
    expect(help).toContain('GET /_emulator/stats');
  });

  it.each([
    [['--port', 'abc'], 'port must be an integer from 0 to 65535.'],
    [['--port', '70000'], 'port must be an integer from 0 to 65535.'],
    [['--rate-limit', '0'], 'rate limit must be an integer from 1 to 1000000.'],
    [['--rate-window', 'soon'], 'rate window must be a duration like 10s or 500ms.'],
    [['--log-level', 'loud'], 'Allowed choices are trace, debug, info, warn, error, fatal, silent.'],
  ])('rejects %j', async (args, message) => {
    await expect(command().parseAsync(args, { from: 'user' })).rejects.toMatchObject({
      message: expect.stringContaining(message),
    });
  });

  it('runs end to end through commander until SIGTERM', async () => {
    let written = '';
    vi.spyOn(process.stdout, 'write').mockImplementation(
      (chunk: string | Uint8Array) => ((written += String(chunk)), true),
    );
    let exitCode: number | undefined;
    const listenersBefore = process.listenerCount('SIGTERM');
    const parsed = emulatorCommand((code) => (exitCode = code)).parseAsync(
      ['--port', '0', '--log-level', 'silent', '--faults', 'latency=1ms'],
      { from: 'user' },
    );
    await vi.waitFor(() => expect(written).toContain('listening on'), { timeout: 5000 });
    const url = /listening on (http:\/\/\S+)/.exec(written)?.[1] ?? '';
    expect((await call(url, 'GET', '/api/v2/alerts', { auth: bearer() })).status).toBe(200);
    process.emit('SIGTERM', 'SIGTERM');
    await parsed;
    expect(exitCode).toBe(0);
    expect(process.listenerCount('SIGTERM')).toBe(listenersBefore);
  });
});
