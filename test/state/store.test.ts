import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStacksyncError } from '../../src/errors.js';
import { nodeFs, type StateFileHandle, type StateFs } from '../../src/support/fs.js';
import { addIntent, withCreated, withSecretHashes } from '../../src/state/inventory.js';
import type { StateFile } from '../../src/model/state.js';
import { emptyInventory, emptyTargetState } from '../../src/state/empty.js';
import { openFileBackend } from '../../src/state/file-backend.js';
import {
  journalPathFor,
  openStateStore as openStore,
  readDurableState,
  type StateStore,
  type StateStoreOptions,
} from '../../src/state/store.js';

let dir: string;
let path: string;
let journal: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacksync-state-'));
  path = join(dir, 'nested', 'state.json');
  journal = journalPathFor(path);
});
afterEach(async () => {
  // Stores left open on purpose (a "killed" run) still hold a journal handle.
  for (const store of opened.splice(0)) await store.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const opened: StateStore[] = [];

async function openStateStore(file: string, options?: StateStoreOptions): Promise<StateStore> {
  const store = await openStore(file, options);
  opened.push(store);
  return store;
}

const HASH = 'a'.repeat(64);

function sampleFile(): StateFile {
  let prod = withCreated(emptyTargetState(), 'Dashboard', 'api-latency', {
    id: 'd1',
    name: 'API latency',
    spec: 'c'.repeat(64),
  });
  prod = addIntent(prod, { kind: 'Alert', key: 'slow', name: 'Slow API', at: '2026-03-15T10:20:30.000Z' });
  prod = withSecretHashes(prod, 'Pipe', 'orders', { 'source.kafka.credentials': HASH });
  return { version: 1, targets: { prod } };
}

function owned(index: number) {
  return { type: 'owned', kind: 'Alert', key: `a${index}`, id: `id${index}` } as const;
}

/** A store over a state file that exists already (any run after the first). */
async function openExisting(options?: StateStoreOptions): Promise<StateStore> {
  await mkdir(join(dir, 'nested'), { recursive: true });
  await writeFile(path, '{"version": 1, "targets": {}}\n');
  return openStateStore(path, options);
}

async function lines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '');
}

async function expectCorrupt(open: () => Promise<unknown>, file: string, fragment: string): Promise<void> {
  const before = await readFile(file, 'utf8');
  const error = await open().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isStacksyncError(error, 'E_STATE_CORRUPT')).toBe(true);
  expect((error as Error).message).toContain(file);
  expect((error as Error).message).toContain(fragment);
  // Never silently reset: the file is exactly as it was.
  expect(await readFile(file, 'utf8')).toBe(before);
}

