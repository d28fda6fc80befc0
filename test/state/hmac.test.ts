import { createHmac } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSecretHasher, keyPathFor, loadOrCreateHmacKey } from '../../src/state/hmac.js';
import { withSecretHashes } from '../../src/state/inventory.js';
import { emptyTargetState } from '../../src/state/empty.js';
import { openStateStore } from '../../src/state/store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-key-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('HMAC key', () => {
  it.each([
    ['.stacksync/state.json', '.stacksync/state.key'],
    ['/var/lib/stacksync/prod.state', '/var/lib/stacksync/prod.key'],
    ['state', 'state.key'],
  ])('lives beside the state file: %s → %s', (statePath, keyPath) => {
    expect(keyPathFor(statePath)).toBe(keyPath);
  });

  it('is created once with mode 0600 in a 0700 directory, and reused', async () => {
    const path = join(dir, 'sub', 'state.key');
    const first = await loadOrCreateHmacKey(path);
    expect(first).toHaveLength(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'sub'))).mode & 0o777).toBe(0o700);
    const second = await loadOrCreateHmacKey(path, { randomBytes: () => Buffer.alloc(32, 7) });
    expect(second.equals(first)).toBe(true);
    expect(await readdir(join(dir, 'sub'))).toEqual(['state.key']);
  });

  it('gives two processes starting together the same key', async () => {
    const path = join(dir, 'state.key');
    const [a, b] = await Promise.all([
      loadOrCreateHmacKey(path, { randomBytes: () => Buffer.alloc(32, 1) }),
      loadOrCreateHmacKey(path, { randomBytes: () => Buffer.alloc(32, 2) }),
    ]);
    expect(a.equals(b)).toBe(true);
    expect(await readdir(dir)).toEqual(['state.key']);
  });

  it('refuses a key file others can read, without printing the key', async () => {
    const path = join(dir, 'state.key');
    const key = await loadOrCreateHmacKey(path);
    await chmod(path, 0o644);
    const error = await loadOrCreateHmacKey(path).catch((caught: unknown) => caught as Error);
    expect(error).toMatchObject({ code: 'E_STATE_CORRUPT', message: expect.stringContaining('mode 0644') });
    expect((error as Error).message).not.toContain(key.toString('hex'));
  });

  it.each([
    ['too short', 'abcd\n'],
    ['not hex', `${'z'.repeat(64)}\n`],
    ['too long', `${'a'.repeat(66)}\n`],
  ])('refuses a key file that is %s', async (_label, content) => {
    const path = join(dir, 'state.key');
    await writeFile(path, content, { mode: 0o600 });
    await expect(loadOrCreateHmacKey(path)).rejects.toMatchObject({
      code: 'E_STATE_CORRUPT',
      message: expect.stringContaining('64 hex digits'),
    });
  });

  it('hashes with HMAC-SHA256 under the key, hex', () => {
    const key = Buffer.alloc(32, 9);
    const hash = createSecretHasher(key)('s3cret');
    expect(hash).toBe(createHmac('sha256', key).update('s3cret').digest('hex'));
    expect(createSecretHasher(Buffer.alloc(32, 8))('s3cret')).not.toBe(hash);
  });

  it('keeps only the hash of a secret in the state file, never the value', async () => {
    const statePath = join(dir, 'state.json');
    const hash = createSecretHasher(await loadOrCreateHmacKey(keyPathFor(statePath)));
    const store = await openStateStore(statePath);
    store.set(
      'prod',
      withSecretHashes(emptyTargetState(), 'Pipe', 'orders', {
        'source.kafka.credentials.password': hash('hunter2-very-secret'),
      }),
    );
    await store.close();
    const text = await readFile(statePath, 'utf8');
    expect(text).not.toContain('hunter2-very-secret');
    expect(text).toContain(hash('hunter2-very-secret'));
  });
});
