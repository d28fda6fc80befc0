/**
 * Secrets in no output, in no escaped form (issue 25, item 4), through the built CLI and daemon:
 * a server that echoes what it was sent, in every place it can (a write's error message, a
 * read's error quoting the Authorization header, a plain-text or HTML error page, a 429 retried
 * until given up, live pipes that carry their credentials back in clear and in a status
 * message), and in every escaping at once and in mixes (JSON inside JSON inside JSON,
 * `\u00f6`-escaped, URL-encoded twice, form-encoded, shell-quoted, HTML, JSON inside a URL).
 * Every output is searched: plan in each format and its saved file and job summary, apply in
 * text and JSON at trace level, export's files, the daemon's logs, /status and /metrics, webhook
 * and Slack notifications, and the files stacksync writes.
 *
 * The planted secrets hold `"`, `\`, `/`, a newline and non-ASCII letters, which every escaping
 * changes, between alphanumeric chunks, which none does: whatever the escaping, a leak of more
 * than a few characters of a secret shows one of its chunks as written. So the search needs no
 * list of forms and cannot share the redactor's blind spots.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { startDaemon, waitUntil } from '../helpers/daemon.js';
import { describeRun, parseJsonOutput } from '../helpers/e2e.js';
import { startProxy, type ProxiedRequest, type ProxyReply, type RunningProxy } from '../helpers/proxy.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createWorkspace, startTestEmulator, type CliResult, type Workspace } from '../helpers/workspace.js';

/** A secret: alphanumeric chunks (no escaping changes them) joined by characters every escaping changes. */
function planted(tag: string, joiners: readonly string[]): { value: string; chunks: string[] } {
  const chunks = [...joiners, ''].map((_, index) => `${tag}Qz${index}w`);
  return { value: chunks.map((chunk, index) => chunk + (joiners[index] ?? '')).join(''), chunks };
}

const SECRETS = {
  kafkaUser: planted('ku', ['"', '\\', '/', '\n', 'ü']),
  kafkaPassword: planted('kp', ['"', '\\', '/', '\n', 'ö', "'", 'ß é', '%41', '+', '&']),
  kafkaPassword2: planted('kr', ['\\"', '/', '\n', 'Ø', "'$", ' ']),
  accessKeyId: planted('ai', ['/', '"']),
  secretKey: planted('sk', ['"', '\\', '/', '\n', 'ø']),
  tileToken: planted('tt', ['"', '\\', '/', 'é', "'"]),
  keyId: planted('mi', ['"', '/']),
  keySecret: planted('ms', ['"', '\\', '/', '\n', 'ñ']),
  // A header value: no newline, ASCII only.
  token: planted('st', ['"', '\\', '/', '$']),
  hookSecret: planted('hs', ['"', '\\', '/', 'ö']),
  slackPath: planted('sl', ['-', '_']),
};
const ALL_CHUNKS = Object.values(SECRETS).flatMap((secret) => secret.chunks);
const RAW_VALUES = Object.values(SECRETS).map((secret) => secret.value);
/** The forms that change the chunks too. */
const BASE64_FORMS = [
  ...RAW_VALUES,
  `${SECRETS.keyId.value}:${SECRETS.keySecret.value}`,
  `${SECRETS.kafkaUser.value}:${SECRETS.kafkaPassword.value}`,
  `${SECRETS.kafkaUser.value}:${SECRETS.kafkaPassword2.value}`,
].flatMap((text) => {
  const base64 = Buffer.from(text).toString('base64');
  return [base64.replace(/=+$/, ''), Buffer.from(text).toString('base64url')];
});

/** What of a secret an output shows, if anything. */
function leaksIn(text: string): string[] {
  return [...ALL_CHUNKS, ...BASE64_FORMS].filter((form) => text.includes(form));
}

const json = (text: string): string => JSON.stringify(text);
const asciiJson = (text: string): string =>
  JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const html = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
