/**
 * Secret values never leave stacksync (issues 4 and 5): not in any plan format, not in apply's
 * output or logs (even at trace level), not in an error a server echoes them into, not in the
 * state file. Pipe credentials come from the environment, an access key from files; the target
 * credentials are secrets too. The emulator's dump is not checked: the API stores credentials.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { SENSITIVE } from '../../src/model/plan.js';
import {
  alertYaml,
  dashboardYaml,
  describeRun,
  documents,
  parseJsonOutput,
  readState,
  ROUTES,
  writesByRoute,
} from '../helpers/e2e.js';
import { startProxy, type RunningProxy } from '../helpers/proxy.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type CliResult,
  type Workspace,
} from '../helpers/workspace.js';

// Values with a quote, a backslash, a slash, a space and non-ASCII letters: every encoding of them differs from the raw string.
const KAFKA_USER = 'kafka-user-e2e-4f1c9a';
const KAFKA_PASSWORD = 'kafka-Pa"55\\wörd-e2e-77d0b2!';
const KAFKA_PASSWORD_2 = 'kafka-"rotated" \\Pässwort/91ce-ßé';
const ACCESS_KEY_ID = 'AKIAE2ETESTKEY0A1B2C3';
const SECRET_KEY = 's3-secretKey/e2e+Zq8"RwN0\\vT5yU1iO3pL6kJ9hG-ø';

/**
 * The forms in which a leaked secret would show in output: raw; JSON-escaped, as `--output json`
 * or a server quoting a body writes it (also with `\uXXXX` for non-ASCII); URL-encoded; base64.
 * Written out here rather than taken from the redactor, so a redactor that misses one fails.
 */
function leakForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const asciiJson = json.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [secret, json, asciiJson, encodeURIComponent(secret), Buffer.from(secret).toString('base64')];
}

const RAW_SECRETS = [
  KAFKA_USER,
  KAFKA_PASSWORD,
  KAFKA_PASSWORD_2,
  ACCESS_KEY_ID,
  SECRET_KEY,
  DEFAULT_SEED_IDS.keySecret,
  DEFAULT_SEED_IDS.token,
];

/** Every string that must never show: pipe secrets, target credentials and their encodings. */
const SECRETS = [
  ...RAW_SECRETS.flatMap(leakForms),
  Buffer.from(`${DEFAULT_SEED_IDS.keyId}:${DEFAULT_SEED_IDS.keySecret}`).toString('base64'),
  Buffer.from(`${KAFKA_USER}:${KAFKA_PASSWORD_2}`).toString('base64'),
];

const PIPES = documents([
  `apiVersion: stacksync/v1
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
`,
  `apiVersion: stacksync/v1
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
`,
]);

