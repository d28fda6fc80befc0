// Many targets on one key: `targets` managed targets (services of one organization) share one API
// key, and the emulator (child process) limits that key to `requests` per `perSeconds` over a
// sliding window (`--rate-limit N --rate-window D`), as the managed service counts its budget.
// Every target is configured with that budget. `stacksync run --once` syncs them all at once, as
// the daemon does at start: 3 list reads per target, then its dashboard creates (`creates` each,
// one target `heavyCreates`, so one target still has work after the others are done).
//
// Goals: 0 × 429; throughput ≥ 0.95 × the key's budget; fair between targets.
//   throughput, while the budget is what holds requests back: a budget of B per W sliding lets the
//     i-th request go W after the (i − B)-th at the soonest. Over the requests that had to wait for
//     the budget (the client logs how long each waited), the figure is W ÷ the mean of those
//     spacings: 1.0 for a client that uses its budget to the last millisecond. Times when no
//     request was waiting (start-up, each target loading the manifests; planning) are no loss of
//     the pacer's, so they are not counted here; the overall figure, (N − B) ÷ B × W over the span
//     from the first request to the last, is given beside it.
//   fairness = Jain's index (Σx)² ÷ (n·Σx²) of the requests each target sent while every target
//     was in the run (from the last target's first request to the first target's last one): 1
//     when every target got the same share, 1/n when one got everything. Goal ≥ 0.9: turns give
//     each target one request per round, so counts differ by one at most, and 0.96 is the worst
//     of that (half the targets one behind); one target with ten requests to the others' two scores 0.65.
// Requests and their targets come from the client's own debug log (one line per request, with the
// target, its end time, its duration and how long it waited for the budget); the 429 count from
// the emulator's stats.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SEED_IDS as IDS, defaultSeed } from '../../dist/emulator/index.js';
import { runCli, startEmulatorChild, stats } from './lib.mjs';

const pad = (index) => String(index + 1).padStart(2, '0');
const serviceId = (index) => `5e000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`;

function seed(targets) {
  const base = defaultSeed();
  base.organizations[0].services = Array.from({ length: targets }, (_, index) => ({
    id: serviceId(index),
    state: 'running',
  }));
  return base;
}

function config(url, { targets, requests, perSeconds }) {
  const rateLimit = JSON.stringify({ requests, perSeconds, concurrency: 2 });
  const entries = Array.from(
    { length: targets },
    (_, index) => `  - name: svc-${pad(index)}
    variant: managed
    baseUrl: ${url}
    organizationId: ${IDS.organizationId}
    serviceId: ${serviceId(index)}
    auth:
      keyId: { fromEnv: STACKSYNC_KEY_ID }
      keySecret: { fromEnv: STACKSYNC_KEY_SECRET }
    rateLimit: ${rateLimit}
`,
  );
  return `targets:\n${entries.join('')}defaultTarget: svc-01\nsync: { interval: 5m }\n`;
}

function dashboards(target, count) {
  return Array.from(
    { length: count },
    (_, index) => `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: d-${index}, target: ${target} }
spec:
  name: ${target} dashboard ${index}
  tiles:
    - { name: p99, x: 0, y: 0, w: 6, h: 4, series: [ { type: time, dataSource: events, aggFn: avg } ] }
`,
  ).join('---\n');
}

async function workspace(dir, url, profile) {
  await mkdir(join(dir, 'config'), { recursive: true });
  await mkdir(join(dir, 'manifests'), { recursive: true });
  await writeFile(join(dir, 'config', 'stacksync.yaml'), config(url, profile));
  for (let index = 0; index < profile.targets; index++) {
    const creates = index === 0 ? profile.heavyCreates : profile.creates;
    await writeFile(join(dir, 'manifests', `svc-${pad(index)}.yaml`), dashboards(`svc-${pad(index)}`, creates));
  }
}

/** The client's request lines: target, start (end minus duration) and status. */
export function requestsOf(stderr) {
  const requests = [];
  const syncs = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line);
    if (entry.msg === 'API request')
      requests.push({
        target: entry.target,
        startMs: Date.parse(entry.time) - entry.durationMs,
        waitedMs: entry.waitedMs,
        status: entry.status,
      });
    // "sync finished", or "sync finished: applied …" when it wrote something.
    if (typeof entry.msg === 'string' && entry.msg.startsWith('sync finished'))
      syncs.push({ target: entry.target, seconds: entry.seconds, waitSeconds: entry.rateLimitWaitSeconds });
  }
  return { requests: requests.sort((a, b) => a.startMs - b.startMs), syncs };
}