const shellSingle = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
const shellDouble = (text: string): string => `"${text.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;

/** How a server quotes what it was sent into its error: [name, escape, the answer's content type]. */
const ECHOES: [string, (sent: string) => string, string][] = [
  ['JSON once', (sent) => sent, 'application/json'],
  ['JSON inside JSON', (sent) => json(sent), 'application/json'],
  ['JSON inside JSON inside JSON', (sent) => json(json(sent)), 'application/json'],
  ['ASCII-only JSON inside ASCII-only JSON', (sent) => asciiJson(asciiJson(sent)), 'application/json'],
  ['URL-encoded', (sent) => encodeURIComponent(sent), 'application/json'],
  ['URL-encoded twice', (sent) => encodeURIComponent(encodeURIComponent(sent)), 'application/json'],
  ['form-encoded', (sent) => new URLSearchParams({ body: sent }).toString(), 'application/json'],
  [
    'shell-quoted in a curl line',
    (sent) => `curl -d ${shellSingle(sent)} && echo ${shellDouble(sent)}`,
    'application/json',
  ],
  ['JSON inside a URL inside JSON', (sent) => json(encodeURIComponent(json(sent))), 'application/json'],
  ['plain text', (sent) => sent, 'text/plain'],
  ['an HTML error page', (sent) => `<html><body><pre>${html(json(sent))}</pre></body></html>`, 'text/html'],
];

/** The Authorization header as a server would quote it: the Basic pair decoded, or the bearer token. */
function credentialsOf(request: ProxiedRequest): string {
  const header = request.headers['authorization'] ?? '';
  return header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : header;
}

function echoReply(
  request: ProxiedRequest,
  [, escape, contentType]: (typeof ECHOES)[number],
  status = 400,
): ProxyReply {
  const echoed = `cannot apply ${escape(request.body)} for ${escape(credentialsOf(request))}`;
  if (contentType !== 'application/json') return { status, body: echoed, contentType };
  return {
    status,
    body: JSON.stringify({ status, error: `BAD_REQUEST: ${echoed}`, message: echoed, requestId: 'echo' }),
  };
}

/** The emulator's own credentials, whatever the client sent: the planted ones are not the emulator's. */
function realCredentials(headers: Record<string, string>): Record<string, string> {
  const header = headers['authorization'] ?? '';
  const real = header.startsWith('Basic ')
    ? `Basic ${Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64')}`
    : `Bearer ${DEFAULT_SEED_IDS.token}`;
  return { ...headers, authorization: real };
}

/** Live pipes that carry their credentials back, in clear and quoted in a status message. */
function echoingPipes(request: ProxiedRequest, status: number, body: string): string | undefined {
  if (request.method !== 'GET' || status !== 200 || !/\/pipes(\?|$)/.test(request.path)) return undefined;
  const envelope = JSON.parse(body) as {
    result: { source: Record<string, Record<string, unknown>>; [key: string]: unknown }[];
  };
  for (const pipe of envelope.result) {
    if (pipe.source['kafka'])
      pipe.source['kafka']['credentials'] = {
        username: SECRETS.kafkaUser.value,
        password: SECRETS.kafkaPassword.value,
      };
    if (pipe.source['objectStorage'])
      pipe.source['objectStorage']['accessKey'] = {
        accessKeyId: SECRETS.accessKeyId.value,
        secretKey: SECRETS.secretKey.value,
      };
    pipe['statusMessage'] =
      `authentication failed for ${json(json(SECRETS.kafkaPassword.value))} and ${encodeURIComponent(SECRETS.secretKey.value)}`;
  }
  return JSON.stringify(envelope);
}

