/**
 * A real PostgreSQL server for a test file (scripts/postgres.mjs, which the benchmark shares):
 * `initdb` + `pg_ctl` in a temporary directory on a free loopback port, about 1.5 s; it throws,
 * saying so, where PostgreSQL is not installed (`.ci/run` installs it).
 */
export { postgresBinaries, startPostgres, type RunningPostgres } from '../../scripts/postgres.mjs';
