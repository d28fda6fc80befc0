/**
 * The two files of the state, as text: the state file (one JSON document, rewritten whole at each
 * compaction) and its journal (one JSON record per line, appended between compactions). Parsing
 * checks every shape; anything that cannot be used is `E_STATE_CORRUPT` naming the file and line,
 * because a state silently reset would forget what stacksync owns.
 */
import type { Kind } from '../model/kinds.js';
import { KINDS } from '../kinds/registry.js';
import { StacksyncError } from '../errors.js';
import type { JsonSchema } from '../schema/api.js';
import { describeIssues, toIssues, validatorOf, type NamedSchema } from '../schema/validate.js';
import {
  SUSPENSION_NOTE_MAX,
  type StateFile,
  type StateRecord,
  type StateRecordType,
  type TargetState,
} from '../model/state.js';
import { emptyTargetState } from './empty.js';

export const STATE_VERSION = 1;

/** `.stacksync/state.json` → `.stacksync/state.json.journal`. */
export function journalPathFor(statePath: string): string {
  return `${statePath}.journal`;
}

/**
 * The state file's lineage and serial (docs/ownership.md, "Where the state lives"): kept in the
 * file beside `targets`, absent from files written before them (such a file gets a lineage at its
 * next rewrite). The serial counts the rewrites of the file.
 */
export interface FileVersion {
  lineage?: string;
  serial?: number;
}

/** The state file's text: indented, so a person can read and diff it. */
export function serializeStateFile(file: StateFile, version: FileVersion = {}): string {
  const { lineage, serial } = version;
  const content = {
    version: file.version,
    ...(lineage === undefined ? {} : { lineage }),
    ...(serial === undefined ? {} : { serial }),
    targets: file.targets,
  };
  return `${JSON.stringify(content, null, 2)}\n`;
}

/** Parses state file text; `E_STATE_CORRUPT` naming the file when it cannot be used. */
export function parseStateFile(path: string, text: string): StateFile {
  return parseVersionedStateFile(path, text).file;
}

/** `parseStateFile`, with the lineage and serial the file keeps. */
export function parseVersionedStateFile(path: string, text: string): { file: StateFile; version: FileVersion } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw corruptFile(path, `is not valid JSON (${(error as Error).message})`, error);
  }
  const version = typeof data === 'object' && data !== null ? (data as { version?: unknown }).version : undefined;
  if (version !== STATE_VERSION) {
    throw corruptFile(path, `has version ${JSON.stringify(version)}; this stacksync reads version ${STATE_VERSION}`);
  }
  const validate = validatorOf(stateFileSchema());
  if (!validate(data))
    throw corruptFile(
      path,
      `does not have the shape of a state file: ${describeIssues(toIssues(validate.errors ?? []))}`,
    );
  const file = data as StateFile & FileVersion;
  const targets: Record<string, TargetState> = {};
  for (const [name, state] of Object.entries(file.targets)) targets[name] = normaliseTarget(state);
  const kept: FileVersion = {
    ...(file.lineage === undefined ? {} : { lineage: file.lineage }),
    ...(file.serial === undefined ? {} : { serial: file.serial }),
  };
  return { file: { version: STATE_VERSION, targets }, version: kept };
}

/** Fills kinds added after a state was written, so readers can index every kind. */
export function normaliseTarget(state: TargetState): TargetState {
  return { ...state, inventory: { ...emptyTargetState().inventory, ...state.inventory } };
}

export function corruptFile(path: string, what: string, cause?: unknown): StacksyncError {
  return new StacksyncError(
    'E_STATE_CORRUPT',
    `state file ${path} ${what}; fix or move it away by hand (stacksync never resets it, so it cannot forget what it owns)`,
    { subject: path, cause },
  );
}

/** One line of the journal: a record of one target, numbered so that a lost or doubled line shows. */
export interface JournalEntry {
  seq: number;
  target: string;
  record: StateRecord;
}