function configYaml(url: string, receiverUrl: string, statePath: string): string {
  const common = `    rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 }\n    vars:\n      TILE_TOKEN: { fromEnv: E2E_TILE_TOKEN }\n`;
  return `targets:
  - name: local
    variant: managed
    baseUrl: ${url}
    organizationId: ${DEFAULT_SEED_IDS.organizationId}
    serviceId: ${DEFAULT_SEED_IDS.serviceId}
    auth:
      keyId: { fromEnv: STACKSYNC_KEY_ID }
      keySecret: { fromEnv: STACKSYNC_KEY_SECRET }
${common}  - name: local-selfhosted
    variant: self-hosted
    baseUrl: ${url}
    auth:
      token: { fromEnv: STACKSYNC_TOKEN }
${common}defaultTarget: local
state: ${JSON.stringify(statePath)}
notify:
  - provider: webhook
    url: ${receiverUrl}/hooks
    secret: { fromEnv: E2E_HOOK_SECRET }
  - provider: slack
    url: { fromEnv: E2E_SLACK_URL }
`;
}

const PIPES = `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: orders-kafka
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.kafka}
  source:
    kafka:
      credentials:
        username: { fromEnv: E2E_KAFKA_USER }
        password: { fromEnv: E2E_KAFKA_PASSWORD }
  settings:
    streaming_max_insert_wait_ms: 2500
---
apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: events-s3
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.objectStorage}
  source:
    objectStorage:
      accessKey:
        accessKeyId: { fromFile: ../secrets/access-key-id }
        secretKey: { fromFile: ../secrets/secret-key }
`;

function stackYaml(target: string, suffix: string): string {
  return `apiVersion: stacksync/v1
kind: Dashboard
metadata:
  name: echo-${suffix}
  target: ${target}
spec:
  name: Echo ${suffix}
  tiles:
    - name: lag
      x: 0
      y: 0
      w: 12
      h: 4
      series:
        - { type: time, dataSource: events, aggFn: count, where: "token:\${TILE_TOKEN} service:echo-${suffix}" }
`;
}