describe('state store: the state file', () => {
  it('treats a missing file as an empty state and creates nothing until something is recorded', async () => {
    const store = await openStateStore(path);
    expect(store.get('prod')).toEqual(emptyTargetState());
    await store.save();
    await store.close();
    await expect(stat(join(dir, 'nested'))).rejects.toThrow();
  });

  it('round-trips a state, creating the directory 0700 and the state file and journal 0600', async () => {
    const store = await openStateStore(path);
    const file = sampleFile();
    store.set('prod', emptyTargetState());
    await store.save();
    store.set('prod', file.targets['prod']!);
    await store.save();
    expect((await stat(journal)).mode & 0o777).toBe(0o600);
    expect((await openStateStore(path, { readOnly: true })).snapshot()).toEqual(file);
    await store.close();
    expect((await stat(join(dir, 'nested'))).mode & 0o777).toBe(0o700);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await openStateStore(path)).snapshot()).toEqual(file);
  });

  it('leaves only the state file behind once closed: no journal, no temp files', async () => {
    const store = await openStateStore(path);
    for (let round = 0; round < 5; round += 1) {
      store.add('prod', owned(round));
      await store.save();
    }
    await store.close();
    expect(await readdir(join(dir, 'nested'))).toEqual(['state.json']);
    const onDisk = JSON.parse(await readFile(path, 'utf8')) as StateFile;
    expect(Object.keys(onDisk.targets['prod']!.inventory.Alert)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
  });

  it.each([
    ['bad JSON', '{"version": 1, "targets": {', 'is not valid JSON'],
    ['a JSON array', '[]', 'has version undefined'],
    ['a wrong version', '{"version": 2, "targets": {}}', 'has version 2'],
    [
      'a missing member',
      '{"version": 1, "targets": {"prod": {"inventory": {}, "intents": []}}}',
      'secretHashes: is required',
    ],
    [
      'an inventory entry without id',
      '{"version": 1, "targets": {"prod": {"inventory": {"Alert": {"a": {"name": "x"}}}, "secretHashes": {}, "intents": []}}}',
      'id: is required',
    ],
    [
      'an unknown kind',
      '{"version": 1, "targets": {"prod": {"inventory": {"Widget": {}}, "secretHashes": {}, "intents": []}}}',
      'Widget',
    ],
    [
      'a secret that is not a hash',
      '{"version": 1, "targets": {"prod": {"inventory": {}, "secretHashes": {"Pipe/p:x": "hunter2"}, "intents": []}}}',
      'secretHashes',
    ],
    [
      'an intent of an unknown kind',
      '{"version": 1, "targets": {"prod": {"inventory": {}, "secretHashes": {}, "intents": [{"kind": "X", "key": "k", "name": "n", "at": "t"}]}}}',
      'intents[0].kind',
    ],
    [
      'a suspension without its time',
      '{"version": 1, "targets": {"prod": {"inventory": {}, "secretHashes": {}, "intents": [], "suspension": {"by": "alice"}}}}',
      'since: is required',
    ],
    [
      'a suspension reason of two lines',
      '{"version": 1, "targets": {"prod": {"inventory": {}, "secretHashes": {}, "intents": [], "suspension": {"since": "t", "reason": "a\\nb"}}}}',
      'suspension.reason',
    ],
  ])('refuses %s with E_STATE_CORRUPT and leaves the file untouched', async (_label, text, fragment) => {
    await mkdir(join(dir, 'nested'));
    await writeFile(path, text);
    await expectCorrupt(() => openStateStore(path), path, fragment);
  });

  it('refuses an unreadable file with E_STATE_CORRUPT rather than starting empty', async () => {
    // Injected, because a test running as root can read a file whatever its mode.
    const denied = (file: string) => Promise.reject(Object.assign(new Error(`denied ${file}`), { code: 'EACCES' }));
    const deniedFs: StateFs = {
      ...nodeFs,
      readFile: (file) => (file === path ? denied(file) : nodeFs.readFile(file, 'utf8')),
    };
    await expect(openStateStore(path, { fs: deniedFs })).rejects.toMatchObject({
      code: 'E_STATE_CORRUPT',
      message: expect.stringContaining(`${path} cannot be read (EACCES)`),
    });
  });

  it('fills kinds missing from an older file so every kind can be indexed', async () => {
    await mkdir(join(dir, 'nested'));
    await writeFile(
      path,
      JSON.stringify({
        version: 1,
        targets: { prod: { inventory: { Alert: { a: { id: '1' } } }, secretHashes: {}, intents: [] } },
      }),
    );
    const store = await openStateStore(path);
    expect(store.get('prod').inventory).toEqual({ ...emptyInventory(), Alert: { a: { id: '1' } } });
  });
});

