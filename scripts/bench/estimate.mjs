// The apply's estimate against a measured apply. Two managed targets (services of one
// organization) on one API key, both configured with the key's budget scaled down (`requests` per
// `perSeconds`, concurrency 4), which the emulator (child process) enforces per key over a sliding
// window (`--rate-limit N --rate-window D`). One target creates `dashboards` dashboards and an
// alert on each (each alert waits for its dashboard, created by the same apply), the other creates
// `otherDashboards` dashboards. One `stacksync apply --output json`: its JSON says what the plan
// estimated (requests, seconds); the figure is that estimate ÷ the measured whole command (spawn
// to exit, process start and the plan included). Goal: within 10 %, and the requests the emulator
// answered equal to those the estimate counted, with no 429.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SEED_IDS as IDS, defaultSeed } from '../../dist/emulator/index.js';
import { expectExit, runCli, startEmulatorChild, stats } from './lib.mjs';

const SERVICES = ['5e000000-0000-4000-8000-00000000000a', '5e000000-0000-4000-8000-00000000000b'];
const TARGETS = ['alerts', 'plain'];

function seed() {
  const base = defaultSeed();
  base.organizations[0].services = SERVICES.map((id) => ({ id, state: 'running' }));
  return base;
}

function config(url, { requests, perSeconds }) {
  const rateLimit = JSON.stringify({ requests, perSeconds, concurrency: 4 });
  const targets = TARGETS.map(
    (name, index) => `  - name: ${name}
    variant: managed
    baseUrl: ${url}
    organizationId: ${IDS.organizationId}
    serviceId: ${SERVICES[index]}
    auth:
      keyId: { fromEnv: STACKSYNC_KEY_ID }
      keySecret: { fromEnv: STACKSYNC_KEY_SECRET }
    rateLimit: ${rateLimit}
`,
  );
  return `targets:\n${targets.join('')}defaultTarget: ${TARGETS[0]}\n`;
}

function dashboard(target, index) {
  return `apiVersion: stacksync/v1
kind: Dashboard
metadata: { name: d-${index}, target: ${target} }
spec:
  name: ${target} dashboard ${index}
  tiles:
    - { name: p99, x: 0, y: 0, w: 6, h: 4, series: [ { type: time, dataSource: events, aggFn: avg } ] }
`;
}

function alert(target, index) {
  return `apiVersion: stacksync/v1
kind: Alert
metadata: { name: a-${index}, target: ${target} }
spec:
  name: ${target} alert ${index}
  source: tile
  dashboard: d-${index}
  tile: p99
  threshold: 500
  thresholdType: above
  interval: 5m
  channel: { type: webhook, webhookId: oncall }
`;
}

async function workspace(dir, url, profile) {
  await mkdir(join(dir, 'config'), { recursive: true });
  await mkdir(join(dir, 'manifests'), { recursive: true });
  await writeFile(join(dir, 'config', 'stacksync.yaml'), config(url, profile));
  const withAlerts = Array.from(
    { length: profile.dashboards },
    (_, index) => `${dashboard(TARGETS[0], index)}---\n${alert(TARGETS[0], index)}`,
  );
  await writeFile(join(dir, 'manifests', `${TARGETS[0]}.yaml`), withAlerts.join('---\n'));
  const plain = Array.from({ length: profile.otherDashboards }, (_, index) => dashboard(TARGETS[1], index));
  await writeFile(join(dir, 'manifests', `${TARGETS[1]}.yaml`), plain.join('---\n'));
}

/** The estimate of an apply ÷ the apply measured, at a scaled budget shared by two targets. */
export async function estimateRun(profile, log) {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-bench-estimate-'));
  await writeFile(join(dir, 'seed.json'), JSON.stringify(seed()));
  const emulator = await startEmulatorChild({
    seedFile: join(dir, 'seed.json'),
    rateLimit: profile.requests,
    rateWindow: `${profile.perSeconds}s`,
  });
  try {
    await workspace(dir, emulator.url, profile);
    const result = expectExit(await runCli(dir, ['apply', '--output', 'json'], { timeoutMs: 600_000 }), 0, 'apply');
    const { estimate } = JSON.parse(result.stdout);
    const server = await stats(emulator.url);
    const measuredSeconds = result.wallMs / 1000;
    const figures = {
      ...profile,
      targets: TARGETS.length,
      estimatedRequests: estimate.requests,
      estimatedWrites: estimate.writes,
      serverRequests: server.total,
      throttled: server.throttled,
      estimatedSeconds: estimate.seconds,
      perTarget: estimate.targets.map((target) => ({
        target: target.target,
        requests: target.requests,
        seconds: target.seconds,
      })),
      measuredSeconds,
      ratio: estimate.seconds / measuredSeconds,
    };
    log(
      `  ${figures.estimatedRequests} requests estimated, ${figures.serverRequests} answered, ${figures.throttled} × 429`,
    );
    log(
      `  estimate ${figures.estimatedSeconds.toFixed(1)} s, measured ${measuredSeconds.toFixed(1)} s (whole command): ${figures.ratio.toFixed(3)} of it`,
    );
    log(`  ${estimateVerdict(figures)}`);
    return figures;
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Within 10 %, every request counted, no 429. */
export function estimateMeets(figures) {
  return (
    Math.abs(figures.ratio - 1) <= 0.1 &&
    figures.serverRequests === figures.estimatedRequests &&
    figures.throttled === 0
  );
}

export function estimateVerdict(figures) {
  const what = `apply estimate at a scaled budget (${figures.requests} per ${figures.perSeconds} s, two targets on one key): ${figures.estimatedSeconds.toFixed(1)} s estimated, ${figures.measuredSeconds.toFixed(1)} s measured = ${figures.ratio.toFixed(2)} (goal 0.90–1.10); ${figures.estimatedRequests} requests estimated, ${figures.serverRequests} sent, ${figures.throttled} × 429`;
  return `- **${estimateMeets(figures) ? 'Meets' : 'Short of'}:** ${what}.`;
}
