/**
 * The state in S3 end to end, through the built CLI and the real AWS SDK against the fake S3 on
 * loopback (test/helpers/fake-s3.ts), credentials from the SDK's chain (the environment): apply,
 * then a clean plan from the bucket, `state show`; an apply that waits for a lock another process
 * holds while a plan reads without it; and a store that ignores conditional writes refused.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { openS3Backend } from '../../src/state/s3.js';
import { dashboardYaml, describeRun, liveTarget } from '../helpers/e2e.js';
import { startFakeS3, type FakeS3 } from '../helpers/fake-s3.js';
import { expectHeldLockThenUnlock } from '../helpers/shared-state.js';
import { createWorkspace, startTestEmulator, type Workspace } from '../helpers/workspace.js';

const FAST = { rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 } };
const SECRET_KEY = 'fake-secret-access-key-e2e';
const CREDENTIALS = { accessKeyId: 'AKIAFAKEE2E', secretAccessKey: SECRET_KEY };

describe('the state in S3', () => {
  let emulator: RunningEmulator;
  let s3: FakeS3;
  const workspaces: Workspace[] = [];

  /** A workspace whose config keeps its state at `key` of the fake's bucket, credentials in the environment. */
  const workspace = async (key: string): Promise<Workspace> => {
    const made = await createWorkspace(emulator.url, FAST);
    workspaces.push(made);
    const config = await readFile(made.configPath, 'utf8');
    await writeFile(
      made.configPath,
      config.replace(
        /^state: .*$/m,
        `state: { backend: s3, bucket: team-state, key: ${key}, region: eu-west-1, endpoint: '${s3.endpoint}', forcePathStyle: true }`,
      ),
    );
    Object.assign(made.env, {
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    return made;
  };

  beforeAll(async () => {
    [emulator, s3] = await Promise.all([startTestEmulator(), startFakeS3({ buckets: ['team-state'] })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workspaces.map((w) => w.dispose()));
    await emulator?.close();
    await s3?.close();
  });

  it('applies, then plans clean from the bucket; state show counts what it owns', async () => {
    const ws = await workspace('stacksync/prod.json');
    await ws.write('manifests/a.yaml', dashboardYaml({ key: 's3-a', target: 'local' }));
    await ws.write('manifests/b.yaml', dashboardYaml({ key: 's3-b', target: 'local-selfhosted' }));
    const applied = await ws.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    expect(applied.stderr).not.toContain('NodeVersionSupportWarning');
    const plan = await ws.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
    // The state, its key and no lock left behind: all in the bucket.
    expect(s3.text('team-state', 'stacksync/prod.json')).toContain('"name":"Dashboard s3-a"');
    expect(s3.text('team-state', 'stacksync/prod.json.key')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(s3.text('team-state', 'stacksync/prod.json.lock')).toBeUndefined();

    const shown = await ws.run(['state', 'show', '--output', 'json']);
    expect(shown.code, describeRun(shown)).toBe(0);
    const summary = JSON.parse(shown.stdout) as {
      backend: string;
      location: string;
      serial: number;
      lineage: string;
      lock: unknown;
    };
    expect(summary).toMatchObject({
      backend: 's3',
      location: `s3://team-state/stacksync/prod.json at ${s3.endpoint}`,
      lock: null,
      targets: { local: { resources: { Dashboard: 1 } }, 'local-selfhosted': { resources: { Dashboard: 1 } } },
    });
    expect(summary.serial).toBeGreaterThan(0);
    expect(summary.lineage).toMatch(/^[0-9a-f-]{36}$/);
    const text = await ws.run(['state', 'show']);
    expect(text.stdout).toMatch(/backend {3}s3: s3:\/\/team-state\/stacksync\/prod\.json/);
    expect(text.stdout).toMatch(/target local: 1 Dashboard/);
    expect(`${text.stdout}${text.stderr}${applied.stdout}${applied.stderr}`).not.toContain(SECRET_KEY);
  });

  it('takes a file state by migrate --to, and the copy plans clean', async () => {
    const ws = await createWorkspace(emulator.url, FAST);
    workspaces.push(ws);
    await ws.write('manifests/m.yaml', dashboardYaml({ key: 's3-migrated', target: 'local' }));
    const applied = await ws.run(['apply']);
    expect(applied.code, describeRun(applied)).toBe(0);
    const fileConfig = await readFile(ws.configPath, 'utf8');
    await ws.write(
      'config/s3.yaml',
      fileConfig.replace(
        /^state: .*$/m,
        `state: { backend: s3, bucket: team-state, key: stacksync/migrated.json, region: eu-west-1, endpoint: '${s3.endpoint}', forcePathStyle: true }`,
      ),
    );
    const env = {
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    const migrated = await ws.run(['state', 'migrate', '--to', 'config/s3.yaml'], { env });
    expect(migrated.code, describeRun(migrated)).toBe(0);
    expect(migrated.stdout).toMatch(
      /copied 2 target\(s\) from .*state\.json to s3:\/\/team-state\/stacksync\/migrated\.json/,
    );
    const plan = await ws.run(['plan', '--detailed-exitcode', '-c', 'config/s3.yaml'], { env });
    expect(plan.code, describeRun(plan)).toBe(0);
  });

  it('makes apply wait for the lock while a plan reads without it; unlock breaks it by its id', async () => {
    const ws = await workspace('stacksync/locked.json');
    await ws.write('manifests/l.yaml', dashboardYaml({ key: 's3-locked', target: 'local' }));
    const other = openS3Backend({
      bucket: 'team-state',
      key: 'stacksync/locked.json',
      region: 'eu-west-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: CREDENTIALS,
    });
    const held = await other.lock({ command: 'run', timeoutMs: 0, leaseMs: 600_000 });
    await expectHeldLockThenUnlock({ ws, emulatorUrl: emulator.url, other, held, dashboard: 's3-locked' });
    const plan = await ws.run(['plan', '--detailed-exitcode']);
    expect(plan.code, describeRun(plan)).toBe(0);
  });

  it('refuses to apply on a store that ignores conditional writes, and writes nothing', async () => {
    const ws = await workspace('stacksync/unsafe.json');
    await ws.write('manifests/u.yaml', dashboardYaml({ key: 's3-unsafe', target: 'local' }));
    s3.ignoreConditions = true;
    try {
      const apply = await ws.run(['apply']);
      expect(apply.code).toBe(1);
      expect(apply.stderr).toContain('E_STATE_UNSUPPORTED');
      expect(apply.stderr).not.toContain(SECRET_KEY);
    } finally {
      s3.ignoreConditions = false;
    }
    expect(s3.text('team-state', 'stacksync/unsafe.json')).toBeUndefined();
    expect((await liveTarget(emulator.url, 'local')).dashboards.map((d) => d.name)).not.toContain(
      'Dashboard s3-unsafe',
    );
  });
});