describe('state store: the journal', () => {
  it('writes the state file at the first save of a first run, so a journal never lacks one', async () => {
    const store = await openStateStore(path);
    store.add('prod', { type: 'intent', kind: 'Alert', key: 'a1', name: 'A1', at: 't' });
    await store.save();
    expect(await readdir(join(dir, 'nested'))).toEqual(['state.json']);
    expect((JSON.parse(await readFile(path, 'utf8')) as StateFile).targets['prod']?.intents).toEqual([
      { kind: 'Alert', key: 'a1', name: 'A1', at: 't' },
    ]);
    store.add('prod', owned(1));
    await store.save();
    expect((await readdir(join(dir, 'nested'))).sort()).toEqual(['state.json', 'state.json.journal']);
  });

  it('appends one line per record and leaves the state file alone until compaction', async () => {
    const store = await openStateStore(path);
    store.set('prod', sampleFile().targets['prod']!);
    await store.compact();
    const compacted = await readFile(path, 'utf8');
    for (let index = 0; index < 3; index += 1) {
      store.add('prod', owned(index));
      await store.save();
    }
    expect(await readFile(path, 'utf8')).toBe(compacted);
    expect((await lines(journal)).map((line) => JSON.parse(line) as unknown)).toEqual([
      { seq: 2, target: 'prod', type: 'owned', kind: 'Alert', key: 'a0', id: 'id0' },
      { seq: 3, target: 'prod', type: 'owned', kind: 'Alert', key: 'a1', id: 'id1' },
      { seq: 4, target: 'prod', type: 'owned', kind: 'Alert', key: 'a2', id: 'id2' },
    ]);
  });

  it('recovers what a killed run saved: replayed on open, then compacted into the state file', async () => {
    const crashed = await openExisting();
    crashed.set('prod', sampleFile().targets['prod']!);
    crashed.add(
      'prod',
      owned(1),
      { type: 'intent-dropped', kind: 'Alert', key: 'slow' },
      { type: 'forgotten', kind: 'Pipe', key: 'orders' },
    );
    await crashed.save();
    // No close: the process "died" here. The next one finds the journal.
    const reopened = await openStateStore(path);
    expect(reopened.get('prod')).toEqual({
      inventory: {
        ...emptyInventory(),
        Dashboard: { 'api-latency': { id: 'd1', name: 'API latency', spec: 'c'.repeat(64) } },
        Alert: { a1: { id: 'id1' } },
      },
      secretHashes: {},
      intents: [],
    });
    expect(await readdir(join(dir, 'nested'))).toEqual(['state.json']);
    expect((JSON.parse(await readFile(path, 'utf8')) as StateFile).targets['prod']).toEqual(reopened.get('prod'));
  });

  it('opened read-only (plan), replays the journal but writes nothing and refuses records', async () => {
    const writer = await openExisting();
    writer.add('prod', owned(1));
    await writer.save();
    const reader = await openStateStore(path, { readOnly: true });
    expect(reader.get('prod').inventory.Alert).toEqual({ a1: { id: 'id1' } });
    await reader.close();
    expect((await readdir(join(dir, 'nested'))).sort()).toEqual(['state.json', 'state.json.journal']);
    expect(() => reader.add('prod', owned(2))).toThrow(/read-only/);
  });

  it('ignores a last line cut short by a crash (never reported durable), and compacts without it', async () => {
    const store = await openExisting();
    store.add('prod', owned(1));
    await store.save();
    await appendFile(journal, '{"seq":2,"target":"prod","type":"owned","kind":"Al');
    const reopened = await openStateStore(path);
    expect(reopened.get('prod').inventory.Alert).toEqual({ a1: { id: 'id1' } });
    reopened.add('prod', owned(3));
    await reopened.save();
    expect((await openStateStore(path, { readOnly: true })).get('prod').inventory.Alert).toEqual({
      a1: { id: 'id1' },
      a3: { id: 'id3' },
    });
  });

  it('keeps appending after a torn line only once it is gone (a daemon opens without compacting)', async () => {
    const store = await openExisting();
    store.add('prod', owned(1));
    await store.save();
    await appendFile(journal, '{"seq":2,"tar');
    const daemon = await openStateStore(path, { compactOnOpen: false });
    daemon.add('prod', owned(2));
    await daemon.save();
    // Had it appended after the torn bytes, this line would be corrupt.
    expect((await openStateStore(path, { readOnly: true })).get('prod').inventory.Alert).toEqual({
      a1: { id: 'id1' },
      a2: { id: 'id2' },
    });
  });

  it.each([
    [
      'a line that is not JSON',
      (good: string) =>
        `${good}{"seq":2,oops}\n{"seq":3,"target":"prod","type":"forgotten","kind":"Alert","key":"a1"}\n`,
      'line 2 is not valid JSON',
    ],
    [
      'an unknown record type',
      (good: string) => `${good}{"seq":2,"target":"prod","type":"renamed","kind":"Alert","key":"a1"}\n`,
      'line 2 has no known record type ("renamed")',
    ],
    [
      'a record of the wrong shape',
      (good: string) => `${good}{"seq":2,"target":"prod","type":"owned","kind":"Alert","key":"a1"}\n`,
      'line 2 is not a well-formed owned record',
    ],
    [
      'a gap in the numbering',
      (good: string) => `${good}{"seq":5,"target":"prod","type":"forgotten","kind":"Alert","key":"a1"}\n`,
      'line 2 has record number 5 after 1',
    ],
  ])(
    'refuses %s with E_STATE_CORRUPT naming the journal and line, and changes nothing',
    async (_label, corrupt, fragment) => {
      const store = await openExisting();
      store.add('prod', owned(1));
      await store.save();
      await writeFile(journal, corrupt(await readFile(journal, 'utf8')));
      await expectCorrupt(() => openStateStore(path), journal, fragment);
      await expectCorrupt(() => openStateStore(path, { readOnly: true }), journal, fragment);
      expect(await readFile(path, 'utf8')).toBe('{"version": 1, "targets": {}}\n');
    },
  );

  it('replays records the state file already holds to the same state (a crash between compaction and removing the journal)', async () => {
    const store = await openExisting();
    store.set('prod', sampleFile().targets['prod']!);
    store.add(
      'prod',
      owned(1),
      { type: 'intent', kind: 'Alert', key: 'new', name: 'New', at: 't' },
      { type: 'forgotten', kind: 'Alert', key: 'a1' },
      owned(1),
    );
    await store.save();
    const journalText = await readFile(journal, 'utf8');
    await store.close();
    const compacted = await readFile(path, 'utf8');
    await writeFile(journal, journalText);
    expect(await readDurableState(path)).toEqual({ version: 1, targets: (JSON.parse(compacted) as StateFile).targets });
  });

  it('gives the state file a lineage at its first rewrite (an older file too) and a serial each rewrite; migrate may set the lineage', async () => {
    const store = await openExisting();
    const backend = openFileBackend(path);
    // A file from before lineages: none until it is written.
    expect(await backend.version()).toEqual({ lineage: undefined, serial: undefined });
    store.add('prod', owned(1));
    await store.save();
    await store.close();
    const first = await backend.version();
    expect(first.lineage).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.serial).toBe(1);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ version: 1, lineage: first.lineage, serial: 1 });

    const again = await openStateStore(path);
    again.add('prod', owned(2));
    await again.save();
    await again.close();
    expect(await backend.version()).toEqual({ lineage: first.lineage, serial: 2 });
    // Reading changes neither.
    await (await openStateStore(path, { readOnly: true })).close();
    expect(await backend.version()).toEqual({ lineage: first.lineage, serial: 2 });

    await backend.adoptLineage?.('0f0e0d0c-0b0a-4908-8706-050403020100');
    expect(await backend.version()).toEqual({ lineage: '0f0e0d0c-0b0a-4908-8706-050403020100', serial: 3 });
    expect((await readDurableState(path)).targets['prod']?.inventory.Alert).toEqual({
      a1: { id: 'id1' },
      a2: { id: 'id2' },
    });
  });

  it('journals spec digests: set on an owned entry, dropped by a later owned record without one, ignored for what is not owned', async () => {
    const store = await openExisting();
    const digest = 'd'.repeat(64);
    store.add(
      'prod',
      owned(1),
      { type: 'spec', kind: 'Alert', key: 'a1', spec: digest },
      { type: 'spec', kind: 'Alert', key: 'nobody', spec: digest },
    );
    store.add('prod', owned(2), { type: 'spec', kind: 'Alert', key: 'a2', spec: digest }, owned(2));
    await store.save();
    const want = { a1: { id: 'id1', spec: digest }, a2: { id: 'id2' } };
    expect(store.get('prod').inventory.Alert).toEqual(want);
    // Replayed from the journal by the next process, and then compacted into the state file.
    expect((await readDurableState(path)).targets['prod']!.inventory.Alert).toEqual(want);
    const reopened = await openStateStore(path);
    expect(reopened.get('prod').inventory.Alert).toEqual(want);
    expect((JSON.parse(await readFile(path, 'utf8')) as StateFile).targets['prod']!.inventory.Alert).toEqual(want);
  });

  it('journals a suspension and its lifting, and keeps it through a whole-target replacement', async () => {
    const store = await openExisting();
    const suspension = { since: '2026-03-15T10:20:30.000Z', reason: 'incident 42', by: 'alice' };
    store.add('prod', owned(1), { type: 'suspended', ...suspension });
    await store.save();
    expect((await readDurableState(path)).targets['prod']!.suspension).toEqual(suspension);
    // A transition of the whole target (a copy with records applied) carries it along.
    store.update('prod', (state) => withCreated(state, 'Alert', 'a2', { id: 'id2' }));
    await store.close();
    const reopened = await openStateStore(path);
    expect(reopened.get('prod').suspension).toEqual(suspension);
    reopened.add('prod', { type: 'resumed' });
    await reopened.save();
    expect((await readDurableState(path)).targets['prod']).not.toHaveProperty('suspension');
    expect(Object.keys(reopened.get('prod').inventory.Alert)).toEqual(['a1', 'a2']);
  });

  it('compacts synchronously from memory for a process exiting at once, unsaved records included', async () => {
    const store = await openExisting();
    store.add('prod', owned(1));
    await store.save();
    store.add('prod', { type: 'intent', kind: 'Alert', key: 'a2', name: 'A2', at: 't' });
    store.compactSync();
    expect(await readdir(join(dir, 'nested'))).toEqual(['state.json']);
    const onDisk = JSON.parse(await readFile(path, 'utf8')) as StateFile;
    expect(onDisk.targets['prod']).toMatchObject({
      inventory: { Alert: { a1: { id: 'id1' } } },
      intents: [{ kind: 'Alert', key: 'a2' }],
    });
  });

  it('keeps keys named like Object.prototype members as plain data', async () => {
    const store = await openStateStore(path);
    store.add(
      'prod',
      { type: 'owned', kind: 'Alert', key: '__proto__', id: 'x' },
      { type: 'owned', kind: 'Alert', key: 'constructor', id: 'y' },
    );
    await store.save();
    const alerts = (await readDurableState(path)).targets['prod']!.inventory.Alert;
    expect(Object.keys(alerts)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(alerts)).toBe(Object.prototype);
  });

  it('sees what another writer recorded after a reload', async () => {
    const first = await openStateStore(path, { compactOnOpen: false });
    const second = await openStateStore(path);
    second.add('prod', owned(7));
    await second.close();
    expect(first.get('prod').inventory.Alert).toEqual({});
    await first.reload();
    expect(first.get('prod').inventory.Alert).toEqual({ a7: { id: 'id7' } });
  });
});

