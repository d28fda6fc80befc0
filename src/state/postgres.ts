/**
 * The PostgreSQL state backend (docs/ownership.md, "Where the state lives"): the same snapshot and
 * records as the state file and its journal, in two tables stacksync creates itself, one row of
 * `stacksync_state` per state name (several stacksync installations may share a database).
 *
 * - The lock is `pg_try_advisory_lock` on a connection of its own, held while that session
 *   lives: a holder killed with -9 loses it as soon as the server sees the connection drop.
 * - An advisory lock is not a fencing token, so taking it also bumps `generation` in the state's
 *   row, and every write (append, compaction, intents included) runs in a transaction that checks
 *   `generation` is still the holder's: a holder whose session dropped, or whose lock `state
 *   unlock` broke, can never write again.
 * - `serial` counts the writes; `lineage` is set when the row is made and kept by `state migrate`.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { StacksyncError } from '../errors.js';
import type { StateFile } from '../model/state.js';
import type { StateBackend, StateVersion } from './backend.js';
import { parseJournal, parseStateFile, serializeStateFile, STATE_VERSION } from './format.js';
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  lockedBy,
  newHolder,
  pollLock,
  refusedWrite,
  type LockHolder,
  type StateLock,
  type StateLockOptions,
} from './lock.js';
import { applyRecord } from './record-effects.js';
import { targetOf } from './in-memory.js';
import { RemoteStateStore, type StoreWriter } from './remote-store.js';
import type { StateStore, StateStoreOptions } from './store.js';

/**
 * `append`'s one statement: the fence row locked only while the generation is the holder's; the
 * records and the serial's bump depend on it, so a holder that lost its lock writes nothing.
 * Data-modifying CTEs run whether or not the final SELECT reads them. A batch whose answer was
 * lost (the connection dropped after the commit) is sent again by the next save: its records,
 * numbered as before and with the same text, are then already there, and are left as they are.
 */
const APPEND_SQL = `
WITH fence AS (
  SELECT name FROM stacksync_state WHERE name = $1 AND generation = $2 FOR UPDATE
), added AS (
  INSERT INTO stacksync_state_records (name, seq, record)
  SELECT $1, s, r FROM unnest($3::bigint[], $4::text[]) AS t(s, r) WHERE EXISTS (SELECT 1 FROM fence)
  ON CONFLICT (name, seq) DO NOTHING
  RETURNING 1
), bumped AS (
  UPDATE stacksync_state SET serial = serial + 1 WHERE name = $1 AND generation = $2 AND EXISTS (SELECT 1 FROM fence)
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM fence) AS fenced`;

/**
 * How many appends may be in flight at once, each on a connection of the pool (docs/ownership.md,
 * "Saves in flight at once"): each batch is one statement, stored all or nothing, and a reader
 * replays the rows there are in `seq` order, so batches may commit out of order. Every create
 * waits for two saves (its intent, then its result); with one append at a time, those round
 * trips bounded the whole apply.
 */
const APPENDS_IN_FLIGHT = 4;

