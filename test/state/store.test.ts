import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStacksyncError } from '../../src/errors.js';
import { nodeFs, type StateFs } from '../../src/support/fs.js';
import { addIntent, recordCreated, recordSecretHashes } from '../../src/state/inventory.js';
import { emptyTargetState, type StateFile } from '../../src/model/state.js';
import { openStateStore } from '../../src/state/store.js';

let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-state-'));
  path = join(dir, 'nested', 'state.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HASH = 'a'.repeat(64);

function sampleFile(): StateFile {
  let prod = recordCreated(emptyTargetState(), 'Dashboard', 'api-latency', { id: 'd1', name: 'API latency', spec: 'c'.repeat(64) });
  prod = addIntent(prod, { kind: 'Alert', key: 'slow', name: 'Slow API', at: '2026-03-15T10:20:30.000Z' });
  prod = recordSecretHashes(prod, 'Pipe', 'orders', { 'source.kafka.credentials': HASH });
  return { version: 1, targets: { prod } };
}

async function expectCorrupt(text: string, fragment: string): Promise<void> {
  await writeFile(join(dir, 'state.json'), text);
  const error = await openStateStore(join(dir, 'state.json')).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isStacksyncError(error, 'E_STATE_CORRUPT')).toBe(true);
  expect((error as Error).message).toContain(join(dir, 'state.json'));
  expect((error as Error).message).toContain(fragment);
  // Never silently reset: the file is exactly as it was.
  expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe(text);
}