describe('state store: saves', () => {
  it('shares one append and one fsync among concurrent saves; each resolves only once its record is durable', async () => {
    let syncs = 0;
    const countingFs: StateFs = {
      ...nodeFs,
      open: async (file, flags, mode) => {
        const handle = await nodeFs.open(file, flags, mode);
        return {
          writeFile: (data) => handle.writeFile(data),
          sync: () => handle.sync(),
          datasync: async () => {
            syncs += 1;
            await new Promise((resolve) => setImmediate(resolve));
            await handle.datasync();
          },
          close: () => handle.close(),
        };
      },
    };
    const store = await openExisting({ fs: countingFs });
    const checks: Promise<void>[] = [];
    for (let index = 0; index < 20; index += 1) {
      store.add('prod', owned(index));
      // At the moment this save resolves, the durable state must already hold alert `a${index}`.
      checks.push(
        store.save().then(async () =>
          expect((await readDurableState(path)).targets['prod']?.inventory.Alert[`a${index}`]).toEqual({
            id: `id${index}`,
          }),
        ),
      );
    }
    await Promise.all(checks);
    expect(syncs).toBeGreaterThan(0);
    expect(syncs).toBeLessThan(5);
    expect(await lines(journal)).toHaveLength(20);
  });

  it('rejects a failed append with E_STATE_WRITE, then rewrites the whole state instead of appending after a half-written line', async () => {
    let failNext = false;
    const tearingFs: StateFs = {
      ...nodeFs,
      open: async (file, flags, mode) => {
        const handle = await nodeFs.open(file, flags, mode);
        const torn: StateFileHandle = {
          writeFile: async (data) => {
            if (!failNext) return handle.writeFile(data);
            failNext = false;
            await handle.writeFile(data.slice(0, 12));
            throw Object.assign(new Error('io'), { code: 'EIO' });
          },
          sync: () => handle.sync(),
          datasync: () => handle.datasync(),
          close: () => handle.close(),
        };
        return torn;
      },
    };
    const store = await openExisting({ fs: tearingFs });
    store.add('prod', owned(1));
    await store.save();
    failNext = true;
    store.add('prod', owned(2));
    await expect(store.save()).rejects.toMatchObject({
      code: 'E_STATE_WRITE',
      message: expect.stringContaining('EIO'),
    });
    store.add('prod', owned(3));
    await store.save();
    expect(await readdir(join(dir, 'nested'))).toEqual(['state.json']);
    expect((await readDurableState(path)).targets['prod']!.inventory.Alert).toEqual({
      a1: { id: 'id1' },
      a2: { id: 'id2' },
      a3: { id: 'id3' },
    });
  });

  it('keeps the journal when the compaction fails, and a later compaction succeeds', async () => {
    let failRename = true;
    const flakyFs: StateFs = {
      ...nodeFs,
      rename: (from, to) =>
        failRename
          ? Promise.reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' }))
          : nodeFs.rename(from, to),
    };
    const store = await openExisting({ fs: flakyFs });
    store.add('prod', owned(1));
    await store.save();
    await expect(store.compact()).rejects.toMatchObject({
      code: 'E_STATE_WRITE',
      message: expect.stringContaining('ENOSPC'),
    });
    expect((await readdir(join(dir, 'nested'))).sort()).toEqual(['state.json', 'state.json.journal']);
    expect((await readDurableState(path)).targets['prod']!.inventory.Alert).toEqual({ a1: { id: 'id1' } });
    failRename = false;
    store.add('prod', owned(2));
    await store.save();
    await store.close();
    expect(await readdir(join(dir, 'nested'))).toEqual(['state.json']);
    expect((await readDurableState(path)).targets['prod']!.inventory.Alert).toEqual({
      a1: { id: 'id1' },
      a2: { id: 'id2' },
    });
  });

  it('does not send records to disk from a read of an unchanged store', async () => {
    const store = await openStateStore(path);
    store.update('prod', (state) => state);
    await store.save();
    await store.compact();
    await expect(stat(join(dir, 'nested'))).rejects.toThrow();
  });
});
