// First apply of pipes born in Git at the managed API's real budget (10 requests per 10-second
// window), with the window scaled down (÷ SCALE) so the run takes seconds: the emulator (child,
// `--profile current`) counts 10 requests per 10 s ÷ SCALE per key over a sliding window and settles
// each pipe after a provisioning delay ÷ SCALE; the target is configured with that same budget.
// The figure is calls ÷ floor, the floor being one create per pipe plus one list per poll (apply
// polls the pipes list, once for all pipes still settling), plus the reads of the plan.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SEED_IDS as IDS } from '../../dist/emulator/index.js';
import { dump, runCli, startEmulatorChild, stats } from './lib.mjs';

/** The real budget: 10 requests per 10 s window (docs/reference/api-behaviour.md); the real provisioning: about 30 s. */
const REAL = { requests: 10, windowSeconds: 10, provisioningSeconds: 30 };

function pipeManifest(index) {
  const name = `born-${String(index).padStart(5, '0')}`;
  return `apiVersion: stacksync/v1
kind: Pipe
metadata: { name: ${name} }
spec:
  name: ${name}
  source:
    kafka:
      type: kafka
      format: JSONEachRow
      brokers: b-1.kafka.internal:9092
      topics: topic-${index}
      consumerGroup: stacksync
      authentication: PLAIN
      credentials: { username: { fromEnv: KAFKA_USER }, password: { fromEnv: KAFKA_PASSWORD } }
  destination:
    database: default
    table: t_${index}
    managedTable: true
    tableDefinition: { engine: { type: MergeTree }, sortingKey: [id] }
    columns: [ { name: id, type: String } ]
  fieldMappings: [ { sourceField: id, destinationField: id } ]
`;
}

function configText(url, scale) {
  return `targets:
  - name: local
    variant: managed
    baseUrl: ${url}
    organizationId: ${IDS.organizationId}
    serviceId: ${IDS.serviceId}
    api: { profile: current }
    auth:
      keyId: { fromEnv: STACKSYNC_KEY_ID }
      keySecret: { fromEnv: STACKSYNC_KEY_SECRET }
    rateLimit: { requests: ${REAL.requests}, perSeconds: ${REAL.windowSeconds / scale}, concurrency: 4 }
defaultTarget: local
`;
}

export async function bornPipesFirstApply({ pipes, scale }, log) {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-bench-born-'));
  const windowMs = (REAL.windowSeconds * 1000) / scale;
  const emulator = await startEmulatorChild({
    rateLimit: REAL.requests,
    rateWindow: `${windowMs}ms`,
    extraArgs: ['--profile', 'current', '--pipe-delay', `${Math.round((REAL.provisioningSeconds * 1000) / scale)}ms`],
  });
  try {
    await mkdir(join(dir, 'manifests'), { recursive: true });
    await mkdir(join(dir, 'config'), { recursive: true });
    await writeFile(join(dir, 'config', 'stacksync.yaml'), configText(emulator.url, scale));
    for (let start = 0; start < pipes; start += 50) {
      const docs = [];
      for (let index = start; index < Math.min(pipes, start + 50); index++) docs.push(pipeManifest(index));
      await writeFile(join(dir, 'manifests', `pipes-${String(start / 50).padStart(3, '0')}.yaml`), docs.join('---\n'));
    }
    const result = await runCli(dir, ['apply', '--wait', '1h'], {
      env: { KAFKA_USER: 'consumer', KAFKA_PASSWORD: 'bench-secret' },
      timeoutMs: 1_800_000,
    });
    const server = await stats(emulator.url);
    const count = (method, pattern) =>
      server.routes
        .filter((route) => route.method === method && pattern.test(route.route))
        .reduce((sum, route) => sum + route.count, 0);
    const creates = count('POST', /\/pipes$/);
    const pipeLists = count('GET', /\/pipes$/);
    const otherReads =
      server.routes.filter((route) => route.method === 'GET').reduce((sum, route) => sum + route.count, 0) - pipeLists;
    // The seed's own pipes are not this run's.
    const live = ((await dump(emulator.url)).organizations[0].services[0].pipes ?? []).filter((pipe) =>
      pipe.name.startsWith('born-'),
    );
    const names = live.map((pipe) => pipe.name);
    const floor = pipes + pipeLists + otherReads;
    const figures = {
      pipes,
      scale,
      exit: result.code,
      wallSeconds: result.wallMs / 1000,
      realBudgetSeconds: (result.wallMs / 1000) * scale,
      calls: server.total,
      creates,
      pipeLists,
      otherReads,
      floor,
      ratio: server.total / floor,
      throttled: server.throttled,
      running: live.filter((pipe) => pipe.state === 'Running').length,
      duplicates: names.length - new Set(names).size,
    };
    log(
      `  ${pipes} pipes born in Git, budget 10 per ${REAL.windowSeconds / scale} s (the real 10 per 10 s ÷ ${scale}): ${figures.calls} calls (${creates} creates, ${pipeLists} pipe lists, ${otherReads} other reads), ÷ floor ${figures.ratio.toFixed(3)}, ${figures.throttled} × 429, ${figures.running} Running, ${figures.duplicates} duplicates, exit ${figures.exit}, ${figures.wallSeconds.toFixed(1)} s (≈ ${(figures.realBudgetSeconds / 60).toFixed(0)} min at the real budget)`,
    );
    return figures;
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}