/** W ÷ the mean spacing between each request that waited for the budget and the one B before it. */
export function saturatedRatio(requests, { requests: budget, perSeconds }) {
  const spacings = [];
  for (let index = budget; index < requests.length; index++) {
    if (requests[index].waitedMs > 0) spacings.push(requests[index].startMs - requests[index - budget].startMs);
  }
  const mean = spacings.reduce((a, b) => a + b, 0) / spacings.length;
  return { ratio: (perSeconds * 1000) / mean, pairs: spacings.length, meanSpacingMs: mean };
}

/**
 * Jain's index of the requests each target sent while every target was in the run: from the last
 * target's first request (before it, some were still loading the manifests) to the first target's
 * last request (after it, some had nothing left to ask).
 */
export function fairness(requests, targets) {
  const firstOf = new Map();
  const lastOf = new Map();
  for (const request of requests) {
    if (!firstOf.has(request.target)) firstOf.set(request.target, request.startMs);
    lastOf.set(request.target, request.startMs);
  }
  const windowStart = Math.max(...firstOf.values());
  const windowEnd = Math.min(...lastOf.values());
  const counts = new Map(targets.map((target) => [target, 0]));
  for (const request of requests)
    if (request.startMs >= windowStart && request.startMs <= windowEnd)
      counts.set(request.target, (counts.get(request.target) ?? 0) + 1);
  const values = [...counts.values()];
  const sum = values.reduce((a, b) => a + b, 0);
  const squares = values.reduce((a, b) => a + b * b, 0);
  return {
    index: squares === 0 ? NaN : (sum * sum) / (values.length * squares),
    min: Math.min(...values),
    max: Math.max(...values),
    windowSeconds: Math.max(0, windowEnd - windowStart) / 1000,
  };
}

export async function sharedKeyRun(profile, log) {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-bench-shared-key-'));
  await writeFile(join(dir, 'seed.json'), JSON.stringify(seed(profile.targets)));
  const emulator = await startEmulatorChild({
    seedFile: join(dir, 'seed.json'),
    rateLimit: profile.requests,
    rateWindow: `${profile.perSeconds}s`,
  });
  try {
    await workspace(dir, emulator.url, profile);
    const result = await runCli(dir, ['run', '--once', '--log-level', 'debug', '--log-format', 'json'], {
      timeoutMs: 900_000,
    });
    const server = await stats(emulator.url);
    const { requests, syncs } = requestsOf(result.stderr);
    const targets = Array.from({ length: profile.targets }, (_, index) => `svc-${pad(index)}`);
    const spanSeconds = ((requests.at(-1)?.startMs ?? 0) - (requests[0]?.startMs ?? 0)) / 1000;
    const saturated = saturatedRatio(requests, profile);
    const fair = fairness(requests, targets);
    const light = syncs.filter((sync) => sync.target !== 'svc-01');
    const figures = {
      ...profile,
      exit: result.code,
      wallMs: result.wallMs,
      sent: requests.length,
      serverRequests: server.total,
      throttled: server.throttled,
      spanSeconds,
      budgetPerSecond: profile.requests / profile.perSeconds,
      ratio: saturated.ratio,
      saturated,
      overallRatio: (((requests.length - profile.requests) / profile.requests) * profile.perSeconds) / spanSeconds,
      fairness: fair,
      lightSyncSeconds: {
        min: Math.min(...light.map((sync) => sync.seconds)),
        max: Math.max(...light.map((sync) => sync.seconds)),
      },
      heavySyncSeconds: syncs.find((sync) => sync.target === 'svc-01')?.seconds,
      waitSeconds: syncs.reduce((sum, sync) => sum + (sync.waitSeconds ?? 0), 0),
    };
    if (figures.exit !== 0)
      throw new Error(
        `stacksync run --once exited ${figures.exit}\n${result.stderr
          .split('\n')
          .filter((line) => line.includes('"level":50') || line.includes('"level":40'))
          .slice(-5)
          .join('\n')}`,
      );
    log(
      `  ${profile.targets} targets on one key, ${profile.requests} per ${profile.perSeconds} s (sliding): ${requests.length} requests in ${spanSeconds.toFixed(1)} s, ` +
        `${figures.ratio.toFixed(3)} of the budget while requests waited for it (${figures.overallRatio.toFixed(3)} overall), ${figures.throttled} × 429, fairness ${fair.index.toFixed(3)} (${fair.min}–${fair.max} requests each over ${fair.windowSeconds.toFixed(0)} s), ` +
        `light syncs ${figures.lightSyncSeconds.min.toFixed(1)}–${figures.lightSyncSeconds.max.toFixed(1)} s, heavy ${figures.heavySyncSeconds?.toFixed(1)} s`,
    );
    return figures;
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}
