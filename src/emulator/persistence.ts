/**
 * `--data FILE`: the state saved across restarts. Reads are strict (a corrupt file is an error,
 * never silently replaced); writes are atomic (temp file, fsync, rename) and coalesced, so a
 * burst of requests costs one write, and `flush()` on close saves the last change.
 */
import { readFileSync } from 'node:fs';
import { StacksyncError } from '../errors.js';
import { nodeFs, writeFileAtomically } from '../support/fs.js';
import { SERVICE_STATES } from '../schema/enums.js';
import { alertSchema } from '../kinds/alert/wire.js';
import { dashboardSchema } from '../kinds/dashboard/wire.js';
import { pipeSchema, currentStoredPipeSchema } from '../kinds/pipe/wire.js';
import { dataSourceSchema } from '../kinds/source/wire.js';
import type { JsonSchema } from '../schema/api.js';
import { compileSchema, describeIssues, toIssues } from '../schema/validate.js';
import { SALT_PATTERN } from './credentials.js';
import { currentDataSchema, pipeRuntimeSchema } from './current/data-schema.js';
import { array, object, savedStateSchema } from './saved-state-schema.js';
import type { ProfileData } from './model.js';

export const DATA_FORMAT = 'stacksync-emulator-data';

const requiring = (schema: JsonSchema, ...members: string[]): JsonSchema => ({
  ...schema,
  required: [...new Set([...(schema['required'] as string[]), ...members])],
});

/** JSON Schema of the saved state of the seed profile. */
const seedDataSchema: JsonSchema = savedStateSchema({
  profile: 'seed',
  profileRequired: false,
  // A pipe of the seed's shape, or one created in today's shape (see `routes-pipes.ts`), with its lifecycle.
  pipe: {
    anyOf: [
      requiring(pipeSchema, 'serviceId', 'state', 'destination', 'createdAt', 'updatedAt'),
      currentStoredPipeSchema,
    ],
  },
  serviceStates: SERVICE_STATES,
  serviceOnly: { sources: array(dataSourceSchema) },
  serviceOptional: { pipeRuntime: pipeRuntimeSchema },
  stack: {
    dashboards: array(requiring(dashboardSchema, 'tags', 'team', 'createdAt', 'updatedAt')),
    alerts: array(requiring(alertSchema, 'channel', 'state', 'team', 'silenced', 'createdAt', 'updatedAt')),
  },
});

/** JSON Schema of the saved state (also the shape of `GET /_emulator/dump`), by the profile it names. */
export const dataSchema: JsonSchema = {
  if: { type: 'object', properties: { profile: { const: 'current' } }, required: ['profile'] },
  then: currentDataSchema,
  else: seedDataSchema,
};

export const fileSchema: JsonSchema = object(
  {
    format: { const: DATA_FORMAT },
    savedAt: { type: 'string' },
    credentialSalt: { type: 'string', pattern: SALT_PATTERN },
    state: dataSchema,
  },
  ['format', 'state'],
);

/** What a data file holds: the state, and the salt its credential hashes were made with (absent in files from before salting). */
export interface SavedState {
  state: ProfileData;
  credentialSalt?: string;
}

function corrupt(path: string, detail: string, cause?: unknown): StacksyncError {
  return new StacksyncError(
    'E_EMULATOR_DATA',
    `emulator data file ${path} is corrupt: ${detail} (fix or remove it; it is never replaced silently)`,
    {
      subject: path,
      cause,
    },
  );
}

/** The saved state, or undefined when the file does not exist yet. */
export function readDataFile(path: string): ProfileData | undefined {
  return readSavedState(path)?.state;
}

/** The saved state with its credential salt, or undefined when the file does not exist yet. */
export function readSavedState(path: string): SavedState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StacksyncError('E_EMULATOR_DATA', `cannot read emulator data file ${path}: ${(error as Error).message}`, {
      subject: path,
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `not JSON (${(error as Error).message})`, error);
  }
  const validate = compileSchema('emulator:data-file', fileSchema);
  if (!validate(value)) throw corrupt(path, describeIssues(toIssues(validate.errors ?? [])));
  const saved = value as { state: ProfileData; credentialSalt?: string };
  return { state: saved.state, ...(saved.credentialSalt !== undefined && { credentialSalt: saved.credentialSalt }) };
}

/** Writes `text` to `path` so a reader sees the old file or the new one, never half of one. */
export function writeFileAtomic(path: string, text: string): Promise<void> {
  return writeFileAtomically(nodeFs, path, text, 0o600);
}

export interface DataWriterOptions {
  /** How long changes are gathered before one write. Default 100 ms. */
  delayMs?: number;
  /** The salt of the state's credential hashes, saved beside it (never in the state, so never in a dump). */
  credentialSalt?: string;
  /** A background write failed; it is retried with the next change or on flush. */
  onError?: (error: unknown) => void;
}

/** Coalesces change notifications into at most one write per `delayMs`, one write at a time. */
export class DataWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<boolean> | undefined;
  private dirty = false;
  private closed = false;
  private lastError: unknown;
  /** Completed writes, for tests and logs. */
  writes = 0;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => ProfileData,
    private readonly options: DataWriterOptions = {},
  ) {}

  schedule(): void {
    this.dirty = true;
    if (this.closed || this.timer || this.writing) return;
    this.timer = setTimeout(
      () => void this.run().then((ok) => ok && this.dirty && this.schedule()),
      this.options.delayMs ?? 100,
    );
    this.timer.unref();
  }

  /** Writes any pending change now and waits for it; throws when that write fails. */
  async flush(): Promise<void> {
    if (this.writing !== undefined) await this.writing;
    if (!this.dirty) return;
    if (!(await this.run())) {
      const reason = this.lastError instanceof Error ? `: ${this.lastError.message}` : '';
      throw new StacksyncError('E_EMULATOR_DATA', `could not write emulator data file ${this.path}${reason}`, {
        subject: this.path,
        cause: this.lastError,
      });
    }
  }

  /** Flushes and stops writing; later changes are not saved. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.closed = true;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private async run(): Promise<boolean> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty = false;
    // Serialised now, synchronously, so the file holds one consistent state.
    const salt = this.options.credentialSalt;
    const file = {
      format: DATA_FORMAT,
      savedAt: new Date().toISOString(),
      ...(salt !== undefined && { credentialSalt: salt }),
      state: this.snapshot(),
    };
    const text = `${JSON.stringify(file, null, 2)}\n`;
    this.writing = writeFileAtomic(this.path, text).then(
      () => {
        this.writes++;
        return true;
      },
      (error: unknown) => {
        this.dirty = true;
        this.lastError = error;
        this.options.onError?.(error);
        return false;
      },
    );
    try {
      return await this.writing;
    } finally {
      this.writing = undefined;
    }
  }
}
