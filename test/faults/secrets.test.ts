/**
 * Secrets fault test (issue 8): a run with known secret values — kafka credentials from env, an
 * objectStorage access key from files, a kinesis access key written as plain strings (warned),
 * the Basic key secret and the Bearer token — through validate, plan (text/json/github), apply
 * (text/json) and the daemon, all at `--log-level debug`. Every output, every file stacksync
 * writes, and the daemon's logs, `/metrics` and `/status` are searched: no value, and no
 * encoding of one (Basic header), is ever found.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_IDS, defaultSeed, type RunningEmulator, type Seed } from '../../src/emulator/index.js';
import { crashOf, listFiles } from '../helpers/cli-checks.js';
import { startDaemon, waitUntil } from '../helpers/daemon.js';
import { dashboardYaml, describeRun, documents } from '../helpers/e2e.js';
import {
  createWorkspace,
  emulatorStats,
  resetEmulatorStats,
  startTestEmulator,
  type Workspace,
} from '../helpers/workspace.js';

const VALUES = {
  kafkaUser: 'kafka-user-faults-8c1d',
  kafkaPassword: 'kafka-pw-faults-Tq93!xZ',
  s3KeyId: 'AKIAFAULTSKEY00000001',
  s3Secret: 's3/faults+Secret=Lk20aP',
  s3SecretRotated: 's3/faults+Rotated=Mn41bQ',
  kinesisKeyId: 'AKIAPLAINKINESIS0002',
  kinesisSecret: 'kinesis-plain-secret-Wr77cD',
  keySecret: 'faults-key-secret-Ys62eF',
  token: 'faults-bearer-token-Ua18gH',
};

/** Every value, and the Basic header a client would build from the key. */
const FORBIDDEN = [...Object.values(VALUES), Buffer.from(`faults-key:${VALUES.keySecret}`).toString('base64')];

function leaks(text: string): string[] {
  return FORBIDDEN.filter((secret) => text.includes(secret)).map((secret) => `${secret.slice(0, 5)}…`);
}

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
        username: { fromEnv: FAULTS_KAFKA_USER }
        password: { fromEnv: FAULTS_KAFKA_PASSWORD }
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
        accessKeyId: { fromFile: ../secrets/s3-key-id }
        secretKey: { fromFile: ../secrets/s3-secret }
`,
  `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: clicks-kinesis
spec:
  pipeId: ${DEFAULT_SEED_IDS.pipes.kinesis}
  source:
    kinesis:
      accessKey:
        accessKeyId: ${VALUES.kinesisKeyId}
        secretKey: ${VALUES.kinesisSecret}