export interface PostgresBackendOptions {
  /** A `postgres://` URL; the `PG*` environment variables fill what it leaves out (pg's own rule). */
  url: string;
  /** The state's name in the tables; default `default`. */
  name?: string;
}

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS stacksync_state (
  name text PRIMARY KEY,
  lineage text NOT NULL,
  serial bigint NOT NULL DEFAULT 0,
  generation bigint NOT NULL DEFAULT 0,
  holder jsonb,
  snapshot text NOT NULL,
  hmac_key text
);
CREATE TABLE IF NOT EXISTS stacksync_state_records (
  name text NOT NULL REFERENCES stacksync_state(name) ON DELETE CASCADE,
  seq bigint NOT NULL,
  record text NOT NULL,
  PRIMARY KEY (name, seq)
);`;

/** The URL as messages may show it: no password, ever. */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString().replace(/^postgres(ql)?:\/\/([^@/]*?):?@/, 'postgres://$2@');
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

export function openPostgresBackend(options: PostgresBackendOptions): StateBackend {
  return new PostgresBackend(options.url, options.name ?? 'default');
}

class PostgresBackend implements StateBackend {
  readonly kind = 'postgres';
  readonly fenced = true;
  readonly location: string;
  readonly #pool: pg.Pool;
  #schemaReady: Promise<void> | undefined;
  /** The generation of the lock this process holds, while it holds one. */
  #fence: number | undefined;

  constructor(
    url: string,
    readonly name: string,
  ) {
    this.location = `${describePostgresUrl(url)} (state "${name}")`;
    // One connection more than the appends in flight, so a read or `state show` never waits for a connection.
    this.#pool = new pg.Pool({ connectionString: url, max: APPENDS_IN_FLIGHT + 1, application_name: 'stacksync' });
    // An idle client whose server went away must not crash the process; the next query reports it.
    this.#pool.on('error', () => undefined);
  }

  get fence(): number | undefined {
    return this.#fence;
  }

  async ready(): Promise<void> {
    this.#schemaReady ??= this.#query(SCHEMA_SQL).then(() => undefined);
    try {
      await this.#schemaReady;
    } catch (error) {
      this.#schemaReady = undefined;
      throw error;
    }
  }

  async open(options: Pick<StateStoreOptions, 'readOnly' | 'compactOnOpen'> = {}): Promise<StateStore> {
    await this.ready();
    const store = new RemoteStateStore(this.#storeWriter(), options.readOnly === true);
    await store.reload();
    return store;
  }

  /** How its store saves (one fenced statement per batch of records) and compacts. */
  #storeWriter(): StoreWriter {
    return {
      location: this.location,
      maxInFlight: APPENDS_IN_FLIGHT,
      holdsLock: () => this.#fence !== undefined,
      read: () => this.read(),
      append: (batch) =>
        this.append(
          batch.map((line) => line.seq),
          batch.map((line) => line.text),
        ),
      replace: (snapshot, upTo) =>
        this.write('compact', async (client) => {
          await client.query('UPDATE stacksync_state SET snapshot = $2 WHERE name = $1', [this.name, snapshot]);
          // Only what the snapshot holds: a record numbered above it is not in it.
          await client.query('DELETE FROM stacksync_state_records WHERE name = $1 AND seq <= $2', [this.name, upTo]);
        }),
    };
  }

  /** Snapshot and records as stored, in one consistent read. */
  async read(): Promise<{ file: StateFile; lastSeq: number; version: StateVersion }> {
    await this.ready();
    const client = await this.#connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const row = await client.query<{ lineage: string; serial: string; snapshot: string }>(
        'SELECT lineage, serial, snapshot FROM stacksync_state WHERE name = $1',
        [this.name],
      );
      const records = await client.query<{ record: string }>(
        'SELECT record FROM stacksync_state_records WHERE name = $1 ORDER BY seq',
        [this.name],
      );
      await client.query('COMMIT');
      const first = row.rows[0];
      const file: StateFile = first
        ? parseStateFile(this.location, first.snapshot)
        : { version: STATE_VERSION, targets: {} };
      // Appends commit out of order (APPENDS_IN_FLIGHT), so the numbering may have gaps: a record
      // not stored was never acknowledged, and the rest replay in order.
      const journal = parseJournal(this.location, records.rows.map((r) => r.record).join(''), { gaps: true });
      for (const entry of journal.entries) applyRecord(targetOf(file, entry.target), entry.record);
      const lastSeq = journal.entries[journal.entries.length - 1]?.seq ?? 0;
      return { file, lastSeq, version: { lineage: first?.lineage, serial: first ? Number(first.serial) : 0 } };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.#error(error, 'read');
    } finally {
      client.release();
    }
  }

  /**
   * Runs `body` in a transaction that holds the state's row and checks the fence first: a
   * holder that lost its lock gets `E_STATE_LOCKED` and writes nothing.
   */
  async write(what: string, body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const fence = this.#fence;
    if (fence === undefined) throw refusedWrite(this.location, what, 'it does not hold the state lock');
    const client = await this.#connect();
    try {
      await client.query('BEGIN');
      const row = await client.query<{ generation: string }>(
        'SELECT generation FROM stacksync_state WHERE name = $1 FOR UPDATE',
        [this.name],
      );
      const generation = row.rows[0] ? Number(row.rows[0].generation) : undefined;
      if (generation !== fence) {
        await client.query('ROLLBACK');
        this.#fence = undefined;
        throw refusedWrite(
          this.location,
          what,
          'another holder took the state lock since (its session dropped, or `stacksync state unlock` broke it)',
        );
      }
      await body(client);
      await client.query('UPDATE stacksync_state SET serial = serial + 1 WHERE name = $1', [this.name]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.#error(error, 'write');
    } finally {
      client.release();
    }
  }

  /**
   * Appends records as one fenced statement: the row is locked and its generation checked, the
   * records inserted and the serial bumped, all or nothing, in one round trip. A save is on the
   * path of every create (its intent before the POST, its result after), and saves are made one
   * at a time, so a save's round trips bound the whole apply: `write`'s five (BEGIN, check,
   * insert, bump, COMMIT) made a first apply of 30,000 resources 2.6 times as slow as the state
   * file's (`npm run bench`, "State in PostgreSQL"), and one statement still 2.5 times while
   * each save call sent its own batch, one after another (40,000 statements for 30,000
   * creates). The store now sends one batch of every record waiting whenever an append may start
   * (3,500 statements with one append in flight, 15,600 with APPENDS_IN_FLIGHT, each caller waiting less).
   */
  async append(seqs: number[], texts: string[]): Promise<void> {
    const fence = this.#fence;
    if (fence === undefined) throw refusedWrite(this.location, 'save records', 'it does not hold the state lock');
    let fenced: boolean | undefined;
    try {
      // Named, so each connection of the pool parses and plans it once.
      const result = await this.#pool.query<{ fenced: boolean }>({
        name: 'stacksync_append',
        text: APPEND_SQL,
        values: [this.name, fence, seqs, texts],
      });
      fenced = result.rows[0]?.fenced;
    } catch (error) {
      throw this.#error(error, 'write');
    }
    if (fenced !== true) {
      if (this.#fence === fence) this.#fence = undefined;
      throw refusedWrite(
        this.location,
        'save records',
        'another holder took the state lock since (its session dropped, or `stacksync state unlock` broke it)',
      );
    }
  }

  async lock(options: StateLockOptions): Promise<StateLock> {
    await this.ready();
    const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    const session = new pg.Client({ connectionString: this.#url() });
    session.on('error', () => undefined);
    try {
      await session.connect();
    } catch (error) {
      throw this.#error(error, 'lock');
    }
    try {
      return await pollLock<StateLock>(
        options,
        async () => {
          const taken = await session.query<{ locked: boolean }>(
            'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
            [`stacksync:${this.name}`],
          );
          return taken.rows[0]?.locked
            ? { taken: await this.#held(session, options) }
            : { holder: await this.holder() };
        },
        (holder, why) => this.#locked(holder === 'unreadable' ? undefined : holder, timeoutMs, why),
      );
    } catch (error) {
      await session.end().catch(() => undefined);
      throw error instanceof StacksyncError ? error : this.#error(error, 'lock');
    }
  }

  /** The advisory lock is ours: make the row if there is none, bump the generation, name the holder. */
  async #held(session: pg.Client, options: StateLockOptions): Promise<StateLock> {
    const pid = await session.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const me = newHolder(options);
    const record = { ...me, session: pid.rows[0]?.pid };
    await session.query(
      'INSERT INTO stacksync_state (name, lineage, snapshot) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [this.name, randomUUID(), serializeStateFile({ version: STATE_VERSION, targets: {} })],
    );
    const bumped = await session.query<{ generation: string }>(
      'UPDATE stacksync_state SET generation = generation + 1, holder = $2 WHERE name = $1 RETURNING generation',
      [this.name, JSON.stringify(record)],
    );
    const generation = Number(bumped.rows[0]?.generation);
    this.#fence = generation;
    // The advisory lock ends with its session: once the session errs or ends, the holding is lost.
    const lost = new AbortController();
    const lose = (): void => {
      if (this.#fence === generation) this.#fence = undefined;
      lost.abort(new Error('the database session that held the state lock ended'));
    };
    session.once('error', lose);
    session.once('end', lose);
    let released = false;
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      if (this.#fence === generation) this.#fence = undefined;
      try {
        await session.query('UPDATE stacksync_state SET holder = NULL WHERE name = $1 AND generation = $2', [
          this.name,
          generation,
        ]);
        await session.query('SELECT pg_advisory_unlock(hashtext($1))', [`stacksync:${this.name}`]);
      } finally {
        await session.end().catch(() => undefined);
      }
    };
    return {
      holder: me,
      lost: lost.signal,
      release,
      releaseSync: () => {
        // Exiting at once: the server frees the advisory lock when the connection closes.
        released = true;
        if (this.#fence === generation) this.#fence = undefined;
        void session.end().catch(() => undefined);
      },
    };
  }

  /** The holder the state's row names, with its session, after the tables are there. */
  async #recordedHolder(): Promise<(LockHolder & { session?: number }) | null | undefined> {
    await this.ready();
    const row = await this.#query<{ holder: (LockHolder & { session?: number }) | null }>(
      'SELECT holder FROM stacksync_state WHERE name = $1',
      [this.name],
    );
    return row.rows[0]?.holder;
  }

  async holder(): Promise<LockHolder | undefined> {
    const holder = await this.#recordedHolder();
    if (!holder) return undefined;
    // The row may name a holder whose session is gone (kill -9): only a held advisory lock counts.
    const held = await this.#query<{ held: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $1) AS held",
      [holder.session ?? -1],
    );
    if (!held.rows[0]?.held) return undefined;
    const { session: _session, ...rest } = holder;
    return rest;
  }

  async unlock(token: string): Promise<LockHolder | undefined> {
    const holder = await this.#recordedHolder();
    if (!holder || holder.token !== token) return undefined;
    // A new generation fences the old holder; ending its session frees the advisory lock.
    await this.#query('UPDATE stacksync_state SET generation = generation + 1, holder = NULL WHERE name = $1', [
      this.name,
    ]);
    if (holder.session !== undefined)
      await this.#query('SELECT pg_terminate_backend($1)', [holder.session]).catch(() => undefined);
    const { session: _session, ...rest } = holder;
    return rest;
  }

  async hmacKey(create?: Buffer): Promise<Buffer | undefined> {
    await this.ready();
    if (create) {
      await this.#query(
        'INSERT INTO stacksync_state (name, lineage, snapshot, hmac_key) VALUES ($1, $2, $3, $4) ON ' +
          'CONFLICT (name) DO UPDATE SET hmac_key = COALESCE(stacksync_state.hmac_key, EXCLUDED.hmac_key)',
        [this.name, randomUUID(), serializeStateFile({ version: STATE_VERSION, targets: {} }), create.toString('hex')],
      );
    }
    const row = await this.#query<{ hmac_key: string | null }>('SELECT hmac_key FROM stacksync_state WHERE name = $1', [
      this.name,
    ]);
    const hex = row.rows[0]?.hmac_key;
    return hex ? Buffer.from(hex, 'hex') : undefined;
  }

  async version(): Promise<StateVersion> {
    return (await this.read()).version;
  }

  /** Sets the lineage of a state made by `state migrate`, before anything else was written to it. */
  async adoptLineage(lineage: string): Promise<void> {
    await this.write('migrate', async (client) => {
      await client.query('UPDATE stacksync_state SET lineage = $2 WHERE name = $1', [this.name, lineage]);
    });
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }

  #url(): string {
    return (this.#pool.options as { connectionString: string }).connectionString;
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw this.#error(error, 'connect to');
    }
  }

  async #query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(text, values);
    } catch (error) {
      throw this.#error(error, 'query');
    }
  }

  #error(error: unknown, what: string): StacksyncError {
    if (error instanceof StacksyncError) return error;
    // pg's messages name the server and the SQL problem, never the password.
    const code = what === 'read' || what === 'query' || what === 'connect to' ? 'E_STATE_CORRUPT' : 'E_STATE_WRITE';
    return new StacksyncError(
      code,
      `state ${this.location}: could not ${what} the database (${(error as Error).message})`,
      { subject: this.location, cause: error },
    );
  }

  #locked(holder: LockHolder | undefined, timeoutMs: number, why?: string): StacksyncError {
    return lockedBy(
      this.location,
      holder ?? 'another session',
      timeoutMs,
      why,
      '`stacksync state unlock <lock id>` breaks a lock whose holder is gone',
    );
  }
}
