/**
 * Where manifest files are parsed: on this thread, or in a small pool of worker threads. YAML
 * parsing is most of a load's CPU, and on the daemon's thread a big file would keep `/healthz`
 * and `/metrics` from answering for seconds (a probe timeout is 3 s). Workers parse in parallel
 * and leave the event loop free; results come back as plain values (structured clone).
 *
 * The worker runs the built `parse-worker.js` beside this module. Where there is none (the
 * TypeScript sources run by the test runner), {@link createWorkerParser} says so and callers parse
 * on this thread, yielding to the event loop between files.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Position } from '../yaml/positions.js';
import { locatePointers, parseManifestBytes, type ParseLimits, type ParsedText, type PointerRequest } from './parse.js';

/** Parses manifest files; every method may be called concurrently. */
export interface ManifestParser {
  /** Calls of `parse` worth having in flight at once to keep it busy. */
  readonly capacity: number;
  /** Parses each file's bytes; results in the same order. */
  parse(files: readonly Uint8Array[], limits: ParseLimits): Promise<ParsedText[]>;
  /** Positions of nodes in one file (see `locatePointers`). */
  locate(bytes: Uint8Array, requests: readonly PointerRequest[]): Promise<(Position | undefined)[]>;
  /** Stops the workers, if any; pending calls reject. */
  close(): Promise<void>;
}

/** Parses on the calling thread, one file at a time, letting other callbacks run in between. */
export const inlineParser: ManifestParser = {
  capacity: 1,
  async parse(files, limits) {
    const results: ParsedText[] = [];
    for (const bytes of files) {
      await yieldToEventLoop();
      results.push(parseManifestBytes(bytes, limits));
    }
    return results;
  },
  async locate(bytes, requests) {
    await yieldToEventLoop();
    return locatePointers(bytes, requests);
  },
  async close() {},
};

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const WORKER_SCRIPT = new URL('./parse-worker.js', import.meta.url);
/**
 * A parse makes much short-lived garbage; a small young generation collects it early instead of
 * letting each worker's heap grow (8 MiB: 40 MiB less peak RSS per worker at 10,000 resources,
 * no more CPU).
 */
const WORKER_YOUNG_GENERATION_MB = 8;

/** Workers to start by default: the cores there are, at most four (parsing is the only work they do). */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

export interface WorkerParserOptions {
  /** Default {@link defaultThreads}. */
  threads?: number;
  /** Keep the process alive while workers are idle (default false: a daemon or CLI exits when done). */
  ref?: boolean;
}

/** Messages to and from `parse-worker.ts`. */
export type WorkerRequest =
  | { id: number; op: 'parse'; files: Uint8Array[]; limits: ParseLimits }
  | { id: number; op: 'locate'; bytes: Uint8Array; requests: PointerRequest[] };
export type WorkerReply = { id: number; result: unknown } | { id: number; error: string };
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

interface Task {
  request: WorkerRequest;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  busy: Map<number, Task>;
}

/** A pool of parse workers, or undefined when this build has no worker script. */
export function createWorkerParser(options: WorkerParserOptions = {}): ManifestParser | undefined {
  if (WORKER_SCRIPT.protocol !== 'file:' || !existsSync(fileURLToPath(WORKER_SCRIPT))) return undefined;
  const threads = Math.max(1, Math.floor(options.threads ?? defaultThreads()));
  const pool: PoolWorker[] = [];
  let nextId = 1;
  let closed = false;

  const fail = (member: PoolWorker, error: Error): void => {
    for (const task of member.busy.values()) task.reject(error);
    member.busy.clear();
    const index = pool.indexOf(member);
    if (index >= 0) pool.splice(index, 1);
  };
  const start = (): PoolWorker => {
    const worker = new Worker(WORKER_SCRIPT, {
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    const member: PoolWorker = { worker, busy: new Map() };
    worker.on('message', (reply: WorkerReply) => {
      const task = member.busy.get(reply.id);
      if (!task) return;
      member.busy.delete(reply.id);
      if ('error' in reply) task.reject(new Error(reply.error));
      else task.resolve(reply.result);
      if (member.busy.size === 0 && !options.ref) worker.unref();
    });
    worker.on('error', (error) => fail(member, error));
    worker.on('exit', (code) => fail(member, new Error(`parse worker exited (${code})`)));
    if (!options.ref) worker.unref();
    pool.push(member);
    return member;
  };
  // The least busy worker; a new one while the pool is not full.
  const pick = (): PoolWorker => {
    const idle = pool.find((member) => member.busy.size === 0);
    if (idle || pool.length >= threads) return idle ?? pool.reduce((a, b) => (b.busy.size < a.busy.size ? b : a));
    return start();
  };
  const send = <T>(request: WithoutId<WorkerRequest>): Promise<T> => {
    if (closed) return Promise.reject(new Error('the parser is closed'));
    const member = pick();
    const full = { ...request, id: nextId++ } as WorkerRequest;
    return new Promise<T>((resolve, reject) => {
      member.busy.set(full.id, { request: full, resolve: resolve as (value: unknown) => void, reject });
      member.worker.ref();
      member.worker.postMessage(full);
    });
  };

  return {
    // Two requests per worker: one being parsed, one waiting, so no worker idles between replies.
    capacity: threads * 2,
    parse: (files, limits) => send<ParsedText[]>({ op: 'parse', files: [...files], limits }),
    locate: (bytes, requests) => send<(Position | undefined)[]>({ op: 'locate', bytes, requests: [...requests] }),
    async close() {
      closed = true;
      await Promise.all(pool.splice(0).map((member) => member.worker.terminate()));
    },
  };
}
