/**
 * The emulator under hostile or careless clients (issue 15): credentials are checked from the
 * headers before a body is read, only authenticated requests spend a rate budget, the
 * Authorization header is parsed strictly, dumps hold salted hashes, a client that hangs up is
 * not a server error, and a busy port is one clear line.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorData, type RunningEmulator, type Seed } from '../../src/emulator/index.js';
import { basic, bearer, call, IDS, SERVICE_PATH, start } from './helpers.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Sends the headers and the first bytes of a body that is never finished; resolves with the answer, if one comes. */
function partialRequest(
  url: string,
  path: string,
  headers: Record<string, string>,
  declared: number,
): Promise<{ response: IncomingMessage; body: string; abort: () => void }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request({
      hostname,
      port,
      path,
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': String(declared), ...headers },
    });
    req.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ response, body, abort: () => req.destroy() }));
    });
    req.on('error', reject);
    req.write(Buffer.alloc(1024, 0x20));
  });
}

/** The promise, or a failure once `ms` have passed (a bound on a condition, not a timing assertion). */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms).unref()),
  ]);
}

describe('credentials before the body', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    ({ emulator } = await start());
  });
  afterAll(() => emulator.close());

  it.each([
    { variant: 'managed', path: `${SERVICE_PATH}/stack/dashboards`, auth: basic(IDS.keyId, 'wrong') },
    { variant: 'self-hosted', path: '/api/v2/dashboards', auth: bearer('wrong-token') },
  ])('answers 401 on the $variant variant without waiting for the body', async ({ path, auth }) => {
    const { response, abort } = await within(
      5_000,
      partialRequest(emulator.url, path, { authorization: auth }, 1024 * 1024),
      'answer before the body',
    );
    abort();
    expect(response.statusCode).toBe(401);
  });

  const rows = [
    { name: 'a body that is not JSON', raw: '{"name": ' },
    { name: 'a body of the wrong shape', raw: JSON.stringify({ tiles: 'nope' }) },
    { name: 'a body over the size limit', raw: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20) },
  ];
  it.each(rows)('answers 401, not 400 or 413, for bad credentials with $name', async ({ raw }) => {
    const managed = await call(emulator.url, 'POST', `${SERVICE_PATH}/stack/dashboards`, {
      auth: basic(IDS.keyId, 'wrong'),
      raw,
    });
    expect([managed.status, managed.json?.error]).toEqual([401, 'UNAUTHORIZED: invalid key id or key secret']);
    const selfHosted = await call(emulator.url, 'POST', '/api/v2/dashboards', { auth: bearer('wrong-token'), raw });
    expect([selfHosted.status, selfHosted.text]).toEqual([401, 'Unauthorized']);
  });

  it('still reads, validates and answers 400 for good credentials', async () => {
    const response = await call(emulator.url, 'POST', '/api/v2/dashboards', { auth: bearer(), raw: '{"name": ' });
    expect(response.status).toBe(400);
  });
});

describe('the Authorization header, parsed strictly', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    ({ emulator } = await start());
  });
  afterAll(() => emulator.close());

  const encoded = Buffer.from(`${IDS.keyId}:${IDS.keySecret}`).toString('base64');
  const rows: { header: string; path: string; status: number }[] = [
    { header: `Bearer ${IDS.token}`, path: '/api/v2/dashboards', status: 200 },
    { header: `bearer ${IDS.token}`, path: '/api/v2/dashboards', status: 200 },
    { header: `Bearer ${IDS.token} junk`, path: '/api/v2/dashboards', status: 401 },
    { header: `Bearer ${IDS.token},extra`, path: '/api/v2/dashboards', status: 401 },
    { header: `Bearer`, path: '/api/v2/dashboards', status: 401 },
    { header: `Token ${IDS.token}`, path: '/api/v2/dashboards', status: 401 },
    { header: `Basic ${encoded}`, path: `${SERVICE_PATH}/pipes`, status: 200 },
    { header: `Basic ${encoded} junk`, path: `${SERVICE_PATH}/pipes`, status: 401 },
    { header: `Basic ${encoded.replace(/=+$/, '')}!`, path: `${SERVICE_PATH}/pipes`, status: 401 },
    { header: `Basic ${encoded.slice(1)}`, path: `${SERVICE_PATH}/pipes`, status: 401 },
  ];
  it.each(rows)('"$header" → $status', async ({ header, path, status }) => {
    expect((await call(emulator.url, 'GET', path, { auth: header })).status).toBe(status);
  });
});

describe('rate limits spend only authenticated budgets', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it.each([
    { variant: 'managed', path: `${SERVICE_PATH}/pipes`, wrong: basic(IDS.keyId, 'wrong-secret'), right: basic() },
    { variant: 'self-hosted', path: '/api/v2/dashboards', wrong: bearer('not-a-token'), right: bearer() },
  ])('on the $variant variant, wrong credentials do not use up the real one', async ({ path, wrong, right }) => {
    const now = 1_800_000_000_250;
    ({ emulator } = await start({ rateLimit: 2, clock: () => now }));
    for (let i = 0; i < 5; i++) expect((await call(emulator.url, 'GET', path, { auth: wrong })).status).toBe(401);
    expect((await call(emulator.url, 'GET', path, { auth: null })).status).toBe(401);
    expect((await call(emulator.url, 'GET', path, { auth: right })).status).toBe(200);
    expect((await call(emulator.url, 'GET', path, { auth: right })).status).toBe(200);
    expect((await call(emulator.url, 'GET', path, { auth: right })).status).toBe(429);
  });
});

