/**
 * The state file on disk: read once, validated, kept in memory, and written atomically
 * (temp file, fsync, rename, fsync dir) after each completed write of an apply.
 * A corrupt file stops the run; it is never silently reset, because an empty inventory
 * would forget what stacksync owns and make the next prune or create go wrong.
 */
import { dirname } from 'node:path';
import { KINDS, type Kind } from '../model/kinds.js';
import { StacksyncError } from '../errors.js';
import type { JsonSchema } from '../schema/api.js';
import { compileSchema, createAjv, describeIssues, toIssues } from '../schema/validate.js';
import { emptyTargetState, type StateFile, type TargetState } from '../model/state.js';
import { errnoCode, nodeFs, writeFileAtomically, type StateFs } from '../support/fs.js';

export const STATE_VERSION = 1;
/** Mode of the state directory when stacksync creates it. */
export const STATE_DIR_MODE = 0o700;
/** Mode of the state file: it holds ids and HMACs, no secrets, but nobody else needs it. */
export const STATE_FILE_MODE = 0o600;

export interface StateStore {
  /** Path of the state file. */
  readonly path: string;
  /** One target's state (empty when the file has none). Frozen: change it through `update`/`set`. */
  get(target: string): TargetState;
  /** Replaces one target's state in memory; `save()` makes it durable. */
  set(target: string, state: TargetState): void;
  /** Applies a pure transition to one target's state in memory and returns the new state. */
  update(target: string, transition: (state: TargetState) => TargetState): TargetState;
  /** The whole state as it is in memory (frozen). */
  snapshot(): StateFile;
  /**
   * Writes the in-memory state durably. One write is in flight at a time; calls made meanwhile
   * share the next write. Resolves only once a write holding everything set before the call is
   * on disk; rejects with `E_STATE_WRITE` when that write fails. Nothing to write resolves at once.
   */
  save(): Promise<void>;
}

export interface StateStoreOptions {
  fs?: StateFs;
}

/** Opens the state file at `path`; a missing file is an empty state (first run). */
export async function openStateStore(path: string, options: StateStoreOptions = {}): Promise<StateStore> {
  const fs = options.fs ?? nodeFs;
  const initial = await readStateFile(fs, path);
  return new FileStateStore(path, fs, initial);
}

/** Reads and validates a state file; `E_STATE_CORRUPT` naming the file when it cannot be used. */
export async function readStateFile(fs: StateFs, path: string): Promise<StateFile> {
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { version: STATE_VERSION, targets: {} };
    throw corrupt(path, `cannot be read (${errnoCode(error) ?? String(error)})`, error);
  }
  return parseStateFile(path, text);
}

/** Parses state file text; exported for tests and tools that hold the text already. */
export function parseStateFile(path: string, text: string): StateFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `is not valid JSON (${(error as Error).message})`, error);
  }
  const version = typeof data === 'object' && data !== null ? (data as { version?: unknown }).version : undefined;
  if (version !== STATE_VERSION) {
    throw corrupt(path, `has version ${JSON.stringify(version)}; this stacksync reads version ${STATE_VERSION}`);
  }
  const validate = compileSchema('state:file', STATE_FILE_SCHEMA, stateAjv);
  if (!validate(data)) throw corrupt(path, `does not have the shape of a state file: ${describeIssues(toIssues(validate.errors ?? []))}`);
  return normalise(data as StateFile);
}

function corrupt(path: string, what: string, cause?: unknown): StacksyncError {
  return new StacksyncError(
    'E_STATE_CORRUPT',
    `state file ${path} ${what}; fix or move it away by hand (stacksync never resets it, so it cannot forget what it owns)`,
    { subject: path, cause },
  );
}

/** Fills kinds added after the file was written, so readers can index every kind. */
function normalise(file: StateFile): StateFile {
  const targets: Record<string, TargetState> = {};
  for (const [name, state] of Object.entries(file.targets)) {
    targets[name] = { ...state, inventory: { ...emptyTargetState().inventory, ...state.inventory } };
  }
  return { version: STATE_VERSION, targets };
}

