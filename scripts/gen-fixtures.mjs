// Benchmark fixtures (not committed; `npm run bench` generates them in a temp dir):
// a workspace with manifests, config and an emulator seed for N resources, made of
//   - pipes of every source kind (kafka, objectStorage, kinesis, postgres), seeded into the
//     emulator (pipes cannot be created through the API) and named by Pipe manifests that change
//     one setting each (kafka ones also carry credentials from env, compared by HMAC);
//   - dashboards of 4 tiles, half on the managed target and half on the self-hosted one;
//   - 3 alerts per dashboard, each on one of its tiles.
// For N = 100 / 1,000 / 10,000: 8% pipes, the rest dashboards + alerts (1 + 3 per dashboard).
//
//   node scripts/gen-fixtures.mjs --size 1000 --out DIR [--url http://127.0.0.1:4010]
//
// writes DIR/manifests/**, DIR/config/stacksync.yaml and DIR/seed.json (for `stacksync emulator --seed`).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SEED_IDS as IDS, defaultSeed } from '../dist/emulator/index.js';
import { accessOf, deferredKinds, DESCRIPTORS } from '../dist/kinds/index.js';

export const SOURCE_KINDS = ['kafka', 'objectStorage', 'kinesis', 'postgres'];
const TILES = ['p50', 'p99', 'errors', 'count'];
/** Secrets of the kafka pipes' credentials; the bench passes them in the env. */
export const FIXTURE_ENV = { BENCH_KAFKA_USER: 'bench-kafka-user', BENCH_KAFKA_PASSWORD: 'bench-kafka-password' };

/** How N resources are made up. */
export function countsForSize(size) {
  const pipes = Math.round((size * 0.08) / 4) * 4;
  const dashboards = Math.floor((size - pipes) / 4);
  return { pipes, dashboards, alertsPerDashboard: 3, total: pipes + dashboards * 4 };
}

/**
 * The floor of HTTP calls for one plan: one full read of each target (`listCalls`). Alert pages
 * depend on what is live: before the first apply (`applied: false`) there are none. Every other
 * paged list holds fewer than 1,000 (the seed's own).
 */
export function readFloor(counts, { applied = true } = {}) {
  const selfHostedAlerts = applied ? selfHostedDashboards(counts) * counts.alertsPerDashboard : 0;
  return listCalls('managed') + listCalls('self-hosted', { Alert: Math.max(1, Math.ceil(selfHostedAlerts / 1000)) });
}

/**
 * Calls one full read of a variant takes under the seed profile (`readLiveState`): one list per
 * kind it offers (from the kinds' own table, so a new kind moves the floor with it), but not those
 * read only when asked (`deferredKinds`: on demand, or listed but not writable, as the managed
 * sources, which nothing in these fixtures names), a paged one a call per page (`pages` by kind,
 * 1 where not given).
 */
export function listCalls(variant, pages = {}) {
  const deferred = deferredKinds(variant, 'seed');
  const listed = DESCRIPTORS.filter(
    (descriptor) => !deferred.includes(descriptor.kind) && accessOf(descriptor.kind, variant, 'seed') !== 'none',
  );
  return listed.reduce(
    (sum, descriptor) => sum + (descriptor.routes[variant]?.paged ? (pages[descriptor.kind] ?? 1) : 1),
    0,
  );
}

function selfHostedDashboards(counts) {
  return counts.selfHosted === false ? 0 : Math.floor(counts.dashboards / 2);
}