describe('credential hashes in the dump', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stacksync-hardening-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const running: RunningEmulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  });
  const boot = async (options: Parameters<typeof startEmulator>[0] = {}) => {
    const emulator = await startEmulator({ logger: false, ...options });
    running.push(emulator);
    return emulator;
  };
  const dumpOf = async (emulator: RunningEmulator): Promise<EmulatorData> =>
    (await call(emulator.url, 'GET', '/_emulator/dump')).json;

  it('are salted: never the plain SHA-256 of a secret, and different in each fresh emulator', async () => {
    const [first, second] = [await dumpOf(await boot()), await dumpOf(await boot())];
    const keyHash = first.organizations[0]!.keys[0]!.secretSha256;
    const tokenHash = first.teams[0]!.tokenSha256[0]!;
    expect(keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(keyHash).not.toBe(sha256(IDS.keySecret));
    expect(tokenHash).not.toBe(sha256(IDS.token));
    expect(second.organizations[0]!.keys[0]!.secretSha256).not.toBe(keyHash);
    expect(second.teams[0]!.tokenSha256[0]).not.toBe(tokenHash);
  });

  it('keep their salt in the data file, not in the dump, and still authenticate after a restart', async () => {
    const dataFile = join(dir, 'salted.json');
    const first = await boot({ dataFile });
    const dumped = JSON.stringify(await dumpOf(first));
    await first.close();
    const file = JSON.parse(readFileSync(dataFile, 'utf8')) as { credentialSalt: string };
    expect(file.credentialSalt).toMatch(/^[0-9a-f]{64}$/);
    expect(dumped).not.toContain(file.credentialSalt);
    const second = await boot({ dataFile });
    expect((await call(second.url, 'GET', `${SERVICE_PATH}/pipes`, { auth: basic() })).status).toBe(200);
    expect((await call(second.url, 'GET', '/api/v2/dashboards', { auth: bearer() })).status).toBe(200);
  });

  it('upgrade a data file written before salting: its plain hashes are salted and the secrets still work', async () => {
    const dataFile = join(dir, 'legacy.json');
    const seed: Seed = {
      organizations: [{ id: IDS.organizationId, keys: [{ id: 'k', secret: 'legacy-secret' }], services: [] }],
      teams: [{ id: 't', tokens: ['legacy-token'] }],
    };
    const state = {
      version: 1,
      organizations: [
        { id: IDS.organizationId, keys: [{ id: 'k', secretSha256: sha256('legacy-secret') }], services: [] },
      ],
      teams: [{ id: 't', tokenSha256: [sha256('legacy-token')], dashboards: [], alerts: [] }],
    };
    writeFileSync(dataFile, JSON.stringify({ format: 'stacksync-emulator-data', state }));
    const emulator = await boot({ dataFile, seed });
    expect((await call(emulator.url, 'GET', '/api/v2/dashboards', { auth: bearer('legacy-token') })).status).toBe(200);
    const text = JSON.stringify(await dumpOf(emulator));
    expect(text).not.toContain(sha256('legacy-secret'));
    expect(text).not.toContain(sha256('legacy-token'));
    expect(readFileSync(dataFile, 'utf8')).not.toContain(sha256('legacy-token'));
  });
});

describe('a client that hangs up', () => {
  it('is a debug line, not an error with a stack, and is not counted as a 500', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const emulator = await startEmulator({ logger: pino({ level: 'debug' }, sink) });
    try {
      const { hostname, port } = new URL(emulator.url);
      const req = request({
        hostname,
        port,
        path: '/api/v2/dashboards',
        method: 'POST',
        agent: false,
        headers: { authorization: bearer(), 'content-type': 'application/json', 'content-length': '100000' },
      });
      req.on('error', () => {});
      req.write('{"name": "half');
      await new Promise((resolve) => setTimeout(resolve, 50));
      req.destroy();
      await within(
        5_000,
        waitFor(() => lines.some((line) => line['msg'] === 'client disconnected before the answer')),
        'disconnect line',
      );
      expect(lines.filter((line) => Number(line['level']) >= 50)).toEqual([]);
      const stats = (await call(emulator.url, 'GET', '/_emulator/stats')).json;
      expect(JSON.stringify(stats.routes)).not.toContain('"500"');
    } finally {
      await emulator.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a busy port', () => {
  let holder: RunningEmulator;
  beforeAll(async () => {
    holder = await startEmulator({ logger: false });
  });
  afterAll(() => holder.close());

  it('fails startEmulator with E_USAGE and one line that says so', async () => {
    const error = await startEmulator({ logger: false, port: holder.port }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({
      code: 'E_USAGE',
      message: `cannot listen on 127.0.0.1:${holder.port}: the port is already in use (stop what holds it, or pick another with --port; 0 picks a free one)`,
    });
  });

  it('makes `stacksync emulator` print one line and exit 1', async () => {
    const child = spawn(process.execPath, [CLI, 'emulator', '--port', String(holder.port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await within(10_000, new Promise<number | null>((resolve) => child.once('exit', resolve)), 'exit');
    expect(code).toBe(1);
    // Off a terminal the emulator logs JSON records: its one line is one.
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 50,
      code: 'E_USAGE',
      msg: `cannot listen on 127.0.0.1:${holder.port}: the port is already in use (stop what holds it, or pick another with --port; 0 picks a free one)`,
    });
  });
});
