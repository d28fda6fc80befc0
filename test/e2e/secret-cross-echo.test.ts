/**
 * One redactor that knows every secret of the run (issue 33, item 1), through the built CLI and
 * daemon: a server that answers every write with a 400 quoting the body of the write it received
 * *before* — another pipe's create, with that pipe's Kafka credentials, Postgres password or S3
 * secret key — JSON-escaped, `\u`-escaped, URL-encoded, with the pair as a Basic header. The
 * redactor of the failed request alone knows none of those. A dashboard is named as the
 * Postgres password: a secret that is also a resource's name is masked too.
 *
 * Searched: stdout and stderr of apply (text and JSON, trace logs), plan and its saved file, the
 * daemon's JSON logs, `/status`, the status page, `/metrics`, `stacksync status` (text and JSON),
 * and the webhook and Slack notifications a loopback receiver got. As in secret-echo.test.ts, the
 * secrets are alphanumeric chunks joined by characters every escaping changes, so a leak in any
 * escaping shows a chunk as written.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { startDaemon, waitUntil } from '../helpers/daemon.js';
import { describeRun } from '../helpers/e2e.js';
import { startProxy, type ProxiedRequest, type ProxyReply, type RunningProxy } from '../helpers/proxy.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createWorkspace, startTestEmulator, type CliResult, type Workspace } from '../helpers/workspace.js';

/** A secret: alphanumeric chunks (no escaping changes them) joined by characters every escaping changes. */
function planted(tag: string, joiners: readonly string[]): { value: string; chunks: string[] } {
  const chunks = [...joiners, ''].map((_, index) => `${tag}Xq${index}v`);
  return { value: chunks.map((chunk, index) => chunk + (joiners[index] ?? '')).join(''), chunks };
}

/** The Postgres password, which is also a dashboard's name: a name allows no other character. */
const NAME_SECRET = 'billing-pg-7hq2x9vw';

const SECRETS = {
  kafkaUser: planted('ku', ['"', '/', 'ü']),
  kafkaPassword: planted('kp', ['"', '\\', '/', 'ö', "'", '%41', '+', '&', ' ']),
  accessKeyId: planted('ai', ['/', '"']),
  secretKey: planted('sk', ['"', '\\', '/', 'ø', '=']),
  pgUser: planted('pu', ['"', 'é']),
  keyId: planted('mi', ['"', '/']),
  keySecret: planted('ms', ['"', '\\', '/', 'ñ']),
  hookSecret: planted('hs', ['"', '\\', '/', 'ö']),
  slackPath: planted('sl', ['-', '_']),
};
const PAIRS = [
  `${SECRETS.kafkaUser.value}:${SECRETS.kafkaPassword.value}`,
  `${SECRETS.accessKeyId.value}:${SECRETS.secretKey.value}`,
  `${SECRETS.pgUser.value}:${NAME_SECRET}`,
  `${SECRETS.keyId.value}:${SECRETS.keySecret.value}`,
];
/** Every form a leak can take that no escaping hides: chunks, the name, and the base64 of values and pairs. */
const LEAK_FORMS = [
  ...Object.values(SECRETS).flatMap((secret) => secret.chunks),
  NAME_SECRET,
  ...[...Object.values(SECRETS).map((secret) => secret.value), NAME_SECRET, ...PAIRS].flatMap((text) => [
    Buffer.from(text).toString('base64').replace(/=+$/, ''),
    Buffer.from(text).toString('base64url'),
  ]),
];

function leaksIn(text: string): string[] {
  return LEAK_FORMS.filter((form) => text.includes(form));
}

const asciiJson = (text: string): string =>
  JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** How the server quotes the last body it received, in turn. */
const ESCAPINGS: ((body: string) => string)[] = [
  (body) => body,
  (body) => JSON.stringify(body),
  asciiJson,
  (body) => encodeURIComponent(body),
];

/** `user:pass` pairs of a body, as a Basic header would carry them. */
function basicPairs(body: string): string[] {
  const pairs: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (typeof record['username'] === 'string' && typeof record['password'] === 'string')
        pairs.push(`${record['username']}:${record['password']}`);
      if (typeof record['accessKeyId'] === 'string' && typeof record['secretKey'] === 'string')
        pairs.push(`${record['accessKeyId']}:${record['secretKey']}`);
      Object.values(record).forEach(walk);
    }
  };
  try {
    walk(JSON.parse(body));
  } catch {
    // not JSON: no pairs
  }
  return pairs.map((pair) => `Basic ${Buffer.from(pair).toString('base64')}`);
}

/**
 * A server with one shared error buffer: every write is refused with a 400 that quotes the body
 * of the write before it (none for the first), and remembered for the next.
 */
