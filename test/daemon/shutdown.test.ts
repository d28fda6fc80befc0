import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installShutdown } from '../../src/daemon/shutdown.js';

/** A stop the test finishes by hand. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

function setup(graceMs = 10_000) {
  const emitter = new EventEmitter();
  const stop = deferred();
  const onFirstSignal = vi.fn((_signal: string) => stop.promise);
  const exit = vi.fn((_code: number) => undefined);
  const handle = installShutdown({ onFirstSignal, graceMs, exit, emitter });
  return { emitter, stop, onFirstSignal, exit, handle };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('installShutdown', () => {
  it.each(['SIGTERM', 'SIGINT'])('on %s stops cleanly, then exits 0', async (signal) => {
    const { emitter, stop, onFirstSignal, exit, handle } = setup();
    expect(handle.shuttingDown).toBe(false);
    emitter.emit(signal, signal);
    expect(handle.shuttingDown).toBe(true);
    expect(onFirstSignal).toHaveBeenCalledWith(signal);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(exit).not.toHaveBeenCalled();
    stop.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(exit.mock.calls).toEqual([[0]]);
  });

  it('exits 1 when the clean stop fails', async () => {
    const { emitter, stop, exit } = setup();
    emitter.emit('SIGTERM', 'SIGTERM');
    stop.reject(new Error('state write failed'));
    await vi.advanceTimersByTimeAsync(0);
    expect(exit.mock.calls).toEqual([[1]]);
  });

  it('exits 1 when the grace period expires, and only once', async () => {
    const { emitter, stop, exit } = setup(3_000);
    emitter.emit('SIGTERM', 'SIGTERM');
    await vi.advanceTimersByTimeAsync(2_999);
    expect(exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(exit.mock.calls).toEqual([[1]]);
    stop.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(exit.mock.calls).toEqual([[1]]);
  });

  it('exits 1 at once on a second signal, without stopping twice', async () => {
    const { emitter, onFirstSignal, exit, stop } = setup();
    emitter.emit('SIGTERM', 'SIGTERM');
    emitter.emit('SIGINT', 'SIGINT');
    expect(exit.mock.calls).toEqual([[1]]);
    expect(onFirstSignal).toHaveBeenCalledTimes(1);
    stop.resolve();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(exit.mock.calls).toEqual([[1]]);
  });

  it('ignores other signals', async () => {
    const { emitter, onFirstSignal, exit } = setup();
    emitter.emit('SIGHUP', 'SIGHUP');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(onFirstSignal).not.toHaveBeenCalled();
    expect(exit).not.toHaveBeenCalled();
  });

  it('removes its listeners on uninstall', () => {
    const { emitter, handle, onFirstSignal } = setup();
    expect(emitter.listenerCount('SIGTERM')).toBe(1);
    handle.uninstall();
    expect(emitter.listenerCount('SIGTERM') + emitter.listenerCount('SIGINT')).toBe(0);
    emitter.emit('SIGTERM', 'SIGTERM');
    expect(onFirstSignal).not.toHaveBeenCalled();
  });

  it('uses injected timers for the grace period', () => {
    const emitter = new EventEmitter();
    const pending: (() => void)[] = [];
    const exit = vi.fn();
    installShutdown({
      onFirstSignal: () => new Promise(() => undefined),
      graceMs: 1,
      exit,
      emitter,
      signals: ['SIGUSR2'],
      timers: { setTimeout: (callback) => pending.push(callback), clearTimeout: () => undefined },
    });
    emitter.emit('SIGUSR2', 'SIGUSR2');
    expect(pending).toHaveLength(1);
    pending[0]!();
    expect(exit.mock.calls).toEqual([[1]]);
  });
});