/** The journal line of a record, newline included. */
export function serializeJournalEntry(entry: JournalEntry): string {
  return `${JSON.stringify({ seq: entry.seq, target: entry.target, ...entry.record })}\n`;
}

export interface ParsedJournal {
  entries: JournalEntry[];
  /** A last line without its newline: a write cut short by a crash, never reported durable, so ignored. */
  tornTail: boolean;
}

/**
 * Parses journal text. Only a last line without its newline is forgiven (a crash mid-append);
 * any other line that is not a well-formed record, or a gap in the numbering, is corrupt. With
 * `gaps`, numbers must only grow: a store whose saves may commit out of order (several in flight,
 * `remote-store.ts`) may leave a record unstored, and one never stored was never acknowledged
 * (docs/ownership.md, "Saves in flight at once").
 */
export function parseJournal(path: string, text: string, options: { gaps?: boolean } = {}): ParsedJournal {
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  const entries: JournalEntry[] = [];
  for (const [index, line] of lines.entries()) {
    const entry = parseJournalLine(path, index + 1, line);
    const previous = entries[entries.length - 1];
    if (previous && (options.gaps === true ? entry.seq <= previous.seq : entry.seq !== previous.seq + 1)) {
      throw corruptJournal(
        path,
        index + 1,
        `has record number ${entry.seq} after ${previous.seq}: lines are missing, or two processes wrote at once`,
      );
    }
    entries.push(entry);
  }
  return { entries, tornTail: tail.length > 0 };
}

function parseJournalLine(path: string, line: number, text: string): JournalEntry {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw corruptJournal(path, line, `is not valid JSON (${(error as Error).message})`, error);
  }
  const type = typeof data === 'object' && data !== null ? (data as { type?: unknown }).type : undefined;
  if (typeof type !== 'string' || !Object.hasOwn(JOURNAL_LINE_SCHEMAS, type)) {
    throw corruptJournal(path, line, `has no known record type (${JSON.stringify(type)})`);
  }
  const validate = validatorOf(journalLineSchema(type as StateRecordType));
  if (!validate(data))
    throw corruptJournal(
      path,
      line,
      `is not a well-formed ${type} record: ${describeIssues(toIssues(validate.errors ?? []))}`,
    );
  const { seq, target, ...record } = data as { seq: number; target: string } & StateRecord;
  const checked = record as StateRecord;
  return {
    seq,
    target,
    record: checked.type === 'replaced' ? { type: 'replaced', state: normaliseTarget(checked.state) } : checked,
  };
}

function corruptJournal(path: string, line: number, what: string, cause?: unknown): StacksyncError {
  return new StacksyncError(
    'E_STATE_CORRUPT',
    `state journal ${path} line ${line} ${what}. The journal holds the writes made since the state file was last compacted: ` +
      'fix that line by hand, or move the journal away to fall back to the state file alone (what those writes recorded then shows as `adopt`)',
    { subject: path, location: { file: path, line }, cause },
  );
}

const KIND_INVENTORY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', minLength: 1 },
      name: { type: 'string' },
      spec: { type: 'string' },
      prune: { const: 'disabled' },
      created: { const: true },
      marks: { type: 'object', additionalProperties: { type: 'string' } },
      tenant: { type: 'string', minLength: 1 },
    },
  },
};

const HASH_SCHEMA: JsonSchema = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const KIND_SCHEMA: JsonSchema = { enum: [...KINDS] };

/** `reason` and `by` are free text from an HTTP request: bounded, one line (`suspensionNoteProblem`). */
const NOTE_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: SUSPENSION_NOTE_MAX,
  pattern: '^[^\\u0000-\\u001f\\u007f]*$',
};
const SUSPENSION_PROPERTIES: Record<string, JsonSchema> = {
  since: { type: 'string', minLength: 1 },
  reason: NOTE_SCHEMA,
  by: NOTE_SCHEMA,
};

