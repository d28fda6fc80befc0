// Apply throughput under a rate limit. The emulator (child process) answers 429 past `limit`
// requests per second per credential; the managed target is configured
//   (a) to match it: { requests: limit, perSeconds: 1 } — goal: writes/s ÷ limit ≥ 0.95, no 429;
//   (b) above it (2 × limit): how fast it recovers from the 429s it provokes (writes/s ÷ limit),
//       and that nothing is lost (every dashboard live exactly once, exit 0).
// The changes are dashboard creates on the managed target; its 3 list reads share the budget.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedFor, writeFixtures } from '../gen-fixtures.mjs';
import { applySeconds, dump, runCli, startEmulatorChild, stats } from './lib.mjs';

async function oneRun({ changes, limit, configured, concurrency }) {
  const counts = { pipes: 0, dashboards: changes, alertsPerDashboard: 0, selfHosted: false, total: changes };
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-bench-rate-'));
  await writeFile(join(dir, 'seed.json'), JSON.stringify(seedFor(counts)));
  const emulator = await startEmulatorChild({ seedFile: join(dir, 'seed.json'), rateLimit: limit });
  try {
    await writeFixtures({
      dir,
      url: emulator.url,
      counts,
      rateLimit: { requests: configured, perSeconds: 1, concurrency },
    });
    const result = await runCli(dir, ['apply'], { timeoutMs: 600_000 });
    const server = await stats(emulator.url);
    const live = (await dump(emulator.url)).organizations[0].services[0].dashboards.map((dashboard) => dashboard.name);
    const missing = changes - new Set(live).size;
    const duplicates = live.length - new Set(live).size;
    const seconds = applySeconds(result.stderr, 'local');
    const created = server.routes
      .filter((route) => route.method === 'POST')
      .reduce((sum, route) => sum + (route.statuses['200'] ?? 0), 0);
    return {
      configured,
      limit,
      changes,
      exit: result.code,
      wallMs: result.wallMs,
      applySeconds: seconds,
      writesPerSecond: created / seconds,
      ratio: created / seconds / limit,
      throttled: server.throttled,
      missing,
      duplicates,
    };
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function rateLimitRuns({ changes, limit }, log) {
  const matched = await oneRun({ changes, limit, configured: limit, concurrency: 4 });
  log(
    `  configured = limit (${limit}/s): ${matched.writesPerSecond.toFixed(2)} writes/s (${matched.ratio.toFixed(3)} of the limit), ${matched.throttled} × 429, exit ${matched.exit}`,
  );
  const above = await oneRun({ changes, limit, configured: limit * 2, concurrency: 4 });
  log(
    `  configured = 2 × limit (${limit * 2}/s): ${above.writesPerSecond.toFixed(2)} writes/s (${above.ratio.toFixed(3)} of the limit), ${above.throttled} × 429, ${above.missing} missing, ${above.duplicates} duplicates, exit ${above.exit}`,
  );
  return { matched, above };
}
