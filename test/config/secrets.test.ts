import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/config/duration.js';
import type { ManagedTarget, SecretRef, SelfHostedTarget } from '../../src/model/config.js';
import { chooseConfigPath, chooseManifestsDir } from '../../src/config/paths.js';
import { resolveCredentials, resolveSecret, toConnection } from '../../src/config/secrets.js';
import { StacksyncError } from '../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-secrets-'));
  await writeFile(join(dir, 'token'), 'file-token-value\n');
  await writeFile(join(dir, 'two-newlines'), 'value\n\n');
  await writeFile(join(dir, 'crlf'), 'value\r\n');
  await writeFile(join(dir, 'empty'), '\n');
  await writeFile(join(dir, 'huge'), 'x'.repeat(70 * 1024));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const env = { KEY_ID: 'env-key-id', KEY_SECRET: 'env-key-secret', EMPTY: '' };

function failure(run: () => unknown): StacksyncError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StacksyncError);
    return error as StacksyncError;
  }
  throw new Error('expected a failure');
}

describe('resolveSecret', () => {
  it.each<[string, SecretRef, string]>([
    ['an env var', { fromEnv: 'KEY_ID' }, 'env-key-id'],
    ['a file, dropping its trailing newline', { fromFile: 'token' }, 'file-token-value'],
    ['a file, dropping only one newline', { fromFile: 'two-newlines' }, 'value\n'],
    ['a file ending in CRLF', { fromFile: 'crlf' }, 'value'],
    ['a plain string', 'plain', 'plain'],
  ])('resolves %s', (_name, ref, want) => {
    const anchored = typeof ref === 'object' && 'fromFile' in ref ? { fromFile: join(dir, ref.fromFile) } : ref;
    expect(resolveSecret(anchored, { env })).toBe(want);
  });

  it.each<[string, SecretRef, string]>([
    ['an unset env var', { fromEnv: 'NOPE' }, 'env var NOPE is not set'],
    ['an empty env var', { fromEnv: 'EMPTY' }, 'env var EMPTY is empty'],
    [
      'a missing file',
      { fromFile: '/nonexistent/stacksync/token' },
      'file /nonexistent/stacksync/token cannot be read (ENOENT)',
    ],
  ])('refuses %s with E_SECRET_MISSING naming it', (_name, ref, message) => {
    const error = failure(() => resolveSecret(ref, { env }));
    expect(error.code).toBe('E_SECRET_MISSING');
    expect(error.message).toBe(message);
  });

  it.each([
    ['empty', 'empty'],
    ['a directory', '.'],
    ['too large', 'huge'],
  ])('refuses a secret file that is %s', (_name, file) => {
    const error = failure(() => resolveSecret({ fromFile: join(dir, file) }, { env }));
    expect(error.code).toBe('E_SECRET_MISSING');
    expect(error.message).toContain(join(dir, file));
  });

  it('reads through an injected readFile', () => {
    expect(resolveSecret({ fromFile: 'x' }, { env, readFile: (path) => `read:${path}\n` })).toBe('read:x');
  });
});

const managed: ManagedTarget = {
  name: 'prod',
  variant: 'managed',
  baseUrl: 'https://api.example.com',
  organizationId: 'org',
  serviceId: 'svc',
  auth: { keyId: { fromEnv: 'KEY_ID' }, keySecret: { fromEnv: 'KEY_SECRET' } },
  rateLimit: { requests: 10, perSeconds: 10, concurrency: 2 },
};
const selfHosted: SelfHostedTarget = {
  name: 'sh',
  variant: 'self-hosted',
  baseUrl: 'http://127.0.0.1:8000',
  auth: { token: { fromFile: '' } },
  rateLimit: { requests: 100, perSeconds: 60, concurrency: 4 },
};

describe('resolveCredentials and toConnection', () => {
  it('builds a managed connection', () => {
    expect(toConnection(managed, { env })).toEqual({
      name: 'prod',
      variant: 'managed',
      baseUrl: 'https://api.example.com',
      organizationId: 'org',
      serviceId: 'svc',
      credentials: { variant: 'managed', keyId: 'env-key-id', keySecret: 'env-key-secret' },
      rateLimit: { requests: 10, perSeconds: 10, concurrency: 2 },
    });
  });

  it('builds a self-hosted connection from a token file', () => {
    const target = { ...selfHosted, auth: { token: { fromFile: join(dir, 'token') } } };
    const connection = toConnection(target, { env });
    expect(connection.credentials).toEqual({ variant: 'self-hosted', token: 'file-token-value' });
    expect(connection).not.toHaveProperty('organizationId');
  });

  it('names the target and the env var, never a value', () => {
    const error = failure(() => resolveCredentials(managed, { env: { KEY_ID: 'env-key-id' } }));
    expect(error.code).toBe('E_SECRET_MISSING');
    expect(error.message).toBe('target prod: env var KEY_SECRET is not set');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('env-key-id');
  });
});

describe('parseDuration', () => {
  it.each<[string, number | undefined]>([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
    ['1d', 86_400_000],
    ['5', undefined],
    ['5 m', undefined],
    ['m5', undefined],
    ['', undefined],
  ])('%j → %j', (text, want) => {
    expect(parseDuration(text)).toBe(want);
  });
});

describe('config and manifests paths', () => {
  it.each([
    [undefined, {}, { path: 'config/stacksync.yaml', from: 'default' }],
    [undefined, { STACKSYNC_CONFIG: 'env.yaml' }, { path: 'env.yaml', from: 'env' }],
    ['flag.yaml', { STACKSYNC_CONFIG: 'env.yaml' }, { path: 'flag.yaml', from: 'flag' }],
  ])('config: flag %j, env %j', (flag, environment, want) => {
    expect(chooseConfigPath(flag, environment)).toEqual(want);
  });

  it.each([
    [undefined, {}, { path: 'manifests', from: 'default' }],
    [undefined, { STACKSYNC_MANIFESTS: 'm' }, { path: 'm', from: 'env' }],
    ['d', { STACKSYNC_MANIFESTS: 'm' }, { path: 'd', from: 'flag' }],
  ])('manifests: flag %j, env %j', (flag, environment, want) => {
    expect(chooseManifestsDir(flag, environment)).toEqual(want);
  });
});