describe('state store', () => {
  it('treats a missing file as an empty state and creates nothing until saved', async () => {
    const store = await openStateStore(path);
    expect(store.get('prod')).toEqual(emptyTargetState());
    await store.save();
    await expect(stat(join(dir, 'nested'))).rejects.toThrow();
  });

  it('round-trips a state through the file, creating the directory 0700 and the file 0600', async () => {
    const store = await openStateStore(path);
    const file = sampleFile();
    store.set('prod', file.targets['prod']!);
    await store.save();
    const reopened = await openStateStore(path);
    expect(reopened.snapshot()).toEqual(file);
    expect((await stat(join(dir, 'nested'))).mode & 0o777).toBe(0o700);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('leaves no temp files behind after writes', async () => {
    const store = await openStateStore(path);
    for (let round = 0; round < 5; round += 1) {
      store.update('prod', (state) => recordCreated(state, 'Alert', `a${round}`, { id: `id${round}` }));
      await store.save();
    }
    expect(await readdir(join(dir, 'nested'))).toEqual(['state.json']);
  });

  it('hands out frozen states so a stray mutation cannot bypass a save', async () => {
    const store = await openStateStore(path);
    store.set('prod', sampleFile().targets['prod']!);
    expect(() => {
      (store.get('prod').inventory.Dashboard as Record<string, unknown>)['x'] = { id: 'y' };
    }).toThrow(TypeError);
  });

  it.each([
    ['bad JSON', '{"version": 1, "targets": {', 'is not valid JSON'],
    ['a JSON array', '[]', 'has version undefined'],
    ['a wrong version', '{"version": 2, "targets": {}}', 'has version 2'],
    ['a missing member', '{"version": 1, "targets": {"prod": {"inventory": {}, "intents": []}}}', 'secretHashes: is required'],
    ['an inventory entry without id', '{"version": 1, "targets": {"prod": {"inventory": {"Alert": {"a": {"name": "x"}}}, "secretHashes": {}, "intents": []}}}', 'id: is required'],
    ['an unknown kind', '{"version": 1, "targets": {"prod": {"inventory": {"Widget": {}}, "secretHashes": {}, "intents": []}}}', 'Widget'],
    ['a secret that is not a hash', '{"version": 1, "targets": {"prod": {"inventory": {}, "secretHashes": {"Pipe/p:x": "hunter2"}, "intents": []}}}', 'secretHashes'],
    ['an intent of an unknown kind', '{"version": 1, "targets": {"prod": {"inventory": {}, "secretHashes": {}, "intents": [{"kind": "X", "key": "k", "name": "n", "at": "t"}]}}}', 'intents[0].kind'],
  ])('refuses %s with E_STATE_CORRUPT and leaves the file untouched', async (_label, text, fragment) => {
    await expectCorrupt(text, fragment);
  });

  it('refuses an unreadable file with E_STATE_CORRUPT rather than starting empty', async () => {
    // Injected, because a test running as root can read a file whatever its mode.
    const deniedFs: StateFs = { ...nodeFs, readFile: () => Promise.reject(Object.assign(new Error('denied'), { code: 'EACCES' })) };
    await expect(openStateStore(path, { fs: deniedFs })).rejects.toMatchObject({
      code: 'E_STATE_CORRUPT',
      message: expect.stringContaining(`${path} cannot be read (EACCES)`),
    });
  });

  it('fills kinds missing from an older file so every kind can be indexed', async () => {
    await writeFile(path.replace('nested/', ''), JSON.stringify({ version: 1, targets: { prod: { inventory: { Alert: { a: { id: '1' } } }, secretHashes: {}, intents: [] } } }));
    const store = await openStateStore(path.replace('nested/', ''));
    expect(store.get('prod').inventory).toEqual({ Pipe: {}, Dashboard: {}, Alert: { a: { id: '1' } } });
  });

  it('keeps the previous file when a write fails and reports E_STATE_WRITE', async () => {
    const store = await openStateStore(path);
    store.set('prod', sampleFile().targets['prod']!);
    await store.save();
    const before = await readFile(path, 'utf8');
    const failingFs: StateFs = { ...nodeFs, rename: () => Promise.reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' })) };
    const broken = await openStateStore(path, { fs: failingFs });
    broken.update('prod', (state) => recordCreated(state, 'Alert', 'new', { id: 'n1' }));
    await expect(broken.save()).rejects.toMatchObject({ code: 'E_STATE_WRITE', message: expect.stringContaining('ENOSPC') });
    expect(await readFile(path, 'utf8')).toBe(before);
    expect(await readdir(join(dir, 'nested'))).toEqual(['state.json']);
  });

  it('serialises concurrent saves: each resolves only once its state is on disk, and the last state wins', async () => {
    let writes = 0;
    let renamesInFlight = 0;
    let maxRenamesInFlight = 0;
    const countingFs: StateFs = {
      ...nodeFs,
      rename: async (from, to) => {
        writes += 1;
        renamesInFlight += 1;
        maxRenamesInFlight = Math.max(maxRenamesInFlight, renamesInFlight);
        await new Promise((resolve) => setImmediate(resolve));
        await nodeFs.rename(from, to);
        renamesInFlight -= 1;
      },
    };
    const store = await openStateStore(path, { fs: countingFs });
    const saves: Promise<void>[] = [];
    const durableChecks: Promise<void>[] = [];
    for (let index = 0; index < 20; index += 1) {
      store.update('prod', (state) => recordCreated(state, 'Alert', `a${index}`, { id: `id${index}` }));
      const save = store.save();
      saves.push(save);
      // At the moment this save resolves, the file must already hold alert `a${index}`.
      durableChecks.push(
        save.then(() => {
          const onDisk = JSON.parse(readFileSync(path, 'utf8')) as StateFile;
          expect(onDisk.targets['prod']?.inventory.Alert[`a${index}`]).toEqual({ id: `id${index}` });
        }),
      );
    }
    await Promise.all([...saves, ...durableChecks]);
    expect(maxRenamesInFlight).toBe(1);
    expect(writes).toBeLessThan(20);
    const final = JSON.parse(await readFile(path, 'utf8')) as StateFile;
    expect(Object.keys(final.targets['prod']!.inventory.Alert)).toHaveLength(20);
  });

  it('lets a later save succeed after a failed one', async () => {
    let failNext = true;
    const flakyFs: StateFs = {
      ...nodeFs,
      rename: (from, to) => {
        if (!failNext) return nodeFs.rename(from, to);
        failNext = false;
        return Promise.reject(Object.assign(new Error('io'), { code: 'EIO' }));
      },
    };
    const store = await openStateStore(path, { fs: flakyFs });
    store.update('prod', (state) => recordCreated(state, 'Alert', 'a', { id: '1' }));
    await expect(store.save()).rejects.toMatchObject({ code: 'E_STATE_WRITE' });
    await store.save();
    expect((await openStateStore(path)).get('prod').inventory.Alert).toEqual({ a: { id: '1' } });
  });
});
