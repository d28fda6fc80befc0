/** `run --leader-elect` on a real PostgreSQL state this file starts (test/helpers/leader-election.ts). */
import { describeLeaderElection } from '../helpers/leader-election.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';

let postgres: RunningPostgres | undefined;

describeLeaderElection(
  'PostgreSQL',
  async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase('stacksync');
    return {
      block: '{ backend: postgres, url: { fromEnv: STACKSYNC_STATE_URL }, name: elected }',
      env: { STACKSYNC_STATE_URL: url },
    };
  },
  async () => postgres?.stop(),
);
