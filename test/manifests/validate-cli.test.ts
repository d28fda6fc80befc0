import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommanderError } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { createValidateCommand } from '../../src/cli/validate.js';
import { DESCRIPTORS } from '../../src/kinds/index.js';
import { KIND_LIST } from '../helpers/kinds.js';
import { alert, dashboard, kafkaPipe, removeTrees, writeTree, type Tree } from './helpers.js';

afterAll(removeTrees);

const ORG = '0b4f6c1e-4d2a-4f6b-9a51-7c3d2e1f0a01';
const SVC = '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01';

const configText = (keySecret = '{ fromEnv: KEY_SECRET }'): string => `targets:
  - name: prod
    variant: managed
    baseUrl: http://127.0.0.1:4010
    organizationId: ${ORG}
    serviceId: ${SVC}
    auth: { keyId: { fromEnv: KEY_ID }, keySecret: ${keySecret} }
  - name: sh
    variant: self-hosted
    baseUrl: http://127.0.0.1:4010
    auth: { token: { fromEnv: TOKEN } }
defaultTarget: prod
`;

interface Run {
  code: number | undefined;
  stdout: string;
  stderr: string;
}

async function validate(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Run> {
  let code: number | undefined;
  let stdout = '';
  let stderr = '';
  const command = createValidateCommand((c) => (code = c), { stdout: (t) => (stdout += t), env });
  command.exitOverride().configureOutput({ writeOut: (t) => (stdout += t), writeErr: (t) => (stderr += t) });
  const previous = process.cwd();
  if (cwd) process.chdir(cwd);
  try {
    await command.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    code = error.exitCode;
  } finally {
    process.chdir(previous);
  }
  return { code, stdout, stderr };
}

async function project(tree: Tree): Promise<string> {
  return writeTree(tree);
}

describe('stacksync validate', () => {
  it('passes a valid config and manifests, exit 0', async () => {
    const dir = await project({
      'config/stacksync.yaml': configText(),
      'manifests/a.yaml': `${dashboard('api')}---\n${alert('slow', 'api', 'p99')}`,
      'manifests/sh/b.yaml': dashboard('api', '', 'sh'),
      'manifests/p.yaml': kafkaPipe(),
    });
    const run = await validate([], {}, dir);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: 'validate ok: 0 errors, 0 warnings; 4 valid resources in manifests (1 pipe, 2 dashboards, 1 alert)\n',
    });
  });

  it('prints every problem as file:line:column: CODE: message, then the summary, on stdout; exit 1', async () => {
    const dir = await project({
      'c.yaml': configText().replace('defaultTarget: prod', 'defaultTarget: prod\nsync: { interval: often }'),
      'm/a.yaml': dashboard('api').replace('w: 6', 'w: 99'),
      'm/b.yaml': alert('slow', 'apii', 'p99', 'sh'),
      'm/c.yaml': 'kind: [unclosed\n',
    });
    const run = await validate(['-c', join(dir, 'c.yaml'), '-m', join(dir, 'm')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n')).toEqual([
      `${join(dir, 'c.yaml')}:13:19: E_CONFIG_INVALID: sync.interval: must be a duration like 30s, 5m, 1h or 1h30m`,
      `${join(dir, 'm', 'a.yaml')}:12:10: E_MANIFEST_INVALID: spec.tiles[0].w: must be <= 24`,
      `${join(dir, 'm', 'b.yaml')}:12:14: E_REF_UNRESOLVED: spec.dashboard: names no Dashboard manifest of target sh`,
      `${join(dir, 'm', 'c.yaml')}:2:1: E_MANIFEST_PARSE: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`,
      `${join(dir, 'c.yaml')}: warning: the config is invalid, so manifests were checked without target checks`,
      `validate failed: 4 errors, 1 warning; 0 valid resources in ${join(dir, 'm')}`,
      '',
    ]);
  });

  it('checks the account kinds offline: where each can apply, its references, and secrets never echoed', async () => {
    const current = configText().replace(
      /(baseUrl: http:\/\/127\.0\.0\.1:4010\n)/g,
      '$1    api: { profile: current }\n',
    );
    const kind = (kindName: string, name: string, target: string, spec: string): string =>
      `apiVersion: stacksync/v1\nkind: ${kindName}\nmetadata: { name: ${name}, target: ${target} }\nspec:\n${spec}`;
    const dir = await project({
      'c-seed.yaml': configText(),
      'c-current.yaml': current,
      'm/account.yaml': [
        kind('Connection', 'ch', 'prod', '  name: CH\n  host: http://ch:8123\n  username: reader\n'),
        kind(
          'Source',
          'logs',
          'sh',
          '  name: Logs\n  kind: log\n  connection: ch\n  from: { databaseName: otel, tableName: logs }\n  timestampValueExpression: Timestamp\n  defaultTableSelectExpression: Timestamp, Body\n',
        ),
        kind(
          'Webhook',
          'pager',
          'sh',
          '  name: Pager\n  service: generic\n  url: https://hooks.example.com/T0KEN-IN-URL\n  headers: { Authorization: Bearer-H3ADER }\n',
        ),
        kind('SavedSearch', 'errors', 'sh', '  name: Errors\n  source: logs\n'),
        kind(
          'Alert',
          'errors',
          'sh',
          '  name: Errors\n  source: saved_search\n  savedSearch: errors\n  savedSearchId: 66f0000000000000000d0002\n  threshold: 1\n  thresholdType: above\n  interval: 5m\n  channel: { type: webhook, webhook: pager }\n',
        ),
      ].join('---\n'),
    });
    const seed = await validate(['-c', join(dir, 'c-seed.yaml'), '-m', join(dir, 'm')]);
    expect(seed.code).toBe(1);
    expect(seed.stdout).toContain(
      'a Connection needs a self-hosted target with api profile current, and prod is managed (it has no connections)',
    );
    expect(seed.stdout).toContain(
      'a SavedSearch needs a target with api profile current, and sh speaks api profile seed (whose self-hosted API has no saved searches)',
    );
    const currentRun = await validate(['-c', join(dir, 'c-current.yaml'), '-m', join(dir, 'm')]);
    expect(currentRun.code).toBe(1);
    const file = join(dir, 'm', 'account.yaml');
    expect(currentRun.stdout.split('\n')).toEqual([
      `${file}:3:31: E_MANIFEST_INVALID: metadata.target: a Connection needs a self-hosted target with api profile current, and prod is managed (it has no connections)`,
      `${file}:40:3: E_MANIFEST_INVALID: spec: must set exactly one of savedSearchId, savedSearch`,
      `${file}:26:8: warning: spec.url: is a plain string in the manifest; use {fromEnv: NAME} or {fromFile: PATH} to keep secrets out of Git`,
      `${file}:27:29: warning: spec.headers.Authorization: is a plain string in the manifest; use {fromEnv: NAME} or {fromFile: PATH} to keep secrets out of Git`,
      `validate failed: 2 errors, 2 warnings; 3 valid resources in ${join(dir, 'm')} (1 source, 1 saved search, 1 webhook)`,
      '',
    ]);
    for (const run of [seed, currentRun]) expect(run.stdout + run.stderr).not.toMatch(/T0KEN-IN-URL|Bearer-H3ADER/);
  });

  it('--output json: one object with the summary, every error and warning with its code', async () => {
    const dir = await project({
      'config/stacksync.yaml': configText(),
      'manifests/a.yaml': dashboard('api').replace('w: 6', 'w: 99'),
      'manifests/b.yaml': dashboard('web'),
    });
    const run = await validate(['--output', 'json'], {}, dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      version: 1,
      ok: false,
      summary: {
        errors: 1,
        warnings: 0,
        resources: 1,
        // Every registered kind, with a count of what loaded.
        kinds: { ...Object.fromEntries(DESCRIPTORS.map((descriptor) => [descriptor.kind, 0])), Dashboard: 1 },
        manifests: 'manifests',
      },
      errors: [
        {
          file: join('manifests', 'a.yaml'),
          line: 12,
          column: 10,
          code: 'E_MANIFEST_INVALID',
          message: 'spec.tiles[0].w: must be <= 24',
        },
      ],
      warnings: [],
    });
    const clean = await validate(['--output', 'json', '-c', 'missing.yaml'], {}, dir);
    expect(JSON.parse(clean.stdout)).toMatchObject({
      ok: false,
      errors: expect.arrayContaining([expect.objectContaining({ file: 'missing.yaml', code: 'E_CONFIG_INVALID' })]),
    });
  });

  it('without a config at the default path, checks manifests without targets and says so', async () => {
    const dir = await project({ 'manifests/a.yaml': dashboard('api', '', 'wherever') });
    const run = await validate([], {}, dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'config/stacksync.yaml: warning: no config file here, so manifests were checked without target checks (pass -c FILE or set STACKSYNC_CONFIG)\n',
    );
    expect(run.stdout).toContain('validate ok: 0 errors, 1 warning; 1 valid resource in manifests');
  });

  it('fails when a config named by flag or env is missing', async () => {
    const dir = await project({ 'manifests/a.yaml': dashboard('api') });
    const byFlag = await validate(['-c', 'nope.yaml'], {}, dir);
    expect(byFlag.code).toBe(1);
    expect(byFlag.stdout).toContain('nope.yaml: E_CONFIG_INVALID: config file nope.yaml not found\n');
    const byEnv = await validate([], { STACKSYNC_CONFIG: 'env.yaml' }, dir);
    expect(byEnv.code).toBe(1);
    expect(byEnv.stdout).toContain('env.yaml: E_CONFIG_INVALID: config file env.yaml not found\n');
  });

  it('takes config and manifests from STACKSYNC_CONFIG and STACKSYNC_MANIFESTS; flags win', async () => {
    const dir = await project({
      'etc/s.yaml': configText(),
      'deploy/a.yaml': dashboard('api', '', 'elsewhere'),
      'other/a.yaml': dashboard('api'),
    });
    const env = { STACKSYNC_CONFIG: join(dir, 'etc/s.yaml'), STACKSYNC_MANIFESTS: join(dir, 'deploy') };
    const fromEnv = await validate([], env);
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stdout).toContain(
      `${join(dir, 'deploy', 'a.yaml')}:5:11: E_REF_UNRESOLVED: metadata.target: names no target in the config; the targets are prod, sh`,
    );
    const withFlag = await validate(['-m', join(dir, 'other')], env);
    expect(withFlag.code).toBe(0);
  });

  it('never prints a secret value', async () => {
    const values = { KAFKA_USER: 'kafka-user-XYZZY1', KAFKA_PASSWORD: 'kafka-password-XYZZY2' };
    const dir = await project({
      'c.yaml': configText('config-plain-XYZZY3'),
      'm/p.yaml': kafkaPipe(
        '\n      credentials:\n        username: { fromEnv: KAFKA_USER }\n        password: plain-manifest-XYZZY4',
      ),
      'm/q.yaml': kafkaPipe(
        '\n      credentials:\n        username: { fromEnv: KAFKA_PASSWORD }\n        password: { fromEnv: MISSING_ONE }',
      ).replace('name: orders', 'name: orders-2'),
      'm/r.yaml': kafkaPipe(
        '\n      credentials:\n        username: 42\n        password: { fromEnv: KAFKA_PASSWORD, extra: plain-manifest-XYZZY5 }',
      ).replace('name: orders', 'name: orders-3'),
    });
    const run = await validate(['-c', join(dir, 'c.yaml'), '-m', join(dir, 'm')], values);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('env var MISSING_ONE is not set');
    expect(run.stdout).toContain('targets[0].auth.keySecret: is a plain string in the config file');
    expect(run.stdout).toContain('credentials.password: is a plain string in the manifest');
    expect(run.stdout).toContain('credentials.password: must be {fromEnv: NAME}, {fromFile: PATH} or a plain string');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/XYZZY/);
  });

  it('explains itself in --help', async () => {
    const run = await validate(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: validate [options]');
    expect(run.stdout).toContain('-c, --config <file>');
    expect(run.stdout).toContain('-m, --manifests <dir>');
    expect(run.stdout).toContain('Never touches the network');
    expect(run.stdout).toContain('Exit codes: 0 valid (warnings allowed), 1 any error.');
  });

  it("says in --help that it does not resolve the config's auth secrets, and indeed does not", async () => {
    const help = await validate(['--help']);
    expect(help.stdout).toContain(
      'a secret reference in a\n    manifest ({fromEnv} / {fromFile}) that cannot be read here is a warning',
    );
    expect(help.stdout).toContain("Not checked: the config's auth secrets (keyId, keySecret, token)");
    const dir = await project({ 'config/stacksync.yaml': configText(), 'manifests/d.yaml': dashboard('api') });
    // KEY_ID, KEY_SECRET and TOKEN are all unset: what the help says is not checked is not.
    const run = await validate([], {}, dir);
    expect(run.code, run.stdout).toBe(0);
  });

  describe('through the built CLI (dist/cli.js, built by npm test)', () => {
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const repo = fileURLToPath(new URL('../..', import.meta.url));
    const run = (args: string[], cwd: string) =>
      spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });

    it('accepts the example config and manifests, exit 0', () => {
      const child = run(['validate', '-c', 'config/emulator.yaml', '-m', 'manifests'], repo);
      expect(child.stderr).toBe('');
      expect(child.stdout).toMatch(/^validate ok: 0 errors, 0 warnings; \d+ valid resources in manifests/);
      expect(child.status).toBe(0);
    });

    it('reports a broken manifest with its location, exit 1', async () => {
      const dir = await project({ 'manifests/a.yaml': dashboard('api').replace('kind: Dashboard', 'kind: Board') });
      const child = run(['validate'], dir);
      expect(child.stderr).toBe('');
      expect(child.stdout).toContain(
        `${join('manifests', 'a.yaml')}:2:7: E_MANIFEST_INVALID: kind: must be one of ${KIND_LIST}\n`,
      );
      expect(child.status).toBe(1);
    });

    it('says what a misspelt kind, member or flag most likely meant', async () => {
      const text = dashboard('api')
        .replace('kind: Dashboard', 'kind: Dashbord')
        .replace(/^spec:\n {2}name:/m, 'spec:\n  nmae:');
      const dir = await project({ 'manifests/a.yaml': text });
      const child = run(['validate'], dir);
      expect(child.stdout).toContain(`kind: must be one of ${KIND_LIST}; did you mean Dashboard?`);
      expect(child.status).toBe(1);
      const member = run(
        ['validate'],
        await project({ 'manifests/a.yaml': dashboard('api').replace(/^spec:\n {2}name:/m, 'spec:\n  nmae:') }),
      );
      expect(member.stdout).toMatch(/spec\.nmae: is not a known member here; did you mean name\? \(expected one of /);
      const flag = run(['validate', '--manifest', 'x'], dir);
      expect(flag.stderr).toContain('(Did you mean --manifests?)');
      expect(flag.status).toBe(1);
    });
  });
});