describe('a server echoing secrets in every escaped form leaks none into any output', () => {
  let emulator: RunningEmulator;
  let proxy: RunningProxy;
  let receiver: Receiver;
  let workspace: Workspace;
  /** Every output so far, with where it came from. */
  const outputs: { where: string; text: string }[] = [];

  const record = (where: string, text: string): void => void outputs.push({ where, text });
  async function run(where: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    const result = await workspace.run(args, { env });
    record(`${where} stdout`, result.stdout);
    record(`${where} stderr`, result.stderr);
    return result;
  }
  let checked = 0;
  /** Fails on a leak in the outputs since the last check (`all`: in every output). */
  function expectNoLeak(all = false): void {
    const leaked = outputs
      .slice(all ? 0 : checked)
      .flatMap(({ where, text }) =>
        leaksIn(text).map(
          (form) =>
            `${where}: ${form} in …${text.slice(Math.max(0, text.indexOf(form) - 80), text.indexOf(form) + 40)}…`,
        ),
      );
    checked = outputs.length;
    expect(leaked.slice(0, 8)).toEqual([]);
  }

  beforeAll(async () => {
    emulator = await startTestEmulator();
    proxy = await startProxy(emulator.url);
    receiver = await startReceiver();
    proxy.rewrite({ headers: realCredentials, body: echoingPipes });
    workspace = await createWorkspace(proxy.url);
    await workspace.write('config/stacksync.yaml', configYaml(proxy.url, receiver.url, workspace.statePath));
    Object.assign(workspace.env, {
      STACKSYNC_KEY_ID: SECRETS.keyId.value,
      STACKSYNC_KEY_SECRET: SECRETS.keySecret.value,
      STACKSYNC_TOKEN: SECRETS.token.value,
      E2E_KAFKA_USER: SECRETS.kafkaUser.value,
      E2E_KAFKA_PASSWORD: SECRETS.kafkaPassword.value,
      E2E_TILE_TOKEN: SECRETS.tileToken.value,
      E2E_HOOK_SECRET: SECRETS.hookSecret.value,
      E2E_SLACK_URL: `${receiver.url}/slack/${SECRETS.slackPath.value}`,
      GITHUB_STEP_SUMMARY: join(workspace.dir, 'step-summary.md'),
    });
    await workspace.write('secrets/access-key-id', `${SECRETS.accessKeyId.value}\n`);
    await workspace.write('secrets/secret-key', `${SECRETS.secretKey.value}\n`);
    await workspace.write('manifests/pipes.yaml', PIPES);
    await workspace.write(
      'manifests/stack.yaml',
      `${stackYaml('local', 'managed')}---\n${stackYaml('local-selfhosted', 'self')}`,
    );
  }, 60_000);
  afterAll(async () => {
    await workspace?.dispose();
    await receiver?.close();
    await proxy?.close();
    await emulator?.close();
  });

  it('apply, with live pipes that carry their credentials back: everything applied, nothing shown', async () => {
    const result = await run('first apply', ['apply', '--output', 'json', '--log-level', 'trace']);
    expect(result.code, describeRun(result)).toBe(0);
    expectNoLeak();
  });

  it.each(ECHOES.map((echo, index) => [echo[0], index] as const))(
    'a write refused with the body and credentials quoted, %s',
    async (_name, index) => {
      const echo = ECHOES[index] as (typeof ECHOES)[number];
      // A rotated password and an edited tile: updates of every kind, each answered by the echo.
      const env = { E2E_KAFKA_PASSWORD: SECRETS.kafkaPassword2.value };
      await workspace.write(
        'manifests/stack.yaml',
        `${stackYaml('local', 'managed')}---\n${stackYaml('local-selfhosted', 'self')}`.replaceAll(
          'w: 12',
          `w: ${8 + (index % 4)}`,
        ),
      );
      proxy.intercept((request) => (request.method === 'GET' ? undefined : echoReply(request, echo)));
      try {
        const output = index % 2 === 0 ? 'json' : 'text';
        const result = await run(
          `apply --output ${output} (${echo[0]})`,
          ['apply', '--output', output, '--log-level', 'trace'],
          env,
        );
        expect(result.code, describeRun(result)).toBe(1);
        // The server's message still reaches the user, masked.
        expect(result.stdout + result.stderr).toContain('cannot apply');
        expect(result.stdout + result.stderr).toContain('(sensitive)');
        // What was echoed held the secrets: the rotated password and the tile's token.
        const sent = proxy.intercepted.map((request) => request.body).join('\n');
        expect(sent).toContain(JSON.stringify(SECRETS.kafkaPassword2.value).slice(1, -1));
        expect(sent).toContain(JSON.stringify(SECRETS.tileToken.value).slice(1, -1));
      } finally {
        proxy.intercept(undefined);
      }
      expectNoLeak();
    },
  );

  it('a 429 that quotes the body, retried until given up', async () => {
    proxy.intercept((request) =>
      request.method === 'GET'
        ? undefined
        : { ...echoReply(request, ECHOES[2] as (typeof ECHOES)[number], 429), headers: { 'retry-after': '0' } },
    );
    try {
      const result = await run('apply after 429s', ['apply', '--output', 'json', '--log-level', 'trace'], {
        E2E_KAFKA_PASSWORD: SECRETS.kafkaPassword2.value,
      });
      expect(result.code, describeRun(result)).toBe(1);
    } finally {
      proxy.intercept(undefined);
    }
    expectNoLeak();
  });

  it.each([['text'], ['json'], ['github'], ['markdown']])(
    'plan --output %s and its saved file, with reads refused quoting the credentials, then answered',
    async (format) => {
      const echo = ECHOES[['text', 'json', 'github', 'markdown'].indexOf(format) * 2 + 1] as (typeof ECHOES)[number];
      const env = { E2E_KAFKA_PASSWORD: SECRETS.kafkaPassword2.value };
      proxy.intercept((request) =>
        request.method === 'GET' && request.path.includes('dashboards') ? echoReply(request, echo, 401) : undefined,
      );
      try {
        const refused = await run(
          `plan --output ${format}, reads refused`,
          ['plan', '--output', format, '--log-level', 'trace'],
          env,
        );
        expect(refused.code, describeRun(refused)).toBe(1);
        expect(refused.stdout + refused.stderr).toMatch(/cannot apply.*\(sensitive\)/);
      } finally {
        proxy.intercept(undefined);
      }
      const planned = await run(
        `plan --output ${format}`,
        ['plan', '--output', format, '--log-level', 'trace', '--out', `plan-${format}.json`, '--detailed-exitcode'],
        env,
      );
      expect(planned.code, describeRun(planned)).toBe(2);
      record(`plan-${format}.json`, await readFile(join(workspace.dir, `plan-${format}.json`), 'utf8'));
      record('job summary', await readFile(join(workspace.dir, 'step-summary.md'), 'utf8').catch(() => ''));
      expectNoLeak();
    },
  );

  it('export of live pipes that carry their credentials back writes none of them', async () => {
    for (const target of ['local', 'local-selfhosted']) {
      const result = await run(`export --target ${target}`, [
        'export',
        '--target',
        target,
        '--out',
        `exported-${target}`,
        '--log-level',
        'trace',
      ]);
      expect(result.code, describeRun(result)).toBe(0);
      for (const kind of await readdir(join(workspace.dir, `exported-${target}`)).catch(() => [])) {
        for (const file of await readdir(join(workspace.dir, `exported-${target}`, kind)))
          record(
            `exported ${kind}/${file}`,
            await readFile(join(workspace.dir, `exported-${target}`, kind, file), 'utf8'),
          );
      }
    }
    expect(outputs.some(({ where }) => where.startsWith('exported pipes/'))).toBe(true);
    expectNoLeak();
    // The tile's token is written back as the variable it came from, so a plan of the export sends it again unchanged.
    const exported = await readFile(join(workspace.dir, 'exported-local', 'dashboards', 'echo-managed.yaml'), 'utf8');
    expect(exported).toContain('token:${TILE_TOKEN} service:echo-managed');
    const plan = await run('plan of the export', [
      'plan',
      '-m',
      'exported-local',
      '--target',
      'local',
      '--output',
      'json',
    ]);
    expect(plan.code, describeRun(plan)).toBe(0);
    expect(parseJsonOutput(plan).changes.find((change) => change.name === 'echo-managed')).toMatchObject({
      action: 'unchanged',
    });
    expectNoLeak();
  });

  it('the daemon: logs, /status, /metrics and notifications, while every write is refused with an echo', {
    timeout: 90_000,
  }, async () => {
    proxy.intercept((request) =>
      request.method === 'GET' ? undefined : echoReply(request, ECHOES[3] as (typeof ECHOES)[number]),
    );
    const daemon = await startDaemon(workspace, ['--log-level', 'trace'], {
      E2E_KAFKA_PASSWORD: SECRETS.kafkaPassword2.value,
    });
    try {
      await waitUntil(async () => {
        const targets = Object.values(
          (JSON.parse((await daemon.get('/status')).text) as { targets?: Record<string, { lastResult?: string }> })
            .targets ?? {},
        );
        return targets.length === 2 && targets.every((target) => target.lastResult !== undefined);
      }, 30_000);
      await waitUntil(() => receiver.received.some((request) => request.path.startsWith('/slack')), 10_000);
      record('/status', (await daemon.get('/status')).text);
      record('/metrics', (await daemon.get('/metrics')).text);
    } finally {
      proxy.intercept(undefined);
      await daemon.stop();
    }
    record('daemon stdout', daemon.output().stdout);
    record('daemon stderr', daemon.output().stderr);
    for (const request of receiver.received)
      record(`notification ${request.path}`, `${JSON.stringify(request.headers)}\n${request.body}`);
    expect(receiver.received.length).toBeGreaterThan(0);
    expect(receiver.received.map((request) => request.body).join('\n')).toContain('(sensitive)');
    expectNoLeak();
  });

  it('the files stacksync wrote hold none either, nor did any output before', async () => {
    for (const name of await readdir(join(workspace.dir, '.stacksync')))
      record(`.stacksync/${name}`, await readFile(join(workspace.dir, '.stacksync', name), 'utf8').catch(() => ''));
    expect(outputs.length).toBeGreaterThan(40);
    expectNoLeak(true);
  });
});