function pipeId(kind, index) {
  const kindDigit = SOURCE_KINDS.indexOf(kind) + 1;
  return `b0000000-000${kindDigit}-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/** The default seed, with `counts.pipes` pipes (of every kind in turn) in place of its four. */
export function seedFor(counts) {
  const seed = defaultSeed();
  const service = seed.organizations[0].services[0];
  const templates = Object.fromEntries(service.pipes.map((pipe) => [Object.keys(pipe.source)[0], pipe]));
  service.pipes = Array.from({ length: counts.pipes }, (_, index) => {
    const kind = SOURCE_KINDS[index % SOURCE_KINDS.length];
    return {
      ...structuredClone(templates[kind]),
      id: pipeId(kind, index),
      name: `bench-${kind.toLowerCase()}-${index}`,
    };
  });
  return seed;
}

const PIPE_SETTINGS = {
  kafka: 'streaming_max_insert_wait_ms: 4000',
  objectStorage: 'object_storage_concurrency: 2',
  kinesis: 'streaming_max_insert_wait_ms: 3000',
  postgres: 'engine_max_threads: 4',
};

function pipeManifest(index) {
  const kind = SOURCE_KINDS[index % SOURCE_KINDS.length];
  const credentials =
    kind === 'kafka'
      ? `  source:\n    kafka:\n      credentials:\n        username: { fromEnv: BENCH_KAFKA_USER }\n        password: { fromEnv: BENCH_KAFKA_PASSWORD }\n`
      : '';
  return `apiVersion: stacksync/v1
kind: Pipe
metadata:
  name: pipe-${index}
spec:
  pipeId: ${pipeId(kind, index)}
  name: bench-${kind.toLowerCase()}-${index}
${credentials}  settings:
    ${PIPE_SETTINGS[kind]}
`;
}

function dashboardFile(index, target, tag, alertsPerDashboard) {
  const key = `d-${index}`;
  const tiles = TILES.map(
    (tile, t) => `    - name: ${tile}
      x: ${t * 6}
      y: 0
      w: 6
      h: 4
      series:
        - { type: time, dataSource: events, aggFn: ${tile === 'count' || tile === 'errors' ? 'count' : 'quantile'}, where: "service:svc-${index}" }
`,
  );
  const docs = [
    `apiVersion: stacksync/v1
kind: Dashboard
metadata:
  name: ${key}
  target: ${target}
spec:
  name: Bench dashboard ${index}
  tags: [bench, ${tag}]
  tiles:
${tiles.join('')}`,
  ];
  for (let a = 0; a < alertsPerDashboard; a++) {
    docs.push(`apiVersion: stacksync/v1
kind: Alert
metadata:
  name: ${key}-a${a}
  target: ${target}
spec:
  name: Bench alert ${index}.${a}
  source: tile
  dashboard: ${key}
  tile: ${TILES[(a + 1) % TILES.length]}
  threshold: ${100 + a}
  thresholdType: above
  interval: 5m
  channel: { type: webhook, webhookId: bench }
`);
  }
  return docs.join('---\n');
}

function configText(url, rateLimit, sync, statePath) {
  const rate = `    rateLimit: ${JSON.stringify(rateLimit)}\n`;
  return `targets:
  - name: local
    variant: managed
    baseUrl: ${url}
    organizationId: ${IDS.organizationId}
    serviceId: ${IDS.serviceId}
    auth:
      keyId: { fromEnv: STACKSYNC_KEY_ID }
      keySecret: { fromEnv: STACKSYNC_KEY_SECRET }
${rate}  - name: local-selfhosted
    variant: self-hosted
    baseUrl: ${url}
    auth:
      token: { fromEnv: STACKSYNC_TOKEN }
${rate}defaultTarget: local
sync: ${JSON.stringify(sync)}
${statePath ? `state: ${statePath}\n` : ''}`;
}

/**
 * Writes a workspace into `dir`. `counts` from `countsForSize`, or any
 * `{ pipes, dashboards, alertsPerDashboard, selfHosted }`; `tag` varies every dashboard (a changed
 * tag turns each into an update); `statePath` moves the state file (default .stacksync/state.json).
 */
export async function writeFixtures({
  dir,
  url,
  counts,
  tag = 'v1',
  rateLimit = { requests: 100_000, perSeconds: 1, concurrency: 8 },
  sync = {},
  statePath,
}) {
  const files = new Map();
  for (let start = 0; start < counts.pipes; start += 50) {
    const docs = [];
    for (let index = start; index < Math.min(counts.pipes, start + 50); index++) docs.push(pipeManifest(index));
    files.set(`manifests/pipes/pipes-${String(start / 50).padStart(3, '0')}.yaml`, docs.join('---\n'));
  }
  const alternate = counts.selfHosted !== false;
  for (let index = 0; index < counts.dashboards; index++) {
    const target = alternate && index % 2 === 1 ? 'local-selfhosted' : 'local';
    const folder = target === 'local' ? 'managed' : 'selfhosted';
    files.set(
      `manifests/${folder}/d-${String(index).padStart(5, '0')}.yaml`,
      dashboardFile(index, target, tag, counts.alertsPerDashboard),
    );
  }
  files.set('config/stacksync.yaml', configText(url, rateLimit, sync, statePath));
  files.set('seed.json', JSON.stringify(seedFor(counts)));
  await inBatches([...files], async ([path, text]) => {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  });
  return { dir, files: files.size, seed: seedFor(counts), env: { ...FIXTURE_ENV } };
}

/** Rewrites the dashboard files (or only dashboard `only`) with another tag, leaving the rest. */
export async function rewriteDashboards({ dir, counts, tag, only }) {
  const alternate = counts.selfHosted !== false;
  const indexes = only === undefined ? Array.from({ length: counts.dashboards }, (_, index) => index) : [only];
  await inBatches(indexes, (index) => {
    const target = alternate && index % 2 === 1 ? 'local-selfhosted' : 'local';
    const folder = target === 'local' ? 'managed' : 'selfhosted';
    return writeFile(
      join(dir, 'manifests', folder, `d-${String(index).padStart(5, '0')}.yaml`),
      dashboardFile(index, target, tag, counts.alertsPerDashboard),
    );
  });
}

/** `fn` over `items`, 64 at a time: 100,000 resources are 23,000 files, past the open-file limit at once. */
async function inBatches(items, fn) {
  for (let start = 0; start < items.length; start += 64) await Promise.all(items.slice(start, start + 64).map(fn));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: '1000' },
      out: { type: 'string' },
      url: { type: 'string', default: 'http://127.0.0.1:4010' },
    },
  });
  if (!values.out) {
    console.error('usage: node scripts/gen-fixtures.mjs --size N --out DIR [--url URL]');
    process.exit(2);
  }
  const counts = countsForSize(Number(values.size));
  const result = await writeFixtures({ dir: values.out, url: values.url, counts });
  console.log(
    `wrote ${result.files} files to ${values.out}: ${counts.pipes} pipes, ${counts.dashboards} dashboards, ${counts.dashboards * counts.alertsPerDashboard} alerts (${counts.total} resources)`,
  );
  console.log(`start the emulator with: stacksync emulator --seed ${join(values.out, 'seed.json')}`);
}