const TARGET_STATE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['inventory', 'secretHashes', 'intents'],
  additionalProperties: false,
  properties: {
    inventory: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(KINDS.map((kind: Kind) => [kind, KIND_INVENTORY_SCHEMA])),
    },
    secretHashes: { type: 'object', additionalProperties: HASH_SCHEMA },
    intents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'key', 'name', 'at'],
        additionalProperties: false,
        properties: {
          kind: KIND_SCHEMA,
          key: { type: 'string' },
          name: { type: 'string' },
          at: { type: 'string' },
          settleUntil: { type: 'string' },
        },
      },
    },
    suspension: { type: 'object', required: ['since'], additionalProperties: false, properties: SUSPENSION_PROPERTIES },
  },
};

/** The shape of `StateFile` (model/state.ts), checked on every read. */
export const STATE_FILE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['version', 'targets'],
  additionalProperties: false,
  properties: {
    version: { const: STATE_VERSION },
    lineage: { type: 'string', minLength: 1 },
    serial: { type: 'integer', minimum: 0 },
    targets: { type: 'object', additionalProperties: TARGET_STATE_SCHEMA },
  },
};

/** One schema per record type: the members of `StateRecord` (model/state.ts) plus `seq` and `target`. */
export const JOURNAL_LINE_SCHEMAS: Record<StateRecordType, JsonSchema> = {
  intent: lineSchema(
    'intent',
    {
      kind: KIND_SCHEMA,
      key: { type: 'string' },
      name: { type: 'string' },
      at: { type: 'string' },
      settleUntil: { type: 'string' },
    },
    ['kind', 'key', 'name', 'at'],
  ),
  owned: lineSchema(
    'owned',
    {
      kind: KIND_SCHEMA,
      key: { type: 'string' },
      id: { type: 'string', minLength: 1 },
      name: { type: 'string' },
      spec: { type: 'string' },
      created: { const: true },
    },
    ['kind', 'key', 'id'],
  ),
  marked: lineSchema(
    'marked',
    {
      kind: KIND_SCHEMA,
      key: { type: 'string' },
      marks: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
    },
    ['kind', 'key', 'marks'],
  ),
  spec: lineSchema(
    'spec',
    {
      kind: KIND_SCHEMA,
      key: { type: 'string' },
      spec: { type: 'string' },
      prune: { const: 'disabled' },
      tenant: { type: 'string', minLength: 1 },
    },
    ['kind', 'key', 'spec'],
  ),
  forgotten: lineSchema('forgotten', { kind: KIND_SCHEMA, key: { type: 'string' } }, ['kind', 'key']),
  'intent-dropped': lineSchema('intent-dropped', { kind: KIND_SCHEMA, key: { type: 'string' } }, ['kind', 'key']),
  secrets: lineSchema(
    'secrets',
    { kind: KIND_SCHEMA, key: { type: 'string' }, hashes: { type: 'object', additionalProperties: HASH_SCHEMA } },
    ['kind', 'key', 'hashes'],
  ),
  suspended: lineSchema('suspended', SUSPENSION_PROPERTIES, ['since']),
  resumed: lineSchema('resumed', {}, []),
  replaced: lineSchema('replaced', { state: TARGET_STATE_SCHEMA }, ['state']),
};

function lineSchema(type: StateRecordType, properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return {
    type: 'object',
    required: ['seq', 'target', 'type', ...required],
    additionalProperties: false,
    properties: {
      seq: { type: 'integer', minimum: 1 },
      target: { type: 'string', minLength: 1 },
      type: { const: type },
      ...properties,
    },
  };
}

function stateFileSchema(): NamedSchema {
  return { name: 'state:file', schema: STATE_FILE_SCHEMA };
}

function journalLineSchema(type: StateRecordType): NamedSchema {
  return { name: `state:journal:${type}`, schema: JOURNAL_LINE_SCHEMAS[type] };
}

/** Every schema the state store validates against, by the names it compiles them under. */
export function stateSchemas(): NamedSchema[] {
  return [stateFileSchema(), ...(Object.keys(JOURNAL_LINE_SCHEMAS) as StateRecordType[]).map(journalLineSchema)];
}
