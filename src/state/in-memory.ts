/**
 * The state in memory, as every state store keeps it: records are applied in place and queued,
 * numbered, for the store to make durable its own way (a journal file, rows of a table).
 */
import { StacksyncError } from '../errors.js';
import { deepFreeze } from '../support/freeze.js';
import type { StateFile, StateRecord, TargetState } from '../model/state.js';
import { emptyTargetState } from './empty.js';
import { serializeJournalEntry, STATE_VERSION } from './format.js';
import { applyRecord, setOwn } from './record-effects.js';

/** One record not yet durable: its number and its journal line. */
export interface PendingRecord {
  seq: number;
  text: string;
}

export abstract class InMemoryStore {
  protected file: StateFile = { version: STATE_VERSION, targets: {} };
  /** Number of the last record made in memory. */
  protected seq = 0;
  /** Records not yet durable, oldest first. */
  protected pending: PendingRecord[] = [];

  constructor(
    readonly path: string,
    protected readonly readOnly: boolean,
  ) {}

  get(target: string): TargetState {
    return Object.hasOwn(this.file.targets, target) ? (this.file.targets[target] as TargetState) : EMPTY;
  }

  add(target: string, ...records: StateRecord[]): void {
    if (this.readOnly)
      throw new StacksyncError('E_INTERNAL', `state ${this.path} was opened read-only`, { subject: this.path });
    const state = targetOf(this.file, target);
    for (const record of records) {
      applyRecord(state, record);
      this.seq += 1;
      this.pending.push({ seq: this.seq, text: serializeJournalEntry({ seq: this.seq, target, record }) });
    }
  }

  set(target: string, state: TargetState): void {
    this.add(target, { type: 'replaced', state });
  }

  update(target: string, transition: (state: TargetState) => TargetState): TargetState {
    const current = this.get(target);
    const next = transition(current);
    if (next !== current) this.set(target, next);
    return this.get(target);
  }

  snapshot(): StateFile {
    return this.file;
  }
}

/** One target's state in `file`, made empty when it has none. */
export function targetOf(file: StateFile, target: string): TargetState {
  if (!Object.hasOwn(file.targets, target)) setOwn(file.targets, target, emptyTargetState());
  return file.targets[target] as TargetState;
}

/** What `get` returns for a target without state: frozen, since it is shared. */
const EMPTY: TargetState = deepFreeze(emptyTargetState());
