/**
 * Several targets on one key, against the emulator with a sliding-window rate limit: the clients
 * of one pool share the key's budget (no 429 though each target alone would stay in its own
 * budget), and take turns (a target with a long queue of writes does not hold back the others'
 * reads). Bounds are generous: the client runs at half the server's rate, and fairness is judged
 * by order, not by time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_SEED_IDS as IDS,
  defaultSeed,
  startEmulator,
  type RunningEmulator,
  type Seed,
} from '../../src/emulator/index.js';
import type { ManagedTarget } from '../../src/model/config.js';
import type { DashboardWrite } from '../../src/kinds/dashboard/model.js';
import { createClientPool, type ClientPool } from '../../src/reconcile/clients.js';

const SERVICES = [
  '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e01',
  '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e02',
  '9c1e2b7e-3a4d-4c5b-8e6f-1a2b3c4d5e03',
];
/** The server allows 4 requests per 500 ms; each target is configured to 4 per second. */
const SERVER = { rateLimit: 4, rateWindowMs: 500 };
const CLIENT = { requests: 4, perSeconds: 1, concurrency: 4 };

function seed(): Seed {
  const base = defaultSeed();
  const organization = base.organizations?.[0];
  if (!organization) throw new Error('the default seed has an organization');
  organization.services = SERVICES.map((id) => ({ id }));
  return base;
}

function target(name: string, serviceId: string, url: string): ManagedTarget {
  return {
    name,
    variant: 'managed',
    baseUrl: url,
    organizationId: IDS.organizationId,
    serviceId,
    auth: { keyId: IDS.keyId, keySecret: IDS.keySecret },
    rateLimit: CLIENT,
  };
}

const dashboard = (name: string): DashboardWrite => ({ name, tags: [], tiles: [] });

describe('targets sharing one key', () => {
  let emulator: RunningEmulator;
  let pool: ClientPool;
  const waits = new Map<string, number>();

  beforeAll(async () => {
    emulator = await startEmulator({ seed: seed(), ...SERVER });
    pool = createClientPool({
      hooksFor: (name) => ({
        onRateLimitWait: ({ waitedSeconds }) => waits.set(name, (waits.get(name) ?? 0) + waitedSeconds),
      }),
    });
  });
  afterAll(async () => {
    await pool.close();
    await emulator.close();
  });

  it('share the key budget (no 429) and take turns: a long queue of writes does not hold back the others', async () => {
    const [busy, readerB, readerC] = SERVICES.map((id, index) =>
      pool.apiFor(target(['busy', 'reader-b', 'reader-c'][index] ?? '', id, emulator.url)),
    );
    if (!busy || !readerB || !readerC) throw new Error('three clients');
    let busyDone = 0;
    const writes = Array.from({ length: 10 }, (_, index) =>
      busy.create('Dashboard', dashboard(`d-${index}`)).then(() => (busyDone += 1)),
    );
    const writesLeftWhenRead: number[] = [];
    const reads = [readerB, readerC].map((api) =>
      api.readLiveState().then(() => writesLeftWhenRead.push(10 - busyDone)),
    );
    await Promise.all([...writes, ...reads]);

    const stats = (await (await fetch(`${emulator.url}/_emulator/stats`)).json()) as {
      total: number;
      throttled: number;
    };
    // Ten writes, and two full reads of three lists each (pipes, dashboards, alerts).
    expect(stats).toMatchObject({ total: 16, throttled: 0 });
    // First in, first out would finish all ten writes first; in turns, the reads end well before.
    expect(Math.min(...writesLeftWhenRead)).toBeGreaterThanOrEqual(2);
    expect(waits.get('reader-b')).toBeGreaterThan(0);
    expect(waits.get('reader-c')).toBeGreaterThan(0);
  });
});
