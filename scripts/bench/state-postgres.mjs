// First apply with the state in PostgreSQL ÷ with the state file: the same fixtures (the first
// apply section's, at its largest size), each on a fresh emulator, the database a real server
// started here (scripts/postgres.mjs) on loopback. Goal (issue 35): ≤ 1.5 × the file's time for
// the whole command. What costs: every batch of records is one statement, and the
// end of the run one compaction; a batch carries every record waiting when a slot is free, up to
// four in flight (docs/ownership.md, "Saves in flight at once").
import { startPostgres } from '../postgres.mjs';
import { firstApply } from './first-apply.mjs';

export const POSTGRES_GOAL = 1.5;

export async function statePostgresRun({ size }, log) {
  const postgres = await startPostgres();
  try {
    const url = await postgres.createDatabase('bench');
    const file = await firstApply(size, log, { label: ', state file' });
    const database = await firstApply(size, log, {
      label: ', PostgreSQL state',
      state: '{ backend: postgres, url: { fromEnv: STACKSYNC_STATE_URL }, name: bench }',
      env: { STACKSYNC_STATE_URL: url },
    });
    const figures = {
      size,
      resources: file.resources,
      file,
      postgres: database,
      ratio: database.wallMs / file.wallMs,
      phaseRatio: database.phaseMs / file.phaseMs,
    };
    log(
      `  PostgreSQL ÷ file: ${figures.ratio.toFixed(2)} whole command, ${figures.phaseRatio.toFixed(2)} apply phase (goal ≤ ${POSTGRES_GOAL})`,
    );
    return figures;
  } finally {
    await postgres.stop();
  }
}
