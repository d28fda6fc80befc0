/**
 * The store every remote backend shares (src/state/remote-store.ts), driven through a writer
 * whose appends and compactions resolve only when the test says: how many saves are in flight at
 * once, whom each save waits for, what a failed batch does, and that a compaction waits for the
 * appends in flight (docs/ownership.md, "Saves in flight at once").
 */
import { describe, expect, it } from 'vitest';
import { RemoteStateStore, type StoreWriter } from '../../src/state/remote-store.js';
import type { PendingRecord } from '../../src/state/in-memory.js';
import { STATE_VERSION } from '../../src/state/format.js';

interface Call {
  what: 'append' | 'replace';
  seqs: number[];
  upTo?: number;
  resolve: (value?: boolean) => void;
  reject: (error: unknown) => void;
}

/** A writer that records each call and leaves it pending until the test settles it. */
function heldWriter(maxInFlight?: number): { writer: StoreWriter; calls: Call[] } {
  const calls: Call[] = [];
  const pending = (what: Call['what'], seqs: number[], upTo?: number) =>
    // biome-ignore lint/suspicious/noConfusingVoidType: the type of BackendStore's append, which this stands in for
    new Promise<boolean | void>((resolve, reject) => {
      calls.push({ what, seqs, ...(upTo === undefined ? {} : { upTo }), resolve: (value) => resolve(value), reject });
    });
  const writer: StoreWriter = {
    location: 'held',
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
    holdsLock: () => true,
    read: async () => ({ file: { version: STATE_VERSION, targets: {} }, lastSeq: 0 }),
    append: (records: readonly PendingRecord[]) =>
      pending(
        'append',
        records.map((line) => line.seq),
      ),
    replace: async (_snapshot: string, upTo: number) => {
      await pending('replace', [], upTo);
    },
  };
  return { writer, calls };
}

const owned = (id: string) => ({ type: 'owned' as const, kind: 'Dashboard' as const, key: `dash-${id}`, id });

/** Lets promise callbacks run (no timers: the order is what is tested, never the time). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

function track(promise: Promise<void>): { state: () => 'pending' | 'resolved' | 'rejected' } {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  promise.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  return { state: () => state };
}

describe('RemoteStateStore', () => {
  it('sends one save at a time by default', async () => {
    const { writer, calls } = heldWriter();
    const store = new RemoteStateStore(writer, false);
    store.add('prod', owned('a'));
    const first = track(store.save());
    store.add('prod', owned('b'));
    const second = track(store.save());
    await turn();
    expect(calls.map((call) => call.seqs)).toEqual([[1]]);
    calls[0]?.resolve();
    await turn();
    expect(first.state()).toBe('resolved');
    expect(calls.map((call) => call.seqs)).toEqual([[1], [2]]);
    calls[1]?.resolve();
    await turn();
    expect(second.state()).toBe('resolved');
  });

  it('sends up to maxInFlight saves at once; each caller waits for every record made before its call, whichever batch lands first', async () => {
    const { writer, calls } = heldWriter(2);
    const store = new RemoteStateStore(writer, false);
    store.add('prod', owned('a'));
    const first = track(store.save());
    store.add('prod', owned('b'));
    const second = track(store.save());
    store.add('prod', owned('c'));
    store.add('prod', owned('d'));
    const third = track(store.save());
    await turn();
    expect(calls.map((call) => call.seqs)).toEqual([[1], [2]]);
    // The second batch lands first: its caller still waits for record 1.
    calls[1]?.resolve();
    await turn();
    expect(second.state()).toBe('pending');
    // A slot is free: the records made meanwhile go together.
    expect(calls.map((call) => call.seqs)).toEqual([[1], [2], [3, 4]]);
    calls[0]?.resolve();
    await turn();
    expect([first.state(), second.state(), third.state()]).toEqual(['resolved', 'resolved', 'pending']);
    calls[2]?.resolve();
    await turn();
    expect(third.state()).toBe('resolved');
  });

  it('fails the callers of a batch that failed, and sends its records again with the next save', async () => {
    const { writer, calls } = heldWriter(2);
    const store = new RemoteStateStore(writer, false);
    store.add('prod', owned('a'));
    const first = track(store.save());
    await turn();
    calls[0]?.reject(new Error('connection dropped'));
    await turn();
    expect(first.state()).toBe('rejected');
    store.add('prod', owned('b'));
    const again = track(store.save());
    await turn();
    expect(calls[1]?.seqs).toEqual([1, 2]);
    calls[1]?.resolve();
    await turn();
    expect(again.state()).toBe('resolved');
  });

  it('compacts only once the appends in flight landed, sends none meanwhile, and says up to which record the snapshot holds', async () => {
    const { writer, calls } = heldWriter(4);
    const store = new RemoteStateStore(writer, false);
    store.add('prod', owned('a'));
    const saved = track(store.save());
    const compacted = track(store.compact());
    store.add('prod', owned('b'));
    const later = track(store.save());
    await turn();
    expect(calls.map((call) => call.what)).toEqual(['append']);
    calls[0]?.resolve();
    await turn();
    expect(saved.state()).toBe('resolved');
    expect(calls.map((call) => [call.what, call.upTo])).toEqual([
      ['append', undefined],
      ['replace', 2],
    ]);
    calls[1]?.resolve();
    await turn();
    // The snapshot held record 2: nothing is left to send.
    expect([compacted.state(), later.state()]).toEqual(['resolved', 'resolved']);
    expect(calls).toHaveLength(2);
  });

  it('takes the snapshot when the writer would rather not append, and resolves the save with it', async () => {
    const { writer, calls } = heldWriter(2);
    const store = new RemoteStateStore(writer, false);
    store.add('prod', owned('a'));
    const saved = track(store.save());
    await turn();
    calls[0]?.resolve(false);
    await turn();
    expect(saved.state()).toBe('pending');
    expect(calls[1]?.what).toBe('replace');
    calls[1]?.resolve();
    await turn();
    expect(saved.state()).toBe('resolved');
  });
});