`,
]);

/** The default seed (service, pipes), but with this test's own key secret and token. */
function seedWithOwnCredentials(): Seed {
  const seed = defaultSeed();
  const organization = seed.organizations?.[0];
  if (!organization) throw new Error('the default seed has no organization');
  organization.keys = [{ id: 'faults-key', secret: VALUES.keySecret }];
  seed.teams = [{ id: 'team-1', tokens: [VALUES.token] }];
  return seed;
}

describe('secret values appear in no output, log, metric, status or file', () => {
  let emulator: RunningEmulator;
  let workspace: Workspace;
  beforeAll(async () => {
    emulator = await startTestEmulator({ seed: seedWithOwnCredentials() });
    workspace = await createWorkspace(emulator.url, {
      rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
      sync: { interval: '1s' },
    });
    Object.assign(workspace.env, {
      STACKSYNC_KEY_ID: 'faults-key',
      STACKSYNC_KEY_SECRET: VALUES.keySecret,
      STACKSYNC_TOKEN: VALUES.token,
    });
    Object.assign(workspace.env, { FAULTS_KAFKA_USER: VALUES.kafkaUser, FAULTS_KAFKA_PASSWORD: VALUES.kafkaPassword });
    await workspace.write('secrets/s3-key-id', `${VALUES.s3KeyId}\n`);
    await workspace.write('secrets/s3-secret', `${VALUES.s3Secret}\n`);
    await workspace.write('manifests/pipes.yaml', PIPES);
    await workspace.write(
      'manifests/dashboards.yaml',
      documents([
        dashboardYaml({ key: 'secrets-a', target: 'local' }),
        dashboardYaml({ key: 'secrets-b', target: 'local-selfhosted' }),
      ]),
    );
  });
  afterAll(async () => {
    await workspace?.dispose();
    await emulator?.close();
  });

  it.each([
    ['validate', ['validate'], 0],
    ['plan text', ['plan', '--log-level', 'debug'], 0],
    ['plan json', ['plan', '--output', 'json', '--log-level', 'debug'], 0],
    ['plan github', ['plan', '--output', 'github', '--log-level', 'debug'], 0],
    ['apply json', ['apply', '--output', 'json', '--log-level', 'debug'], 0],
    ['apply text (nothing left to do)', ['apply', '--log-level', 'debug'], 0],
    ['plan text after apply', ['plan', '--log-level', 'debug', '--detailed-exitcode'], 0],
  ] as const)('%s prints none', async (_label, args, code) => {
    const result = await workspace.run(args);
    expect(crashOf(result), describeRun(result)).toBeUndefined();
    expect(result.code, describeRun(result)).toBe(code);
    expect(leaks(result.stdout), 'stdout').toEqual([]);
    expect(leaks(result.stderr), 'stderr').toEqual([]);
  });

  it('the plain-string access key is warned about by its path, never by its value', async () => {
    const result = await workspace.run(['validate']);
    expect(result.stdout).toMatch(
      /pipes\.yaml:\d+:\d+: warning: spec\.source\.kinesis\.accessKey\.secretKey: is a plain string/,
    );
    expect(leaks(result.stdout)).toEqual([]);
  });

  it('the API received every secret (so the runs above did use them)', () => {
    const secrets = emulator.state().organizations[0]?.services[0]?.pipeSecrets ?? {};
    expect(Object.keys(secrets[DEFAULT_SEED_IDS.pipes.kafka] ?? {})).toContain('kafka.credentials');
    expect(Object.keys(secrets[DEFAULT_SEED_IDS.pipes.objectStorage] ?? {})).toContain('objectStorage.accessKey');
    expect(Object.keys(secrets[DEFAULT_SEED_IDS.pipes.kinesis] ?? {})).toContain('kinesis.accessKey');
  });

  it('the daemon at debug level: logs, /metrics and /status hold none, also across a secret rotation', async () => {
    await resetEmulatorStats(emulator.url);
    const daemon = await startDaemon(workspace, ['--log-level', 'debug']);
    try {
      await waitUntil(async () => (await daemon.get('/readyz')).status === 200, 20_000);
      // Rotate the file secret, then touch a manifest: the next sync sends the new value once.
      await workspace.write('secrets/s3-secret', `${VALUES.s3SecretRotated}\n`);
      await workspace.write('manifests/pipes.yaml', `${PIPES}\n# touched\n`);
      await waitUntil(async () => (await emulatorStats(emulator.url)).writes >= 1, 20_000);
      const metrics = (await daemon.get('/metrics')).text;
      const status = (await daemon.get('/status')).text;
      expect(status).toContain('events-s3');
      expect(leaks(metrics), '/metrics').toEqual([]);
      expect(leaks(status), '/status').toEqual([]);
    } finally {
      const exit = await daemon.stop();
      expect(exit.code).toBe(0);
      expect(leaks(daemon.output().stdout), 'daemon stdout').toEqual([]);
      expect(leaks(daemon.output().stderr), 'daemon stderr').toEqual([]);
      // Debug logging was really on, so the search above covered request-level logs.
      expect(daemon.output().stdout + daemon.output().stderr).toMatch(/"level":20/);
    }
  });

  it('no file stacksync wrote holds a value (state file, HMAC key, anything else under .stacksync)', async () => {
    const dir = join(workspace.dir, '.stacksync');
    const files = await listFiles(dir);
    expect(files).toContain('state.json');
    for (const file of files) expect(leaks(await readFile(join(dir, file), 'utf8')), file).toEqual([]);
    const state = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as {
      targets: Record<string, { secretHashes: Record<string, string> }>;
    };
    expect(Object.keys(state.targets['local']?.secretHashes ?? {}).length).toBeGreaterThanOrEqual(3);
  });
});
