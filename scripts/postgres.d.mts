// Types of scripts/postgres.mjs, for the tests (test/helpers/postgres.ts).
export interface RunningPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/DB`: trust authentication, no password. */
  readonly url: string;
  readonly port: number;
  /** A fresh database on this server, by name; its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export function postgresBinaries(): string | undefined;
export function startPostgres(): Promise<RunningPostgres>;