describe('secret values never leave stacksync', () => {
  let emulator: RunningEmulator;
  let proxy: RunningProxy;
  let workspace: Workspace;
  /** Every stdout and stderr of every run, checked at the end as well as per test. */
  const outputs: string[] = [];

  async function run(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    const result = await workspace.run(args, { env });
    outputs.push(result.stdout, result.stderr);
    return result;
  }

  function expectNoSecret(text: string, where: string): void {
    for (const secret of SECRETS)
      expect(text.includes(secret), `${where} holds a secret (${secret.slice(0, 6)}…)`).toBe(false);
  }

  beforeAll(async () => {
    emulator = await startTestEmulator();
    proxy = await startProxy(emulator.url);
    workspace = await createWorkspace(proxy.url, { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } });
    workspace.env['E2E_KAFKA_USER'] = KAFKA_USER;
    workspace.env['E2E_KAFKA_PASSWORD'] = KAFKA_PASSWORD;
    await workspace.write('secrets/access-key-id', `${ACCESS_KEY_ID}\n`);
    await workspace.write('secrets/secret-key', `${SECRET_KEY}\n`);
    await workspace.write('manifests/pipes.yaml', PIPES);
    await workspace.write(
      'manifests/stack.yaml',
      documents([
        dashboardYaml({ key: 'ops', target: 'local', tiles: ['lag'] }),
        alertYaml({ key: 'ops-lag', target: 'local', dashboard: 'ops', tile: 'lag' }),
        dashboardYaml({ key: 'ops', target: 'local-selfhosted', tiles: ['lag'] }),
      ]),
    );
  });
  afterAll(async () => {
    await workspace?.dispose();
    await proxy?.close();
    await emulator?.close();
  });

  it.each([['text'], ['json'], ['github']])(
    'plan --output %s shows credentials only as (sensitive)',
    async (format) => {
      const result = await run(['plan', '--output', format, '--log-level', 'trace', '--detailed-exitcode']);
      expect(result.code, describeRun(result)).toBe(2);
      expectNoSecret(result.stdout, `plan --output ${format} stdout`);
      expectNoSecret(result.stderr, `plan --output ${format} stderr`);
      expect(result.stdout).toContain(SENSITIVE);
    },
  );

  it('plan --output json marks each write-only path as (sensitive), before and after', async () => {
    const plan = parseJsonOutput(await run(['plan', '--output', 'json']));
    const kafka = plan.changes.find((change) => change.name === 'orders-kafka');
    const s3 = plan.changes.find((change) => change.name === 'events-s3');
    const secretDiffs = [...(kafka?.diff ?? []), ...(s3?.diff ?? [])].filter((diff) =>
      /credentials|accessKey/.test(diff.path),
    );
    expect(secretDiffs.length).toBeGreaterThanOrEqual(2);
    for (const diff of secretDiffs) {
      expect(diff.after).toBe(SENSITIVE);
      if ('before' in diff) expect(diff.before).toBe(SENSITIVE);
    }
  });

  it('apply sends them (the emulator stores them) but prints none, at trace level, in text and JSON', async () => {
    await resetEmulatorStats(emulator.url);
    const result = await run(['apply', '--output', 'json', '--log-level', 'trace']);
    expect(result.code, describeRun(result)).toBe(0);
    expectNoSecret(result.stdout, 'apply stdout');
    expectNoSecret(result.stderr, 'apply stderr');
    const writes = writesByRoute(await emulatorStats(emulator.url));
    expect(writes[`PATCH ${ROUTES.managedPipe}`]).toBe(2);
    // The API holds them: fingerprints of what was sent are in its state.
    const secrets = emulator.state().organizations[0]?.services[0]?.pipeSecrets ?? {};
    expect(Object.keys(secrets[DEFAULT_SEED_IDS.pipes.objectStorage] ?? {})).toContain('objectStorage.accessKey');
  });

  it('the state file keeps HMACs of them, never the values', async () => {
    const text = await readFile(workspace.statePath, 'utf8');
    expectNoSecret(text, 'state file');
    const state = await readState(workspace.statePath);
    const hashes = state.targets['local']?.secretHashes ?? {};
    expect(Object.keys(hashes).filter((key) => key.startsWith('Pipe/orders-kafka:')).length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(hashes).filter((key) => key.startsWith('Pipe/events-s3:')).length).toBeGreaterThanOrEqual(1);
    for (const hash of Object.values(hashes)) expect(hash).toMatch(/^[0-9a-f]{64}$/);
    // Nor do the files stacksync writes beside it.
    for (const name of ['state.json'])
      expectNoSecret(await readFile(join(workspace.dir, '.stacksync', name), 'utf8'), name);
  });

  it('after apply the same secrets are not sent again (compared by HMAC)', async () => {
    const result = await run(['plan', '--output', 'json', '--detailed-exitcode']);
    expect(result.code, describeRun(result)).toBe(0);
  });

  it('a rotated secret is one (sensitive) update, and a server echoing the request body in its error leaks nothing', async () => {
    const env = { E2E_KAFKA_PASSWORD: KAFKA_PASSWORD_2 };
    const plan = await run(['plan', '--detailed-exitcode'], env);
    expect(plan.code, describeRun(plan)).toBe(2);
    expect(plan.stdout).toMatch(/source\.kafka\.credentials\S*: \(sensitive\)/);
    expectNoSecret(plan.stdout, 'plan stdout');

    // A hostile server: the PATCH is refused with the body quoted in the message, on both envelopes' fields.
    proxy.intercept((request) =>
      request.method === 'PATCH'
        ? {
            status: 400,
            body: JSON.stringify({
              status: 400,
              error: `BAD_REQUEST: cannot apply ${request.body}`,
              message: request.body,
            }),
          }
        : undefined,
    );
    try {
      for (const format of ['text', 'json']) {
        const result = await run(['apply', '--output', format, '--log-level', 'trace'], env);
        expect(result.code, describeRun(result)).toBe(1);
        // The message is passed on, with the secrets in it masked (as JSON text in JSON output and logs).
        expect((result.stdout + result.stderr).replaceAll('\\"', '"')).toMatch(
          /cannot apply .*"password":"\(sensitive\)"/,
        );
        expectNoSecret(result.stdout, `failed apply --output ${format} stdout`);
        expectNoSecret(result.stderr, `failed apply --output ${format} stderr`);
      }
      expect(
        proxy.intercepted.some(
          (request) => JSON.parse(request.body).source?.kafka?.credentials?.password === KAFKA_PASSWORD_2,
        ),
      ).toBe(true);
    } finally {
      proxy.intercept(undefined);
    }
    const applied = await run(['apply'], env);
    expect(applied.code, describeRun(applied)).toBe(0);
    expectNoSecret(await readFile(workspace.statePath, 'utf8'), 'state file after rotation');
  });

  it('no output of any run held a secret', () => {
    expect(outputs.length).toBeGreaterThan(10);
    expectNoSecret(outputs.join('\n'), 'all outputs');
  });
});