function lastBodyEcho(): (request: ProxiedRequest) => ProxyReply | undefined {
  let last = '';
  let turn = 0;
  return (request) => {
    if (request.method === 'GET') return undefined;
    const quoted = last;
    last = request.body;
    const escape = ESCAPINGS[turn++ % ESCAPINGS.length] as (body: string) => string;
    const message = `conflicts with the last request ${escape(quoted)} (auth ${basicPairs(quoted).join(', ')})`;
    return {
      status: 400,
      body: JSON.stringify({ status: 400, error: `BAD_REQUEST: ${message}`, message, requestId: 'echo' }),
    };
  };
}

/** The emulator's own credentials, whatever the client sent: the planted ones are not the emulator's. */
function realCredentials(headers: Record<string, string>): Record<string, string> {
  return {
    ...headers,
    authorization: `Basic ${Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64')}`,
  };
}

function configYaml(url: string, receiverUrl: string, statePath: string): string {
  return `targets:
  - name: local
    variant: managed
    baseUrl: ${url}
    organizationId: ${DEFAULT_SEED_IDS.organizationId}
    serviceId: ${DEFAULT_SEED_IDS.serviceId}
    auth:
      keyId: { fromEnv: STACKSYNC_KEY_ID }
      keySecret: { fromEnv: STACKSYNC_KEY_SECRET }
    rateLimit: { requests: 1000, perSeconds: 1, concurrency: 1 }
defaultTarget: local
state: ${JSON.stringify(statePath)}
notify:
  - provider: webhook
    url: ${receiverUrl}/hooks
    secret: { fromEnv: X_HOOK_SECRET }
  - provider: slack
    url: { fromEnv: X_SLACK_URL }
`;
}

const columns = `  destination:
    database: default
    table: events
    managedTable: true
    columns: [ { name: id, type: String } ]
  fieldMappings: [ { sourceField: id, destinationField: id } ]
`;

const MANIFESTS = `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: sales-kafka }
spec:
  name: sales-kafka
  source:
    kafka:
      type: confluent
      format: JSONEachRow
      brokers: pkc-1234.eu-west-1.aws.confluent.cloud:9092
      topics: orders
      authentication: PLAIN
      credentials:
        username: { fromEnv: X_KAFKA_USER }
        password: { fromEnv: X_KAFKA_PASSWORD }
${columns}---
apiVersion: stacksync/v1
kind: Pipe
metadata: { name: audit-s3 }
spec:
  name: audit-s3
  source:
    objectStorage:
      type: s3
      format: JSONEachRow
      url: https://bucket.s3.amazonaws.com/events/*.json
      authentication: IAM_USER
      accessKey:
        accessKeyId: { fromFile: ../secrets/access-key-id }
        secretKey: { fromFile: ../secrets/secret-key }
${columns}---
apiVersion: stacksync/v1
kind: Pipe
metadata: { name: ledger-postgres }
spec:
  name: ledger-postgres
  source:
    postgres:
      type: postgres
      host: db.internal
      port: 5432
      database: billing
      credentials:
        username: { fromEnv: X_PG_USER }
        password: { fromEnv: X_PG_PASSWORD }
      tableMappings:
        - { sourceSchemaName: public, sourceTable: invoices, targetTable: invoices }
  destination:
    database: default
---
apiVersion: stacksync/v1
kind: Dashboard
metadata:
  name: ${NAME_SECRET}
spec:
  name: ${NAME_SECRET}
  tiles:
    - name: lag
      x: 0
      y: 0
      w: 12
      h: 4
      series:
        - { type: time, dataSource: events, aggFn: count, where: "service:billing" }
`;

