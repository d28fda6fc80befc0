/**
 * A daemon only its operator can drive (issue 33, item 2), tried as a web page would try it
 * against the built CLI's `stacksync run` on loopback: a cross-site form post to `/-/reload` is
 * refused and starts no sync, a name other than loopback's gets 421 (DNS rebinding), every answer
 * says `nosniff`, and a reload token, when configured, is the only way in.
 */
import { request } from 'node:http';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSum, startDaemon, waitUntil, type RunningDaemon } from '../helpers/daemon.js';
import { sharedEmulator, type Workspace } from '../helpers/workspace.js';

const shared = sharedEmulator();
const RELOAD_TOKEN = 'reload-token-7f3a9c';
const CONTROL_TOKEN = 'control-token-2b8e41';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request as a browser (or anything) may send it, `Host` included; node's fetch would set its own. */
function send(
  daemon: RunningDaemon,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<Answer> {
  const url = new URL(daemon.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { host: url.host, ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface TargetJson {
  syncing: boolean;
  lastSyncAt?: string;
}

async function targets(daemon: RunningDaemon): Promise<Record<string, TargetJson>> {
  return (JSON.parse((await daemon.get('/status')).text) as { targets: Record<string, TargetJson> }).targets;
}

async function syncCount(daemon: RunningDaemon): Promise<number> {
  return metricSum((await daemon.get('/metrics')).text, 'stacksync_reconcile_total');
}

async function startOn(workspace: Workspace, env: Record<string, string> = {}): Promise<RunningDaemon> {
  const daemon = await startDaemon(workspace, ['--log-level', 'warn'], env);
  await waitUntil(async () => (await daemon.get('/readyz')).status === 200, 30_000);
  return daemon;
}

const FORM = 'field=1';
const MULTIPART = '--x\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n';

describe('a daemon on loopback, without a reload token', () => {
  let daemon: RunningDaemon | undefined;
  let port: string;

  beforeAll(async () => {
    daemon = await startOn(await shared.workspace({ rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } }));
    port = new URL(daemon.url).port;
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
  });

  // What a page on another site can send without a preflight: a form (three encodings), from a
  // page (Origin), a sandboxed frame or a file (Origin: null), or a browser that names only the site.
  it.each<[string, Record<string, string>, string]>([
    [
      'a text/plain form from https://evil.example',
      { 'content-type': 'text/plain', origin: 'https://evil.example' },
      '{"x":1}',
    ],
    [
      'an urlencoded form from https://evil.example',
      { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      FORM,
    ],
    [
      'a multipart form from Origin: null',
      { 'content-type': 'multipart/form-data; boundary=x', origin: 'null' },
      MULTIPART,
    ],
    ['a text/plain form from Origin: null', { 'content-type': 'text/plain;charset=UTF-8', origin: 'null' }, 'x'],
    [
      'a form whose browser says Sec-Fetch-Site: cross-site only',
      { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      FORM,
    ],
    [
      'JSON from another origin (a fetch that a preflight would have stopped)',
      { 'content-type': 'application/json', origin: 'http://127.0.0.1:1' },
      '{}',
    ],
    ['a form with no Origin at all (an old browser)', { 'content-type': 'application/x-www-form-urlencoded' }, FORM],
    ['an empty POST with no header (curl -XPOST)', {}, ''],
  ])('refuses %s to POST /-/reload with 403, and starts no sync', async (_name, headers, body) => {
    const running = daemon as RunningDaemon;
    const before = await targets(running);
    const count = await syncCount(running);
    const answer = await send(running, 'POST', '/-/reload', headers, body);
    expect(answer.status).toBe(403);
    expect(answer.text).toMatch(/^forbidden: /);
    const after = await targets(running);
    expect(Object.values(after).map((target) => target.syncing)).toEqual(Object.values(before).map(() => false));
    expect(Object.values(after).map((target) => target.lastSyncAt)).toEqual(
      Object.values(before).map((target) => target.lastSyncAt),
    );
    expect(await syncCount(running)).toBe(count);
  });

  it('refuses a cross-site POST to the other routes as well (403, not their 405)', async () => {
    const running = daemon as RunningDaemon;
    for (const path of ['/-/suspend?target=local', '/-/resume?target=local', '/status', '/']) {
      expect(
        (await send(running, 'POST', path, { 'content-type': 'text/plain', origin: 'https://evil.example' }, 'x'))
          .status,
      ).toBe(403);
    }
  });

  it.each<[string, Record<string, string>]>([
    ['Content-Type: application/json', { 'content-type': 'application/json' }],
    ["git-sync's Gitsync-Hash", { 'gitsync-hash': 'a'.repeat(40) }],
    [
      'JSON from its own origin',
      { 'content-type': 'application/json', origin: 'http://127.0.0.1:PORT', 'sec-fetch-site': 'same-origin' },
    ],
  ])('runs a reload sent with %s: 202, and every target syncs', async (_name, headers) => {
    const running = daemon as RunningDaemon;
    const before = await targets(running);
    const withPort = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, value.replace('PORT', port)]),
    );
    const answer = await send(running, 'POST', '/-/reload', withPort, '{}');
    expect([answer.status, answer.text]).toEqual([202, 'reload triggered\n']);
    await waitUntil(
      async () =>
        Object.entries(await targets(running)).every(
          ([name, target]) => !target.syncing && target.lastSyncAt !== before[name]?.lastSyncAt,
        ),
      30_000,
    );
  });

  it.each(['/status', '/', '/metrics', '/healthz', '/readyz'])(
    'answers GET %s 421 under a name that is not loopback (DNS rebinding)',
    async (path) => {
      const running = daemon as RunningDaemon;
      for (const host of [
        `evil.example:${port}`,
        'rebind.attacker.test',
        `localhost.evil.example:${port}`,
        `127.0.0.1.nip.io:${port}`,
      ]) {
        const answer = await send(running, 'GET', path, { host });
        expect([host, answer.status]).toEqual([host, 421]);
        expect(answer.text).not.toContain('targets');
        expect(answer.text).not.toContain('stacksync_');
      }
    },
  );

  it('answers a reload under a foreign name 421, whatever its headers', async () => {
    const answer = await send(
      daemon as RunningDaemon,
      'POST',
      '/-/reload',
      { host: `evil.example:${port}`, 'content-type': 'application/json' },
      '{}',
    );
    expect(answer.status).toBe(421);
  });

  it.each([`localhost:${'PORT'}`, `127.0.0.1:${'PORT'}`, `[::1]:${'PORT'}`, 'localhost:8080', 'LOCALHOST'])(
    'serves the page, /status and /metrics under Host %s',
    async (host) => {
      const running = daemon as RunningDaemon;
      for (const path of ['/', '/status', '/metrics']) {
        expect((await send(running, 'GET', path, { host: host.replace('PORT', port) })).status).toBe(200);
      }
    },
  );

  it('says X-Content-Type-Options: nosniff on every answer, refusals and errors included', async () => {
    const running = daemon as RunningDaemon;
    const answers = [
      await send(running, 'GET', '/'),
      await send(running, 'GET', '/status'),
      await send(running, 'GET', '/metrics'),
      await send(running, 'GET', '/healthz'),
      await send(running, 'GET', '/readyz'),
      await send(running, 'HEAD', '/status'),
      await send(running, 'GET', '/nope'),
      await send(running, 'GET', '/-/reload'),
      await send(running, 'POST', '/-/reload', { origin: 'null' }),
      await send(running, 'POST', '/-/suspend?target=local', { 'content-type': 'application/json' }),
      await send(running, 'GET', '/status', { host: 'evil.example' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200, 404, 405, 403, 404, 421]);
    for (const answer of answers) expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('a daemon with control.reloadToken', () => {
  let daemon: RunningDaemon | undefined;

  beforeAll(async () => {
    const workspace = await shared.workspace({ rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write(
      'config/stacksync.yaml',
      `${config}control: { reloadToken: { fromEnv: RELOAD_TOKEN }, token: { fromEnv: CONTROL_TOKEN } }\n`,
    );
    daemon = await startOn(workspace, { RELOAD_TOKEN, CONTROL_TOKEN });
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
  });

  it.each<[string, string, Record<string, string>]>([
    ['JSON without the token', '/-/reload', { 'content-type': 'application/json' }],
    ["git-sync's header without the token", '/-/reload', { 'gitsync-hash': 'b'.repeat(40) }],
    [
      'a wrong bearer token',
      '/-/reload',
      { 'content-type': 'application/json', authorization: 'Bearer reload-token-000000' },
    ],
    ['a wrong ?token=', '/-/reload?token=reload-token-000000', { 'gitsync-hash': 'b'.repeat(40) }],
  ])('refuses %s with 401', async (_name, path, headers) => {
    const answer = await send(daemon as RunningDaemon, 'POST', path, headers, '{}');
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('refuses the right token from another site with 403', async () => {
    const answer = await send(
      daemon as RunningDaemon,
      'POST',
      `/-/reload?token=${RELOAD_TOKEN}`,
      { 'content-type': 'text/plain', origin: 'https://evil.example' },
      'x',
    );
    expect(answer.status).toBe(403);
  });

  it.each<[string, string, Record<string, string>]>([
    ['Authorization: Bearer', '/-/reload', { authorization: `Bearer ${RELOAD_TOKEN}` }],
    [
      "?token= as git-sync's --webhook-url sends it",
      `/-/reload?token=${RELOAD_TOKEN}`,
      { 'gitsync-hash': 'c'.repeat(40) },
    ],
    ['the control token, as a bearer token', '/-/reload', { authorization: `Bearer ${CONTROL_TOKEN}` }],
  ])('runs a reload with the token as %s', async (_name, path, headers) => {
    expect((await send(daemon as RunningDaemon, 'POST', path, headers)).status).toBe(202);
  });
});

describe('a daemon with control.token only', () => {
  let daemon: RunningDaemon | undefined;

  beforeAll(async () => {
    const workspace = await shared.workspace({ rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    const config = await readFile(workspace.configPath, 'utf8');
    await workspace.write('config/stacksync.yaml', `${config}control: { token: { fromEnv: CONTROL_TOKEN } }\n`);
    daemon = await startOn(workspace, { CONTROL_TOKEN });
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
  });

  it("keeps git-sync's reloads working: Gitsync-Hash alone is enough, as is the control token", async () => {
    const running = daemon as RunningDaemon;
    expect((await send(running, 'POST', '/-/reload', { 'gitsync-hash': 'd'.repeat(40) })).status).toBe(202);
    expect((await send(running, 'POST', '/-/reload', { authorization: `Bearer ${CONTROL_TOKEN}` })).status).toBe(202);
    expect((await send(running, 'POST', '/-/reload', { 'content-type': 'text/plain' }, 'x')).status).toBe(403);
  });
});
