// forEach at scale (issue 37): 1,000 manifests, each a `metadata.forEach` template over 10 items
// (10,000 dashboards), planned against the same 10,000 written out (the same 1,000 files, each
// holding its 10 documents), everything to create. The goal: the templates plan within 1.2 × the
// time of the written-out form. Runs alternate between the two forms, and the median of each counts.
// The time compared is CPU time (user + system, all threads): on a machine shared with other work,
// wall time swings by 2 × from run to run, and would judge the machine rather than the expansion.
// The wall times are reported beside it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SEED_IDS as IDS } from '../../dist/emulator/index.js';
import { CLI_ENV, expectExit, median, runCli, startEmulatorChild } from './lib.mjs';

/** The goal: the templates' plan takes at most this many times the written-out plan's. */
export const FOR_EACH_GOAL = 1.2;

const TILE =
  '{ name: p99, x: 0, y: 0, w: 12, h: 4, series: [{ type: time, dataSource: events, source: logs, aggFn: quantile, level: 0.99, field: duration_ms }] }';

function body(file, service) {
  return [
    `spec:`,
    `  name: "Board ${file} ${service}"`,
    `  tags: [bench, "${service}"]`,
    `  tiles:`,
    `    - ${TILE}`,
  ].join('\n');
}

export function template(file, services) {
  return [
    'apiVersion: stacksync/v1',
    'kind: Dashboard',
    'metadata:',
    `  name: board-${file}-\${service}`,
    '  forEach:',
    `    service: [${services.join(', ')}]`,
    body(file, '${service}'),
    '',
  ].join('\n');
}

export function writtenOut(file, services) {
  return services
    .map((service) =>
      [
        'apiVersion: stacksync/v1',
        'kind: Dashboard',
        'metadata:',
        `  name: board-${file}-${service}`,
        body(file, service),
        '',
      ].join('\n'),
    )
    .join('---\n');
}

function configText(url) {
  return `targets:
  - name: local
    variant: managed
    baseUrl: ${url}
    organizationId: ${IDS.organizationId}
    serviceId: ${IDS.serviceId}
    auth:
      keyId: { fromEnv: STACKSYNC_KEY_ID }
      keySecret: { fromEnv: STACKSYNC_KEY_SECRET }
    rateLimit: { requests: 100000, perSeconds: 1, concurrency: 8 }
`;
}

export async function workspace(root, name, url, files, items, render) {
  const dir = join(root, name);
  await mkdir(join(dir, 'manifests'), { recursive: true });
  await mkdir(join(dir, 'config'), { recursive: true });
  await writeFile(join(dir, 'config', 'stacksync.yaml'), configText(url));
  const services = Array.from({ length: items }, (_, index) => `s${index}`);
  for (let file = 0; file < files; file++)
    await writeFile(join(dir, 'manifests', `board-${file}.yaml`), render(file, services));
  return dir;
}

/** `{ files, items, repeats }`: files × items resources in each form. */
export async function forEachPlan({ files, items, repeats }, log) {
  const root = await mkdtemp(join(tmpdir(), 'stacksync-bench-foreach-'));
  const emulator = await startEmulatorChild();
  try {
    const templates = await workspace(root, 'templates', emulator.url, files, items, template);
    const written = await workspace(root, 'written', emulator.url, files, items, writtenOut);
    const times = { templates: [], written: [] };
    const walls = { templates: [], written: [] };
    for (let round = 0; round < repeats; round++) {
      for (const [form, dir] of [
        ['written', written],
        ['templates', templates],
      ]) {
        const result = expectExit(
          await runCli(dir, ['plan', '--detailed-exitcode'], { env: CLI_ENV }),
          2,
          `plan of the ${form} form`,
        );
        const summary = result.stdout.split('\n').find((line) => line.startsWith('Plan:')) ?? '';
        if (!summary.includes(`${files * items} to create`))
          throw new Error(`plan of the ${form} form: expected ${files * items} creates, got: ${summary}`);
        times[form].push(result.cpuMs);
        walls[form].push(result.wallMs);
      }
    }
    const templatesMs = median(times.templates);
    const writtenMs = median(times.written);
    const ratio = templatesMs / writtenMs;
    const verdict = ratio <= FOR_EACH_GOAL ? 'meets' : 'misses';
    const wall = { templatesMs: median(walls.templates), writtenMs: median(walls.written) };
    log(
      `  ${files.toLocaleString('en-US')} templates → ${(files * items).toLocaleString('en-US')} resources: plan ${(templatesMs / 1000).toFixed(2)} s CPU (${(wall.templatesMs / 1000).toFixed(2)} s wall); written out: ${(writtenMs / 1000).toFixed(2)} s CPU (${(wall.writtenMs / 1000).toFixed(2)} s wall); ${ratio.toFixed(2)} × (${verdict} the goal of ${FOR_EACH_GOAL} ×)`,
    );
    return {
      files,
      items,
      resources: files * items,
      repeats,
      templatesMs,
      writtenMs,
      ratio,
      goal: FOR_EACH_GOAL,
      meets: ratio <= FOR_EACH_GOAL,
      wall,
      runs: { cpu: times, wall: walls },
    };
  } finally {
    await emulator.close();
    await rm(root, { recursive: true, force: true });
  }
}