describe('a server quoting another request in its errors gets no secret of the run into any output', () => {
  let emulator: RunningEmulator;
  let proxy: RunningProxy;
  let receiver: Receiver;
  let workspace: Workspace;
  const outputs: { where: string; text: string }[] = [];
  let checked = 0;

  const record = (where: string, text: string): void => void outputs.push({ where, text });
  async function run(where: string, args: string[]): Promise<CliResult> {
    const result = await workspace.run(args);
    record(`${where} stdout`, result.stdout);
    record(`${where} stderr`, result.stderr);
    return result;
  }
  /** Fails on a leak in the outputs recorded since the last check. */
  function expectNoLeak(): void {
    const leaked = outputs
      .slice(checked)
      .flatMap(({ where, text }) =>
        leaksIn(text).map(
          (form) =>
            `${where}: ${form} in …${text.slice(Math.max(0, text.indexOf(form) - 80), text.indexOf(form) + 40)}…`,
        ),
      );
    checked = outputs.length;
    expect(leaked.slice(0, 8)).toEqual([]);
  }
  /** What the server quoted held other requests' secrets: the test shows something. */
  function expectEchoedSecrets(): void {
    const quoted = proxy.intercepted.map((request) => request.body).join('\n');
    for (const secret of [SECRETS.kafkaPassword, SECRETS.secretKey])
      expect(quoted).toContain(JSON.stringify(secret.value).slice(1, -1));
    expect(quoted).toContain(NAME_SECRET);
  }

  beforeAll(async () => {
    emulator = await startTestEmulator();
    proxy = await startProxy(emulator.url);
    receiver = await startReceiver();
    proxy.rewrite({ headers: realCredentials });
    workspace = await createWorkspace(proxy.url);
    await workspace.write('config/stacksync.yaml', configYaml(proxy.url, receiver.url, workspace.statePath));
    Object.assign(workspace.env, {
      STACKSYNC_KEY_ID: SECRETS.keyId.value,
      STACKSYNC_KEY_SECRET: SECRETS.keySecret.value,
      X_KAFKA_USER: SECRETS.kafkaUser.value,
      X_KAFKA_PASSWORD: SECRETS.kafkaPassword.value,
      X_PG_USER: SECRETS.pgUser.value,
      X_PG_PASSWORD: NAME_SECRET,
      X_HOOK_SECRET: SECRETS.hookSecret.value,
      X_SLACK_URL: `${receiver.url}/slack/${SECRETS.slackPath.value}`,
    });
    await workspace.write('secrets/access-key-id', `${SECRETS.accessKeyId.value}\n`);
    await workspace.write('secrets/secret-key', `${SECRETS.secretKey.value}\n`);
    await workspace.write('manifests/all.yaml', MANIFESTS);
  }, 60_000);
  afterAll(async () => {
    await workspace?.dispose();
    await receiver?.close();
    await proxy?.close();
    await emulator?.close();
  });

  it.each([['json'], ['text']])(
    'apply --output %s: every create refused quoting the one before, nothing shown',
    async (output) => {
      proxy.intercept(lastBodyEcho());
      try {
        const result = await run(`apply --output ${output}`, [
          'apply',
          '--output',
          output,
          '--log-level',
          'trace',
          '--wait',
          '0',
        ]);
        expect(result.code, describeRun(result)).toBe(1);
        // The server's message still reaches the user, masked.
        expect(result.stdout + result.stderr).toContain('conflicts with the last request');
        expect(result.stdout + result.stderr).toContain('(sensitive)');
        expectEchoedSecrets();
      } finally {
        proxy.intercept(undefined);
      }
      expectNoLeak();
    },
  );

  it('plan and its saved file name the dashboard named as a secret only masked', async () => {
    const planned = await run('plan', ['plan', '--output', 'json', '--out', 'plan.json', '--detailed-exitcode']);
    expect(planned.code, describeRun(planned)).toBe(2);
    const saved = await readFile(join(workspace.dir, 'plan.json'), 'utf8');
    record('plan.json', saved);
    expect(saved).toContain('(sensitive)');
    expectNoLeak();
    // A plan saved with its names masked still applies as saved (its fingerprint is masked alike).
    proxy.intercept(lastBodyEcho());
    try {
      const applied = await run('apply --plan', ['apply', '--plan', 'plan.json', '--output', 'json', '--wait', '0']);
      expect(applied.stderr).not.toContain('E_PLAN_STALE');
      expect(applied.stdout + applied.stderr).toContain('conflicts with the last request');
    } finally {
      proxy.intercept(undefined);
    }
    expectNoLeak();
  });

  it('the daemon: JSON logs, /status, the page, /metrics, stacksync status and notifications', {
    timeout: 90_000,
  }, async () => {
    proxy.intercept(lastBodyEcho());
    const daemon = await startDaemon(workspace, ['--log-level', 'trace', '--log-format', 'json']);
    try {
      await waitUntil(async () => {
        const targets = Object.values(
          (JSON.parse((await daemon.get('/status')).text) as { targets?: Record<string, { lastResult?: string }> })
            .targets ?? {},
        );
        return targets.length === 1 && targets.every((target) => target.lastResult !== undefined);
      }, 30_000);
      await waitUntil(
        () =>
          receiver.received.some((request) => request.path.startsWith('/slack')) &&
          receiver.received.some((request) => request.path === '/hooks'),
        10_000,
      );
      const status = (await daemon.get('/status')).text;
      record('/status', status);
      expect(status).toContain('conflicts with the last request');
      record('/', (await daemon.get('/')).text);
      record('/metrics', (await daemon.get('/metrics')).text);
      const listen = new URL(daemon.url).host;
      for (const output of ['text', 'json']) {
        const shown = await run(`stacksync status --output ${output}`, [
          'status',
          '--listen',
          listen,
          '--output',
          output,
        ]);
        expect(shown.stdout.length, describeRun(shown)).toBeGreaterThan(0);
      }
      expectEchoedSecrets();
    } finally {
      proxy.intercept(undefined);
      await daemon.stop();
    }
    const logs = daemon.output().stderr;
    record('daemon stdout', daemon.output().stdout);
    record('daemon stderr', logs);
    expect(logs).toContain('"level":');
    for (const request of receiver.received)
      record(`notification ${request.path}`, `${JSON.stringify(request.headers)}\n${request.body}`);
    expect(receiver.received.map((request) => request.body).join('\n')).toContain('(sensitive)');
    expectNoLeak();
  });
});