class FileStateStore implements StateStore {
  #state: StateFile;
  /** Bumped on every in-memory change; compared with what is on disk. */
  #version = 0;
  #durableVersion = 0;
  #inFlight: { version: number; done: Promise<void> } | undefined;
  #next: Deferred | undefined;

  constructor(
    readonly path: string,
    private readonly fs: StateFs,
    initial: StateFile,
  ) {
    this.#state = deepFreeze(initial);
  }

  get(target: string): TargetState {
    return this.#state.targets[target] ?? FROZEN_EMPTY;
  }

  set(target: string, state: TargetState): void {
    this.#state = deepFreeze({ ...this.#state, targets: { ...this.#state.targets, [target]: state } });
    this.#version += 1;
  }

  update(target: string, transition: (state: TargetState) => TargetState): TargetState {
    this.set(target, transition(this.get(target)));
    return this.get(target);
  }

  snapshot(): StateFile {
    return this.#state;
  }

  save(): Promise<void> {
    if (this.#inFlight) {
      if (this.#inFlight.version === this.#version) return this.#inFlight.done;
      this.#next ??= deferred();
      return this.#next.promise;
    }
    if (this.#durableVersion === this.#version) return Promise.resolve();
    return this.#startWrite();
  }

  #startWrite(): Promise<void> {
    const version = this.#version;
    const text = `${JSON.stringify(this.#state, null, 2)}\n`;
    const done = writeAtomically(this.fs, this.path, text).then(
      () => {
        this.#durableVersion = Math.max(this.#durableVersion, version);
        this.#afterWrite();
      },
      (error: unknown) => {
        this.#afterWrite();
        throw new StacksyncError('E_STATE_WRITE', `state file ${this.path} could not be written (${errnoCode(error) ?? String(error)})`, {
          subject: this.path,
          cause: error,
        });
      },
    );
    this.#inFlight = { version, done };
    return done;
  }

  /** Starts the coalesced write that calls made during the last one are waiting for. */
  #afterWrite(): void {
    this.#inFlight = undefined;
    const waiting = this.#next;
    if (!waiting) return;
    this.#next = undefined;
    this.save().then(waiting.resolve, waiting.reject);
  }
}

/** Creates the state directory (0700) if needed, then writes the file atomically. */
async function writeAtomically(fs: StateFs, path: string, text: string): Promise<void> {
  await fs.mkdir(dirname(path), { recursive: true, mode: STATE_DIR_MODE });
  await writeFileAtomically(fs, path, text, STATE_FILE_MODE);
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Freezes in place, recursively; state objects are small, and a stray mutation then throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const member of Object.values(value)) deepFreeze(member);
  return Object.freeze(value);
}

const FROZEN_EMPTY: TargetState = deepFreeze(emptyTargetState());

const stateAjv = createAjv();

const KIND_INVENTORY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: { id: { type: 'string', minLength: 1 }, name: { type: 'string' }, spec: { type: 'string' } },
  },
};

/** The shape of `StateFile` (model/state.ts), checked on every read. */
export const STATE_FILE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['version', 'targets'],
  additionalProperties: false,
  properties: {
    version: { const: STATE_VERSION },
    targets: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['inventory', 'secretHashes', 'intents'],
        additionalProperties: false,
        properties: {
          inventory: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(KINDS.map((kind: Kind) => [kind, KIND_INVENTORY_SCHEMA])),
          },
          secretHashes: { type: 'object', additionalProperties: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
          intents: {
            type: 'array',
            items: {
              type: 'object',
              required: ['kind', 'key', 'name', 'at'],
              additionalProperties: false,
              properties: {
                kind: { enum: [...KINDS] },
                key: { type: 'string' },
                name: { type: 'string' },
                at: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
};
